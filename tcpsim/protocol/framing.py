"""Sizes on the wire: MSS from the MTU and options, and Ethernet framing overhead.

Ref: RFC 9293 §3.7.1 (MSS = MTU - IP and TCP headers), RFC 7323 §3 (timestamps option, 10 bytes padded
to 12), IEEE 802.3 (preamble+SFD 8, header 14, FCS 4, inter-frame gap 12, minimum frame 64 bytes).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "IP_HEADER_BYTES", "TCP_HEADER_BYTES", "TIMESTAMP_OPTION_BYTES", "ETH_HEADER_BYTES", "ETH_FCS_BYTES",
    "ETH_PREAMBLE_BYTES", "ETH_IFG_BYTES", "ETH_MIN_FRAME_BYTES", "tcp_option_bytes", "mss_bytes",
    "frame_bytes", "wire_bytes", "serialization_s", "line_goodput_bps",
]

IP_HEADER_BYTES: Final = 20
TCP_HEADER_BYTES: Final = 20
TIMESTAMP_OPTION_BYTES: Final = 12
ETH_HEADER_BYTES: Final = 14
ETH_FCS_BYTES: Final = 4
ETH_PREAMBLE_BYTES: Final = 8
ETH_IFG_BYTES: Final = 12
ETH_MIN_FRAME_BYTES: Final = 64


def tcp_option_bytes(timestamps: bool) -> int:
    """Option bytes carried by every data segment: 12 with RFC 7323 timestamps, else 0.

    SACK blocks ride only on pure ACKs while the receiver holds out-of-order data
    (:mod:`tcpsim.protocol.sack`) and are not counted in the MSS.
    """
    return TIMESTAMP_OPTION_BYTES if timestamps else 0


def mss_bytes(mtu_bytes: int, timestamps: bool = False) -> int:
    """Largest TCP payload per segment: MTU - 40 - options (1500 -> 1460, or 1448 with timestamps)."""
    return mtu_bytes - IP_HEADER_BYTES - TCP_HEADER_BYTES - tcp_option_bytes(timestamps)


def frame_bytes(payload_bytes: int, option_bytes: int = 0) -> int:
    """Ethernet frame size (header to FCS) carrying a TCP segment, padded to the 64-byte minimum."""
    size = payload_bytes + option_bytes + IP_HEADER_BYTES + TCP_HEADER_BYTES + ETH_HEADER_BYTES + ETH_FCS_BYTES
    return size if size > ETH_MIN_FRAME_BYTES else ETH_MIN_FRAME_BYTES


def wire_bytes(payload_bytes: int, option_bytes: int = 0, skb_charged: bool = False) -> int:
    """Bytes of line time a segment takes: on an 802.3 line its frame plus preamble, SFD and inter-frame gap.

    ``skb_charged``: the rate is a token-bucket shaper's (Linux ``tbf``, :attr:`tcpsim.config.Link.skb_charged`),
    which charges the length ``qdisc_pkt_len`` gives (``tbf_dequeue``; ``qdisc_pkt_len_init``: ``skb->len``, the IP
    packet and its Ethernet header, a GSO skb's headers once a segment): no FCS, preamble, gap or padding."""
    if skb_charged:
        return payload_bytes + option_bytes + IP_HEADER_BYTES + TCP_HEADER_BYTES + ETH_HEADER_BYTES
    return frame_bytes(payload_bytes, option_bytes) + ETH_PREAMBLE_BYTES + ETH_IFG_BYTES


def serialization_s(payload_bytes: int, option_bytes: int, rate_bps: float, skb_charged: bool = False) -> float:
    """Time to clock one segment onto a link of ``rate_bps`` (``skb_charged``: see :func:`wire_bytes`)."""
    return wire_bytes(payload_bytes, option_bytes, skb_charged) * 8.0 / rate_bps


def line_goodput_bps(rate_bps: float, mtu_bytes: int, timestamps: bool = False, skb_charged: bool = False) -> float:
    """Application bytes per second a saturated link carries with full-sized segments.

    1 Gbit/s, MTU 1500, no timestamps: 1e9 * 1460 / 1538 = 949.3 Mbit/s (ACKs use the reverse direction); behind a
    ``tbf`` (``skb_charged``, :func:`wire_bytes`) with timestamps, 1e9 * 1448 / 1514 = 956.4 Mbit/s.
    """
    mss = mss_bytes(mtu_bytes, timestamps)
    return rate_bps * mss / wire_bytes(mss, tcp_option_bytes(timestamps), skb_charged)
