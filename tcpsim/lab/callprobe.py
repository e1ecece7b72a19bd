"""System-call probe: what a ``send`` or ``recv`` that moves no data costs this machine, without TCP traffic.

``python -m tcpsim.lab.callprobe`` opens TCP connections on loopback, fills one's send buffer, and times
``send`` calls that return EAGAIN (entry, the socket lookup and lock, the buffer check, exit: nothing is sent)
and ``recv`` calls on an idle connection that return EAGAIN. With root and tracefs it takes the kernel's own
timestamps (``raw_syscalls`` enter and exit, this process only) and subtracts what the tracing itself costs, a
``getppid`` timed the same way; without them it times the loops from Python less a loop that raises the same
exception without a system call (an upper bound: the interpreter builds the exception from the error).

What tcpsim calls a write's fixed cost (``CpuCost.per_syscall_s``: entry, exit, socket lock) is at least the
EAGAIN send's, so the probe gives a floor that a fit of ``per_write_s`` can be checked against
(validation/README.md, "What the median rule gave"). Loopback only; every set bounded in count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import sys
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, Optional

__all__ = ["probe_calls", "parse_syscalls", "main", "MAX_CALLS"]

MAX_CALLS = 100_000
"""The most calls of one kind in a set (a set of 5,000 takes a few ms)."""
SYSCALL_EVENTS = ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit")
KINDS = ("send", "recv", "getppid")
_EVENT = re.compile(r"\s([\d.]+): sys_(enter|exit): NR (\d+)")


@contextmanager
def _loopback() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A connection whose send buffer is full and one with nothing to read, both non-blocking, on 127.0.0.1."""
    made: list[socket.socket] = []
    try:
        listener = socket.socket()
        made.append(listener)
        listener.bind(("127.0.0.1", 0))
        listener.listen(2)
        full = socket.socket()
        made.append(full)
        full.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        full.connect(listener.getsockname())
        peer, _ = listener.accept()
        made.append(peer)
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        idle = socket.socket()
        made.append(idle)
        idle.connect(listener.getsockname())
        quiet, _ = listener.accept()
        made.append(quiet)
        full.setblocking(False)
        quiet.setblocking(False)
        chunk = b"x" * 65536
        for _ in range(1000):  # fills in a few sends: the peer never reads
            try:
                full.send(chunk)
            except BlockingIOError:
                break
        yield full, quiet
    finally:
        for s in made:
            s.close()


def _loop(kind: str, n: int, full: socket.socket, quiet: socket.socket) -> None:
    if kind == "send":
        for _ in range(n):
            try:
                full.send(b"x")
            except BlockingIOError:
                pass
    elif kind == "recv":
        for _ in range(n):
            try:
                quiet.recv(1)
            except BlockingIOError:
                pass
    elif kind == "getppid":
        for _ in range(n):
            os.getppid()
    else:  # the Python loop's own cost, an exception raised without a system call
        for _ in range(n):
            try:
                raise BlockingIOError
            except BlockingIOError:
                pass


def parse_syscalls(lines: Iterable[str]) -> list[tuple[int, float]]:
    """(syscall number, seconds from enter to exit) of each completed call in a ``raw_syscalls`` trace."""
    out: list[tuple[int, float]] = []
    pending: Optional[tuple[int, float]] = None
    for line in lines:
        m = _EVENT.search(line)
        if not m:
            continue
        t, kind, nr = float(m.group(1)), m.group(2), int(m.group(3))
        if kind == "enter":
            pending = (nr, t)
        elif pending is not None and pending[0] == nr:
            out.append((nr, t - pending[1]))
            pending = None
    return out


def _by_phase(calls: list[tuple[int, float]], n: int) -> dict[str, float]:
    """Mean seconds of each kind: the phases ran in :data:`KINDS` order, ``n`` calls each, so each kind's
    system call is the one that appears ``n`` times in its phase (other calls, if any, are left out)."""
    means: dict[str, float] = {}
    seen: set[int] = set()
    for kind in KINDS:
        counts: dict[int, list[float]] = {}
        for nr, d in calls:
            if nr not in seen:
                counts.setdefault(nr, []).append(d)
        nr, durations = max(counts.items(), key=lambda kv: len(kv[1]))
        seen.add(nr)
        means[kind] = statistics.fmean(durations)
    return means


def _traced_set(n: int) -> dict[str, float]:
    from .schedtrace import traced

    with _loopback() as (full, quiet):
        with traced(buffer_kb=65536, events=SYSCALL_EVENTS, filter=f"common_pid == {os.getpid()}") as tr:
            for kind in KINDS:
                _loop(kind, n, full, quiet)
            calls = parse_syscalls(tr.lines())
    means = _by_phase(calls, n)
    return {"send_s": means["send"] - means["getppid"], "recv_s": means["recv"] - means["getppid"],
            "overhead_s": means["getppid"]}


def _python_set(n: int) -> dict[str, float]:
    with _loopback() as (full, quiet):
        took = {}
        for kind in KINDS + ("raise",):
            t0 = time.perf_counter_ns()
            _loop(kind, n, full, quiet)
            took[kind] = (time.perf_counter_ns() - t0) * 1e-9 / n
    return {"send_s": took["send"] - took["raise"], "recv_s": took["recv"] - took["raise"],
            "overhead_s": took["raise"]}


def _sig(v: float) -> float:
    return float(f"{v:.4g}")


def can_trace() -> bool:
    from .schedtrace import TRACEFS

    return os.geteuid() == 0 and (TRACEFS / "events/raw_syscalls/sys_enter/enable").exists()


def probe_calls(calls: int = 5000, passes: int = 3, method: str = "auto") -> dict:
    """Each pass's per-call seconds of an EAGAIN ``send`` and ``recv`` and their median over ``passes``."""
    n = max(100, min(int(calls), MAX_CALLS))
    passes = max(1, min(int(passes), 10))
    if method == "auto":
        method = "tracefs" if can_trace() else "python"
    one = _traced_set if method == "tracefs" else _python_set
    sets = [{k: _sig(v) for k, v in one(n).items()} for _ in range(passes)]
    return {"method": method, "calls": n, "passes": sets,
            "send_s": _sig(statistics.median(s["send_s"] for s in sets)),
            "recv_s": _sig(statistics.median(s["recv_s"] for s in sets)),
            "note": ("kernel timestamps, less a getppid's (the tracing's own cost)" if method == "tracefs" else
                     "Python loop times, less a loop raising the same exception: an upper bound")}


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tcpsim.lab.callprobe", description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=5000, help=f"calls of each kind a pass (at most {MAX_CALLS:,})")
    p.add_argument("--passes", type=int, default=3, help="passes (at most 10); the median is reported")
    p.add_argument("--method", choices=("auto", "tracefs", "python"), default="auto")
    a = p.parse_args(argv)
    if a.method == "tracefs" and not can_trace():
        print("--method tracefs needs root and /sys/kernel/tracing with raw_syscalls events", file=sys.stderr)
        return 2
    print(json.dumps(probe_calls(a.calls, a.passes, a.method), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
