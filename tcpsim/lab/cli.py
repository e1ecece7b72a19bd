"""``tcpsim lab``: run a scenario on this machine's kernel between two namespaces, beside tcpsim's prediction."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from dataclasses import asdict
from typing import Any, Optional, Sequence

from ..cliutil import OneLineParser, fail, typed
from ..errors import TcpsimError
from ..fileio import check_figure_path, check_output_paths, write_text_reporting
from ..units import format_duration, format_quantity, parse_int

__all__ = ["main", "median_pass", "median_seed", "units_note", "MAX_PASSES", "MAX_SEEDS"]

MAX_PASSES = 9
"""The most kernel runs one ``tcpsim lab --passes`` makes (each at most a minute)."""
MAX_SEEDS = 9
"""The most predictions one ``tcpsim lab --seeds`` makes (each bounded by the run's own budgets)."""
DETECT = "detect"
"""``--platform detect``: predict for this machine from its parts (:func:`detected_machine_file`)."""
AUTO_PROBE = "auto"
"""``--path-probe auto``: this build's delay line, probed once and cached (:func:`tcpsim.lab.pathprobe.auto_relay_path`)."""
TWO_STATES_RATIO = 1.5
"""Passes whose goodputs differ by this factor or more are two states of the kernel, and the text says so."""

_EPILOG = """Examples:
  sudo tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k
  sudo tcpsim lab --rate 0 --mtu 9000 --streams 2 --json
  sudo tcpsim lab --rate 1gbit --message 60 --nodelay --tool builtin --plot nagle.png

Needs root, iproute2 (ip, tc) and network namespaces. Traffic stays inside the namespaces the run
creates (tcpsim-<pid>-<random>-a/-b), which are removed on every exit. --rtt uses netem where the kernel
has it, else a user-space delay line in a third namespace, pinned to CPU 0 with the sending tool, the
receiving tool on CPU 1, unless --pin or --relay-cpu says otherwise (none: where the scheduler puts them).
--rate 0 leaves the veth unshaped."""


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="tcpsim lab", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog=_EPILOG)
    g = p.add_argument_group("path")
    g.add_argument("--rate", default="1gbit", help="shaped rate each way (default 1gbit; 0 = unshaped veth)")
    g.add_argument("--rtt", default=None, help="added round-trip delay (1ms; default none: the veth's own)")
    g.add_argument("--delay", default=None, help="added one-way delay, instead of --rtt")
    g.add_argument("--mtu", default="1500", help="MTU of the links (default 1500)")
    g.add_argument("--loss", default=None, metavar="P",
                   help="drop each frame, both ways, with probability P (0.001 or 0.1%%; needs --rtt: the delay line "
                        "draws it); tcpsim predicts the same loss")
    g = p.add_argument_group("sockets and workload")
    g.add_argument("--sockbuf", default=None, help="SO_SNDBUF and SO_RCVBUF on both ends (default: autotuning)")
    g.add_argument("--sndbuf", default=None, help="SO_SNDBUF request")
    g.add_argument("--rcvbuf", default=None, help="SO_RCVBUF request")
    g.add_argument("--write", default="128k", help="bytes per write (default 128k, iperf3's)")
    g.add_argument("--message", default=None, help="small messages of this size instead of bulk writes")
    g.add_argument("--nodelay", action="store_true", help="TCP_NODELAY (Nagle off)")
    g.add_argument("--max-pacing-rate", default=None, metavar="RATE",
                   help="SO_MAX_PACING_RATE on the sending sockets (iperf3 --fq-rate): the kernel paces each stream")
    g.add_argument("--streams", type=typed(parse_int, "streams", lo=1, hi=64), default=1, metavar="N",
                   help="parallel connections (default 1, at most 64)")
    g.add_argument("--rr", default=None, help="request/response of this request size (built-in generator)")
    g.add_argument("--response", default=None, help="response size for --rr (default: the request size)")
    g.add_argument("--cc", default="cubic", help="congestion control in the namespaces (default cubic)")
    g.add_argument("--sack", choices=("on", "off"), default="on",
                   help="SACK in both namespaces (net.ipv4.tcp_sack; default on): off, losses are repaired from "
                        "duplicate ACKs alone; tcpsim predicts the same")
    g = p.add_argument_group("run")
    g.add_argument("--duration", default="3s", help="seconds of traffic (default 3s, at most 60s)")
    g.add_argument("--passes", type=typed(parse_int, "passes", lo=1, hi=MAX_PASSES), default=1, metavar="N",
                   help=f"run the kernel N times (at most {MAX_PASSES}) and show the run of median goodput, with "
                        "every pass's: a CPU-bound row can settle in either of two states")
    g.add_argument("--tool", choices=("auto", "iperf3", "builtin"), default="auto",
                   help="traffic generator (default: iperf3 where installed and the scenario fits it)")
    g.add_argument("--pin", default=None, metavar="SND,RCV",
                   help="run the sending and the receiving tool on these CPUs (taskset; 0,1 or 0,0): on a small VM "
                        "the placement decides CPU-bound rows; none: where the scheduler puts them; default: 0,1 "
                        "with the relay on CPU 0 for a run through the relay, else none")
    g.add_argument("--relay-cpu", default=None, metavar="N",
                   help="run the user-space delay line on this CPU alone (taskset); none: where the scheduler puts "
                        "it, which can reorder segments when it moves; default: 0 with the tools on 0,1 on a machine "
                        "of two CPUs or more")
    g.add_argument("--cleanup", action="store_true",
                   help="only remove namespaces left by lab runs that were killed (tcpsim-<pid>-... of dead pids)")
    g.add_argument("--delay-line", choices=("auto", "netem", "relay"), default="auto",
                   help="how --rtt is made (default: netem if the kernel has it, else the user-space relay)")
    g = p.add_argument_group("prediction")
    g.add_argument("--os", default=None, metavar="OS",
                   help="OS of the prediction when no --platform is named (default: the running kernel's release, "
                        "as tcpsim machine detect names it; linux, linux-6.8, linux-2.6, any release from 2.6.32 "
                        "to 7.x such as linux-6.18 ...)")
    g.add_argument("--seeds", type=typed(parse_int, "seeds", lo=1, hi=MAX_SEEDS), default=1, metavar="N",
                   help=f"predict with seeds 0..N-1 (at most {MAX_SEEDS}) and show the prediction of median goodput, "
                        "with every seed's: on a lossy path a prediction is one draw of the losses, as a pass is")
    g.add_argument("--platform", default=None, metavar="NAME|FILE|detect",
                   help="profile of the predicted host (a fitted machine file from tcpsim calibrate, or tcpsim "
                        "machine detect's), on the run's veth: a machine made of parts takes the veth as its NIC; "
                        f"'{DETECT}': this machine from its parts, as tcpsim machine detect --probes describes it "
                        "before the run (some seconds; the file goes into --json and --save)")
    g.add_argument("--path-probe", default=None, metavar="FILE|auto",
                   help="the delay line's constants from this machine's path probe (the JSON python -m "
                        "tcpsim.lab.pathprobe prints) instead of those fitted on the lab tables' build; 'auto': this "
                        "build's, probed once (about a minute) and cached per kernel release and relay placement")
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help="one JSON object: scenario, kernel, sysctls, measured, predicted")
    g.add_argument("--save", default=None, metavar="FILE", help="also write that JSON to FILE (for tcpsim calibrate --lab)")
    g.add_argument("--plot", default=None, metavar="PNG", help="draw measured and predicted over time")
    g.add_argument("--pcap", default=None, metavar="FILE",
                   help="capture the sender's interface to FILE (libpcap, headers only; with --passes, FILE-passN "
                        "for pass N), for Wireshark or a comparison with tcpsim explain --pcap")
    return p


def pass_pcap(path: Optional[str], k: int, passes: int) -> Optional[str]:
    """Where pass ``k`` (from 0) of ``passes`` writes its capture: ``path`` itself for a single pass, else
    ``path`` with ``-pass<k+1>`` before its extension."""
    if not path or passes == 1:
        return path
    stem, ext = os.path.splitext(path)
    return f"{stem}-pass{k + 1}{ext}"


def _predicted_dict(result: Any, run: Any) -> dict[str, Any]:
    from .predict import tool_goodput_bps

    return {"goodput_bps": tool_goodput_bps(run.scenario, result, run.measured.duration_s),
            "steady_goodput_bps": result.goodput_bps, "data_packets_per_s": result.data_packets_per_s,
            "data_skbs_per_s": result.data_skbs_per_s, "ack_packets_per_s": result.ack_packets_per_s,
            "rtt_s": result.rtt_s, "limited_by": result.limited_by,
            "retransmits": result.retransmits, "transactions_per_s": result.transactions_per_s,
            "cautions": list(result.cautions),
            "cpu_utilization_frac": {k: list(v) for k, v in result.cpu_utilization_frac.items()},
            "streams": [{"cwnd_bytes": s.cwnd_bytes, "peer_window_bytes": s.peer_window_bytes,
                         "goodput_bps": s.goodput_bps} for s in result.streams]}


def detected_machine_file(folder: str) -> tuple[str, str]:
    """This machine as ``tcpsim machine detect --probes`` describes it (its parts and probes, nothing fitted), written
    in ``folder``: the file's path and its text."""
    from ..machine.detect import read_host, render

    text = render(read_host(probes=True))
    path = os.path.join(folder, "detected.toml")
    with open(path, "w") as fh:
        fh.write(text)
    return path, text


def running_linux() -> str:
    """The OS a prediction of this machine's kernel takes: its own release where tcpsim takes it, else tcpsim's
    newest Linux rules not newer than it (:func:`tcpsim.machine.detect.linux_version_part`)."""
    from ..machine.detect import linux_version_part

    return linux_version_part(os.uname().release)[0]


def to_json(run: Any, result: Any, platform: Optional[str], os_name: str) -> dict[str, Any]:
    """The ``--json`` object (also what ``tcpsim calibrate --lab`` reads)."""
    from ..report_text import ideal_unshaped_note
    from .limits import measured_limit, pinned_busy
    from .predict import path_note

    sc = run.scenario
    predicted = _predicted_dict(result, run)
    if platform is not None:
        ideal = []
    elif not sc.rate_bps:
        ideal = [ideal_unshaped_note("--platform NAME|FILE")]
    else:
        ideal = _cpu_bound_note(run.measured, predicted["goodput_bps"]) + lossy_ideal_note(sc.loss_frac)
    units = units_note(sc.rate_bps, run.measured.goodput_bps, run.measured.tx_units_per_s,
                       predicted.get("data_skbs_per_s"))
    limit = limit_differs(run.measured.cpu_shares, sc.pin_cpus, predicted)
    generator = generator_caution(run.measured.tool, platform, predicted.get("limited_by"))
    return {"scenario": sc.to_dict(), "kernel": run.kernel, "sysctls": run.sysctls, "cpu": run.cpu,
            "load_avg": list(run.load_avg), "delay_line": run.delay_line,
            "notes": list(run.notes) + [path_note(run.delay_line)] + ideal + ([units] if units else []),
            "cautions": [c for c in (limit, generator) if c],
            "measured": {**run.measured.to_dict(),
                         "limited_by": measured_limit(pinned_busy(run.measured.cpu_shares, sc.pin_cpus))},
            "predicted": {**predicted, "os": os_name, "platform": platform,
                          "read_bytes": sc.read_bytes(run.measured.tool)}}


def median_pass(runs: Sequence[Any]) -> Any:
    """The run of median goodput (of an even count the lower middle one), as the lab sweep's rows are chosen
    (:func:`tcpsim.lab.dataset.median_runs`): a run, not an average, so its counters and CPU shares go with it."""
    return _lower_middle(runs, key=lambda r: r.measured.goodput_bps)


def _lower_middle(items: Sequence[Any], key: Any) -> Any:
    """The item of median ``key`` (of an even count the lower middle one)."""
    return sorted(items, key=key)[(len(items) - 1) // 2]


def median_seed(sc: Any, results: Sequence[Any], duration_s: float) -> tuple[int, list[float]]:
    """The seed whose prediction has the median goodput as the tool counts it (of an even count the lower middle one,
    as :func:`median_pass` chooses a run), and every seed's goodput: a prediction, not an average, so its counters go
    with it."""
    from .predict import tool_goodput_bps

    goodput = [tool_goodput_bps(sc, r, duration_s) for r in results]
    return _lower_middle(range(len(goodput)), key=goodput.__getitem__), goodput


def _seeds_line(d: dict[str, Any]) -> str:
    """Every seed's predicted goodput beside the one shown."""
    seeds = d["predicted"].get("seeds_goodput_bps") or []
    if len(seeds) < 2:
        return ""
    return (f"{'seeds':16s} " + ", ".join(_mbit(g).strip() for g in seeds)
            + f"   (the prediction shown is their median, seed {d['predicted']['seed']})")


def _passes_line(d: dict[str, Any]) -> str:
    """Every pass's goodput beside the one shown, and whether they are two states rather than noise."""
    passes = d.get("passes_goodput_bps") or []
    if len(passes) < 2:
        return ""
    low, high = min(passes), max(passes)
    states = (f"; they differ {high / low:.1f}-fold: two states of the kernel, not noise (README, 'Calibrate the "
              "machine in front of you')" if low > 0 and high >= TWO_STATES_RATIO * low else "")
    return (f"{'passes':16s} " + ", ".join(_mbit(g).strip() for g in passes)
            + f"   (the run shown is their median{states})")


UNITS_APART = 3.0
"""Measured and predicted units a second this many times apart on a row at the line get :func:`units_note`."""


def units_note(rate_bps: float, goodput_bps: float, units_per_s: float, predicted_skbs_per_s: Optional[float]) -> str:
    """A shaped run at the line whose sent units are far from the prediction's: there the kernel's units are the run's
    own, whatever size it started with (validation/README.md, "The units of a line-rate no-delay row are the run's
    own": 1.1-53 KB over thirteen runs of one 1 Gbit/s row), so they say nothing of the model. Empty otherwise."""
    if not (rate_bps > 0 and goodput_bps >= 0.9 * rate_bps and units_per_s > 0 and predicted_skbs_per_s):
        return ""
    apart = units_per_s / predicted_skbs_per_s
    if 1 / UNITS_APART < apart < UNITS_APART:
        return ""
    return (f"the sent units are {max(apart, 1 / apart):.0f} times apart, but at the line the kernel's units are the "
            "run's own (1.1 to 53 KB over thirteen runs of one 1 Gbit/s row): compare the goodput, not the units "
            "(validation/README.md, 'The units of a line-rate no-delay row are the run's own')")


def _cpu_bound_note(measured: Any, predicted_bps: float) -> list[str]:
    """A shaped run predicted on ideal hosts whose tools kept a CPU busy and reached well under the prediction: the
    machine's CPU, which ideal hosts do not have, set its rate, and the note says what to name instead."""
    tools_cpu = measured.cpu_tools_s_per_s
    if not predicted_bps or measured.goodput_bps >= 0.8 * predicted_bps or tools_cpu < 0.8:
        return []
    return [f"ideal hosts (no CPU costs) predicted this run, but its tools kept the CPUs busy ({tools_cpu:.2f} CPU-s a "
            f"second) and reached {measured.goodput_bps / predicted_bps:.0%} of the prediction: the machine's CPU set "
            "the rate; name the hosts (--platform detect for this machine from its parts, the file tcpsim calibrate "
            "--lab fits for it, or lab_vm for this project's VM)"]


def lossy_ideal_note(loss_frac: float) -> list[str]:
    """A lossy path predicted on an ideal host (no ``--platform``): its reader takes each skb of a burst the instant it
    lands and acknowledges each, where the kernel's wakes later and acknowledges the burst once, and ACKs decide
    recovery (validation/README.md, rule 169). Empty without loss."""
    if not loss_frac:
        return []
    return ["a lossy path predicted on an ideal host, whose reader acknowledges every skb of a burst the instant it "
            "lands: name the host (--platform lab_vm on this project's VM, detect or a calibrated file elsewhere); "
            "ten lossy paths without SACK read -4.5 to +23 % on lab_vm and up to +60 % on an ideal host "
            "(validation/README.md, rule 169); on a second machine eight paths up to +24 % on detect's file and up to "
            "+67 % on an ideal host (rule 173)"]


def generator_caution(tool: Optional[str], platform: Optional[str], limited_by: Optional[str]) -> str:
    """A caution for a run the built-in generator measured and named hosts predicted CPU-bound: the generator is Python,
    and its own time a call is in no machine file (a parts file's write and read are iperf3's or its probes'), so the
    run went slower than the file says; a file calibrated on the generator's runs carries it in its per-segment
    costs (validation/README.md, "What the tenth machine gave with the built-in generator"). Empty otherwise."""
    if tool != "builtin" or platform is None or not (limited_by or "").startswith("cpu"):
        return ""
    return ("measured by the built-in Python generator (no iperf3, or --tool builtin), whose own time a call no machine "
            "file carries unless it was calibrated on the generator's runs: a CPU-bound run goes slower than the "
            "prediction for iperf3's; install iperf3, the tool detect's probes and README's steps measure with")


def _mbit(bps: Optional[float]) -> str:
    return "-" if bps is None else f"{bps / 1e6:,.1f} Mbit/s"


def _text(d: dict[str, Any]) -> str:
    sc, m, p = d["scenario"], d["measured"], d["predicted"]
    rate = "unshaped" if not sc["rate_bps"] else f"{sc['rate_bps'] / 1e9:g} Gbit/s"
    buf = sc["sndbuf_bytes"]
    lines = [f"tcpsim lab: {rate}, RTT {sc['rtt_s'] * 1e3:g} ms added ({d['delay_line']}), MTU {sc['mtu_bytes']}, "
             f"sockbuf {buf if buf else 'autotuned'}, "
             + (f"request/response {sc['rr_bytes']}/{sc['response_bytes'] or sc['rr_bytes']} bytes" if sc["rr_bytes"]
                else f"{sc['write_bytes']}-byte writes") +
             f"{' TCP_NODELAY' if sc['nodelay'] else ''}"
             + (f", paced to {sc['max_pacing_rate_bps'] / 1e6:g} Mbit/s" if sc.get("max_pacing_rate_bps") else "")
             + (f", loss {format_quantity('loss_frac', sc['loss_frac'])}" if sc.get("loss_frac") else "")
             + (", SACK off" if sc.get("sack") is False else "")
             + f", {sc['n_streams']} stream(s), {m['tool']}"
             + (f" ({m['tool_version'].removeprefix('iperf ')}{', a thread a stream' if _threaded(m) else ''})"
                if m.get("tool_version") else "") + ", "
             f"{m['duration_s']:.1f} s"
             + (f", tools on CPUs {sc['pin_cpus'][0]} and {sc['pin_cpus'][1]}" if sc.get("pin_cpus") else ""),
             f"kernel {d['kernel']} ({d['sysctls'].get('congestion_control (per socket)', '?')}), "
             f"tcp_rmem {d['sysctls'].get('net.ipv4.tcp_rmem', '?')}, rmem_max {d['sysctls'].get('net.core.rmem_max', '?')}",
             f"{'':16s} {'measured':>16s} {'predicted':>16s}",
             f"{'goodput':16s} {_mbit(m['goodput_bps']):>16s} {_mbit(p['goodput_bps']):>16s}   "
             f"({p['goodput_bps'] / m['goodput_bps'] - 1:+.1%} predicted vs measured)" if m["goodput_bps"] else "",
             _passes_line(d),
             _seeds_line(d),
             f"{'  steady state':16s} {'':>16s} {_mbit(p['steady_goodput_bps']):>16s}   (after the start-up; the "
             f"tool counts the whole {m['duration_s']:.1f} s)"
             if p.get("steady_goodput_bps") and not sc["rr_bytes"] else "",
             ]
    # each in its own unit: a bare veth's round trip is microseconds, a delayed path's milliseconds
    rtt_m = "-" if not m["rtt_mean_s"] else f"{format_duration(m['rtt_min_s'] or 0)}/{format_duration(m['rtt_mean_s'])}"
    lines.append(f"{'RTT min/mean':16s} {rtt_m:>16s} {format_duration(p['rtt_s'] or 0):>16s}")
    seg = "-" if m["data_segments_per_s"] is None else f"{m['data_segments_per_s']:,.0f}/s"
    lines.append(f"{'data segments':16s} {seg:>16s} {p['data_packets_per_s']:>14,.0f}/s")
    units = m.get("tx_units_per_s") or 0.0
    if units > 0 and not sc["rr_bytes"]:
        # What the sender's interface counted: a GSO aggregate is one unit, so writes per unit show how many
        # writes Nagle and autocorking merged (hundreds behind a qdisc; one a unit on a bare veth).
        skbs = _rate(p.get("data_skbs_per_s"))
        predicted = f", {_writes_each(p['goodput_bps'], p['data_skbs_per_s'], sc)} predicted" if skbs != "-" else ""
        lines.append(f"{'sent units':16s} {units:>14,.0f}/s {skbs:>16s}   (interface packets, a GSO aggregate "
                     f"counting once: {_writes_each(m['goodput_bps'], units, sc)} measured{predicted})")
        acks = m.get("rx_units_per_s") or 0.0
        if acks > 0:
            lines.append(f"{'ACKs in':16s} {acks:>14,.0f}/s {_rate(p.get('ack_packets_per_s')):>16s}   (packets the "
                         "sender's interface received)")
    if m.get("transactions_per_s") is not None and p.get("transactions_per_s") is not None:
        lines.append(f"{'transactions':16s} {m['transactions_per_s']:>14,.0f}/s {p['transactions_per_s']:>14,.0f}/s")
    lines.append(f"{'retransmits':16s} {m['retransmits']:>16d} {p['retransmits']:>16d}")
    lines.append(f"{'CPU':16s} {m['cpu_busy_frac']:>15.0%}  of the machine busy; the tools used "
                 f"{m['cpu_tools_s_per_s']:.2f} CPU-s/s")
    lines.extend(_cpu_lines(m.get("cpu_shares") or {}, p.get("cpu_utilization_frac") or {}, sc.get("pin_cpus")))
    lines.append(f"{'limited by':16s} {m.get('limited_by') or '-':>16s} {p['limited_by']:>16s}"
                 + ("" if m.get("limited_by") or not sc.get("pin_cpus") else
                    "   (measured: named where one pinned CPU is plainly the busy one)"))
    lines.extend(f"caution: {c}" for c in (*d.get("cautions", ()), *p.get("cautions", ())))
    lines.extend(f"note: {n}" for n in d["notes"])
    return "\n".join(x for x in lines if x)


def _threaded(m: dict[str, Any]) -> bool:
    from .scenario import iperf3_threaded

    return m.get("tool") == "iperf3" and iperf3_threaded(m.get("tool_version") or "")


def _rate(per_s: Optional[float]) -> str:
    """A per-second count for the table, "-" when there is none (a prediction that simulated nothing)."""
    return "-" if per_s is None or not math.isfinite(per_s) or per_s <= 0 else f"{per_s:,.0f}/s"


def _writes_each(goodput_bps: float, units_per_s: float, sc: dict[str, Any]) -> str:
    """How many writes one sent unit carried (bytes, where a unit carries less than one write)."""
    unit_bytes = goodput_bps / 8 / units_per_s
    per = unit_bytes / sc["write_bytes"]
    return f"{per:,.1f} writes each" if per >= 1 else f"{unit_bytes:,.0f} bytes each"


def _cpu_lines(shares: dict[str, dict[str, float]], predicted: dict[str, list[float]], pin: Any) -> list[str]:
    """Each CPU's measured busy share (system and softirq, where a veth's receive work runs) and, with the tools
    pinned and the hosts modelled (``--platform``; ideal hosts cost nothing), the prediction's sender and receiver
    CPUs beside the CPUs they were pinned to."""
    if not shares:
        return []
    each = ", ".join(f"{cpu} {1 - sh['idle']:.0%} (system {sh['system']:.0%}, softirq {sh['softirq']:.0%})"
                     for cpu, sh in sorted(shares.items(), key=lambda kv: int(kv[0][3:])))
    lines = [f"{'  by CPU':16s} {each}"]
    if pin and predicted.get("sender") and predicted.get("receiver") and max(*predicted["sender"],
                                                                             *predicted["receiver"]) > 0:
        lines.append(f"{'  predicted':16s} the sender's CPU (cpu{pin[0]}) {max(predicted['sender']):.0%}, the "
                     f"receiver's (cpu{pin[1]}) {max(predicted['receiver']):.0%}")
    return lines


def limit_differs(shares: dict[str, dict[str, float]], pin: Any, predicted: dict[str, Any]) -> str:
    """A caution (the ``--json`` object's ``cautions``) when the pinned run's shares make its limit plain
    (:func:`tcpsim.lab.limits.measured_limit`) and the prediction names another: the goodput may be near while the
    reason given for it is not (validation/README.md, "The limit tcpsim names"). Empty otherwise: tools not pinned,
    shares not recorded, or neither CPU plainly the busy one."""
    from ..result import LIMIT_NAMES
    from .limits import measured_limit, pinned_busy

    busy = pinned_busy(shares, pin)
    limit = measured_limit(busy)
    named = predicted.get("limited_by")
    if busy is None or limit is None or named == limit:
        return ""
    side = 0 if limit == "cpu_sender" else 1
    util = predicted.get("cpu_utilization_frac") or {}
    want = [max(util.get(s) or [0.0]) for s in ("sender", "receiver")]
    return (f"the kernel's limit was {LIMIT_NAMES[limit]} (cpu{pin[side]} {busy[side]:.0%} busy against "
            f"{busy[1 - side]:.0%}), the prediction names {LIMIT_NAMES.get(named, named)} (its sender's CPU "
            f"{want[0]:.0%}, receiver's {want[1]:.0%}): the limit predicted is not the one measured")


def main(argv: Optional[Sequence[str]] = None) -> int:
    from .testbed import checked_relay_cpu, install_signal_handlers, missing_requirement, remove_stale

    a = _parser().parse_args(list(argv or []))
    try:
        check_output_paths(("save", a.save), ("pcap", a.pcap))  # before the run, not after it
        check_figure_path(a.plot, "plot")
    except TcpsimError as exc:
        return fail(str(exc))
    missing = missing_requirement()
    if missing:
        return fail(missing)
    if a.cleanup:
        gone = remove_stale()
        print(f"removed {len(gone)} namespace(s) of lab runs no longer alive" + (": " + ", ".join(gone) if gone else ""))
        return 0
    from .measure import default_placement, pinned_cpus, run_lab, through_relay
    from .predict import lab_path_platform, predict_lab
    from ..os_versions import os_entry
    from .pathprobe import auto_relay_path, cached_probe_file, read_relay_path
    from .scenario import RELAY, lab_scenario

    try:
        sc = lab_scenario(rate=a.rate, rtt=a.rtt, delay=a.delay, mtu=a.mtu, sockbuf=a.sockbuf, sndbuf=a.sndbuf,
                          rcvbuf=a.rcvbuf, write=a.write, message=a.message, nodelay=a.nodelay, streams=a.streams,
                          rr=a.rr, response=a.response, duration=a.duration, cc=a.cc, pin=a.pin,
                          max_pacing_rate=a.max_pacing_rate, loss=a.loss, relay_cpu=a.relay_cpu, sack=a.sack)
        pinned_cpus(sc)  # this machine has those CPUs (and taskset): refused before any namespace exists
        checked_relay_cpu(sc.relay_cpu)
        a.os = a.os or running_linux()
        os_entry(a.os)  # a bad name is refused before the run, not after it
        auto = a.path_probe == AUTO_PROBE
        relay, probe_file = (read_relay_path(a.path_probe), a.path_probe) if a.path_probe and not auto else (RELAY, None)
        with tempfile.TemporaryDirectory(prefix="tcpsim-lab-") as folder:
            # this machine's probes run before the traffic, so neither disturbs the other
            host, machine_text = detected_machine_file(folder) if a.platform == DETECT else (a.platform, None)
            if host:
                lab_path_platform(host)  # so is a platform that does not load
            install_signal_handlers()
            if a.pin is None and a.relay_cpu is None:
                sc = default_placement(sc, a.delay_line)
            if auto and through_relay(sc, a.delay_line):
                cache = cached_probe_file(sc.relay_cpu)
                if not os.path.exists(cache):
                    print(f"probing this build's delay line once (about a minute), to be cached in {cache}",
                          file=sys.stderr)
                relay, probe_file, _ = auto_relay_path(sc.relay_cpu)
            runs = [run_lab(sc, tool=a.tool, delay_line=a.delay_line, pcap_path=pass_pcap(a.pcap, k, a.passes))
                    for k in range(a.passes)]
            run = median_pass(runs)
            results = [predict_lab(sc, run.sysctls, platform=host, os_name=a.os, seed=k, delay_line=run.delay_line,
                                   tool=run.measured.tool, tool_version=run.measured.tool_version, relay=relay)
                       for k in range(a.seeds)]
            seed, seeds_goodput = median_seed(sc, results, run.measured.duration_s)
            result = results[seed]
    except (TcpsimError, ValueError) as exc:
        return fail(str(exc).splitlines()[0])
    d = to_json(run, result, a.platform, a.os)
    if machine_text is not None:
        d["predicted"]["machine_file"] = machine_text
    if probe_file:
        d["predicted"]["relay_path"] = {"path_probe": probe_file, **asdict(relay)}
        if run.delay_line == "relay":
            d["notes"].append(f"the delay line's constants from {probe_file}: {relay.excess_s(0) * 1e6:.1f} us plus "
                              f"{relay.fraction:.2%} of the RTT a round trip, {relay.packet_s * 1e6:.2f} us a packet")
    if len(runs) > 1:
        d["passes_goodput_bps"] = [r.measured.goodput_bps for r in runs]
    if len(results) > 1:
        d["predicted"].update(seed=seed, seeds_goodput_bps=seeds_goodput)
    text = json.dumps(d, indent=1, default=float)
    if a.save:
        write_text_reporting(a.save, text, "save")
    print(text if a.json else _text(d))
    if a.plot:
        from .plot import plot_run

        plot_run(d, a.plot)
        print(f"figure written to {a.plot}", file=sys.stderr)
    return 0
