"""Wake-up probe: how late a blocked process runs after it idled, without TCP.

``python -m tcpsim.lab.wakeprobe --gap 0.1ms,1ms,4ms`` forks a process that blocks in ``read`` on a pipe,
pinned to one CPU, and from another CPU writes it a timestamp after each idle gap; the reader's return
from ``read`` less the timestamp is its wake-up latency (the writer stamps after its own wake-up, so that
stays out). It prints, as JSON, the median and spread of each gap's set; :func:`wake_table` turns them
into a platform's ``CpuCost.wake_latency_s`` (validation/README.md, "A process wakes late after idling").

``--spin`` makes the gaps what they say (validation/README.md, "The wake-up latency after short idles"): the waker
spins each gap on the clock rather than sleeping (a sleep of microseconds lasts tens of them, the timer's slack) and
waits, spinning, for the reader to acknowledge each wake-up before the next gap begins, so no stamp queues behind
another; its default gaps start at 10 us (:data:`SPIN_LATENCY_GAPS_S`).

``--tail`` adds the rare long wake-ups pooled over every set: the fraction later than :data:`STALL_S` and their
mean lateness, a platform's ``CpuCost.wake_stall_frac`` and ``wake_stall_s`` (:func:`stall_tail`;
validation/README.md, "A blocked process now and then wakes milliseconds late"). No shipped profile takes them since
a streaming reader was found not to meet them (validation/README.md, "A streaming process does not meet the wake-up
probe's stalls"): on a VM they are the vCPU stopping, which under a stream stops the sender too.

``--waker`` times the other side (:func:`probe_waker`): what the ``write`` that wakes the reader costs the
writer itself, with the reader asleep on the other CPU, asleep on the writer's CPU, and awake on the other CPU
polling the pipe (no wake-up at all); the difference is what waking a process costs the CPU that does it
(on a VM, the inter-processor interrupt's exits: validation/README.md, "Where the two tools run").
No root and no network: only two local processes, every set bounded in count and wall time.
"""

from __future__ import annotations

import json
import os
import statistics
import struct
import sys
import time
from typing import Optional, Sequence

from ..cliutil import OneLineParser
from ..units import parse_duration
from .pathprobe import spread

__all__ = ["probe_wake", "probe_waker", "waker_sets", "wake_table", "waker_table", "stall_tail", "main", "MAX_SET_S",
           "WAKER_PLACEMENTS", "STALL_S", "LATENCY_GAPS_S", "SPIN_LATENCY_GAPS_S"]

MAX_SET_S = 30.0
"""Wall-clock budget of one set: it stops with the wake-ups it has when this runs out."""
MAX_COUNT = 10_000
_STAMP = struct.Struct("q")
_WARMUP_S = 0.05
STALL_S = 1e-3
"""A wake-up later than this is a stall (some 40 times the median on the lab's VM: the vCPU was not running)."""


def _reader(fd_in: int, fd_out: int, cpu: int, ack_fd: int = -1) -> None:
    """The child: block in ``read``, time each wake-up (and acknowledge it on ``ack_fd``, if given), send the
    latencies (ns) back at end of input."""
    os.sched_setaffinity(0, {cpu})
    out: list[int] = []
    while True:
        data = os.read(fd_in, _STAMP.size)
        woke = time.perf_counter_ns()
        if len(data) < _STAMP.size:
            break
        out.append(woke - _STAMP.unpack(data)[0])
        if ack_fd >= 0:
            try:
                os.write(ack_fd, b"a")
            except BrokenPipeError:  # the waker stopped waiting (its set's wall budget): keep what was measured
                ack_fd = -1
    payload = struct.pack(f"{len(out)}q", *out)
    view = memoryview(payload)
    while view:
        view = view[os.write(fd_out, view):]


def _spin_until_ns(deadline_ns: int) -> None:
    """Busy-wait on the clock until ``deadline_ns`` (:func:`time.perf_counter_ns`): the CPU stays busy, as a sleep's
    would not."""
    while time.perf_counter_ns() < deadline_ns:
        pass


def _await_ack(fd: int, deadline: float) -> bool:
    """Spin on the non-blocking ``fd`` until the reader's acknowledgment arrives; False at end of input or once
    :func:`time.monotonic` passes ``deadline``."""
    while time.monotonic() < deadline:
        try:
            return bool(os.read(fd, 1))
        except BlockingIOError:
            continue
    return False


def probe_wake(gap_s: float, count: int = 200, cpus: tuple[int, int] = (0, 1), spin: bool = False) -> dict:
    """Wake-up latencies of a process on ``cpus[1]`` woken from ``cpus[0]`` after ``gap_s`` of idling.

    With ``spin`` the waker spins the gap and waits for each wake-up's acknowledgment before the next, so the reader
    idles the gap itself (module docstring). At most ``count`` wake-ups and :data:`MAX_SET_S` of wall time; returns
    the set's summary."""
    count = max(1, min(int(count), MAX_COUNT))
    r, w = os.pipe()
    back_r, back_w = os.pipe()
    ack_r, ack_w = os.pipe() if spin else (-1, -1)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os.close(w)
            os.close(back_r)
            if spin:
                os.close(ack_r)
            _reader(r, back_w, cpus[1], ack_w)
        finally:
            os._exit(0)
    os.close(r)
    os.close(back_w)
    if spin:
        os.close(ack_w)
        os.set_blocking(ack_r, False)
    own = os.sched_getaffinity(0)
    gap_ns = int(gap_s * 1e9)
    try:
        os.sched_setaffinity(0, {cpus[0]})
        time.sleep(_WARMUP_S)
        end = time.monotonic() + MAX_SET_S
        for _ in range(count):
            if time.monotonic() + gap_s > end:
                break
            if spin:
                _spin_until_ns(time.perf_counter_ns() + gap_ns)
            else:
                time.sleep(gap_s)
            os.write(w, _STAMP.pack(time.perf_counter_ns()))
            if spin and not _await_ack(ack_r, end):
                break
    finally:
        os.close(w)
        if spin:
            os.close(ack_r)
        os.sched_setaffinity(0, own)
        chunks = []
        while chunk := os.read(back_r, 1 << 16):
            chunks.append(chunk)
        os.close(back_r)
        os.waitpid(pid, 0)
    raw = b"".join(chunks)
    latencies = [x / 1e9 for x in struct.unpack(f"{len(raw) // 8}q", raw)]
    if not latencies:
        raise RuntimeError("the wake-up probe's reader returned no measurement")
    stalls = [x for x in latencies if x > STALL_S]
    return {"gap_s": gap_s, "cpus": list(cpus), **spread(latencies), "stall_n": len(stalls),
            "stall_mean_s": statistics.fmean(stalls) if stalls else None, "spin": spin}


LATENCY_GAPS_S = (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 4e-3, 8e-3)
"""The idle gaps of the latency sets when none is given (``tcpsim machine detect --probes`` takes these too)."""
LATENCY_GAPS = ",".join(f"{g * 1e3:g}ms" for g in LATENCY_GAPS_S)
SPIN_LATENCY_GAPS_S = (1e-5, 2e-5, 5e-5) + LATENCY_GAPS_S
"""The idle gaps of ``--spin``'s latency sets when none is given: short idles too, which only a spinning waker makes."""
SPIN_LATENCY_GAPS = ",".join(f"{g * 1e3:g}ms" for g in SPIN_LATENCY_GAPS_S)
WAKER_GAP = "0.5ms"
WAKER_GAP_S = 5e-4
"""The writer's spin between waking writes when no gap is given (the thirteenth session's probe)."""

WAKER_PLACEMENTS = ("asleep, other CPU", "asleep, same CPU", "polling, other CPU")
"""The reader's state and place in :func:`probe_waker`'s three sets."""


def _sink(fd_in: int, cpu: int, poll: bool) -> None:
    """The child of :func:`probe_waker`: read the pipe to its end, blocking (asleep between writes) or polling."""
    os.sched_setaffinity(0, {cpu})
    if poll:
        os.set_blocking(fd_in, False)
    while True:
        try:
            if not os.read(fd_in, 1 << 12):
                return
        except BlockingIOError:
            continue


def probe_waker(placement: str, count: int = 2000, cpus: tuple[int, int] = (0, 1), gap_s: float = WAKER_GAP_S) -> dict:
    """What a ``write`` of 8 bytes to a pipe costs the writer on ``cpus[0]`` when its reader is as ``placement``
    says (:data:`WAKER_PLACEMENTS`). Between writes the writer spins for ``gap_s``, so its own CPU never idles
    and the reader, if it blocks, is asleep again. At most ``count`` writes and :data:`MAX_SET_S` of wall time."""
    if placement not in WAKER_PLACEMENTS:
        raise ValueError(f"placement: one of {', '.join(WAKER_PLACEMENTS)}")
    count = max(1, min(int(count), MAX_COUNT))
    reader_cpu = cpus[0] if placement == "asleep, same CPU" else cpus[1]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os.close(w)
            _sink(r, reader_cpu, placement.startswith("polling"))
        finally:
            os._exit(0)
    os.close(r)
    own = os.sched_getaffinity(0)
    took: list[float] = []
    try:
        os.sched_setaffinity(0, {cpus[0]})
        time.sleep(_WARMUP_S)
        end = time.monotonic() + MAX_SET_S
        while len(took) < count and time.monotonic() + gap_s < end:
            spin_until = time.perf_counter() + gap_s
            while time.perf_counter() < spin_until:
                pass
            t0 = time.perf_counter_ns()
            os.write(w, b"12345678")
            took.append((time.perf_counter_ns() - t0) / 1e9)
    finally:
        os.close(w)
        os.sched_setaffinity(0, own)
        os.waitpid(pid, 0)
    return {"placement": placement, "cpus": [cpus[0], reader_cpu], "gap_s": gap_s, **spread(took)}


def waker_sets(gaps_s: Sequence[float], count: int, cpus: tuple[int, int], passes: int = 1) -> list[dict]:
    """:func:`probe_waker` in every placement at each of ``gaps_s``, ``passes`` times over."""
    return [probe_waker(p, count, cpus, g) for _ in range(passes) for g in gaps_s for p in WAKER_PLACEMENTS]


def waker_table(sets: list[dict]) -> list[list[float]]:
    """(gap, cost) pairs from :func:`probe_waker` sets: at each gap the median over passes of the waking write
    with the reader asleep on the other CPU less the median with it polling, in order of gap."""
    by: dict[tuple[float, str], list[float]] = {}
    for s in sets:
        by.setdefault((float(s.get("gap_s", WAKER_GAP_S)), s["placement"]), []).append(float(s["median_s"]))
    gaps = sorted({g for g, _ in by})
    return [[g, statistics.median(by[g, "asleep, other CPU"]) - statistics.median(by[g, "polling, other CPU"])]
            for g in gaps if (g, "asleep, other CPU") in by and (g, "polling, other CPU") in by]


def wake_table(sets: list[dict]) -> list[list[float]]:
    """``CpuCost.wake_latency_s`` from probe sets: (gap, median latency) of each cross-CPU gap, in order of gap
    (several sets of one gap: the median of their medians)."""
    by_gap: dict[float, list[float]] = {}
    for s in sets:
        if s["cpus"][0] != s["cpus"][1]:
            by_gap.setdefault(float(s["gap_s"]), []).append(float(s["median_s"]))
    return [[gap, statistics.median(meds)] for gap, meds in sorted(by_gap.items())]


def stall_tail(sets: list[dict]) -> dict:
    """``CpuCost.wake_stall_frac`` and ``wake_stall_s`` from probe sets: over every wake-up of the cross-CPU sets,
    the fraction later than :data:`STALL_S`, and the mean lateness of those (0 if none)."""
    cross = [s for s in sets if s["cpus"][0] != s["cpus"][1] and s.get("stall_n") is not None]
    n = sum(s["n"] for s in cross)
    stalls = sum(s["stall_n"] for s in cross)
    late = sum(s["stall_n"] * s["stall_mean_s"] for s in cross if s["stall_n"])
    return {"wake_stall_frac": stalls / n if n else 0.0, "wake_stall_s": late / stalls if stalls else 0.0,
            "wake_ups": n, "stalls": stalls}


def _cpu_pair() -> tuple[int, int]:
    cpus = sorted(os.sched_getaffinity(0))
    return (cpus[0], cpus[1]) if len(cpus) > 1 else (cpus[0], cpus[0])


def main(argv: Optional[list[str]] = None) -> int:
    ap = OneLineParser(prog="python -m tcpsim.lab.wakeprobe", description=__doc__.splitlines()[0])
    ap.add_argument("--gap", default=None,
                    help=f"idle gaps, comma-separated (default {LATENCY_GAPS}; with --waker, the writer's spin "
                         f"between writes, default {WAKER_GAP})")
    ap.add_argument("--count", type=int, default=None,
                    help=f"wake-ups per gap (default 300), writes per placement with --waker (2000); "
                         f"at most {MAX_COUNT}")
    ap.add_argument("--same-cpu", action="store_true", help="waker and sleeper on one CPU")
    ap.add_argument("--passes", type=int, default=1, help="repeat the whole list this many times")
    ap.add_argument("--tail", action="store_true", help="also the stalls (wake-ups later than 1 ms) pooled over "
                    "every set: CpuCost.wake_stall_frac and wake_stall_s")
    ap.add_argument("--waker", action="store_true", help="time the waking write instead, in three placements "
                    "(--count writes each, default 2000)")
    ap.add_argument("--spin", action="store_true", help="the waker spins each gap and waits for each wake-up before "
                    f"the next, so the reader idles the gap itself (default gaps {SPIN_LATENCY_GAPS})")
    args = ap.parse_args(argv)
    try:
        if args.spin and args.waker:
            raise ValueError("spin: the latency sets' option, not --waker's (whose writer spins already)")
        gap_list = args.gap or (WAKER_GAP if args.waker else SPIN_LATENCY_GAPS if args.spin else LATENCY_GAPS)
        gaps = [parse_duration(g.strip(), "gap", 1e-6, 0.1) for g in gap_list.split(",") if g.strip()]
        count = args.count if args.count is not None else 2000 if args.waker else 300
        if not 1 <= count <= MAX_COUNT or not 1 <= args.passes <= 10:
            raise ValueError(f"count: 1..{MAX_COUNT}, passes: 1..10")
    except ValueError as exc:
        print(f"{ap.prog}: {exc}", file=sys.stderr)
        return 2
    pair = _cpu_pair()
    if args.waker:
        if pair[0] == pair[1]:
            print("wakeprobe: --waker needs two CPUs", file=sys.stderr)
            return 2
        wsets = waker_sets(gaps, count, pair, args.passes)
        print(json.dumps({"kernel": os.uname().release, "load_avg": os.getloadavg(), "sets": wsets,
                          "wake_cost_s": waker_table(wsets)}, indent=1))
        return 0
    cpus = (pair[0], pair[0]) if args.same_cpu else pair
    sets = [probe_wake(g, count, cpus, args.spin) for _ in range(args.passes) for g in gaps]
    out = {"kernel": os.uname().release, "load_avg": os.getloadavg(), "sets": sets, "wake_latency_s": wake_table(sets)}
    if args.tail:
        out["stall_tail"] = stall_tail(sets)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
