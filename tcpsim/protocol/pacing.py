"""Linux TCP pacing: the rate a flow is paced at, and when its next skb may leave.

Pure rules in bytes and seconds. A Linux flow is paced when its host's qdisc is ``fq`` (3.12 on; from 4.20 TCP
stamps each skb with its departure time, ``skb->tstamp``, and ``fq`` holds it until then) or when TCP paces it
itself (4.13 on, ``SK_PACING_NEEDED``: a socket given ``SO_MAX_PACING_RATE``, ``sock_setsockopt``; a congestion
control that asks for it, which Reno and CUBIC do not). :mod:`tcpsim.components.sender` holds a new skb until
the flow's departure time, brings that time up to the skb's transmission with :func:`skb_start` and books each
segment it sends with :func:`advance` (:attr:`tcpsim.config.TcpOptions.pacing_rule`).
"""

from __future__ import annotations

from typing import Final

__all__ = ["PACING_MIN_SEGMENTS", "pacing_rate_Bps", "skb_start", "advance"]

PACING_SS_RATIO: Final = 2.0
"""``tcp_pacing_ss_ratio`` (200 %): the rate's multiple of cwnd / srtt while cwnd < ssthresh / 2."""
PACING_CA_RATIO: Final = 1.2
"""``tcp_pacing_ca_ratio`` (120 %): the multiple after."""
PACING_MIN_SEGMENTS: Final = 10
"""``tcp_update_skb_after_send`` paces only once ``data_segs_out`` reaches 10: the initial window leaves at once."""


def pacing_rate_Bps(cwnd_bytes: int, in_flight_bytes: int, srtt_s: float, slow_start: bool, cap_Bps: float) -> float:
    """``sk_pacing_rate`` in bytes/s (``tcp_update_pacing_rate``, 3.12 on): max(cwnd, in flight) / srtt times
    :data:`PACING_SS_RATIO` in slow start (cwnd below half of ssthresh) or :data:`PACING_CA_RATIO`, at most
    ``sk_max_pacing_rate`` (``cap_Bps``; 0: none). Before the first RTT sample the socket's rate is unlimited
    (``sk_pacing_rate`` starts at ~0UL): the cap, or 0 meaning none."""
    if srtt_s <= 0.0:
        return cap_Bps
    window = cwnd_bytes if cwnd_bytes > in_flight_bytes else in_flight_bytes
    rate = window / srtt_s * (PACING_SS_RATIO if slow_start else PACING_CA_RATIO)
    return cap_Bps if 0.0 < cap_Bps < rate else rate


def skb_start(wstamp_s: float, now_s: float, credit: bool) -> tuple[float, float]:
    """An skb is transmitted now (``__tcp_transmit_skb``): its departure time is ``tcp_wstamp_ns`` brought up to
    now, returned first; second, the time the flow fell behind its schedule, which the next advance may take
    back up to half of (4.20 on, ``credit``; 0 before)."""
    start = wstamp_s if wstamp_s > now_s else now_s
    return start, (start - wstamp_s if credit else 0.0)


def advance(wstamp_s: float, credit_s: float, length_bytes: int, rate_Bps: float) -> tuple[float, float]:
    """``tcp_update_skb_after_send``: the next skb's departure moves on by this one's payload at the rate, less
    up to half of that as credit for time the flow fell behind ("take into account OS jitter"); returns the new
    departure time and the credit left. Booked a segment at a time, an skb's segments together take min(its
    time / 2, credit), as the kernel takes it once for the whole skb."""
    if rate_Bps <= 0.0:
        return wstamp_s, credit_s
    spent = length_bytes / rate_Bps
    back = spent / 2.0 if spent / 2.0 < credit_s else credit_s
    return wstamp_s + spent - back, credit_s - back
