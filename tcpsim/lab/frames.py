"""Frames of the packets the lab's delay line carries, and random loss of them.

The TUN device hands the relay (:mod:`tcpsim.lab.relay`) each packet behind a ``virtio_net_hdr``
(``IFF_VNET_HDR``), a TSO/GSO aggregate whole. On a wire an aggregate is one frame per ``gso_size`` of payload,
and random loss takes frames, so :class:`FrameLoss` draws drops per frame and :func:`cut` rebuilds an aggregate
that lost some as the pieces around them, each with the headers Linux's ``tcp_gso_segment`` /
``inet_gso_segment`` give its segments: the sequence number of its first byte, the IP length and the id of its
first frame, PSH and FIN only on the last piece, CWR only on the first, and valid checksums. IPv4 TCP only (the
lab's); any other packet counts as one frame.
"""

from __future__ import annotations

import math
import random
import struct
from typing import Final, Sequence

from ..pcap import ones_complement_sum as inet_checksum

__all__ = ["VNET_HDR_BYTES", "FrameLoss", "frame_count", "cut", "lose_frames", "inet_checksum"]

VNET_HDR_BYTES: Final = 10
"""``struct virtio_net_hdr`` without ``num_buffers``: flags, gso_type, hdr_len, gso_size, csum_start,
csum_offset (``include/uapi/linux/virtio_net.h``), little-endian on the lab's x86-64."""
_VNET = struct.Struct("<BBHHHH")
_F_NEEDS_CSUM: Final = 1
_GSO_NONE, _GSO_TCPV4, _GSO_ECN = 0, 1, 0x80
_FIN, _PSH, _CWR = 0x01, 0x08, 0x80
_IPPROTO_TCP: Final = 6


class FrameLoss:
    """Independent loss of each frame with probability ``p``, drawn as the gap to the next drop (geometric), so
    a packet costs one comparison however many frames it holds; seeded."""

    def __init__(self, p: float, seed: int) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"loss: {p!r} is not a probability in 0..1")
        self.p = p
        self._rng = random.Random(seed)
        self._left = self._gap()
        self.frames = 0
        self.dropped = 0

    def _gap(self) -> float:
        """Frames up to and including the next dropped one."""
        if self.p <= 0.0:
            return math.inf
        if self.p >= 1.0:
            return 1
        return 1 + math.floor(math.log(1.0 - self._rng.random()) / math.log(1.0 - self.p))

    def drops(self, n: int) -> list[int]:
        """Which of the next ``n`` frames are lost (indices 0..n-1)."""
        lost: list[int] = []
        i = 0
        while self._left <= n - i:
            i += int(self._left)
            lost.append(i - 1)
            self._left = self._gap()
        self._left -= n - i
        self.frames += n
        self.dropped += len(lost)
        return lost


def _layout(pkt: bytes) -> tuple[int, int, int, int] | None:
    """(IP header start, TCP header start, payload start, gso_size) of an IPv4 TCP GSO aggregate, else None."""
    if len(pkt) < VNET_HDR_BYTES + 40:
        return None
    _flags, gso_type, _hdr_len, gso_size, _cs, _co = _VNET.unpack_from(pkt)
    ip = VNET_HDR_BYTES
    if gso_type & ~_GSO_ECN != _GSO_TCPV4 or gso_size == 0 or pkt[ip] >> 4 != 4 or pkt[ip + 9] != _IPPROTO_TCP:
        return None
    tcp = ip + (pkt[ip] & 0x0F) * 4
    payload = tcp + (pkt[tcp + 12] >> 4) * 4
    if payload > len(pkt):
        return None
    return ip, tcp, payload, gso_size


def _frames(pkt: bytes, payload: int, gso_size: int) -> int:
    return max(1, -(-(len(pkt) - payload) // gso_size))


def frame_count(pkt: bytes) -> int:
    """The frames a packet read from the TUN device (virtio header first) is on a wire: one per ``gso_size`` of
    an IPv4 TCP aggregate's payload, else one."""
    lay = _layout(pkt)
    return 1 if lay is None else _frames(pkt, lay[2], lay[3])


def cut(pkt: bytes, keep: Sequence[tuple[int, int]]) -> list[bytes]:
    """The pieces of aggregate ``pkt`` that hold its frames ``[first, end)`` for each pair in ``keep``, each a
    packet with its own virtio header: an aggregate again if it holds two frames or more, else a plain packet."""
    lay = _layout(pkt)
    if lay is None:
        raise ValueError("cut: not an IPv4 TCP GSO aggregate")
    ip, tcp, payload, gso_size = lay
    flags, gso_type, hdr_len, _size, csum_start, csum_offset = _VNET.unpack_from(pkt)
    n = _frames(pkt, payload, gso_size)
    body = pkt[payload:]
    seq = struct.unpack_from("!I", pkt, tcp + 4)[0]
    ip_id = struct.unpack_from("!H", pkt, ip + 4)[0]
    src_dst = pkt[ip + 12: ip + 20]
    out = []
    for first, end in keep:
        data = body[first * gso_size: end * gso_size]
        ip_hdr = bytearray(pkt[ip:tcp])
        tcp_hdr = bytearray(pkt[tcp:payload])
        struct.pack_into("!H", ip_hdr, 2, len(ip_hdr) + len(tcp_hdr) + len(data))
        struct.pack_into("!H", ip_hdr, 4, (ip_id + first) & 0xFFFF)
        struct.pack_into("!H", ip_hdr, 10, 0)
        struct.pack_into("!H", ip_hdr, 10, ~inet_checksum(bytes(ip_hdr)) & 0xFFFF)
        struct.pack_into("!I", tcp_hdr, 4, (seq + first * gso_size) & 0xFFFFFFFF)
        if first > 0:
            tcp_hdr[13] &= ~_CWR & 0xFF
        if end < n:
            tcp_hdr[13] &= ~(_PSH | _FIN) & 0xFF
        tcp_len = len(tcp_hdr) + len(data)
        pseudo = inet_checksum(src_dst + struct.pack("!HH", _IPPROTO_TCP, tcp_len))
        struct.pack_into("!H", tcp_hdr, 16, 0)
        if flags & _F_NEEDS_CSUM:  # CHECKSUM_PARTIAL: the pseudo-header sum, the rest left to the receiver's side
            struct.pack_into("!H", tcp_hdr, 16, pseudo)
        else:
            struct.pack_into("!H", tcp_hdr, 16, ~inet_checksum(bytes(tcp_hdr) + data, pseudo) & 0xFFFF)
        whole = end - first >= 2
        vnet = _VNET.pack(flags, gso_type if whole else _GSO_NONE, hdr_len, gso_size if whole else 0, csum_start,
                          csum_offset)
        out.append(vnet + bytes(ip_hdr) + bytes(tcp_hdr) + data)
    return out


def lose_frames(pkt: bytes, loss: FrameLoss) -> list[bytes]:
    """What of packet ``pkt`` crosses a wire that loses frames as ``loss`` draws: itself, nothing, or the pieces
    of an aggregate around its lost frames."""
    n = frame_count(pkt)
    lost = loss.drops(n)
    if not lost:
        return [pkt]
    if n == 1 or len(lost) == n:
        return []
    keep, first = [], 0
    for i in lost:
        if i > first:
            keep.append((first, i))
        first = i + 1
    if first < n:
        keep.append((first, n))
    return cut(pkt, keep)
