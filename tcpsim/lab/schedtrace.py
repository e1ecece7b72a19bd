"""Scheduler trace: how late the measuring tool's own processes run while a lab scenario streams.

``python -m tcpsim.lab.schedtrace --rtt 0.2ms,1ms,4ms --mtu 1500,9000 --sockbuf 32k`` (root, tracefs) runs
``tcpsim lab`` for each scenario with the ``sched:sched_waking``, ``sched:sched_switch`` and
``raw_syscalls:sys_exit`` events on, and times every wake-up of the iperf3 processes: from ``sched_waking`` to
when the process runs again (its latency), after the time since it blocked (``sched_switch`` out in state S: its
idle gap). It runs again at its ``sched_switch`` in; where the kernel does not trace that switch (Linux 6.18
builds here leave a wake-up onto an idle vCPU's switch-in out), at its first event of its own, the blocking call's
``sys_exit``, less the return path the traced switch-ins show before theirs (validation/README.md, "The wake-ups the
scheduler trace missed", "A wake-up ends when the process is switched in"). It prints, as
JSON, each run's wake-ups in gap buckets and the pooled table :func:`wake_table` makes of them, a
platform's ``CpuCost.wake_latency_s`` (validation/README.md, "The streaming processes' own wake-ups"), and the spread
about it :func:`latency_spread` measures, its ``CpuCost.wake_latency_spread`` ("A wake-up's latency varies as
measured").
Only the scheduler's timestamps are used, never a run's throughput. The events are switched off and the
buffer cleared on every exit; each ``tcpsim lab`` run is bounded and cleans up after itself.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable, Iterator, Optional

from ..cliutil import OneLineParser
from ..errors import TcpsimError
from ..platform import mid_quantiles
from ..units import parse_duration, parse_size
from .wakeprobe import STALL_S

__all__ = ["WakeTrace", "parse_trace", "parse_wakes", "wake_buckets", "wake_table", "latency_spread", "traced",
           "TracefsBusy", "main", "GAP_EDGES_S"]

TRACEFS = Path("/sys/kernel/tracing")
_MOUNT_POINT = Path("/sys/kernel/tracing")


def tracefs_has(path: str) -> bool:
    """Whether tracefs offers ``path`` (``events/sched/sched_waking`` ...) at :data:`TRACEFS`, root mounting it at
    its usual place first where the kernel has it but nothing mounted it (a fresh VM boots so; ``perf`` mounts it
    the same way)."""
    if TRACEFS == _MOUNT_POINT and os.geteuid() == 0 and TRACEFS.is_dir() and not (TRACEFS / "events").is_dir():
        try:
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], capture_output=True, timeout=10,
                           check=False)
        except (OSError, subprocess.SubprocessError):
            pass
    return (TRACEFS / path).exists()
EVENTS = ("sched/sched_waking", "sched/sched_switch", "raw_syscalls/sys_exit")
GAP_EDGES_S = (1e-4, 3e-4, 1e-3, 2e-3, 4e-3)
"""Upper edges of the idle-gap buckets (the last bucket is everything above the last edge)."""
MAX_TRACE_BYTES = 512 << 20
"""The most of one run's trace read back (a 2 s run writes a few MB)."""
RUN_TIMEOUT_S = 120.0
LOCK_PATH = Path(tempfile.gettempdir()) / "tcpsim-tracefs.lock"
"""Held (``flock``) by whichever ``traced`` owns tracefs: the events and the buffer are one per machine, and two
traces at once (two test sessions, a probe during a test) would clear or mix each other's."""
LOCK_WAIT_S = 300.0

_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<t>[\d.]+): "
                   r"(?P<ev>\w+): (?P<rest>.*)$")
_WAKING = re.compile(r"comm=(?P<comm>\S+) pid=(?P<pid>\d+)")
_SWITCH = re.compile(r"prev_comm=(?P<pc>\S+) prev_pid=(?P<pp>\d+) prev_prio=\d+ prev_state=(?P<st>\S+) ==> "
                     r"next_comm=(?P<nc>\S+) next_pid=(?P<np>\d+)")


@dataclass
class WakeTrace:
    """One trace's wake-ups of a process name. The kernel traces some switch-ins and not others (Linux 6.18 here
    leaves the idle task's switch back out): those it traced end there; the others end at the process's first own
    event, its blocking call's return, which :meth:`wakes` shortens by the return path the traced ones show."""

    switched: list[tuple[float, float]] = field(default_factory=list)
    """(idle gap s, ``sched_waking`` to switch-in s) where the switch-in is traced."""
    own: list[tuple[float, float]] = field(default_factory=list)
    """(idle gap s, ``sched_waking`` to the process's first own event s) where it is not."""
    return_path_s: list[float] = field(default_factory=list)
    """Switch-in to the process's first own event, on the traced ones."""

    def extend(self, other: "WakeTrace") -> None:
        self.switched += other.switched
        self.own += other.own
        self.return_path_s += other.return_path_s

    def median_return_path_s(self) -> float:
        return statistics.median(self.return_path_s) if self.return_path_s else 0.0

    def wakes(self, return_path_s: Optional[float] = None) -> list[tuple[float, float]]:
        """(idle gap s, latency s) of every wake-up: the untraced ones less ``return_path_s`` (default this
        trace's median; none without a traced switch-in), never below zero."""
        rp = self.median_return_path_s() if return_path_s is None else return_path_s
        return self.switched + [(gap, max(late - rp, 0.0)) for gap, late in self.own]


def parse_trace(lines: Iterable[str], comm: str = "iperf3") -> WakeTrace:
    """The wake-ups of a process named ``comm`` in a tracefs text trace (:class:`WakeTrace`); a process whose block
    was not seen (its first wake-up) is left out."""
    waking: dict[int, float] = {}
    blocked: dict[int, float] = {}
    switched_at: dict[int, float] = {}
    out = WakeTrace()

    def resumed(pid: int, t: float, into: list[tuple[float, float]]) -> None:
        woke = waking.pop(pid, None)
        since = blocked.pop(pid, None)
        if woke is not None and since is not None and since <= woke:
            into.append((woke - since, t - woke))

    for line in lines:
        m = _LINE.match(line)
        if not m:
            continue
        t = float(m["t"])
        if m["comm"] == comm:
            pid = int(m["pid"])
            if pid in switched_at:
                out.return_path_s.append(t - switched_at.pop(pid))
            elif pid in waking:
                resumed(pid, t, out.own)
        if m["ev"] == "sched_waking":
            w = _WAKING.search(m["rest"])
            if w and w["comm"] == comm:
                waking.setdefault(int(w["pid"]), t)
        elif m["ev"] == "sched_switch":
            s = _SWITCH.search(m["rest"])
            if not s:
                continue
            if s["pc"] == comm:
                pid = int(s["pp"])
                if s["st"].startswith("S"):
                    blocked[pid] = t
                else:
                    blocked.pop(pid, None)
            if s["nc"] == comm and int(s["np"]) in waking:
                pid = int(s["np"])
                resumed(pid, t, out.switched)
                switched_at[pid] = t
    return out


def parse_wakes(lines: Iterable[str], comm: str = "iperf3") -> list[tuple[float, float]]:
    """(idle gap s, latency s) of every wake-up of ``comm`` in a trace, by :func:`parse_trace`."""
    return parse_trace(lines, comm).wakes()


def wake_buckets(wakes: list[tuple[float, float]], edges_s: tuple[float, ...] = GAP_EDGES_S) -> list[dict]:
    """Wake-ups in idle-gap buckets: each bucket's count, median gap and median latency (empty ones left out)."""
    buckets: list[list[tuple[float, float]]] = [[] for _ in range(len(edges_s) + 1)]
    for gap, late in wakes:
        buckets[sum(gap > e for e in edges_s)].append((gap, late))
    return [{"gap_max_s": edges_s[i] if i < len(edges_s) else None, "n": len(b),
             "gap_s": statistics.median(g for g, _ in b), "latency_s": statistics.median(l for _, l in b)}
            for i, b in enumerate(buckets) if b]


def wake_table(wakes: list[tuple[float, float]]) -> list[list[float]]:
    """``CpuCost.wake_latency_s`` from pooled wake-ups: each bucket's median latency at its median gap."""
    return [[float(f"{b['gap_s']:.3g}"), float(f"{b['latency_s']:.3g}")] for b in wake_buckets(wakes)]


def latency_spread(wakes: list[tuple[float, float]], steps: int = 20, edges_s: tuple[float, ...] = GAP_EDGES_S
                   ) -> list[float]:
    """``CpuCost.wake_latency_spread`` from pooled wake-ups: the quantiles, at the middles of ``steps`` equal
    steps of probability (2.5, 7.5, ..., 97.5 % for 20), of each wake-up's latency over its idle-gap bucket's median
    (:func:`wake_buckets`), over the wake-ups no later than :data:`~tcpsim.lab.wakeprobe.STALL_S` (the later ones are
    the stalls, ``CpuCost.wake_stall_frac``)."""
    medians = {b["gap_max_s"]: b["latency_s"] for b in wake_buckets(wakes, edges_s)}
    ratios = []
    for gap, late in wakes:
        i = sum(gap > e for e in edges_s)
        median = medians[edges_s[i] if i < len(edges_s) else None]
        if late <= STALL_S and median > 0.0:
            ratios.append(late / median)
    return [float(f"{q:.3g}") for q in mid_quantiles(ratios, steps)]


class TracefsBusy(TcpsimError, RuntimeError):
    """Another trace held tracefs for longer than the wait allows."""


class traced:
    """Context: ``events`` (default the sched events) on in tracefs with an empty buffer, each with ``filter``
    if given; off, their filters cleared and the buffer emptied, on exit. One at a time on a machine: it waits
    up to ``lock_wait_s`` for another to finish (:data:`LOCK_PATH`), then raises :class:`TracefsBusy`."""

    def __init__(self, buffer_kb: int = 16384, events: tuple[str, ...] = EVENTS, filter: Optional[str] = None,
                 lock_wait_s: float = LOCK_WAIT_S) -> None:
        self.buffer_kb = buffer_kb
        self.events = events
        self.filter = filter
        self.lock_wait_s = lock_wait_s
        self._lock: Optional[IO[str]] = None

    def _write(self, name: str, value: str) -> None:
        (TRACEFS / name).write_text(value)

    def _acquire(self) -> None:
        lock = open(LOCK_PATH, "a", encoding="utf-8")
        deadline = time.monotonic() + self.lock_wait_s
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._lock = lock
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    lock.close()
                    raise TracefsBusy(f"tracefs is in use by another trace (lock {LOCK_PATH}); waited "
                                      f"{self.lock_wait_s:g} s") from None
                time.sleep(0.05)

    def __enter__(self) -> "traced":
        self._acquire()
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self) -> None:
        self._write("tracing_on", "0")
        self._write("trace", "")
        self._write("buffer_size_kb", str(self.buffer_kb))
        for e in self.events:
            if self.filter:
                self._write(f"events/{e}/filter", self.filter)
            self._write(f"events/{e}/enable", "1")
        self._write("tracing_on", "1")

    def lines(self) -> Iterator[str]:
        """The trace so far (tracing paused while it is read), at most :data:`MAX_TRACE_BYTES`."""
        self._write("tracing_on", "0")
        with open(TRACEFS / "trace", encoding="utf-8", errors="replace") as f:
            yield from f.read(MAX_TRACE_BYTES).splitlines()

    def __exit__(self, *exc) -> None:
        try:
            self._write("tracing_on", "0")
            for e in self.events:
                self._write(f"events/{e}/enable", "0")
                if self.filter:
                    self._write(f"events/{e}/filter", "0")
            self._write("trace", "")
        finally:
            if self._lock is not None:
                self._lock.close()  # closing the file releases the flock
                self._lock = None


def _lab_run(args: list[str], duration_s: float) -> dict:
    cmd = [sys.executable, "-m", "tcpsim", "lab", *args, "--duration", f"{duration_s}s", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"tcpsim lab exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)


def main(argv: Optional[list[str]] = None) -> int:
    ap = OneLineParser(prog="python -m tcpsim.lab.schedtrace", description=__doc__.splitlines()[0])
    ap.add_argument("--rtt", default="0.2ms,1ms,4ms", help="RTTs, comma-separated")
    ap.add_argument("--mtu", default="1500,9000", help="MTUs, comma-separated")
    ap.add_argument("--sockbuf", default="32k")
    ap.add_argument("--duration", default="2s", help="each run's length (at most 10 s)")
    ap.add_argument("--scenario", action="append", default=None, metavar="LAB_ARGS",
                    help="tcpsim lab's arguments for one run (\"--rate 0 --write 16k\"), instead of the RTT x MTU "
                         "grid; repeatable; each run reports its wake-ups a second beside its goodput")
    args = ap.parse_args(argv)
    try:
        rtts = [r.strip() for r in args.rtt.split(",") if r.strip()]
        for r in rtts:
            parse_duration(r, "rtt")
        mtus = [parse_size(m.strip(), "mtu") for m in args.mtu.split(",") if m.strip()]
        parse_size(args.sockbuf, "sockbuf")
        duration_s = parse_duration(args.duration, "duration", 0.5, 10.0)
    except ValueError as exc:
        print(f"{ap.prog}: {exc}", file=sys.stderr)
        return 2
    if os.geteuid() != 0 or not tracefs_has("events/sched/sched_waking"):
        print(f"{ap.prog}: needs root and tracefs at {TRACEFS} with the sched events", file=sys.stderr)
        return 2
    grid = [(["--rate", "1gbit", "--rtt", rtt, "--mtu", str(mtu), "--sockbuf", args.sockbuf],
             {"rtt": rtt, "mtu_bytes": mtu, "sockbuf": args.sockbuf}) for mtu in mtus for rtt in rtts]
    if args.scenario:
        grid = [(shlex.split(sc), {"scenario": sc}) for sc in args.scenario]
    traces, pooled = [], WakeTrace()
    for lab_args, label in grid:
        try:
            with traced(buffer_kb=65536) as tr:  # every process's sys_exit: a busy 2 s run writes ~20 MB
                lab = _lab_run(lab_args, duration_s)
                trace = parse_trace(tr.lines())
        except RuntimeError as exc:
            print(f"{ap.prog}: {exc}", file=sys.stderr)
            return 2
        pooled.extend(trace)
        traces.append((label, lab, trace))
    return_path_s = pooled.median_return_path_s()
    runs = []
    for label, lab, trace in traces:
        wakes = trace.wakes(return_path_s)
        measured = lab.get("measured") or {}
        runs.append({**label, "wakes": len(wakes), "switch_ins_traced": len(trace.switched),
                     "wakes_per_s": len(wakes) / duration_s, "goodput_bps": measured.get("goodput_bps"),
                     "buckets": wake_buckets(wakes), "kernel": lab.get("kernel")})
    wakes = pooled.wakes(return_path_s)
    print(json.dumps({"load_avg": os.getloadavg(), "return_path_s": return_path_s,
                      "return_path_samples": len(pooled.return_path_s), "runs": runs,
                      "pooled": wake_buckets(wakes), "wake_latency_s": wake_table(wakes),
                      "wake_latency_spread": latency_spread(wakes)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
