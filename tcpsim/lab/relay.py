"""A user-space delay line: a TUN device that hands every packet back after a fixed one-way delay.

Used by :class:`~tcpsim.lab.testbed.Testbed` when the kernel has no ``netem`` qdisc. The middle
namespace routes everything that arrives from either veth into the TUN device (policy rule ``iif``),
and what this process writes back is routed on to the other side. The device takes TSO/GSO packets
whole (``IFF_VNET_HDR``, ``TUNSETOFFLOAD``), so it handles a few thousand aggregates per second, not
every MTU-sized frame. Packets leave in arrival order; a packet is sent early by the loop's measured
wake-up lateness (an average), so the mean delay stays near the target on a loaded machine. With a loss
probability it drops each frame, in both directions, independently (:mod:`tcpsim.lab.frames`: an aggregate is cut
around the frames it loses).
Runs as ``python -m tcpsim.lab.relay DEV ONE_WAY_DELAY_S [MAX_S [LOSS SEED]]``; prints ``ready`` once the device
exists, and at the end on stderr the packets relayed and the frames dropped.
"""

from __future__ import annotations

import collections
import fcntl
import os
import select
import struct
import sys
import time
from typing import Optional

from ._proc import die_with_parent
from .frames import FrameLoss, lose_frames

MAX_S = 900.0
"""How long the relay serves at most unless told (its third argument); the testbed tears it down sooner."""

_TUNSETIFF = 0x400454CA
_TUNSETOFFLOAD = 0x400454D0
_IFF_TUN, _IFF_NO_PI, _IFF_VNET_HDR = 0x0001, 0x1000, 0x4000
_TUN_F_CSUM, _TUN_F_TSO4, _TUN_F_TSO6 = 0x01, 0x02, 0x04


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH22x", name.encode(), _IFF_TUN | _IFF_NO_PI | _IFF_VNET_HDR))
    fcntl.ioctl(fd, _TUNSETOFFLOAD, _TUN_F_CSUM | _TUN_F_TSO4 | _TUN_F_TSO6)
    return fd


def serve(fd: int, delay_s: float, max_s: float, loss: Optional[FrameLoss] = None) -> int:
    """Delay every packet read from ``fd`` by ``delay_s`` and write back what ``loss`` (None: nothing) leaves of
    it; returns the packets read."""
    queue: collections.deque = collections.deque()
    late_s = 0.0  # running mean of how late the loop wakes
    end = time.monotonic() + max_s
    n = 0
    while True:
        now = time.monotonic()
        if now > end:
            return n
        wait = queue[0][0] - late_s - now if queue else 0.25
        if wait > 0:
            select.select([fd], [], [], wait)
        now = time.monotonic()
        while True:
            try:
                pkt = os.read(fd, 65536 + 64)
            except BlockingIOError:
                break
            n += 1
            if loss is None:
                queue.append((now + delay_s, pkt))
            else:
                for piece in lose_frames(pkt, loss):
                    queue.append((now + delay_s, piece))
        now = time.monotonic()
        while queue and queue[0][0] - late_s <= now:
            due, pkt = queue.popleft()
            # integral control: sending early by late_s brings the mean (send time - due) to zero
            late_s = min(max(late_s + 0.02 * (now - due), 0.0), delay_s / 2)
            try:
                os.write(fd, pkt)
            except OSError:
                pass  # a full device queue drops, as a link would


def _realtime() -> None:
    """Wake on time on a busy machine: SCHED_FIFO (the loop sleeps in select between packets, and the
    kernel's RT throttling keeps 5 % of every CPU for others whatever happens)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (OSError, AttributeError):
        pass


def main(argv: list[str]) -> int:
    die_with_parent(timer_slack_ns=1000)
    _realtime()
    name, delay_s = argv[0], float(argv[1])
    max_s = float(argv[2]) if len(argv) > 2 else MAX_S
    loss = FrameLoss(float(argv[3]), int(argv[4])) if len(argv) > 4 and float(argv[3]) > 0 else None
    fd = open_tun(name)
    print("ready", flush=True)
    n = serve(fd, delay_s, max_s, loss)
    dropped = f", {loss.dropped} of {loss.frames} frames dropped" if loss else ""
    print(f"relayed {n}{dropped}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
