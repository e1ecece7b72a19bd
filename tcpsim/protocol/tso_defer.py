"""Linux's "TSO Nagle test": whether a sender holds a partial TSO/GSO skb for the next ACK.

Pure rules in bytes and seconds, no simpy; :mod:`tcpsim.components.sender` asks before it starts an
aggregate of more than one segment (:attr:`tcpsim.config.TcpOptions.tso_defer_rule`).
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_TSO_DEFERRED_SEGMENTS", "tso_should_defer", "deferral_is_cwnd_limited"]

MAX_TSO_DEFERRED_SEGMENTS: Final = 3
"""``tcp_max_tso_deferred_mss``: with ``tcp_tso_win_divisor`` 0, more than this many segments go at once."""


def tso_should_defer(rule: int, now_s: float, last_send_s: float, head_sent_s: float, srtt_s: float,
                     limit_bytes: int, max_bytes: int, skb_bytes: int, is_tail: bool, snd_wnd_bytes: int,
                     cwnd_bytes: int, mss_bytes: int, win_divisor: int = 3) -> bool:
    """``tcp_tso_should_defer`` (net/ipv4/tcp_output.c) for an skb of ``skb_bytes`` (more than one segment).

    ``limit_bytes`` is what the window and cwnd let out now, ``max_bytes`` a full TSO skb (``max_segs``
    segments), ``head_sent_s`` when the oldest unacknowledged skb left (< 0: nothing is unacknowledged).
    Sends now when the last send was over 1 ms ago (``tcp_wstamp_ns``), when a full skb may go, when the skb
    is not the queue's tail and all of it may go, when 1/``win_divisor`` (``tcp_tso_win_divisor``, default 3) of
    min(snd_wnd, cwnd) may go (divisor 0: more than three segments), or when the next
    ACK is due too late: ``rule`` 1 (4.1 on, commit 50c8339e9299) the head was sent less than half an srtt
    ago; 2 (6.18 on, "tcp: fix tcp_tso_should_defer() vs large RTT", backported to stable trees) its ACK is
    due in more than min(1 ms, half the srtt). Otherwise it defers (a FIN or MSG_EOR skb would not; tcpsim's
    streams have neither). The caller has checked recovery (``icsk_ca_state >= TCP_CA_Recovery`` sends now).
    """
    if rule <= 0 or now_s - last_send_s > 1e-3 or head_sent_s < 0.0:
        return False
    if limit_bytes >= max_bytes or (not is_tail and limit_bytes >= skb_bytes):
        return False
    if win_divisor:
        if limit_bytes >= (snd_wnd_bytes if snd_wnd_bytes < cwnd_bytes else cwnd_bytes) // win_divisor:
            return False
    elif limit_bytes > MAX_TSO_DEFERRED_SEGMENTS * mss_bytes:
        return False
    if rule == 1:
        return now_s - head_sent_s >= srtt_s / 2
    half = srtt_s / 2
    return head_sent_s + srtt_s - now_s <= (half if half < 1e-3 else 1e-3)


def deferral_is_cwnd_limited(cong_win_bytes: int, send_win_bytes: int, skb_bytes: int) -> bool:
    """Whether a deferral ``tcp_tso_should_defer`` decided counts as cwnd-limited (the first of its "three
    cases are tracked"): cwnd leaves less than the window does, and no more than the skb
    (``cong_win < send_win && cong_win <= skb->len``). ``tcp_write_xmit`` then calls ``tcp_cwnd_validate``
    though it sent nothing (commit 299bcb55ecd1, 5.11 and the 4.14+ stable trees), so cwnd may grow."""
    return cong_win_bytes < send_win_bytes and cong_win_bytes <= skb_bytes
