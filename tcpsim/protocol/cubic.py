"""CUBIC congestion avoidance with HyStart: Linux's default congestion control since 2.6.19.

Ref: RFC 9438 (CUBIC, which obsoletes RFC 8312) and Linux ``net/ipv4/tcp_cubic.c``: the window follows
W(t) = C (t - K)^3 + W_max after a loss (``bictcp_update``), with C = 0.4 and the reduction factor beta
= 717/1024 (``bictcp_recalc_ssthresh``), fast convergence (a flow that lost below its last maximum
remembers a lower one), the Reno-friendly region (``tcp_friendliness`` in older kernels, RFC 9438
§4.3), at most one segment per two acknowledged (``ca->cnt`` at least 2) and, until the first loss (or since a
timeout reset it), at least 5 % a round trip (``ca->cnt`` at most 20). Time is the kernel's ticks (``CONFIG_HZ``) and
the target whole segments; ``ca->cnt`` is computed again only when cwnd has moved or 1/32 s has passed, and at most
once a tick (``bictcp_update``), so after a loss in the concave region the window can stand still for 1/32 s whatever
the Reno-friendly estimate says, and then grow by half of each ACK's segments for the rest of a tick. HyStart
(``hystart_update``) ends slow start before the first loss when a train of closely spaced ACKs spans half the minimum
RTT, or when the round's smallest RTT sample exceeds the minimum by an eighth, clamped to 4..16 ms.

Recovery itself (fast retransmit, SACK, partial ACKs) is :class:`~tcpsim.protocol.congestion.NewReno`'s;
CUBIC changes only how the window grows and how far it falls.
"""

from __future__ import annotations

import math
from typing import Final

from .congestion import NewReno

__all__ = ["Cubic", "CUBIC_C", "CUBIC_BETA", "UPDATE_HOLD_S", "cubic_k_s", "cubic_offset_segments",
           "cubic_window_segments", "hystart_ack_delay_s"]

CUBIC_C: Final = 0.4
"""Scaling constant C, segments per second cubed (RFC 9438 §5.1; ``bic_scale`` 41 / 1024 * 10)."""
CUBIC_BETA: Final = 717 / 1024
"""Multiplicative decrease factor (``beta`` 717 in 1/1024, RFC 9438's 0.7)."""
HYSTART_LOW_WINDOW: Final = 16
"""HyStart acts only once cwnd reaches this many segments (``hystart_low_window``)."""
HYSTART_MIN_SAMPLES: Final = 8
"""RTT samples taken at the start of each round for the delay test (``HYSTART_MIN_SAMPLES``)."""
HYSTART_ACK_DELTA_S: Final = 0.002
"""ACKs closer than this belong to one train (``hystart_ack_delta_us``)."""
HYSTART_DELAY_MIN_S: Final = 0.004
HYSTART_DELAY_MAX_S: Final = 0.016
HYSTART_ACK_DELAY_MAX_S: Final = 0.001
"""The most ``hystart_ack_delay`` allows (``USEC_PER_MSEC``)."""
GSO_MAX_BYTES: Final = 65536
"""``sk_gso_max_size`` (``GSO_LEGACY_MAX_SIZE``): ``hystart_ack_delay`` allows four such bursts' time."""
UPDATE_HOLD_S: Final = 1.0 / 32.0
"""While cwnd equals the cwnd ``cnt`` was last computed for, it is computed again only this long after
(``bictcp_update``: ``ca->last_cwnd == cwnd && tcp_jiffies32 - ca->last_time <= HZ / 32`` returns at once)."""
FIRST_LOSS_MAX_CNT: Final = 20.0
"""Until CUBIC has seen a loss, at most this many ACKed segments per segment of growth, 5 % a round trip
(``bictcp_update``: ``if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20``; ``loss_cwnd`` in 2.6)."""


def hystart_ack_delay_s(pacing_Bps: float) -> float:
    """``hystart_ack_delay`` (Linux 5.7 on, "tcp_cubic: tweak Hystart detection for short RTT flows"): how much later
    an ACK may come for TSO or GRO, min(1 ms, ``sk_gso_max_size`` x 4 / ``sk_pacing_rate``); 0 while the socket has
    no rate."""
    if pacing_Bps <= 0.0:
        return 0.0
    delay = GSO_MAX_BYTES * 4 / pacing_Bps
    return delay if delay < HYSTART_ACK_DELAY_MAX_S else HYSTART_ACK_DELAY_MAX_S


def cubic_k_s(w_max_segments: float, cwnd_segments: float) -> float:
    """RFC 9438 eq. 2: the time the cubic function takes to climb from ``cwnd`` back to ``W_max``."""
    if w_max_segments <= cwnd_segments:
        return 0.0
    return ((w_max_segments - cwnd_segments) / CUBIC_C) ** (1.0 / 3.0)


def cubic_offset_segments(t_s: float, k_s: float) -> int:
    """``bictcp_update``'s ``delta``: C (t - K)^3 in whole segments as its fixed-point arithmetic floors it, the sign
    of t - K (the kernel's ``bic_target`` is W_max minus it below W_max, plus it above)."""
    d = t_s - k_s
    whole = int(CUBIC_C * abs(d) ** 3)
    return whole if d >= 0.0 else -whole


def cubic_window_segments(t_s: float, k_s: float, origin_segments: float) -> float:
    """RFC 9438 eq. 1: W_cubic(t) = C (t - K)^3 + W_max."""
    d = t_s - k_s
    return CUBIC_C * d * d * d + origin_segments


class Cubic(NewReno):
    """CUBIC window growth and reduction over NewReno's recovery; windows in bytes, the curve in segments."""

    __slots__ = ("hystart", "w_last_max", "epoch_s", "k_s", "origin", "w_est", "ack_cnt", "cnt_acc", "cnt",
                 "last_cwnd", "last_time_s", "hz", "hold_s",
                 "delay_min_s", "round_end", "round_start_s", "last_ack_s", "curr_rtt_s", "samples", "train_rule")

    def __init__(self, mss_bytes: int, initial_window_segments: int = 10, abc_limit_segments: int = 2,
                 validate: bool = False, sack: bool = False, limited_transmit: bool = False,
                 hystart: bool = True, measured: bool = False, prr_rule: int = 0, hz: int = 0,
                 rack: bool = False, train_rule: int = 0) -> None:
        super().__init__(mss_bytes, initial_window_segments, abc_limit_segments, validate, sack, limited_transmit,
                         measured, prr_rule, rack)
        self.hystart = hystart
        self.w_last_max = 0.0
        self.epoch_s = -1.0
        self.k_s = 0.0
        self.origin = 0.0
        self.w_est = 0.0
        self.ack_cnt = 0
        self.cnt_acc = 0
        self.cnt = 0.0
        """``ca->cnt``: ACKed segments per segment of growth, as last computed."""
        self.last_cwnd = 0
        self.last_time_s = 0.0
        """cwnd and time of the last computation of :attr:`cnt` (``ca->last_cwnd``, ``ca->last_time``)."""
        self.hz = hz
        """The tick rate CUBIC's clock counts in (Linux ``CONFIG_HZ``); 0: a continuous clock."""
        self.hold_s = (hz // 32 + 0.5) / hz if hz else UPDATE_HOLD_S
        """``HZ / 32`` ticks (integer division), or 1/32 s: the clock may advance less than this and still hold."""
        self.delay_min_s = 0.0
        self.round_end = -1
        self.round_start_s = 0.0
        self.last_ack_s = 0.0
        self.curr_rtt_s = 0.0
        self.samples = 0
        self.train_rule = train_rule
        """HyStart's ACK train: 0 half of ``delay_min``, rounds from the first ACK (before 5.7); 1 Linux 5.7 on
        (:attr:`tcpsim.config.TcpOptions.hystart_ack_delay`, :meth:`on_ack_timing`)."""

    # --- growth ---------------------------------------------------------------------------------------
    def avoid_congestion(self, acked_bytes: int) -> None:
        """``bictcp_cong_avoid``: count the ACKed segments; compute ``cnt`` again if cwnd moved since the last
        computation or the hold (1/32 s) has passed, only its Reno-friendly bound if cwnd moved within the tick of the
        last (``bictcp_update``); grow by the ``cnt`` there is (``tcp_cong_avoid_ai``)."""
        mss = self.mss
        cwnd = self.cwnd // mss
        acked = max(acked_bytes // mss, 1)
        now = self.now_s
        clock = self._clock_s(now)
        self.ack_cnt += acked
        if cwnd == self.last_cwnd and clock - self.last_time_s < self.hold_s:
            pass  # bictcp_update returns at once: cnt as it was
        elif self.hz and self.epoch_s >= 0.0 and clock == self.last_time_s:
            self._friendly_cap(cwnd)  # "at most once per jiffy": the Reno-friendly bound alone
        else:
            self._update_cnt(cwnd, acked, now, clock)
        # tcp_cong_avoid_ai: credits gathered under a larger cnt give one segment, not a jump, when cnt falls
        whole = max(int(self.cnt), 2)
        if self.cnt_acc >= whole:
            self.cnt_acc = 0
            self.cwnd += mss
        self.cnt_acc += acked
        if self.cnt_acc >= whole:
            grow = self.cnt_acc // whole
            self.cnt_acc -= grow * whole
            self.cwnd += grow * mss

    def _clock_s(self, now: float) -> float:
        """The time as CUBIC reads it: the start of the current tick (``tcp_jiffies32``), or continuous."""
        hz = self.hz
        return int(now * hz) / hz if hz else now

    def _update_cnt(self, cwnd: int, acked: int, now: float, clock: float) -> None:
        """``bictcp_update`` past its hold: ``cnt`` ACKed segments per segment of growth, from the cubic target one
        minimum RTT ahead (in whole ticks, the RTT rounded up: ``usecs_to_jiffies``), or faster where Reno would be
        (RFC 9438 §4.2-4.3)."""
        self.last_cwnd = cwnd
        self.last_time_s = clock
        if self.epoch_s < 0.0:
            self.epoch_s = clock
            self.ack_cnt = acked
            self.w_est = float(cwnd)
            if self.w_last_max <= cwnd:
                self.k_s = 0.0
                self.origin = float(cwnd)
            else:
                self.k_s = cubic_k_s(self.w_last_max, cwnd)
                self.origin = self.w_last_max
        ahead = self.delay_min_s
        if self.hz:
            ahead = math.ceil(ahead * self.hz) / self.hz
        target = self.origin + cubic_offset_segments(clock - self.epoch_s + ahead, self.k_s)
        if target > cwnd:
            cnt = cwnd / (target - cwnd)
        else:
            cnt = 100.0 * cwnd
        if self.w_last_max == 0.0 and cnt > FIRST_LOSS_MAX_CNT:  # no loss yet: the bandwidth is still unknown
            cnt = FIRST_LOSS_MAX_CNT
        self.cnt = cnt
        self._friendly_cap(cwnd)

    def _friendly_cap(self, cwnd: int) -> None:
        """``tcp_friendliness``: the Reno-friendly estimate takes every segment counted since it last ran, growing
        3 (1 - beta) / (1 + beta) segments per window acknowledged, and lowers ``cnt`` where Reno would be faster."""
        self.w_est += self.ack_cnt * (3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)) / max(cwnd, 1)
        self.ack_cnt = 0
        if self.w_est > cwnd:
            max_cnt = cwnd / (self.w_est - cwnd)
            if self.cnt > max_cnt:
                self.cnt = max_cnt

    def loss_ssthresh(self, flight_bytes: int) -> int:
        """``bictcp_recalc_ssthresh``: remember W_max (lowered by fast convergence when this loss came
        below the last one) and fall to beta x cwnd, at least two segments."""
        mss = self.mss
        cwnd = self.cwnd // mss
        if cwnd < self.w_last_max:
            self.w_last_max = float(cwnd * 1741 // 2048)  # cwnd (1024 + 717) / 2048, in whole segments
        else:
            self.w_last_max = float(cwnd)
        self.epoch_s = -1.0
        self.cnt_acc = 0
        return max(int(cwnd * CUBIC_BETA), 2) * mss

    # --- HyStart --------------------------------------------------------------------------------------
    def on_ack_timing(self, rtt_s: float, snd_nxt: int, ack: int, pacing_Bps: float = 0.0, paced: bool = False) -> None:
        """``hystart_update`` for one ACK at :attr:`now_s` (``rtt_s`` < 0: no sample from it): in slow
        start, end it (ssthresh = cwnd) when an ACK train or a delay rise says the path is full. With
        :attr:`train_rule` (Linux 5.7 on) the train must span ``delay_min`` plus :func:`hystart_ack_delay_s` of the
        socket's pacing rate ``pacing_Bps``, halved unless ``paced`` (``SK_PACING_NONE``), and ``cubictcp_acked``
        calls ``hystart_update``, its round reset included, only once cwnd has reached ``hystart_low_window``."""
        if rtt_s > 0.0 and (self.delay_min_s <= 0.0 or rtt_s < self.delay_min_s):
            self.delay_min_s = rtt_s
        if not self.hystart or self.cwnd >= self.ssthresh or self.in_recovery:
            return
        if self.train_rule and self.cwnd < HYSTART_LOW_WINDOW * self.mss:
            return
        now = self.now_s
        if ack > self.round_end:  # a new round: bictcp_hystart_reset
            self.round_end = snd_nxt
            self.round_start_s = self.last_ack_s = now
            self.curr_rtt_s = 0.0
            self.samples = 0
            return
        if self.cwnd < HYSTART_LOW_WINDOW * self.mss or self.delay_min_s <= 0.0:
            return
        if now - self.last_ack_s <= HYSTART_ACK_DELTA_S:
            self.last_ack_s = now
            threshold = self.delay_min_s / 2.0
            if self.train_rule:
                threshold = self.delay_min_s + hystart_ack_delay_s(pacing_Bps)
                if not paced:
                    threshold /= 2.0
            if now - self.round_start_s > threshold:
                self.ssthresh = self.cwnd
                return
        if rtt_s > 0.0 and self.samples < HYSTART_MIN_SAMPLES:
            if self.curr_rtt_s <= 0.0 or rtt_s < self.curr_rtt_s:
                self.curr_rtt_s = rtt_s
            self.samples += 1
            if self.samples == HYSTART_MIN_SAMPLES:
                thresh = min(max(self.delay_min_s / 8.0, HYSTART_DELAY_MIN_S), HYSTART_DELAY_MAX_S)
                if self.curr_rtt_s > self.delay_min_s + thresh:
                    self.ssthresh = self.cwnd

    def on_timeout(self, flight_bytes: int, snd_max: int) -> None:
        """``tcp_enter_loss`` with CUBIC's ssthresh, then one segment; entering the Loss state resets CUBIC
        (``cubictcp_state`` -> ``bictcp_reset``, ``bictcp_hystart_reset``): W_max, the epoch, ``delay_min``, the
        Reno-friendly estimate and the last computation of ``cnt`` start from zero, so the growth before a first loss
        applies again."""
        super().on_timeout(flight_bytes, snd_max)
        self.w_last_max = 0.0
        self.epoch_s = -1.0
        self.delay_min_s = 0.0
        self.ack_cnt = self.cnt_acc = self.last_cwnd = 0
        self.cnt = 0.0
        self.w_est = 0.0
        self.round_end = -1
