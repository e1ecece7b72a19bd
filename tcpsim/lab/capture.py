"""Capture the frames of one interface to a libpcap file, headers only (``tcpsim lab --pcap``).

Run inside the sending namespace (``ip netns exec NS python -m tcpsim.lab.capture ...``) for the length of a
lab run: an ``AF_PACKET`` socket on the one device sees both directions, each frame stamped by the kernel as it
passed (``SO_TIMESTAMPNS``), kept to ``snaplen`` bytes (a GSO aggregate is one frame of up to 64 KiB, as
tcpdump on the sender sees it). Bounded: it stops after ``seconds``, after ``max_frames`` frames, or on
SIGTERM, whichever comes first, and the file it leaves is always whole. Standard library only, so Wireshark
and ``tcpsim``'s own traces (:mod:`tcpsim.pcap`) read the same format.
"""

from __future__ import annotations

import argparse
import signal
import socket
import struct
import sys
import time

from ..pcap import file_header, record

__all__ = ["capture", "SNAPLEN_BYTES", "MAX_FRAMES"]

SNAPLEN_BYTES = 128
"""Bytes kept of each frame: Ethernet, IPv4 and TCP headers with their options."""
MAX_FRAMES = 2_000_000
"""Frames at most (256 MiB of headers): a run's bound, whatever its length."""
_ETH_P_ALL = 0x0003
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_SOL_PACKET, _PACKET_STATISTICS = 263, 6


def capture(dev: str, path: str, seconds: float, max_frames: int = MAX_FRAMES,
            snaplen: int = SNAPLEN_BYTES) -> tuple[int, int]:
    """Write the frames ``dev`` sends and receives for ``seconds`` (at most ``max_frames``) to ``path``;
    returns how many, and how many the socket dropped for want of buffer (``PACKET_STATISTICS``: a capture
    that fell behind misses frames the interface carried). Stops cleanly on SIGTERM or SIGINT."""
    stop = {"now": False}

    def _stop(signum: int, frame: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
    n = 0
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        sock.bind((dev, 0))
        sock.settimeout(0.1)
        buf = bytearray(snaplen)
        end = time.monotonic() + seconds
        with open(path, "wb") as fh:
            fh.write(file_header(snaplen))
            while not stop["now"] and n < max_frames and time.monotonic() < end:
                try:
                    size, anc, _flags, _addr = sock.recvmsg_into([buf], socket.CMSG_SPACE(16), socket.MSG_TRUNC)
                except (socket.timeout, InterruptedError):
                    continue
                sec, ns = _stamp(anc)
                fh.write(record(sec, ns, bytes(buf[:min(size, snaplen)]), size))
                n += 1
        dropped = _drops(sock)
    finally:
        sock.close()
    return n, dropped


def _drops(sock: socket.socket) -> int:
    """Frames the socket dropped since it opened (``struct tpacket_stats``'s ``tp_drops``)."""
    try:
        _seen, dropped = struct.unpack("II", sock.getsockopt(_SOL_PACKET, _PACKET_STATISTICS, 8))
    except OSError:
        return 0
    return dropped


def _stamp(ancillary: list) -> tuple[int, int]:
    """The kernel's receive time of a frame (``SCM_TIMESTAMPNS``), or now where it gave none."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(data) >= 16:
            sec, ns = struct.unpack("qq", data[:16])
            return sec, ns
    now = time.time_ns()
    return now // 1_000_000_000, now % 1_000_000_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tcpsim.lab.capture", description=__doc__.splitlines()[0])
    ap.add_argument("--dev", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--max-frames", type=int, default=MAX_FRAMES)
    args = ap.parse_args(argv)
    if not 0 < args.seconds <= 600 or not 0 < args.max_frames <= MAX_FRAMES:
        print("capture: --seconds in (0, 600] and --max-frames in 1..%d" % MAX_FRAMES, file=sys.stderr)
        return 2
    frames, dropped = capture(args.dev, args.out, args.seconds, args.max_frames)
    print(frames, dropped, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
