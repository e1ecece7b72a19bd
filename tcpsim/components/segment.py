"""A TCP segment in flight: what the wire and the peer need, nothing more."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typed, the compiled hot path calls the receiving endpoint natively
    from .endpoint import TcpEndpoint
    from .resources import Server

__all__ = ["Segment"]


class Segment:
    """One TCP segment; ``length`` 0 is a pure ACK or window update."""

    __slots__ = ("dst", "seq", "length", "ack", "wnd", "frame_bytes", "wire_s", "retransmit", "sent_s", "push", "sack",
                 "more", "cont", "tx_cpu", "tx_call")

    def __init__(self, dst: TcpEndpoint, seq: int, length: int, ack: int, wnd: int, frame_bytes: int, wire_s: float,
                 retransmit: bool, sent_s: float, push: bool = False, sack: tuple | None = None) -> None:
        self.dst = dst
        self.seq = seq
        self.length = length
        self.ack = ack
        self.wnd = wnd
        self.frame_bytes = frame_bytes
        self.wire_s = wire_s
        self.retransmit = retransmit
        self.sent_s = sent_s
        self.push = push
        self.sack = sack
        """SACK blocks ``((start, end), ...)`` the ACK carries (RFC 2018), or None."""
        self.more = False
        """More segments of the same GSO aggregate follow (a path that carries aggregates whole): the
        receiver's per-packet work waits for the aggregate's last segment (one ``netif_receive_skb``)."""
        self.cont = False
        """This segment continues a GSO aggregate: the sender's per-packet work was done for its first
        segment (one ``tcp_transmit_skb`` -> ``dev_queue_xmit`` per skb)."""
        self.tx_cpu: Server | None = None
        """The CPU that ran its transmit (a modelled host's): on a veth it is received there too."""
        self.tx_call: TcpEndpoint | None = None
        """The endpoint whose application's call its transmit ran in, if one did: the sender's own, or on a veth the
        call the CPU was in when a received segment's processing sent it (:func:`tcpsim.components.host._lasts`)."""
