"""Read probe: the kernel's CPU time for one ``read`` by a saturated reader, without root or a network.

``python -m tcpsim.lab.readprobe`` opens a TCP connection on loopback. A writer process, pinned to one CPU,
keeps the connection's receive queue full with 64 KiB writes; the reader, pinned to another CPU, repeats what
iperf3's reader loop does, a ``select`` then a ``recv`` of ``--read-bytes`` (200), for about ``--seconds`` (1),
and its system CPU time over the calls (``getrusage``) divided by the calls is the kernel's cost of one read
as iperf3 makes it (entry, exit, the socket lock, ``tcp_recvmsg``'s bookkeeping, the skbs freed, the window
updates ``tcp_cleanup_rbuf`` sends, the segments the reader runs from its backlog). The user time is the
interpreter's, not a C tool's: reported, not used. A pass whose reader used less than
:data:`SATURATED_FRAC` of the wall time was not saturated (its queue ran dry) and is flagged.
This is ``CpuCost.per_syscall_rx_s`` (validation/README.md, "A saturated reader's read, timed without root");
``lab_vm``'s was timed the same way by the kernel's events (``tcpsim.lab.rxtrace``, root).
Loopback only; every pass bounded in time.
"""

from __future__ import annotations

import json
import os
import resource
import select
import socket
import statistics
import sys
import time
from typing import Optional

from ..cliutil import OneLineParser, typed
from ..units import parse_duration, parse_int

__all__ = ["probe_reads", "read_cost", "main", "SATURATED_FRAC"]

SATURATED_FRAC = 0.9
"""A reader busy less than this share of the wall time waited for data: its calls are not a saturated reader's."""
_WRITE_BYTES = 64 << 10
_MAX_SECONDS = 10.0


def _writer(sock: socket.socket, cpu: int, stop_at: float) -> None:  # pragma: no cover - runs in the child
    os.sched_setaffinity(0, {cpu})
    block = b"x" * _WRITE_BYTES
    sock.settimeout(1.0)
    while time.monotonic() < stop_at:
        try:
            sock.sendall(block)
        except (socket.timeout, OSError):
            return


def probe_reads(read_bytes: int = 200, seconds: float = 1.0, cpus: tuple[int, int] = (0, 1)) -> dict:
    """One pass: the reader's calls, wall, user and system seconds, and each per call."""
    read_bytes = max(1, min(int(read_bytes), 1 << 20))
    seconds = max(0.05, min(float(seconds), _MAX_SECONDS))
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
    stop_at = time.monotonic() + seconds + 1.0
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            conn.close()
            _writer(client, cpus[1], stop_at)
        finally:
            os._exit(0)
    client.close()
    own = os.sched_getaffinity(0)
    buf = bytearray(read_bytes)
    calls = 0
    try:
        os.sched_setaffinity(0, {cpus[0]})
        time.sleep(0.05)  # let the writer fill the queue
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            if not select.select([conn], [], [], 1.0)[0] or conn.recv_into(buf, read_bytes) == 0:
                break  # nothing for a second, or the writer gone: the pass ends, never hangs
            calls += 1
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        conn.close()
        os.sched_setaffinity(0, own)
        os.waitpid(pid, 0)
    user, system = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
    n = max(calls, 1)
    return {"calls": calls, "read_bytes": read_bytes, "wall_s": wall, "user_s": user, "system_s": system,
            "system_per_read_s": system / n, "user_per_read_s": user / n,
            "saturated": (user + system) >= SATURATED_FRAC * wall}


def read_cost(passes: int = 3, read_bytes: int = 200, seconds: float = 1.0) -> dict:
    """``passes`` passes (:func:`probe_reads`) and the median system seconds per read of the saturated ones
    (``per_syscall_rx_s``; None if no pass was saturated or there is one CPU only)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return {"passes": [], "per_syscall_rx_s": None, "note": "one CPU only: no reader apart from its writer"}
    sets = [probe_reads(read_bytes, seconds, (cpus[0], cpus[1])) for _ in range(max(1, min(int(passes), 10)))]
    used = [s["system_per_read_s"] for s in sets if s["saturated"]]
    return {"passes": sets, "per_syscall_rx_s": float(f"{statistics.median(used):.4g}") if used else None,
            "note": f"{len(used)} of {len(sets)} passes saturated; system CPU time per select + recv of {read_bytes} B"}


def main(argv: Optional[list[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.readprobe", description=__doc__.splitlines()[0])
    p.add_argument("--read-bytes", type=typed(parse_int, "read_bytes", lo=1, hi=1 << 20), default=200)
    p.add_argument("--seconds", type=typed(parse_duration, "seconds", lo_s=0.05, hi_s=_MAX_SECONDS), default=1.0)
    p.add_argument("--passes", type=typed(parse_int, "passes", lo=1, hi=10), default=3)
    a = p.parse_args(argv)
    print(json.dumps({"kernel": os.uname().release, "load_avg": os.getloadavg(),
                      **read_cost(a.passes, a.read_bytes, a.seconds)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
