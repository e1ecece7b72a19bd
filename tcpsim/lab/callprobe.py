"""System-call probe: what a ``send`` or ``recv`` costs this machine apart from moving packets, without TCP traffic.

``python -m tcpsim.lab.callprobe`` opens TCP connections on loopback, fills one's send buffer, and times
``send`` calls that return EAGAIN (entry, the socket lookup and lock, the buffer check, exit: nothing is sent)
and ``recv`` calls on an idle connection that return EAGAIN; and ``write`` calls of ``--queue-bytes`` (60) on
a connection whose peer's window is closed, so each is taken whole into the send queue and nothing is
transmitted (the lock, the copy into the tail skb, ``tcp_push`` finding no window: a small write's cost before
any packet work). With root and tracefs it takes the kernel's own
timestamps (``raw_syscalls`` enter and exit, this process only) and subtracts what the tracing itself costs, a
``getppid`` timed the same way; without them it times the loops from Python less a loop that raises the same
exception without a system call (an upper bound: the interpreter builds the exception from the error).

What tcpsim calls a write's fixed cost (``CpuCost.per_syscall_s``: entry, exit, socket lock) is at least the
EAGAIN send's, so the probe gives a floor that a fit of ``per_write_s`` can be checked against
(validation/README.md, "What the median rule gave"); the queued write is that cost with its data taken in.
Loopback only; every set bounded in count.
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import sys
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, Optional

from ..cliutil import OneLineParser, typed
from ..units import parse_int

__all__ = ["probe_calls", "parse_syscalls", "main", "MAX_CALLS"]

MAX_CALLS = 100_000
"""The most calls of one kind in a set (a set of 5,000 takes a few ms)."""
SYSCALL_EVENTS = ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit")
KINDS = ("send", "recv", "getppid", "queue")
QUEUE_BYTES = 60
"""Bytes of each queued write by default: the lab sweep's smallest message."""
_EVENT = re.compile(r"\s([\d.]+): sys_(enter|exit): NR (\d+)")


@contextmanager
def _loopback() -> Iterator[tuple[socket.socket, socket.socket, socket.socket]]:
    """A connection whose send buffer is full, one with nothing to read, and one whose peer's window is closed
    with room left in its own send buffer, all non-blocking, on 127.0.0.1."""
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
        queued = socket.socket()
        made.append(queued)
        queued.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        queued.connect(listener.getsockname())
        closed, _ = listener.accept()
        made.append(closed)
        closed.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        full.setblocking(False)
        quiet.setblocking(False)
        queued.setblocking(False)
        chunk = b"x" * 65536
        for _ in range(1000):  # fills in a few sends: the peer never reads
            try:
                full.send(chunk)
            except BlockingIOError:
                break
        queued.send(chunk)  # more than the peer's window: it closes, and the rest waits in the send queue
        time.sleep(0.02)  # the window's last update arrives within a loopback round trip
        yield full, quiet, queued
    finally:
        for s in made:
            s.close()


def _loop(kind: str, n: int, full: socket.socket, quiet: socket.socket, queued: socket.socket,
          queue_bytes: int = QUEUE_BYTES) -> None:
    if kind == "queue":  # write(2), not sendto(2), so its phase is told apart by its system call number
        fd, data = queued.fileno(), b"x" * queue_bytes
        for _ in range(n):
            try:
                os.write(fd, data)
            except BlockingIOError:
                pass
    elif kind == "send":
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
    """Mean seconds of each kind: the phases ran one after another in :data:`KINDS` order, ``n`` calls each, so
    a phase ends at the ``n``-th call of the first system call to reach ``n`` in it, and its mean is that call's
    (other calls, if any, are left out; two phases may share a call number, write(2) a stray one too)."""
    means: dict[str, float] = {}
    pos = 0
    for kind in KINDS:
        counts: dict[int, int] = {}
        nr, end = -1, len(calls)
        for i in range(pos, len(calls)):
            c = counts[calls[i][0]] = counts.get(calls[i][0], 0) + 1
            if c == n:
                nr, end = calls[i][0], i + 1
                break
        if nr < 0:
            raise ValueError(f"callprobe: the {kind} phase's {n} calls are not in the trace")
        means[kind] = statistics.fmean(d for k, d in calls[pos:end] if k == nr)
        pos = end
    return means


def _traced_set(n: int, queue_bytes: int) -> dict[str, float]:
    from .schedtrace import traced

    with _loopback() as socks:
        with traced(buffer_kb=65536, events=SYSCALL_EVENTS, filter=f"common_pid == {os.getpid()}") as tr:
            for kind in KINDS:
                _loop(kind, n, *socks, queue_bytes)
            calls = parse_syscalls(tr.lines())
    means = _by_phase(calls, n)
    return {"send_s": means["send"] - means["getppid"], "recv_s": means["recv"] - means["getppid"],
            "queue_send_s": means["queue"] - means["getppid"], "overhead_s": means["getppid"]}


def _python_set(n: int, queue_bytes: int) -> dict[str, float]:
    with _loopback() as socks:
        took = {}
        for kind in KINDS + ("raise",):
            t0 = time.perf_counter_ns()
            _loop(kind, n, *socks, queue_bytes)
            took[kind] = (time.perf_counter_ns() - t0) * 1e-9 / n
    return {"send_s": took["send"] - took["raise"], "recv_s": took["recv"] - took["raise"],
            "queue_send_s": took["queue"],  # the loop raises nothing here: the whole call, an upper bound
            "overhead_s": took["raise"]}


def _sig(v: float) -> float:
    return float(f"{v:.4g}")


def can_trace() -> bool:
    from .schedtrace import tracefs_has

    return os.geteuid() == 0 and tracefs_has("events/raw_syscalls/sys_enter/enable")


def probe_calls(calls: int = 5000, passes: int = 3, method: str = "auto", queue_bytes: int = QUEUE_BYTES) -> dict:
    """Each pass's per-call seconds of an EAGAIN ``send`` and ``recv`` and of a queued ``write`` of
    ``queue_bytes``, and their medians over ``passes``."""
    n = max(100, min(int(calls), MAX_CALLS))
    passes = max(1, min(int(passes), 10))
    queue_bytes = max(1, min(int(queue_bytes), 1024))
    if method == "auto":
        method = "tracefs" if can_trace() else "python"
    one = _traced_set if method == "tracefs" else _python_set
    sets = [{k: _sig(v) for k, v in one(n, queue_bytes).items()} for _ in range(passes)]
    return {"method": method, "calls": n, "queue_bytes": queue_bytes, "passes": sets,
            "send_s": _sig(statistics.median(s["send_s"] for s in sets)),
            "recv_s": _sig(statistics.median(s["recv_s"] for s in sets)),
            "queue_send_s": _sig(statistics.median(s["queue_send_s"] for s in sets)),
            "note": ("kernel timestamps, less a getppid's (the tracing's own cost)" if method == "tracefs" else
                     "Python loop times, less a loop raising the same exception: an upper bound")}


def main(argv: Optional[list[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.callprobe", description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=typed(parse_int, "calls", lo=1, hi=MAX_CALLS), default=5000,
                   help=f"calls of each kind a pass (at most {MAX_CALLS:,})")
    p.add_argument("--passes", type=typed(parse_int, "passes", lo=1, hi=10), default=3,
                   help="passes (at most 10); the median is reported")
    p.add_argument("--method", choices=("auto", "tracefs", "python"), default="auto")
    p.add_argument("--queue-bytes", type=typed(parse_int, "queue_bytes", lo=1, hi=1024), default=QUEUE_BYTES,
                   help="bytes of each queued write (1-1024)")
    a = p.parse_args(argv)
    if a.method == "tracefs" and not can_trace():
        print("--method tracefs needs root and /sys/kernel/tracing with raw_syscalls events", file=sys.stderr)
        return 2
    print(json.dumps(probe_calls(a.calls, a.passes, a.method, a.queue_bytes), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
