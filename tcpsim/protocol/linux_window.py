"""Linux's receive window, by kernel version: from buffer to window, window clamp, rounding, growth.

Pure rules in bytes, no simpy; :mod:`tcpsim.components.receiver` applies them when an endpoint runs a
versioned Linux (:attr:`tcpsim.config.TcpOptions.rcv_window_rule` ``"linux"``).

* Buffer to window (``tcp_win_from_space``): before 6.6 a buffer of ``space`` bytes holds a window of
  ``space - space / 2**tcp_adv_win_scale``; since 6.6 (commit dfa2f0483360) ``space * scaling_ratio / 256``,
  the ratio measured from received segments as ``skb->len / skb->truesize`` (``tcp_measure_rcv_mss``).
* The window clamp (``tcp_init_buffer_space``): the full window less one MSS kept back (``tcp_app_win``);
  since 6.11 the ratio measurement resets it to the full window (``tcp_measure_rcv_mss``, commit
  05f76b2d634e and its fix "tcp: Update window clamping condition").
* The offered window (``__tcp_select_window``, ``tcp_select_window``): at most ``rcv_ssthresh``, never
  shrinking; without window scaling a whole number of MSS, with it rounded up to the scale unit; a
  window below half the buffer drops to 0 when under an MSS or 1/16 of the buffer, and ends quick-ACK
  mode (:func:`quickack_ends`).
* The initial window (``tcp_select_initial_window``): the space rounded down to whole MSS, at most
  65535; before 4.20 also at most 10 segments (4 before 2.6.39), commit a337531b942b removed that. Its
  window scale, ``ilog2(space) - 15`` in 0..14, is :func:`tcpsim.protocol.window.window_shift`.
* ``rcv_ssthresh`` growth (``tcp_grow_window``): two segments per in-order segment received, up to the
  clamp and the free space.
* An unset buffer's growth from 4.16 (``tcp_rcv_space_adjust``, :func:`drs_window`): the window the buffer
  is sized for, from what the application read in a round trip and how fast that rose.
* A queue above its buffer (``tcp_prune_queue`` -> ``tcp_collapse``) is copied into skbs of a page each
  (:func:`collapsed_skbs`).
* The skb a received segment is charged as (``skb->truesize``, :func:`rx_truesize`): what the receive
  path allocated for it; the 6.6+ ratio is measured from it (``tcp_measure_rcv_mss``).
"""

from __future__ import annotations

from typing import Final

__all__ = ["TCP_RMEM_TO_WIN_SCALE", "SKB_STRUCT_BYTES", "COLLAPSE_SKB_BYTES", "collapsed_skbs", "PAGED_HEAD_BYTES",
           "IP_TCP_HEADER_BYTES", "TUN_PAD_BYTES",
           "linear_truesize", "rx_truesize", "DEFAULT_RATIO_6_6", "DEFAULT_RATIO_6_8", "scaling_ratio",
           "win_from_space", "space_from_win", "window_clamp", "initial_window", "select_window", "quickack_ends",
           "grow_ssthresh", "drs_window"]

TCP_RMEM_TO_WIN_SCALE: Final = 8
"""``scaling_ratio`` is a fraction in 1/256 (``include/linux/tcp.h``)."""

SKB_STRUCT_BYTES: Final = 576
"""``SKB_TRUESIZE(0)`` on x86-64: ``SKB_DATA_ALIGN(sizeof(struct sk_buff))`` (256) plus
``SKB_DATA_ALIGN(sizeof(struct skb_shared_info))`` (320), charged to the socket for every skb."""

_SKB_BYTES: Final = 256  # SKB_DATA_ALIGN(sizeof(struct sk_buff))
_SHINFO_BYTES: Final = SKB_STRUCT_BYTES - _SKB_BYTES

PAGED_HEAD_BYTES: Final = SKB_STRUCT_BYTES + 256
"""Truesize of a paged skb beyond its pages: the skb and shared-info structures and a small kmalloc'd
linear head (``sock_alloc_send_pskb`` with the headroom and headers alone, the small-head cache's
576-byte object). On the lab VM the window-clamp probe
(:mod:`tcpsim.lab.winprobe`) measured 826-876 bytes through the TUN delay line."""

IP_TCP_HEADER_BYTES: Final = 40
"""IPv4 and TCP headers without options: a segment's packet is its payload, its options and these."""

DEFAULT_RATIO_6_6: Final = (1200 << TCP_RMEM_TO_WIN_SCALE) // (4096 + SKB_STRUCT_BYTES)
"""6.6 and 6.7 start from "1200 bytes of payload per 4K page" (``TCP_DEFAULT_SCALING_RATIO``): 65/256."""
DEFAULT_RATIO_6_8: Final = 1 << (TCP_RMEM_TO_WIN_SCALE - 1)
"""6.8 on (commit 697a6c8cec03, "increase the default TCP scaling ratio"): 128/256, half the buffer."""


def scaling_ratio(payload_bytes: int, truesize_bytes: int) -> int:
    """``tcp_measure_rcv_mss`` (6.6+): ``(skb->len << 8) / skb->truesize``, kept in a u8, at least 1."""
    val = (payload_bytes << TCP_RMEM_TO_WIN_SCALE) // max(truesize_bytes, 1)
    return min(max(val, 1), 255)


TUN_PAD_BYTES: Final = 64
"""``NET_SKB_PAD`` on x86-64: the headroom ``tun_get_user`` reserves in front of a packet (``tun->align``)."""


def _kmalloc_bytes(size_bytes: int) -> int:
    """``kmalloc_size_roundup``: the slab size class that holds ``size_bytes`` (powers of two from 256 to 8 KiB),
    whole pages in a power-of-two block above that (the page allocator)."""
    cls = 256
    while cls < size_bytes:
        cls <<= 1
    return cls


def linear_truesize(header_bytes: int) -> int:
    """``skb->truesize`` of an skb ``__alloc_skb`` gives a linear head of ``header_bytes``: the head rounded to
    cache lines with the shared info after it, as the slab holds it (``kmalloc_reserve``: a head of at most
    the small-head cache's size takes that cache's object, 6.3 on; a larger one its ``kmalloc`` size class),
    plus the ``sk_buff`` (``SKB_TRUESIZE`` of the head's usable size)."""
    obj = (header_bytes + 63) // 64 * 64 + _SHINFO_BYTES
    small = PAGED_HEAD_BYTES - _SKB_BYTES
    return (small if obj <= small else _kmalloc_bytes(obj)) + _SKB_BYTES


COLLAPSE_SKB_BYTES: Final = 4096 - _SHINFO_BYTES
"""``SKB_MAX_ORDER(0, 0)``: the payload of one skb ``tcp_collapse`` builds, a page less its shared info."""


def collapsed_skbs(size_bytes: int) -> list[tuple[int, int]]:
    """``tcp_collapse``: ``size_bytes`` of queued data copied into new linear skbs of at most
    :data:`COLLAPSE_SKB_BYTES` each (``alloc_skb``); (payload bytes, truesize) of each, in order."""
    full, rest = divmod(size_bytes, COLLAPSE_SKB_BYTES)
    skbs = [(COLLAPSE_SKB_BYTES, linear_truesize(COLLAPSE_SKB_BYTES))] * full
    if rest:
        skbs.append((rest, linear_truesize(rest)))
    return skbs


def rx_truesize(payload_bytes: int, packet_bytes: int, overhead_bytes: int, page_bytes: int) -> int:
    """``skb->truesize`` of a received segment of ``payload_bytes`` in an IP packet of ``packet_bytes``.

    ``page_bytes`` = 0: a buffer sized to the segment, ``overhead_bytes`` beyond its payload (a driver's
    page fragment or ``build_skb`` buffer). ``page_bytes`` > 0: the TUN driver's allocation
    (``tun_get_user`` -> ``tun_alloc_skb``): a packet that fits a page with its headroom ("Under a page?
    Don't bother with paged skb": :data:`TUN_PAD_BYTES` plus the packet below ``PAGE_SIZE``) is copied whole
    into a linear head (:func:`linear_truesize`); a larger one keeps only its headers linear and the rest in
    whole pages (``alloc_skb_with_frags``: ``skb->truesize += PAGE_SIZE`` per chunk, which sums to the packet
    rounded up to pages), plus :data:`PAGED_HEAD_BYTES`.
    """
    if page_bytes > 0:
        if TUN_PAD_BYTES + packet_bytes < page_bytes:
            return linear_truesize(TUN_PAD_BYTES + packet_bytes)
        return (packet_bytes + page_bytes - 1) // page_bytes * page_bytes + PAGED_HEAD_BYTES
    return payload_bytes + overhead_bytes


def win_from_space(space_bytes: int, adv_win_scale: int, ratio: int) -> int:
    """``tcp_win_from_space``: the window a buffer of ``space_bytes`` holds.

    ``ratio`` > 0 is the 6.6+ rule (``__tcp_win_from_space``); 0 uses ``tcp_adv_win_scale`` (before 6.6).
    """
    if space_bytes <= 0:
        return 0
    if ratio > 0:
        return (space_bytes * ratio) >> TCP_RMEM_TO_WIN_SCALE
    if adv_win_scale <= 0:
        return space_bytes >> -adv_win_scale
    return space_bytes - (space_bytes >> adv_win_scale)


def space_from_win(window_bytes: int, adv_win_scale: int, ratio: int) -> int:
    """``tcp_space_from_win``: the buffer that holds a window of ``window_bytes`` (inverse of
    :func:`win_from_space`), as ``tcp_rcv_space_adjust`` grows an autotuned buffer."""
    if ratio > 0:
        return (window_bytes << TCP_RMEM_TO_WIN_SCALE) // ratio
    if adv_win_scale <= 0:
        return window_bytes << -adv_win_scale
    return window_bytes + window_bytes // ((1 << adv_win_scale) - 1)


def window_clamp(full_space_bytes: int, advmss_bytes: int) -> int:
    """``tcp_init_buffer_space`` with ``tcp_app_win`` = 31 (the default): the largest window the receiver
    offers is the full window, less one MSS "to free some space after the initial burst" when the full
    window exceeds two MSS."""
    clamp = full_space_bytes
    if clamp > 2 * advmss_bytes and clamp + advmss_bytes > full_space_bytes:
        clamp = max(2 * advmss_bytes, full_space_bytes - advmss_bytes)
    return clamp


def initial_window(space_bytes: int, mss_bytes: int, clamp_bytes: int, wscale: int, init_segments: int) -> int:
    """``tcp_select_initial_window``: the window of the SYN, which also starts ``rcv_ssthresh``.

    The space (at most the clamp) rounded down to whole MSS and cut to 65535 (the SYN's window is never
    scaled); ``init_segments`` > 0 caps it at that many segments where the MSS exceeds the scale unit
    (before 4.20: ``TCP_DEFAULT_INIT_RCVWND`` 10, scaled down for an MSS above 1460, at least 2).
    """
    space = min(space_bytes, clamp_bytes)
    if space > mss_bytes:
        space = (space // mss_bytes) * mss_bytes
    wnd = min(space, 65535)
    if init_segments and mss_bytes > (1 << wscale):
        segs = init_segments if mss_bytes <= 1460 else max(1460 * init_segments // mss_bytes, 2)
        wnd = min(wnd, segs * mss_bytes)
    return wnd


def select_window(free_space: int, full_space: int, clamp: int, rcv_ssthresh: int, rcv_mss: int, wscale: int,
                  last_window: int, cur_window: int) -> int:
    """``tcp_select_window`` around ``__tcp_select_window``: the window (bytes from RCV.NXT) to offer now.

    ``free_space`` is ``tcp_space`` (the window the free buffer holds), ``full_space`` ``tcp_full_space``,
    ``last_window`` ``tp->rcv_wnd`` (the window last offered) and ``cur_window`` what is left of it
    (``tcp_receive_window``). The offer never shrinks the right edge (it is then the old one, rounded up
    to the scale unit).
    """
    mss = rcv_mss
    full = min(clamp, full_space)
    if mss > full:
        mss = full
    if mss <= 0:
        window = 0
    else:
        window = -1
        if free_space < (full >> 1):
            free_space = (free_space >> wscale) << wscale
            if free_space < (full_space >> 4) or free_space < mss:
                window = 0
        if window < 0:
            if free_space > rcv_ssthresh:
                free_space = rcv_ssthresh
            if wscale:
                unit = 1 << wscale
                window = (free_space + unit - 1) // unit * unit
            else:
                window = last_window
                if window <= free_space - mss or window > free_space:
                    window = (free_space // mss) * mss
                elif mss == full and free_space > window + (full >> 1):
                    window = free_space
    if window < cur_window:
        unit = 1 << wscale
        window = (cur_window + unit - 1) // unit * unit
    return window


def quickack_ends(free_space: int, full_space: int, clamp: int) -> bool:
    """``__tcp_select_window``: a free space below half the full window (min(``window_clamp``,
    ``tcp_full_space``)) ends quick-ACK mode (``icsk->icsk_ack.quick = 0``), on every version."""
    return free_space < (min(clamp, full_space) >> 1)


def grow_ssthresh(rcv_ssthresh: int, clamp: int, free_space: int, advmss_bytes: int, length_bytes: int) -> int:
    """``tcp_grow_window`` for an in-order segment of ``length_bytes`` (128 or more, ``tcp_event_data_recv``).

    ``rcv_ssthresh`` rises by ``max(2 * advmss, 2 * len)`` up to ``min(window_clamp, tcp_space)``. The
    kernel first checks that a segment's truesize fits the buffer's ratio (``__tcp_grow_window``); a
    full-sized segment from a well-behaved driver passes it, which is the case modelled.
    """
    room = min(clamp, free_space) - rcv_ssthresh
    if room <= 0 or length_bytes < 128:
        return rcv_ssthresh
    incr = max(2 * advmss_bytes, 2 * length_bytes)
    return rcv_ssthresh + min(room, incr)


def drs_window(copied_bytes: int, space_bytes: int, advmss_bytes: int) -> int:
    """``tcp_rcv_space_adjust`` from 4.16 to 6.15 ("tcp: smoother receive buffer autotuning", c3916ad9320e): the
    window an autotuned buffer is sized for when the application read ``copied_bytes`` in the last receiver round
    trip, more than ``space_bytes`` (``rcvq_space.space``, the last such measure): twice the read plus 16 advmss
    for losses and jitter, plus twice that times the read's rise, for a sender in slow start (the ACK sent now is
    for the next round trip). The buffer is ``tcp_space_from_win`` of it, at most ``tcp_rmem[2]``.
    ``advmss_bytes`` 0 is 6.16's ``tcp_rcvbuf_grow`` ("tcp: fix sk_rcvbuf overshoot" dropped the 16 advmss; the
    slow-start term, dropped with it, is back in the 6.18 kernels measured: validation/README.md, "Linux 6.16's
    receive-buffer growth")."""
    rcvwin = 2 * copied_bytes + 16 * advmss_bytes
    if space_bytes > 0:
        rcvwin += 2 * (rcvwin * (copied_bytes - space_bytes) // space_bytes)
    return rcvwin
