"""Where the kernel's CPU time goes on a pinned ``tcpsim lab`` run, by part of the path, from ``perf`` call chains;
and the ``CpuCost.rx_tcp_frac`` a machine file carries: TCP's share of a received frame's work.

    sudo python -m tcpsim.lab.perfparts --scenario "--rate 0 --write 16k" --scenario "--rate 0 --write 2k"

Each scenario runs ``tcpsim lab ... --pin 0,1`` while ``perf record -e cpu-clock -a -g -C 0,1`` samples both CPUs
for ``--window`` of its steady state (from 2 s on); only the samples of the traffic's processes and of the kernel
count (the lab's Python, which predicts after the run, does not). A sample goes to the innermost frame that marks a
part, so a segment taken in inside another's processing (a veth delivers within the sending call) counts as its
own: the receive work before TCP (driver, IP, ``tcp_v4_rcv`` up to the socket's lock, ``tcp_add_backlog``), TCP's
part (``tcp_v4_do_rcv``) in the softirq or from the owner's backlog (``__release_sock``), the transmit
(``tcp_write_xmit`` down to ``veth_xmit``), the rest of the send and receive calls, iperf3's ``select``, idle and
other. ``rx_tcp_frac`` is one minus the median over the runs of the part before TCP's share of the receive work
(validation/README.md, "How the kernel's receive work divides at the socket's lock": 0.53 on the Xeon VM of
2026-11-30). Needs root (``tcpsim lab`` makes namespaces) and ``perf`` with kernel symbols.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Optional

from ..cliutil import OneLineParser, typed
from ..units import parse_duration
from .background import BackgroundLab

PRE = frozenset({"net_rx_action", "process_backlog", "__netif_receive_skb", "__netif_receive_skb_core",
                 "__netif_receive_skb_one_core", "netif_receive_skb", "ip_rcv", "ip_rcv_core", "ip_rcv_finish",
                 "ip_local_deliver", "ip_local_deliver_finish", "ip_protocol_deliver_rcu", "tcp_v4_rcv",
                 "tcp_add_backlog"})
"""The receive work before ``tcp_v4_rcv``'s ownership check, which runs on the CPU that takes the frame in."""
TCP = frozenset({"tcp_v4_do_rcv", "tcp_rcv_established", "tcp_rcv_state_process"})
XMIT = frozenset({"tcp_write_xmit", "__tcp_transmit_skb", "tcp_send_ack", "__tcp_send_ack", "ip_queue_xmit",
                  "__dev_queue_xmit", "veth_xmit"})
CALLS = {"tcp_sendmsg": "send call, the rest", "tcp_recvmsg": "receive call, the rest"}
SELECT = frozenset({"do_select", "core_sys_select", "__x64_sys_pselect6", "__x64_sys_select", "tcp_poll",
                    "sock_poll"})
IDLE = frozenset({"pv_native_safe_halt", "default_idle", "cpuidle_idle_call"})
OWN = frozenset({"python", "python3", "perf", "sleep"})
"""The measuring side's processes, whose samples do not count."""
START_S = 2.0
"""When sampling starts after ``tcpsim lab`` is launched: namespaces set up, iperf3 connected and past its start."""


def part(frames: list[str]) -> str:
    """The part of the path one sample's call chain (innermost frame first) belongs to."""
    for i, f in enumerate(frames):
        if f in IDLE:
            return "idle"
        if f in TCP:
            outer = next((g for g in frames[i + 1:] if g in ("__release_sock", "tcp_v4_rcv")), "")
            return "receive, TCP, from the owner's backlog" if outer == "__release_sock" else \
                "receive, TCP, in the softirq"
        if f in PRE:
            return "receive, before TCP"
        if f in XMIT:
            return "transmit"
        if f in CALLS:
            return CALLS[f]
        if f in SELECT:
            return "select (iperf3's loop)"
    return "other"


def parts(script: str) -> dict:
    """Each CPU's share of samples by part, from ``perf script -F comm,cpu,ip,sym`` output; and the part before
    TCP's share of the receive work (``receive_before_tcp_frac``) and TCP's part's share run from an owner's
    backlog (``tcp_part_from_backlog_frac``)."""
    counts: Counter = Counter()
    total: Counter = Counter()
    skip, cpu, frames = False, None, []

    def flush() -> None:
        if cpu is not None and not skip:
            total[cpu] += 1
            counts[cpu, part(frames)] += 1

    for line in script.splitlines():
        head = re.match(r"\s*(\S+)\s+\[(\d+)\]", line)
        if head:
            flush()
            skip, cpu, frames = head.group(1) in OWN, int(head.group(2)), []
        elif line.strip():
            bits = line.split()
            if len(bits) >= 2:
                frames.append(bits[1].split("+")[0])
    flush()
    out: dict = {f"cpu{c}": {k: round(n / total[c], 4) for (cc, k), n in sorted(counts.items()) if cc == c}
                 for c in sorted(total)}
    pre = sum(n for (_, k), n in counts.items() if k == "receive, before TCP")
    tcp = sum(n for (_, k), n in counts.items() if k.startswith("receive, TCP"))
    backlog = sum(n for (_, k), n in counts.items() if k == "receive, TCP, from the owner's backlog")
    out["receive_before_tcp_frac"] = round(pre / max(pre + tcp, 1), 3)
    out["tcp_part_from_backlog_frac"] = round(backlog / max(tcp, 1), 3)
    out["samples"] = sum(total.values())
    return out


def rx_tcp_frac(runs: list[dict]) -> float:
    """``CpuCost.rx_tcp_frac`` from measured runs: one minus the median of their part before TCP's share."""
    return round(1.0 - statistics.median(r["receive_before_tcp_frac"] for r in runs), 2)


def measure(lab_args: list[str], window_s: float) -> dict:
    """One pinned ``tcpsim lab`` run sampled by ``perf`` for ``window_s``, split into parts (:func:`parts`)."""
    run_s = START_S + window_s + 1.0
    with tempfile.TemporaryDirectory() as tmp, BackgroundLab([*lab_args, "--pin", "0,1"], run_s) as lab:
        data = Path(tmp) / "perf.data"
        time.sleep(START_S)
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-a", "-g", "-C", "0,1", "-o",
                        str(data), "--", "sleep", f"{window_s:g}"], check=True, timeout=30 + window_s,
                       capture_output=True)
        measured = lab.result(120 + run_s).get("measured") or {}
        script = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,cpu,ip,sym"], capture_output=True,
                                text=True, timeout=300).stdout
    return {"scenario": shlex.join(lab_args), "goodput_bps": measured.get("goodput_bps"),
            "units_per_s": measured.get("tx_units_per_s"), **parts(script)}


def main(argv: Optional[list[str]] = None) -> int:
    ap = OneLineParser(prog="python -m tcpsim.lab.perfparts", description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", required=True, metavar="LAB_ARGS",
                    help="tcpsim lab's arguments for one run (\"--rate 0 --write 16k\"); repeatable, at most 12")
    ap.add_argument("--window", type=typed(parse_duration, "window", lo_s=0.2, hi_s=5.0), default="2s",
                    help="how long perf samples each run (0.2-5 s)")
    ap.add_argument("--json", metavar="FILE", help="also write every run's parts to FILE")
    args = ap.parse_args(argv)
    if len(args.scenario) > 12:
        print(f"{ap.prog}: --scenario: {len(args.scenario)} given, at most 12", file=sys.stderr)
        return 2
    if os.geteuid() != 0 or shutil.which("perf") is None:
        print(f"{ap.prog}: needs root (tcpsim lab makes namespaces) and perf on the PATH", file=sys.stderr)
        return 2
    runs = []
    for sc in args.scenario:
        try:
            runs.append(measure(shlex.split(sc), args.window))
        except (RuntimeError, ValueError, OSError, subprocess.SubprocessError) as exc:
            print(f"{ap.prog}: {sc}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
            return 2
        r = runs[-1]
        print(f"{sc}: part before TCP {r['receive_before_tcp_frac']:.0%} of the receive work, TCP's part from an "
              f"owner's backlog {r['tcp_part_from_backlog_frac']:.0%} ({r['samples']} samples)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"kernel": os.uname().release, "runs": runs}, f, indent=1)
            f.write("\n")
    print(f"[fixed.cpu]\nrx_tcp_frac = {rx_tcp_frac(runs):.2f}   # 1 - the median part before TCP over "
          f"{len(runs)} run(s), python -m tcpsim.lab.perfparts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
