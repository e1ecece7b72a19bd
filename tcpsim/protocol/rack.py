"""RACK-TLP: loss found by the time segments were sent, and a probe for the tail of a flight.

Ref: RFC 8985 and Linux ``net/ipv4/tcp_recovery.c`` (``tcp_rack_advance``, ``tcp_rack_detect_loss``,
``tcp_rack_reo_wnd``) and ``tcp_output.c`` (``tcp_schedule_loss_probe``, ``tcp_send_loss_probe``). A segment is lost
once one sent after it has been delivered and it is older than that delivery's round trip plus a reordering window;
a flight whose tail is lost gets a probe two round trips after its last transmission instead of waiting for the
retransmission timer. The endpoint keeps the segments and timers (:mod:`tcpsim.components.rack`); these are the rules.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = ["DUPTHRESH_SEGMENTS", "TLP_MIN_TICKS", "sent_after", "reo_wnd_s", "tlp_timeout_s"]

DUPTHRESH_SEGMENTS: Final = 3
"""``tp->reordering`` as a kernel starts it (``sysctl_tcp_reordering``): SACKed segments that stand for duplicate
ACKs and close the reordering window."""
TLP_MIN_TICKS: Final = 2
"""``TCP_TIMEOUT_MIN``: the probe timer's slack over two round trips, in ticks."""


def sent_after(t1_s: float, end1: int, t2_s: float, end2: int) -> bool:
    """RFC 8985 ``RACK_sent_after`` (``tcp_rack_sent_after``): segment 1 left after segment 2, or at the same time
    with a higher end."""
    return t1_s > t2_s or (t1_s == t2_s and end1 > end2)


def reo_wnd_s(in_recovery: bool, sacked_segments: int, min_rtt_s: float, srtt_s: float) -> float:
    """``tcp_rack_reo_wnd`` on a path that has not shown reordering: none in recovery or once ``DUPTHRESH_SEGMENTS``
    are SACKed (the duplicate-ACK threshold), else a quarter of the minimum RTT, at most the smoothed RTT."""
    if in_recovery or sacked_segments >= DUPTHRESH_SEGMENTS:
        return 0.0
    return min(min_rtt_s / 4.0, srtt_s)


def tlp_timeout_s(srtt_s: float, packets_out: int, tick_s: float, min_rto_s: float, rto_left_s: float) -> float:
    """``tcp_schedule_loss_probe``: twice the smoothed RTT rounded up to ticks (``usecs_to_jiffies``), plus the
    minimum RTO when one segment is out (its ACK may be delayed) or ``TLP_MIN_TICKS`` ticks otherwise, never later
    than the retransmission timer has left (``rto_left_s``). Without a tick (``tick_s`` 0) the RTT is not rounded."""
    pto = 2.0 * srtt_s
    if tick_s > 0.0:
        pto = math.ceil(pto / tick_s - 1e-9) * tick_s
    pto += min_rto_s if packets_out == 1 else TLP_MIN_TICKS * tick_s
    return min(pto, rto_left_s) if rto_left_s > 0.0 else pto
