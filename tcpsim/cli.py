"""The ``tcpsim`` command: predict, platforms, sweep, explain, plan, validate, calibrate.

Parse, call the library, print. Bad input (a :class:`~tcpsim.errors.ConfigError`, a bad unit, an
unknown platform, a bad range) prints one line ``tcpsim: error: ...`` on stderr and exits 2, as
argparse errors do. Heavy modules (the engine, numpy, matplotlib) load only inside the command that
needs them, so ``import tcpsim.cli`` and ``tcpsim --help`` stay fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .cliutil import OneLineParser, exit_code, fail, flush_stdout, refuse_empty_values, stop_on_term, typed
from .config import MAX_WORKERS
from .errors import ConfigError
from .fileio import check_figure_path, check_output_paths, read_text_limited, write_text_reporting
from .platform import DELACK_RULES
from .result import json_ready
from .units import format_duration, parse_int, parse_size

__all__ = ["main"]

_FMT = argparse.RawDescriptionHelpFormatter

_EXAMPLES = {
    "tcpsim": "Examples:\n  tcpsim predict --mtu 9000 --sockbuf 512k\n  tcpsim platforms\n"
              "  tcpsim predict --platform es40_tru64 --sockbuf 32k\n  tcpsim <command> --help",
    "predict": "Examples:\n  tcpsim predict --mtu 9000 --sockbuf 512k\n"
               "  tcpsim predict --platform es40_tru64 --sockbuf 32k --json\n"
               "  tcpsim predict --platform rx2600_ixgb --tuning driver --rate 10gbit --mtu 9000 --streams 4\n"
               "  tcpsim predict --platform p4_linux --rtt 10ms --sockbuf 1M --sysctl tuned.conf\n"
               "  tcpsim predict --os solaris --message 100 --message-rate 20000\n"
               "  tcpsim predict --cpu itanium2 --cpu-ghz 1.6 --cpus 4 --bus pcix-64-133 --nic e1000 --os linux-2.6\n"
               "  tcpsim predict --machine mybox.toml --sockbuf 256k",
    "platforms": "Example:\n  tcpsim platforms\n  tcpsim platforms --json",
    "sweep": "Examples:\n  tcpsim sweep --sockbuf 16k..1M:x2 --mtu 1500,9000 --platform es40_tru64\n"
             "  tcpsim sweep --streams 1..20:+4 --platform rx2600_ixgb --rate 10gbit --csv -\n"
             "  tcpsim sweep --sockbuf 16k..1M:x2 --rtt 1ms,10ms --plot bdp.png --x sockbuf --y goodput_mbps\n\n"
             "Any input flag takes a list or a range instead of one value:\n"
             "  a,b,c        a list (1500,9000; es40_tru64,ideal)\n"
             "  lo..hi:xF    geometric (16k..1M:x2 = 16k 32k 64k ... 1M)\n"
             "  lo..hi:+S    arithmetic (1..20:+4 = 1 5 9 13 17); lo..hi steps by 1 on whole-number inputs\n"
             "Points run in parallel on all cores (--workers 1: one at a time); each point's seed comes\n"
             "from numpy SeedSequence(--seed).spawn, so the table does not depend on --workers.",
    "explain": "Examples:\n  tcpsim explain --os solaris --message 100 --message-rate 20000 --delay 5us\n"
               "  tcpsim explain --platform sunfire6800_ce --message 100 --segments 30 --diagram nagle.png\n"
               "  tcpsim explain --os linux --rtt 20ms --loss 0.001 --segments 2000 --plot run.png --pcap run.pcap",
    "plan": "Examples:\n  tcpsim plan sockbuf --target 900mbit --rtt 1ms\n"
            "  tcpsim plan cpus --target 500mbit --platform es40_tru64 --sockbuf 512k\n"
            "  tcpsim plan jumbo --platform es40_tru64\n"
            "  tcpsim plan flows --target 20mbit --uplink 1gbit --rtt 20ms",
    "compare": "Examples:\n  tcpsim compare --platform es40_tru64 --what-if mtu=9000\n"
               "  tcpsim compare --rtt 10ms --what-if sockbuf=4M --what-if streams=2 --json\n"
               "  tcpsim compare --a \"--platform p4_linux\" --b \"--platform p4_freebsd\" --sockbuf 256k",
    "validate": "Example:\n  tcpsim validate --report",
    "calibrate": "Examples:\n  tcpsim calibrate --platform es40_tru64\n"
                 "  tcpsim calibrate --iperf3 run1.json run2.json --rate 10gbit --rtt 0.2ms --out myhost.toml",
    "lab": "Example:\n  sudo tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k",
}

_SWEEPABLE = ("rate", "delay", "rtt", "mtu", "sockbuf", "sndbuf", "rcvbuf", "write", "message", "read", "rr",
              "response", "streams", "cpus", "bus", "platform", "sender", "receiver", "tuning", "os", "delack",
              "deferred_acks_max", "message_rate", "loss", "queue", "sack", "limited_transmit", "cc",
              "max_pacing_rate", "seed", "machine", "cpu", "cpu_ghz", "memory_bw", "nic")

_SHORT = {"-w": "sockbuf", "-P": "streams", "-l": "write"}
"""iperf3's spellings of sweepable flags (-M, -N and -J take one value or none)."""

_DELEGATES = {"validate": ("validate",), "calibrate": ("calibrate", "fit")}
"""Subcommands served by tcpsim.calibration modules (first module found with a ``main(argv)``)."""


# ---------------------------------------------------------------- flags shared by predict, sweep, explain, plan

def _scenario_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("path")
    g.add_argument("--rate", default="1gbit", help="line rate (default 1gbit; 100mbit, 10gbit ...; 0 or unshaped: a link too fast to "
                        "matter, so the hosts' own limits decide)")
    g.add_argument("--delay", default=None, help="one-way propagation delay (default 50us)")
    g.add_argument("--rtt", default=None, help="round-trip propagation delay, instead of --delay")
    g.add_argument("--mtu", default=None, help="MTU in bytes (default 1500; 9000 or 9k = jumbo frames; decimal)")
    g.add_argument("-M", "--mss", default=None, help="TCP maximum segment size instead of --mtu (iperf3 -M): "
                   "MTU = MSS + 40")
    g.add_argument("--queue", type=typed(parse_int, "queue", lo=1), default=None, metavar="N",
                   help="link queue in frames (default unbounded)")
    g.add_argument("--loss", default="0", metavar="FRAC", help="random frame loss, 0..0.5 (default 0; 1e-3 or 0.1%% = "
                   "one frame in a thousand)")
    g.add_argument("--veth", action="store_true", help="the hosts are two network namespaces joined by a veth pair "
                   "(tcpsim lab's path without a delay line): each frame's receive stack runs on the sending CPU")
    g = p.add_argument_group("sockets and TCP")
    g.add_argument("-w", "--sockbuf", default=None, help="SO_SNDBUF and SO_RCVBUF on both ends (512k); the OS rules apply "
                   "(Linux doubles and caps at rmem_max)")
    g.add_argument("--sndbuf", default=None, help="SO_SNDBUF request")
    g.add_argument("--rcvbuf", default=None, help="SO_RCVBUF request")
    g.add_argument("-N", "--nodelay", action="store_true", help="TCP_NODELAY on the sender (Nagle off)")
    g.add_argument("--delack", choices=DELACK_RULES, default=None,
                   help="delayed-ACK rules (bsd44: 4.4BSD header prediction, ACKs ride on window updates)")
    g.add_argument("--deferred-acks-max", type=typed(parse_int, "deferred_acks_max", lo=1), default=None, metavar="N", help="Solaris tcp_deferred_acks_max")
    g.add_argument("--sack", choices=("on", "off"), default=None,
                   help="selective acknowledgment (RFC 2018) and its loss recovery (RFC 6675) on both ends "
                        "(default: each OS's own setting)")
    g.add_argument("--limited-transmit", choices=("on", "off"), default=None,
                   help="a new segment on each of the first two duplicate ACKs (RFC 3042; default: each OS's own, "
                        "on for Linux and FreeBSD 5)")
    g.add_argument("--os", default=None, metavar="OS",
                   help="OS on both hosts, with its TCP rules and default sysctls: linux (= linux-6.12), "
                        "linux-2.4 ... linux-6.12 or any release from 2.6.32 to 7.x (linux-5.4, linux-6.18), "
                        "solaris-8, solaris-10, hpux-11, tru64-5, freebsd-4 ... "
                        "freebsd-14, windows-nt, windows-2000, windows-2003, solaris, bsd (tcpsim machine parts "
                        "os); a profile keeps its own OS settings unless the family changes")
    g.add_argument("--cc", choices=("reno", "cubic"), default=None,
                   help="congestion control on both ends (default: the OS's own, cubic on versioned Linux)")
    g.add_argument("--max-pacing-rate", default=None, metavar="RATE",
                   help="SO_MAX_PACING_RATE on every socket, as iperf3 --fq-rate sets it (300mbit): Linux 4.13 on "
                        "paces each stream's payload to it")
    g = p.add_argument_group("workload")
    g.add_argument("-l", "--write", default=None, help="application write size (default 64k; iperf3 -l)")
    g.add_argument("--message", default=None, help="small messages of this size instead of bulk writes")
    g.add_argument("--read", default=None,
                   help="bytes the receiving application asks for per read (default: all that is queued; iperf3 "
                        "reads its -l block)")
    g.add_argument("--message-rate", default=None, metavar="HZ",
                   help="messages per second per stream (default: back to back)")
    g.add_argument("--rr", default=None, help="request/response transactions of this request size (netperf TCP_RR)")
    g.add_argument("--response", default=None, help="response size for --rr (default: the request size)")
    g.add_argument("-P", "--streams", type=typed(parse_int, "streams", lo=1), default=1, metavar="N",
                   help="parallel connections (default 1)")
    g.add_argument("--bidir", action="store_true", help="each stream also runs the other way (not with --rr)")
    g = p.add_argument_group("hosts")
    g.add_argument("--platform", default=None, metavar="NAME", help="profile for both hosts (tcpsim platforms)")
    g.add_argument("--sender", default=None, metavar="NAME", help="profile of the sender")
    g.add_argument("--receiver", default=None, metavar="NAME", help="profile of the receiver")
    g.add_argument("--tuning", default=None, metavar="LEVEL",
                   help="a tuning level of the profile: none, kernel, driver ... (tcpsim platforms lists them)")
    g.add_argument("--sysctl", default=None, metavar="FILE",
                   help="a tuning file for both hosts (sysctl.conf, sysctl -w, ndd -set, sysconfig -r, modprobe, "
                        "ifconfig mtu lines)")
    g.add_argument("--cpus", type=typed(parse_int, "cpus", lo=1), default=None, metavar="N", help="CPUs per host")
    g.add_argument("--bus", default=None, metavar="PART", help="I/O bus (pci-32-33, pcix-64-133, pcie-gen1-x4 ...; "
                   "a profile's fitted bus efficiency does not carry over)")
    from .config import Budget
    from .machine.cli import add_part_flags

    add_part_flags(g, with_os=False)
    g = p.add_argument_group("run")
    g.add_argument("--seed", type=typed(parse_int, "seed", lo=0), default=0, help="random seed (default 0)")
    g.add_argument("--max-time", default=None, metavar="DURATION",
                   help="simulated-time budget (default: what the run needs to converge, at least 5s and 500 round "
                        "trips, more on a lossy path, at most 1h)")
    g.add_argument("--max-events", default=None, metavar="N", type=typed(parse_int, "max_events", lo=100, hi=10**12),
                   help=f"event budget of a run, e.g. 20000000 (default {Budget().max_events:,}: some 1-2 s of "
                        "a compiled install's time; an unshaped link's warm-up can need more)")
    g.add_argument("--max-wall", default=None, metavar="DURATION",
                   help=f"wall-clock budget of a run (default {Budget().max_wall_s:g}s)")


def _scenario_kwargs(a: argparse.Namespace, axes: dict[str, list] | None = None) -> dict[str, Any]:
    """build_scenario keywords from the shared flags; a --sysctl file is applied to both hosts here.

    ``axes`` (sweep): the swept flags; a swept --platform/--sender/--receiver gets the file applied per value.
    """
    from .config import Budget
    from .units import parse_duration

    axes = axes if axes is not None else {}
    if (a.delay is not None or "delay" in axes) and (a.rtt is not None or "rtt" in axes):
        delay = a.delay if a.delay is not None else ",".join(
            format_duration(v) if isinstance(v, (int, float)) else str(v) for v in axes["delay"])
        raise ConfigError("delay", delay, "left out when --rtt is given (one of --delay, --rtt)")
    mtu = a.mtu
    if a.mss is not None:
        if a.mtu is not None or "mtu" in axes:
            raise ConfigError("mss", a.mss, "left out when --mtu is given (one of --mtu, --mss)")
        mss = parse_size(a.mss, "mss", decimal=True, allowed="in 28..65495 bytes (an MTU of 68..65535 less 40 bytes of "
                         "headers)")
        if not 28 <= mss <= 65495:
            raise ConfigError("mss", a.mss, "in 28..65495 bytes (an MTU of 68..65535 less 40 bytes of headers)")
        mtu = mss + 40  # IPv4 and TCP headers without options
    writes = a.write is not None or "write" in axes
    for flag in ("message", "rr"):
        if writes and (getattr(a, flag) is not None or flag in axes):
            given = getattr(a, flag) if getattr(a, flag) is not None else ",".join(map(str, axes[flag]))
            raise ConfigError(flag, given, "left out when --write is given (a message or request sets the writes' "
                              "size: one of --write, --" + flag + ")")
    profiled = any((a.platform, a.sender, a.receiver)) or any(k in axes for k in ("platform", "sender", "receiver"))
    if a.tuning not in (None, "none", "default") and not profiled:
        raise ConfigError("tuning", a.tuning, "used with --platform, --sender or --receiver (levels belong to a "
                          "profile; a tuning file goes to --sysctl)")
    kw: dict[str, Any] = dict(rate=a.rate, delay=a.delay, rtt=a.rtt,
                              mtu=1500 if mtu is None else mtu,
                              sockbuf=a.sockbuf, sndbuf=a.sndbuf, rcvbuf=a.rcvbuf,
                              write="64k" if a.write is None else a.write, message=a.message,
                              read=a.read, rr=a.rr, response=a.response, streams=a.streams, bidir=a.bidir, nodelay=a.nodelay,
                              delack=a.delack, deferred_acks_max=a.deferred_acks_max, os=a.os, platform=a.platform,
                              sender=a.sender, receiver=a.receiver, tuning=a.tuning, cpus=a.cpus, bus=a.bus,
                              queue=a.queue, loss=a.loss, message_rate=a.message_rate, sack=a.sack,
                              limited_transmit=a.limited_transmit, cc=a.cc, max_pacing_rate=a.max_pacing_rate,
                              seed=a.seed,
                              machine=a.machine, cpu=a.cpu, cpu_ghz=a.cpu_ghz, memory_bw=a.memory_bw, nic=a.nic,
                              veth=a.veth)
    budget: dict[str, Any] = {}
    if a.max_time is not None:
        budget["max_sim_time_s"] = parse_duration(a.max_time, "max_time")
    if a.max_events is not None:
        budget["max_events"] = a.max_events
    if a.max_wall is not None:
        budget["max_wall_s"] = parse_duration(a.max_wall, "max_wall")
    if budget:
        flags = {"max_sim_time_s": ("max_time", a.max_time), "max_wall_s": ("max_wall", a.max_wall)}
        try:
            kw["budget"] = Budget(**budget)
        except ConfigError as exc:  # name the flag as written, not Budget's field
            flag, given = flags.get(exc.field, (exc.field, exc.value))
            raise ConfigError(flag, given, exc.allowed) from None
    if a.sysctl is not None:
        for bad in ("tuning", "os", "machine", "cpu", "cpu_ghz", "memory_bw", "nic", "bus", "cpus"):
            if bad in axes:
                raise ConfigError(bad, ",".join(map(str, axes[bad])), "a single value when --sysctl is given")
        from .machine.cli import part_kwargs

        parts = part_kwargs(a)
        knobs = _read_tuning_file(a.sysctl)
        effects: dict[tuple, None] = {}  # what each knob did on each host tuned, once each, in file order
        for key in ("platform", "sender", "receiver"):
            if key in axes:
                axes[key] = [_tuned(v, a.tuning, parts, knobs, a.sysctl, effects) for v in axes[key]]
        for role in ("sender", "receiver"):
            if role in axes or ("platform" in axes and kw[role] is None):
                continue  # every swept value was tuned above
            kw[role] = _tuned(kw[role] if kw[role] is not None else kw["platform"], a.tuning, parts, knobs, a.sysctl,
                              effects)
        a.sysctl_effects = sorted(effects, key=lambda e: e[0])
        file_mtu = [k.value for k in knobs if getattr(k, "name", None) == "mtu"]
        if file_mtu and mtu is None and "mtu" not in axes:
            kw["mtu"] = file_mtu[-1]
        kw.update(tuning=None, **{k: None for k in parts})
    return kw


def _read_tuning_file(path: str) -> list:
    from .tuning import parse_tuning

    return parse_tuning(read_text_limited(path, "sysctl"), path)


def _tuned(spec: Any, tuning: str | None, parts: dict[str, Any], knobs: list, path: str, effects: dict) -> Any:
    """A profile (or the ideal host) with its tuning level and the part flags, then the file's knobs; each
    knob's effect on it joins ``effects`` as (line, knob, value, what it did)."""
    from .machine.spec import platform_for
    from .platform import Platform
    from .tuning import apply_tuning

    base = platform_for(spec, tuning=tuning, **parts) or Platform()
    out = apply_tuning(base, knobs, path)
    effects.update(((k.line_no, k.name, k.value_text, what), None) for k, what in out.effects)
    return out.platform


def _sysctl_lines(a: argparse.Namespace) -> list[str]:
    """For predict's text: the --sysctl file's knobs that changed nothing here, and why (the kernel version has
    no such knob, or tcpsim does not model it); a count of the others."""
    effects = getattr(a, "sysctl_effects", [])
    ignored = [e for e in effects if e[3].startswith("ignored")]
    applied = len({e[:3] for e in effects} - {e[:3] for e in ignored})
    lines = [f"sysctl       {a.sysctl}: {applied} knob(s) applied, {len(ignored)} ignored" + (":" if ignored else "")]
    lines += [f"  line {line}: {name} = {value}: {what}" for line, name, value, what in ignored]
    return lines if effects else []


def _dump(obj: Any) -> str:
    return json.dumps(json_ready(obj), indent=1, allow_nan=False)


def _write(path: str, text: str, field: str = "output") -> None:
    """Write ``text`` to a file, or to stdout for ``-`` (errors in one line, see tcpsim.fileio)."""
    write_text_reporting(path, text, field)


def _save_figure(drawn: Any, path: str) -> None:
    """Save the figure an Axes (or array of Axes, or Figure) is drawn on."""
    fig = getattr(drawn, "figure", None) or getattr(getattr(drawn, "flat", [None])[0], "figure", None) or drawn
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        from .errors import OutputError
        from .fileio import is_device_full

        if is_device_full(exc):
            raise OutputError(f"plot: cannot write {path}: {exc.strerror}") from None
        raise ConfigError("plot", path, f"a writable file ({exc.strerror})") from None
    except ValueError as exc:  # an extension matplotlib has no writer for
        raise ConfigError("plot", path, f"a .png, .pdf or .svg path ({str(exc).splitlines()[0]})") from None
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


# ---------------------------------------------------------------- commands

def _cmd_predict(a: argparse.Namespace) -> int:
    from .api import build_scenario, predict

    check_output_paths(("json", a.json))
    if a.timing and not a.json:
        raise ConfigError("timing", True, "given with --json (it adds the run's wall-clock seconds to the JSON)")
    kw = _scenario_kwargs(a)
    result = predict(method=a.method, **kw)
    if a.json:
        d = result.to_dict(timing=a.timing)
        d.update(goodput_bps=result.goodput_bps, data_packets_per_s=result.data_packets_per_s,
                 limited_by=result.limited_by, ceilings_bps=dict(result.ceilings_bps),
                 payload_histogram={str(k): v for k, v in sorted(result.payload_histogram.items())})
        if a.sysctl is not None:
            d["sysctl"] = {"file": a.sysctl, "knobs": [
                {"line": line, "knob": name, "value": value, "effect": what, "ignored": what.startswith("ignored")}
                for line, name, value, what in getattr(a, "sysctl_effects", [])]}
        _write(a.json, _dump(d), "json")
    else:
        from .report_text import describe

        print("\n".join([describe(build_scenario(**kw), result), *_sysctl_lines(a)]))
    return 0


def _cmd_platforms(a: argparse.Namespace) -> int:
    from . import profiles
    from .confidence import source_title

    names = profiles.list_platforms()
    if a.json is None:
        for n in names:
            print(profiles.platform_summary(n))
        return 0
    levels = getattr(profiles, "tuning_levels", lambda n: [])
    out = []
    for n in names:
        p = profiles.load_platform(n)
        fit = dict(getattr(p, "fit", ()) or ())
        out.append({"name": n, "summary": profiles.platform_summary(n), "hardware": p.provenance.hardware,
                    "os": p.provenance.os, "os_family": p.os.family, "source": p.provenance.source,
                    "source_title": source_title(p.provenance.source) if p.provenance.source else None,
                    "tuning_levels": list(levels(n)), "n_cpus": p.cpu.n_cpus, "bus": p.bus.kind,
                    "median_abs_rel_error": fit.get("median_abs_rel_error")})
    _write(a.json, _dump(out), "json")
    return 0


def _cmd_sweep(a: argparse.Namespace, axes: dict[str, list]) -> int:
    from .sweep import check_columns, sweep

    check_output_paths(("csv", a.csv), ("json", a.json_out))  # before the run, not after it
    check_figure_path(a.plot, "plot")
    check_columns(axes, x=a.x, y=a.y, hue=a.hue)
    for flag in ("x", "hue"):
        if getattr(a, flag) is not None and not a.plot:
            raise ConfigError(flag, getattr(a, flag), "given with --plot (it names the figure's column)")
    kw = _scenario_kwargs(a, axes)
    res = sweep(kw, workers=a.workers, progress=sys.stderr.isatty(), max_points=a.max_points, **axes)
    to_stdout = False
    if a.csv is not None:
        _write(a.csv, res.to_csv(), "csv")
        to_stdout |= a.csv == "-"
    if a.json_out is not None:
        _write(a.json_out, res.to_json(), "json")
        to_stdout |= a.json_out == "-"
    if not to_stdout:
        print(res.table())
    if a.plot:
        names = list(axes)
        x = a.x or (names[0] if names else None)
        if x is None:
            raise ConfigError("x", None, "a column for --plot (nothing was swept)")
        hue = a.hue or next((n for n in names if n != x and res.column_name(n) != res.column_name(x)), None)
        _save_figure(res.plot(x, a.y, hue=hue), a.plot)
        print(f"figure written to {a.plot}", file=sys.stderr)
    return 0


def _cmd_explain(a: argparse.Namespace) -> int:
    from .explain import explain

    check_output_paths(("pcap", a.pcap))
    if a.snaplen is not None and not a.pcap:
        raise ConfigError("snaplen", a.snaplen, "given with --pcap (the bytes kept per frame of the capture)")
    check_figure_path(a.plot, "plot")
    check_figure_path(a.diagram, "diagram")
    ex = explain(segments=a.segments, **_scenario_kwargs(a))
    print(ex.text())
    if a.plot:
        _save_figure(ex.plot_timeseries(), a.plot)
        print(f"figure written to {a.plot}", file=sys.stderr)
    if a.diagram:
        _save_figure(ex.plot(), a.diagram)
        print(f"figure written to {a.diagram}", file=sys.stderr)
    if a.pcap:
        n = ex.to_pcap(a.pcap, snaplen=65535 if a.snaplen is None else a.snaplen)
        print(f"capture written to {a.pcap} ({n} frames; tcpdump -r or Wireshark opens it)", file=sys.stderr)
    return 0


def _cmd_plan(a: argparse.Namespace) -> int:
    from dataclasses import asdict

    from . import plan

    if a.question in ("sockbuf", "cpus", "flows") and not a.target:
        raise ConfigError("target", None, f"given for plan {a.question} (e.g. --target 900mbit)")
    unused = {"target": a.target if a.question == "jumbo" else None, "uplink": a.uplink if a.question != "flows" else None,
              "max_cpus": a.max_cpus if a.question != "cpus" and a.max_cpus != 64 else None,
              "mtu": a.mtu if a.question == "jumbo" else None,
              "sockbuf": a.sockbuf if a.question == "sockbuf" else None,
              "cpus": a.cpus if a.question == "cpus" else None}
    for flag, value in unused.items():  # a flag the question does not read is an error, not silently dropped
        if value is not None:
            raise ConfigError(flag, value, f"left out of plan {a.question}" + (
                " (it compares MTU 1500 with 9000)" if flag == "mtu" else
                f" (it searches the {flag} itself)" if flag in ("sockbuf", "cpus") else ""))
    check_output_paths(("json", a.json))
    kw = _scenario_kwargs(a)
    if a.question == "flows":
        ans: Any = _plan_flows(a, kw)
    elif a.question == "sockbuf":
        ans = plan.smallest_sockbuf(a.target, **kw)
    elif a.question == "cpus":
        ans = plan.smallest_cpus(a.target, max_cpus=a.max_cpus, **kw)
    else:
        ans = plan.jumbo_frames_help(**kw)
    if a.json is not None:
        _write(a.json, _dump(asdict(ans)), "json")
    else:
        print(ans.text)
    return 0


def _plan_flows(a: argparse.Namespace, kw: dict[str, Any]) -> Any:
    """``plan flows``: how many flows of --target fit through --uplink (tcpsim.uplink)."""
    from .units import parse_duration
    from .uplink import flows_that_fit

    uplink = a.uplink or kw.get("rate")
    if not uplink:
        raise ConfigError("uplink", None, "given for plan flows (e.g. --uplink 1gbit)")
    if a.rtt is None and a.delay is None:
        raise ConfigError("rtt", None, "given for plan flows (e.g. --rtt 20ms)")
    rtt = a.rtt if a.rtt is not None else f"{2 * parse_duration(a.delay, 'delay')!r}s"
    rest = {k: v for k, v in kw.items() if k not in ("rate", "rtt", "delay", "queue")}
    if rest.get("streams") == 1:  # the flag's default; the uplink sets the count
        del rest["streams"]
    return flows_that_fit(a.target, uplink, rtt, kw.get("queue"), **rest)


def _cmd_compare(a: argparse.Namespace) -> int:
    import copy
    import shlex

    from .compare import compare

    if (a.a is None) != (a.b is None) or (a.a is not None and a.what_if):
        raise ConfigError("compare", "--a/--b/--what-if", "--a and --b together, or one or more --what-if")
    check_output_paths(("json", a.json))
    if a.a is None:
        if not a.what_if:
            raise ConfigError("what_if", None, "at least one --what-if KEY=VALUE (or --a and --b)")
        cmp = compare(_scenario_kwargs(a), what_if=a.what_if)
    else:
        sides = []
        for name, text in (("a", a.a), ("b", a.b)):
            sub = OneLineParser(prog=f"tcpsim compare --{name}")
            _scenario_flags(sub)
            sides.append(_scenario_kwargs(sub.parse_args(shlex.split(text), namespace=copy.copy(a))))
        cmp = compare(sides[0], sides[1])
    if a.json is not None:
        _write(a.json, _dump(cmp.to_dict()), "json")
    else:
        print(cmp.text())
    return 0


def _delegate(command: str, argv: list[str]) -> int:
    import importlib

    for module in _DELEGATES[command]:
        try:
            mod = importlib.import_module(f"tcpsim.calibration.{module}")
        except ImportError:
            continue
        if callable(getattr(mod, "main", None)):
            return int(mod.main(argv) or 0)
    return fail(f"{command} is not available in this build")


# ---------------------------------------------------------------- parser

def _version() -> str:
    from . import __version__
    from .components import hot_path_label

    return f"tcpsim {__version__} ({hot_path_label()} hot path)"


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="tcpsim", description="Discrete-event TCP simulator: the throughput you will get, "
                      "and what limits it.", formatter_class=_FMT, epilog=_EXAMPLES["tcpsim"])
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, metavar="command", parser_class=OneLineParser)

    sp = sub.add_parser("predict", help="simulate one scenario: goodput, what limits it, what would help",
                        description="Simulate one scenario and explain the result.", formatter_class=_FMT,
                        epilog=_EXAMPLES["predict"])
    _scenario_flags(sp)
    sp.add_argument("--method", choices=("simulate", "ceilings"), default="simulate",
                    help="simulate (default) or the closed-form ceilings alone (instant)")
    sp.add_argument("-J", "--json", nargs="?", const="-", default=None, metavar="FILE",
                    help="print one JSON object with stable keys (to FILE if given; --json=FILE)")
    sp.add_argument("--timing", action="store_true", help="with --json: add wall_s, the run's wall-clock seconds "
                    "(left out by default, so the same seed gives the same bytes)")

    sp = sub.add_parser("platforms", help="list the platform profiles and their sources",
                        description="List the platform profiles: hardware, OS, source, tuning levels.",
                        formatter_class=_FMT, epilog=_EXAMPLES["platforms"])
    sp.add_argument("-J", "--json", nargs="?", const="-", default=None, metavar="FILE", help="print a JSON array (to FILE if given)")

    sp = sub.add_parser("sweep", help="run a grid of scenarios (any input as a list or range)",
                        description="Run a grid of scenarios: give any input flag a list or a range.",
                        formatter_class=_FMT, epilog=_EXAMPLES["sweep"])
    _scenario_flags(sp)
    g = sp.add_argument_group("output")
    g.add_argument("--csv", default=None, metavar="FILE", help="write CSV ('-' = stdout)")
    g.add_argument("-J", "--json", dest="json_out", nargs="?", const="-", default=None, metavar="FILE",
                   help="write JSON to FILE ('-' or no FILE = stdout)")
    g.add_argument("--plot", default=None, metavar="PNG", help="draw --y against --x (needs matplotlib)")
    g.add_argument("--x", default=None, help="x for --plot: a swept flag or a column (default: the first swept)")
    g.add_argument("--y", default="goodput_mbps", help="y for --plot (default goodput_mbps)")
    g.add_argument("--hue", default=None, help="one line per value of this (default: the other swept flag)")
    g.add_argument("--workers", type=typed(parse_int, "workers", lo=1, hi=MAX_WORKERS), default=None, metavar="N",
                   help="processes (default: all cores; 1 = serial)")
    g.add_argument("--max-points", type=typed(parse_int, "max_points", lo=1), default=None, metavar="N",
                   help="largest grid run (default 10000; a larger grid is refused before it is built)")

    sp = sub.add_parser("explain", help="packet-by-packet timeline of a scenario's first segments",
                        description="Print a sequence diagram of the first segments and the payload cycle.",
                        formatter_class=_FMT, epilog=_EXAMPLES["explain"])
    _scenario_flags(sp)
    sp.add_argument("--segments", type=typed(parse_int, "segments", lo=1), default=40, metavar="N", help="segments to show (default 40)")
    sp.add_argument("--plot", default=None, metavar="PNG",
                    help="draw cwnd, bytes in flight and windows over time, and a time-sequence plot")
    sp.add_argument("--diagram", default=None, metavar="PNG", help="draw the sequence diagram (the Sun blueprint's Figure 8)")
    sp.add_argument("--pcap", default=None, metavar="FILE", help="write the segments as a pcap capture (tcpdump, Wireshark)")
    sp.add_argument("--snaplen", type=typed(parse_int, "snaplen", lo=54, hi=262144), default=None, metavar="BYTES",
                    help="bytes kept per frame in --pcap (default 65535)")

    sp = sub.add_parser("plan", help="capacity planning: smallest buffer, fewest CPUs, jumbo or not, flows per uplink",
                        description="Inverse questions answered by root finding over the simulator.",
                        formatter_class=_FMT, epilog=_EXAMPLES["plan"])
    sp.add_argument("question", choices=("sockbuf", "cpus", "jumbo", "flows"))
    sp.add_argument("--target", default=None, help="goodput to reach, for sockbuf and cpus (900mbit); per flow for flows")
    sp.add_argument("--uplink", default=None, metavar="RATE", help="for flows: the shared link's rate (1gbit; default --rate)")
    sp.add_argument("--max-cpus", type=typed(parse_int, "max_cpus", lo=1), default=64, metavar="N", help="largest CPU count tried (default 64)")
    sp.add_argument("-J", "--json", nargs="?", const="-", default=None, metavar="FILE", help="print the answer as JSON (to FILE with --json=FILE)")
    _scenario_flags(sp)

    sp = sub.add_parser("compare", help="two scenarios side by side: every figure and the limit that moved",
                        description="Run a scenario and a changed one (--what-if KEY=VALUE, or --a and --b) "
                                    "and print every figure side by side.",
                        formatter_class=_FMT, epilog=_EXAMPLES["compare"])
    sp.add_argument("--what-if", action="append", default=[], metavar="KEY=VALUE",
                    help="a change to the scenario the other flags give (mtu=9000, sockbuf=1M); repeat for several")
    sp.add_argument("--a", default=None, metavar="FLAGS", help="scenario a's flags in one quoted string")
    sp.add_argument("--b", default=None, metavar="FLAGS", help="scenario b's flags; flags outside --a/--b apply to both")
    sp.add_argument("-J", "--json", nargs="?", const="-", default=None, metavar="FILE",
                    help="print the comparison as JSON (to FILE with --json=FILE)")
    _scenario_flags(sp)

    sub.add_parser("machine", help="machines made of parts: show one's every value and origin, list parts",
                   add_help=False)
    for name, text in (("validate", "compare the model with every measured table of the sources"),
                       ("calibrate", "fit a platform's parameters to its calibration tables, or this machine's "
                                     "to lab or iperf3 runs (--lab, --iperf3)"),
                       ("lab", "run a scenario on this machine's kernel (two namespaces) beside the prediction")):
        sub.add_parser(name, help=text, add_help=False, formatter_class=_FMT, epilog=_EXAMPLES[name])
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tcpsim`` command line; returns the exit code (0 ok, 1 output failed, 2 bad input, 130 Ctrl-C,
    141 stdout closed early: see tcpsim.cliutil)."""
    with stop_on_term():
        try:
            return flush_stdout(_main(list(sys.argv[1:] if argv is None else argv)))
        except KeyboardInterrupt as exc:  # a signal between the command's end and its exit
            return exit_code(exc)


def _main(argv: list[str]) -> int:
    try:
        refuse_empty_values(argv)
        if argv and argv[0] == "lab":
            from .lab.cli import main as lab_main

            return lab_main(argv[1:])
        if argv and argv[0] == "calibrate" and any(x.split("=")[0] in ("--lab", "--iperf3") for x in argv[1:]):
            from .calibration.own import main as own_main

            return own_main(["--help"] if {"-h", "--help"} & set(argv[1:]) else argv[1:])
        if argv and argv[0] in _DELEGATES:
            return _delegate(argv[0], argv[1:])
        if argv and argv[0] == "machine":
            from .machine.cli import main as machine_main

            return machine_main(argv[1:])
        parser = _parser()
        axes: dict[str, list] = {}
        if argv and argv[0] == "sweep":
            from .sweep import split_axes

            argv, axes = split_axes(argv, _SWEEPABLE, short=_SHORT)
        args = parser.parse_args(argv)
        command = {"predict": _cmd_predict, "platforms": _cmd_platforms, "explain": _cmd_explain,
                   "plan": _cmd_plan, "compare": _cmd_compare}.get(args.command)
        if args.command == "sweep":
            return _cmd_sweep(args, axes)
        return command(args) if command else fail(f"unknown command {args.command!r}")
    except BaseException as exc:  # one line and an exit code (bugs still raise)
        return exit_code(exc)
