"""The ``tcpsim`` command: predict, sweep, explain, plan, platforms, validate, calibrate.

Parse, call the library, print. Bad input prints one line ``tcpsim: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from .cliutil import OneLineParser, fail
from .errors import ConfigError, TcpsimError

__all__ = ["main"]




def _scenario_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("path")
    g.add_argument("--rate", default="1gbit", help="line rate (default 1gbit; e.g. 100mbit, 10g)")
    g.add_argument("--delay", default="50us", help="one-way propagation delay (default 50us)")
    g.add_argument("--rtt", default=None, help="round-trip propagation delay (sets --delay to half)")
    g.add_argument("--mtu", default="1500", help="MTU in bytes (default 1500)")
    g.add_argument("--queue", type=int, default=None, help="link transmit queue in frames (default unbounded)")
    g.add_argument("--loss", type=float, default=0.0, help="random frame loss fraction (default 0)")
    g = p.add_argument_group("sockets and TCP")
    g.add_argument("--sockbuf", default=None, help="SO_SNDBUF and SO_RCVBUF both ends (e.g. 512k); OS semantics apply")
    g.add_argument("--sndbuf", default=None, help="send buffer request")
    g.add_argument("--rcvbuf", default=None, help="receive buffer request")
    g.add_argument("--nodelay", action="store_true", help="TCP_NODELAY on the sender (Nagle off)")
    g.add_argument("--delack", choices=("bsd", "linux", "solaris", "off"), default=None, help="delayed-ACK rule set")
    g.add_argument("--deferred-acks-max", type=int, default=None, help="Solaris tcp_deferred_acks_max")
    g.add_argument("--os", choices=("linux", "solaris", "bsd"), default=None, help="OS family rules and defaults")
    g = p.add_argument_group("workload")
    g.add_argument("--write", default="64k", help="application write size (default 64k)")
    g.add_argument("--message", default=None, help="small-message stream: message size (like --write)")
    g.add_argument("--message-rate", type=float, default=None, help="messages per second per stream (default: back to back)")
    g.add_argument("--rr", default=None, help="request/response transactions of this size (netperf TCP_RR)")
    g.add_argument("--response", default=None, help="response size for --rr (default: same as the request)")
    g.add_argument("--streams", type=int, default=1, help="parallel streams (default 1)")
    g.add_argument("--bidir", action="store_true", help="each stream also runs the other way")
    g = p.add_argument_group("hosts")
    g.add_argument("--platform", default=None, help="platform profile for both hosts (see 'tcpsim platforms')")
    g.add_argument("--sender", default=None, help="platform profile of the sender")
    g.add_argument("--receiver", default=None, help="platform profile of the receiver")
    g.add_argument("--tuning", default=None, help="a tuning level of the profile (e.g. kernel, driver)")
    g.add_argument("--sysctl", default=None, metavar="FILE",
                   help="tuning file (sysctl.conf, sysctl -w, ndd -set, sysconfig -r, modprobe lines) for both hosts")
    g.add_argument("--cpus", type=int, default=None, help="CPUs per host")
    g.add_argument("--bus", default=None, help="I/O bus preset (pci-32-33, pci-64-66, pcix-64-133, pcie-gen3-x8 ...)")
    g = p.add_argument_group("run")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--max-time", default=None, help="simulated-time budget (default 5s)")


def _scenario_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    from .api import _platform
    from .config import Budget
    from .platform import Platform
    from .units import parse_duration

    kw: dict[str, Any] = dict(rate=a.rate, delay=a.delay, rtt=a.rtt, mtu=a.mtu, sockbuf=a.sockbuf, sndbuf=a.sndbuf,
                              rcvbuf=a.rcvbuf, write=a.write, message=a.message, rr=a.rr, response=a.response,
                              streams=a.streams, bidir=a.bidir, nodelay=a.nodelay, delack=a.delack,
                              deferred_acks_max=a.deferred_acks_max, os=a.os, platform=a.platform, sender=a.sender,
                              receiver=a.receiver, tuning=a.tuning, cpus=a.cpus, bus=a.bus, queue=a.queue,
                              loss=a.loss, message_rate=a.message_rate, seed=a.seed)
    if a.max_time is not None:
        kw["budget"] = Budget(max_sim_time_s=parse_duration(a.max_time, "max_time"))
    if a.sysctl:
        from .tuning import apply_tuning, parse_tuning

        try:
            text = Path(a.sysctl).read_text()
        except OSError as exc:
            raise ConfigError("sysctl", a.sysctl, f"a readable file ({exc.strerror})") from None
        knobs = parse_tuning(text, a.sysctl)
        for role in ("sender", "receiver"):
            spec = kw[role] if kw[role] is not None else kw["platform"]
            base = _platform(spec, a.tuning) or Platform()
            tuned = apply_tuning(base, knobs, a.sysctl)
            kw[role] = tuned.platform
            if tuned.mtu_bytes is not None and a.mtu == "1500":
                kw["mtu"] = tuned.mtu_bytes
        kw["tuning"] = None
    return kw


def _json_ready(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_ready(v) for v in obj]
    return obj


def _cmd_predict(a: argparse.Namespace) -> int:
    from .api import build_scenario, predict
    from .report_text import describe

    kw = _scenario_kwargs(a)
    result = predict(method=a.method, **kw)
    if a.json:
        d = result.to_dict()
        d.pop("trace", None)
        print(json.dumps(_json_ready(d), indent=1, allow_nan=False))
    else:
        print(describe(build_scenario(**kw), result))
    return 0


def _cmd_platforms(a: argparse.Namespace) -> int:
    from .profiles import list_platforms, load_platform, platform_summary, tuning_levels

    names = list_platforms()
    if a.json:
        out = []
        for n in names:
            p = load_platform(n)
            out.append({"name": n, "hardware": p.provenance.hardware, "os": p.provenance.os,
                        "source": p.provenance.source, "tuning_levels": tuning_levels(n),
                        "bus": p.bus.kind, "n_cpus": p.cpu.n_cpus})
        print(json.dumps(out, indent=1))
    else:
        for n in names:
            print(platform_summary(n))
    return 0


def _cmd_explain(a: argparse.Namespace) -> int:
    from .explain import explain

    ex = explain(segments=a.segments, **_scenario_kwargs(a))
    print(ex.text())
    if a.plot:
        ex.plot().savefig(a.plot, dpi=110)
        print(f"figure written to {a.plot}")
    return 0


def _cmd_sweep(a: argparse.Namespace, axes: dict[str, list]) -> int:
    from .sweep import sweep

    kw = _scenario_kwargs(a)
    res = sweep(kw, workers=a.workers, progress=sys.stderr.isatty(), **axes)
    if a.csv:
        text = res.to_csv()
        (sys.stdout.write(text) if a.csv == "-" else Path(a.csv).write_text(text))
    if a.json_out:
        text = json.dumps(_json_ready(res.rows), indent=1)
        (print(text) if a.json_out == "-" else Path(a.json_out).write_text(text + "\n"))
    if not a.csv and not a.json_out:
        print(res.table())
    if a.plot:
        fig = res.plot(a.x or next(iter(axes)), a.y)
        fig.savefig(a.plot, dpi=110)
    return 0


def _cmd_plan(a: argparse.Namespace) -> int:
    from . import plan

    kw = _scenario_kwargs(a)
    if a.question == "sockbuf":
        ans = plan.smallest_sockbuf(a.target, **kw)
    elif a.question == "cpus":
        ans = plan.smallest_cpus(a.target, **kw)
    else:
        ans = plan.jumbo_frames_help(**kw)
    print(ans.text)
    return 0


def _delegate(module: str, argv: list[str]) -> int:
    import importlib

    try:
        mod = importlib.import_module(f"tcpsim.calibration.{module}")
    except ImportError as exc:  # pragma: no cover - a build without the calibration package
        return fail(f"{module} is not available in this build ({exc})")
    return mod.main(argv)


_EXAMPLES = {
    "predict": "Example:\n  tcpsim predict --mtu 9000 --sockbuf 512k\n"
               "  tcpsim predict --platform es40_tru64 --sockbuf 32k --json\n"
               "  tcpsim predict --os solaris --message 100 --message-rate 20000",
    "platforms": "Example:\n  tcpsim platforms --json",
    "sweep": "Example:\n  tcpsim sweep --sockbuf 16k..1M:x2 --mtu 1500,9000 --platform es40_tru64 --csv -",
    "explain": "Example:\n  tcpsim explain --platform sunfire6800_ce --message 100 --segments 30",
    "plan": "Example:\n  tcpsim plan sockbuf --target 900mbit --rtt 1ms\n  tcpsim plan jumbo --platform es40_tru64",
    "validate": "Example:\n  tcpsim validate --json points.json --report",
    "calibrate": "Example:\n  tcpsim calibrate --platform es40_tru64",
}


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = OneLineParser(prog="tcpsim", description="Discrete-event TCP simulator: throughput, and what limits it.",
                formatter_class=fmt, epilog="Example:\n  tcpsim predict --mtu 9000 --sockbuf 512k")
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sp = sub.add_parser("predict", help="simulate one scenario and explain the result", formatter_class=fmt,
                        epilog=_EXAMPLES["predict"])
    _scenario_flags(sp)
    sp.add_argument("--method", choices=("simulate", "ceilings"), default="simulate")
    sp.add_argument("--json", action="store_true", help="print a JSON object with stable keys")
    sp = sub.add_parser("platforms", help="list platform profiles and their sources", formatter_class=fmt,
                        epilog=_EXAMPLES["platforms"])
    sp.add_argument("--json", action="store_true")
    sp = sub.add_parser("sweep", help="run a grid of scenarios (any flag as a list or range)", formatter_class=fmt,
                        epilog=_EXAMPLES["sweep"] + "\n\nRanges: 16k..1M:x2 (geometric), 1..20:+4 (arithmetic), "
                        "1500,9000 (list).")
    _scenario_flags(sp)
    sp.add_argument("--csv", default=None, metavar="FILE", help="write CSV ('-' = stdout)")
    sp.add_argument("--json", dest="json_out", default=None, metavar="FILE", help="write JSON ('-' = stdout)")
    sp.add_argument("--plot", default=None, metavar="PNG")
    sp.add_argument("--x", default=None, help="x column for --plot (default: the first swept input)")
    sp.add_argument("--y", default="goodput_mbps", help="y column for --plot (default goodput_mbps)")
    sp.add_argument("--workers", type=int, default=None, help="parallel processes (default: all cores)")
    sp = sub.add_parser("explain", help="packet-by-packet timeline of a scenario's first segments",
                        formatter_class=fmt, epilog=_EXAMPLES["explain"])
    _scenario_flags(sp)
    sp.add_argument("--segments", type=int, default=40, help="segments to show (default 40)")
    sp.add_argument("--plot", default=None, metavar="PNG", help="also draw a sequence diagram")
    sp = sub.add_parser("plan", help="capacity planning: inverse questions answered with the simulator",
                        formatter_class=fmt, epilog=_EXAMPLES["plan"])
    sp.add_argument("question", choices=("sockbuf", "cpus", "jumbo"))
    sp.add_argument("--target", default=None, help="target goodput (e.g. 900mbit) for sockbuf and cpus")
    _scenario_flags(sp)
    sub.add_parser("validate", help="compare the model with every measured table", add_help=False,
                   formatter_class=fmt, epilog=_EXAMPLES["validate"])
    sub.add_parser("calibrate", help="fit a platform's parameters to its calibration tables", add_help=False,
                   formatter_class=fmt, epilog=_EXAMPLES["calibrate"])
    return p


_SWEEPABLE = ("rate", "delay", "rtt", "mtu", "sockbuf", "sndbuf", "rcvbuf", "write", "message", "rr", "streams",
              "cpus", "bus", "platform", "sender", "receiver", "tuning", "message_rate", "loss", "queue", "seed")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("validate", "calibrate"):
        try:
            return _delegate("validate" if argv[0] == "validate" else "calibrate", argv[1:])
        except SystemExit as exc:
            return int(exc.code or 0)
        except (TcpsimError, ValueError) as exc:
            return fail(str(exc).splitlines()[0])
    try:
        parser = _parser()
        if argv and argv[0] == "sweep":
            from .sweep import split_axes

            argv, axes = split_axes(argv, _SWEEPABLE)
            args = parser.parse_args(argv)
            return _cmd_sweep(args, axes)
        args = parser.parse_args(argv)
        if args.command == "predict":
            return _cmd_predict(args)
        if args.command == "platforms":
            return _cmd_platforms(args)
        if args.command == "explain":
            return _cmd_explain(args)
        if args.command == "plan":
            if args.question in ("sockbuf", "cpus") and not args.target:
                return fail(f"plan {args.question} needs --target (e.g. --target 900mbit)")
            return _cmd_plan(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    except (TcpsimError, ValueError) as exc:
        return fail(str(exc).splitlines()[0])
    except KeyboardInterrupt:
        return 130
    return 2
