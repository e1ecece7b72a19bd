"""Linux's autotuned send buffer (3.14 on): how large ``sk_sndbuf`` grows for a socket that set no ``SO_SNDBUF``.

``tcp_sndbuf_expand`` (``net/ipv4/tcp_input.c``) sizes the buffer for twice the congestion window, at least
``TCP_INIT_CWND`` segments, each counted as the truesize of a one-segment skb ("Worst case is non GSO/TSO:
each frame consumes one skb and skb->head is kmalloced using power of two area of memory"). It runs when the
connection is established (``tcp_init_buffer_space``) and when an ACK frees room for a blocked writer while
the connection is not cwnd-limited (``tcp_new_space`` after ``tcp_should_expand_sndbuf``); the result is capped
at ``tcp_wmem[2]``. With GSO the queued skbs are much larger than one segment, so the buffer holds about
``per_mss / MSS`` times the payload of twice the window (1.6x with this project's lab kernel at MTU 1500, 3x
with a distribution kernel's). Since commit 6ae705323b71 ("tcp: sndbuf autotuning improvements"; its release is
not confirmed, after 3.10 and before 4.19).
"""

from __future__ import annotations

__all__ = ["TCP_INIT_CWND", "SK_BUFF_BYTES", "per_mss_bytes", "expanded_sndbuf_bytes", "handshake_sndbuf_bytes"]

TCP_INIT_CWND = 10
"""``TCP_INIT_CWND`` (``include/net/tcp.h``): the fewest segments the buffer is sized for."""

SK_BUFF_BYTES = 256
"""``SKB_DATA_ALIGN(sizeof(struct sk_buff))`` on x86-64."""


def per_mss_bytes(mss_clamp_bytes: int, head_bytes: int) -> int:
    """``tcp_sndbuf_expand``'s ``per_mss``: ``roundup_pow_of_two(mss_clamp + MAX_TCP_HEADER +
    SKB_DATA_ALIGN(sizeof(struct skb_shared_info))) + SKB_DATA_ALIGN(sizeof(struct sk_buff))``, with ``head_bytes``
    the kernel build's ``MAX_TCP_HEADER`` plus shared info (:attr:`tcpsim.platform.OsTcp.tx_skb_head_bytes`) and
    ``mss_clamp_bytes`` the peer's MSS option (``max(mss_clamp, mss_cache)`` is ``mss_clamp``)."""
    size = mss_clamp_bytes + head_bytes
    return (1 << (size - 1).bit_length()) + SK_BUFF_BYTES


def expanded_sndbuf_bytes(cwnd_segments: int, per_mss: int) -> int:
    """``sk_sndbuf`` after ``tcp_sndbuf_expand``: 2 x max(``TCP_INIT_CWND``, cwnd) x ``per_mss`` (CUBIC and Reno
    have no ``sndbuf_expand`` hook, so the factor is 2; ``reordering + 1``, 4 unless reordering was seen, is
    below ``TCP_INIT_CWND`` and not modelled)."""
    return 2 * max(TCP_INIT_CWND, cwnd_segments) * per_mss


def handshake_sndbuf_bytes(sndbuf_bytes: int, cap_bytes: int, cwnd_segments: int, per_mss: int) -> int:
    """``sk_sndbuf`` after ``tcp_init_buffer_space`` (``tcp_sndbuf_expand`` at the initial cwnd), never below what it
    was (``tcp_wmem[1]``) nor above ``tcp_wmem[2]`` (``cap_bytes``)."""
    return max(sndbuf_bytes, min(expanded_sndbuf_bytes(cwnd_segments, per_mss), cap_bytes))
