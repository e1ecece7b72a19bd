"""Gap probe: how often, and for how long, a running CPU is taken from its work, without root or a network.

``python -m tcpsim.lab.gapprobe`` pins itself to each CPU in turn and, for ``--duration`` (3 s), reads
``time.perf_counter_ns`` in a tight loop with the collector off; two reads more than :data:`GAP_NS` apart mean
the CPU ran something else meanwhile: the timer tick, another interrupt, a virtual machine's exit to its
hypervisor, another task. Over every pass and CPU it gives ``CpuCost.preempt_per_s`` (gaps a second) and
``CpuCost.preempt_s`` (their lengths' quantiles at the middles of 20 equal steps of probability), which tcpsim's
CPUs then lose (validation/README.md, "A running CPU loses short gaps to the system, as measured"). A gap
shorter than :data:`GAP_NS` is not told from the loop's own iteration (about 0.3 us in CPython) and is left out,
as tcpsim leaves it. Run it on an otherwise idle machine: another busy task on the CPU shows as gaps too.
Every pass is bounded in time; nothing is sent anywhere.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from typing import Any, Optional

from ..cliutil import OneLineParser, typed
from ..platform import mid_quantiles
from ..units import parse_duration, parse_int

__all__ = ["GAP_NS", "QUANTILES", "probe_cpu", "gap_figures", "probe_gaps", "main"]

GAP_NS = 1000
"""Two reads of the clock further apart than this (ns) are a gap."""
QUANTILES = 20
"""Quantiles of the gaps' lengths reported, at the middles of equal steps of probability (2.5, 7.5, ..., 97.5 %)."""
_MAX_SECONDS = 60.0


def probe_cpu(cpu: int, seconds: float) -> dict[str, Any]:
    """One pass on ``cpu``: the loop's iterations, and the length in ns of every gap, in the order they came."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        clock = time.perf_counter_ns
        gaps: list[int] = []
        prev = clock()
        stop = prev + int(seconds * 1e9)
        n = 0
        while prev < stop:
            now = clock()
            n += 1
            if now - prev > GAP_NS:
                gaps.append(now - prev)
            prev = now
    finally:
        if was_enabled:
            gc.enable()
        os.sched_setaffinity(0, before)
    return {"cpu": cpu, "seconds": seconds, "iterations": n, "loop_ns": seconds * 1e9 / max(n, 1), "gaps_ns": gaps}


def _quantiles_s(gaps_ns: list[int], steps: int = QUANTILES) -> list[float]:
    """The gaps' lengths (s) at the middles of ``steps`` equal steps of probability (:func:`mid_quantiles`)."""
    return [float(f"{q * 1e-9:.3g}") for q in mid_quantiles(gaps_ns, steps)]


def gap_figures(passes: list[dict[str, Any]]) -> dict[str, Any]:
    """``CpuCost.preempt_per_s`` and ``preempt_s`` pooled over ``passes`` (:func:`probe_cpu`'s), and the share of
    the CPU the gaps took."""
    seconds = sum(p["seconds"] for p in passes)
    gaps = [g for p in passes for g in p["gaps_ns"]]
    return {"preempt_per_s": float(f"{len(gaps) / seconds:.4g}") if seconds else 0.0,
            "preempt_s": _quantiles_s(gaps),
            "cpu_taken_frac": sum(gaps) * 1e-9 / seconds if seconds else 0.0}


def probe_gaps(seconds: float = 3.0, passes: int = 3, cpus: Optional[list[int]] = None) -> dict[str, Any]:
    """``passes`` passes of ``seconds`` on each of ``cpus`` (default: every CPU this process may run on): each CPU's
    figures and the pooled ones (:func:`gap_figures`)."""
    cpus = sorted(os.sched_getaffinity(0)) if cpus is None else cpus
    runs = [probe_cpu(cpu, seconds) for _ in range(passes) for cpu in cpus]
    per_cpu = {}
    for cpu in cpus:
        mine = [r for r in runs if r["cpu"] == cpu]
        per_cpu[str(cpu)] = {**gap_figures(mine), "loop_ns": sum(r["loop_ns"] for r in mine) / len(mine)}
    return {"gap_ns": GAP_NS, "seconds_a_pass": seconds, "passes": passes, "cpus": cpus, "per_cpu": per_cpu,
            **gap_figures(runs)}


def main(argv: Optional[list[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.gapprobe", description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=typed(parse_duration, "duration", lo_s=0.05, hi_s=_MAX_SECONDS), default=3.0,
                   help="seconds of each pass on each CPU (default 3s)")
    p.add_argument("--passes", type=typed(parse_int, "passes", lo=1, hi=20), default=3)
    p.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    a = p.parse_args(argv)
    out = {"kernel": os.uname().release, "load_avg": os.getloadavg(), **probe_gaps(a.duration, a.passes),
           "load_avg_after": os.getloadavg()}
    text = json.dumps(out, indent=1)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
