"""Retransmission timer.

Ref: RFC 6298 §2 (SRTT, RTTVAR, RTO = SRTT + max(G, 4 RTTVAR), back-off by doubling, 60 s cap);
the lower bound is the OS's (RFC 6298 says 1 s; Linux uses 200 ms, Solaris 8 400 ms). Linux's own variance
(``linux=True``): ``tcp_rtt_estimator`` and ``__tcp_set_rto``, RTO = SRTT + a variance never below the minimum,
in whole ticks of the kernel's clock where one is given (``usecs_to_jiffies``), on a timer the kernel's timer wheel
fires (:func:`wheel_expiry_s`).
"""

from __future__ import annotations

import math

__all__ = ["RtoEstimator", "wheel_expiry_s", "LINUX_RTO_MAX_S", "RTO_AFTER_LOST_SYN_S", "initial_rto_s",
           "first_data_times_out"]

LINUX_RTO_MAX_S = 120.0
"""Linux's cap on the backed-off timeout (``TCP_RTO_MAX``, 120 s; the ``tcp_rto_max_ms`` sysctl's default from 6.15),
where RFC 6298 §2.5 asks at least 60 s."""
RTO_AFTER_LOST_SYN_S = 3.0
"""The timeout data starts on when the SYN was sent again and not timed (RFC 6298 §5.7)."""


def initial_rto_s(min_rto_s: float) -> float:
    """The timeout before any round trip is measured: 1 s (RFC 6298 §2.1), or the OS's floor if higher."""
    return max(1.0, min_rto_s)


def first_data_times_out(rtt_s: float, min_rto_s: float, timestamps: bool) -> bool:
    """Whether a connection's first data time out before their ACK can come back: a round trip of ``rtt_s`` reaches
    the initial timeout, so the SYN goes out again; without timestamps Karn's rule forbids timing it (RFC 6298 §3;
    with them the echo times it, RFC 7323 §4.1) and data starts on a 3 s timeout (§5.7), which the round trip
    reaches too. The congestion window then falls to one segment with its threshold at two (RFC 5681 §3.1)."""
    first = initial_rto_s(min_rto_s)
    return not timestamps and rtt_s >= first and rtt_s >= max(RTO_AFTER_LOST_SYN_S, first)

_WHEEL_LEVEL_TICKS = 63
"""``LVL_START(1)`` (``kernel/time/timer.c``): a timer due in fewer ticks sits on the wheel's first level."""
_WHEEL_CLK_SHIFT = 3
"""``LVL_CLK_SHIFT``: each level's buckets span eight times the last's."""


def wheel_expiry_s(now_s: float, timeout_s: float, hz: int) -> float:
    """When a Linux timer armed now for ``timeout_s`` (a whole number of ticks) fires: ``jiffies`` (the ticks since
    the run began) plus the timeout is its expiry, which ``calc_index`` files one bucket later ("the timer wheel
    has to guarantee that a timer does not fire early"): the next tick on the first level (under 63 ticks), the
    next multiple of 8 ticks on the second (under 504), of 64 on the third, and so on."""
    jiffies = math.floor(now_s * hz + 1e-9)
    delta = int(round(timeout_s * hz))
    shift = 0
    start = _WHEEL_LEVEL_TICKS
    while delta >= start and shift < 8 * _WHEEL_CLK_SHIFT:
        shift += _WHEEL_CLK_SHIFT
        start <<= _WHEEL_CLK_SHIFT
    expires = jiffies + delta
    return (((expires >> shift) + 1) << shift) / hz


class RtoEstimator:
    """RTT smoothing and the retransmission timeout of one sender."""

    __slots__ = ("min_rto_s", "max_rto_s", "granularity_s", "srtt_s", "rttvar_s", "rto_s", "backoff", "linux",
                 "hz", "_mdev4_s", "_mdev4_max_s", "_var4_s", "_rtt_seq")

    def __init__(self, min_rto_s: float = 1.0, max_rto_s: float | None = None, granularity_s: float = 1e-3,
                 linux: bool = False, hz: int = 0) -> None:
        self.min_rto_s = min_rto_s
        self.max_rto_s = max_rto_s if max_rto_s is not None else (LINUX_RTO_MAX_S if linux else 60.0)
        self.granularity_s = granularity_s
        self.srtt_s: float | None = None
        self.rttvar_s = 0.0
        self.rto_s = initial_rto_s(min_rto_s)
        self.backoff = 1
        self.linux = linux
        """Linux's variance and RTO (:meth:`_linux_sample`) rather than RFC 6298's."""
        self.hz = hz if linux else 0
        """Linux's tick rate (``CONFIG_HZ``): its RTO is whole ticks (0: a continuous clock; RFC 6298's has none)."""
        self._mdev4_s = 0.0  # mdev_us: four times the mean deviation
        self._mdev4_max_s = 0.0  # mdev_max_us: its largest in this round trip, at least the minimum
        self._var4_s = 0.0  # rttvar_us: what the RTO adds to srtt
        self._rtt_seq = 0  # rtt_seq: snd_nxt when the round trip being watched began

    def sample(self, rtt_s: float, snd_una: int = 0, snd_nxt: int = 0) -> None:
        """Take one RTT measurement (never from a retransmitted segment: Karn's rule, RFC 6298 §3); Linux's rule
        reads the sender's ``snd_una`` and ``snd_nxt`` after the ACK."""
        if self.linux:
            self._linux_sample(rtt_s, snd_una, snd_nxt)
            return
        if self.srtt_s is None:
            self.srtt_s = rtt_s
            self.rttvar_s = rtt_s / 2
        else:
            self.rttvar_s = 0.75 * self.rttvar_s + 0.25 * abs(self.srtt_s - rtt_s)
            self.srtt_s = 0.875 * self.srtt_s + 0.125 * rtt_s
        self.backoff = 1
        rto = self.srtt_s + max(self.granularity_s, 4 * self.rttvar_s)
        self.rto_s = min(max(rto, self.min_rto_s), self.max_rto_s)

    def _linux_sample(self, m: float, snd_una: int, snd_nxt: int) -> None:
        """Linux ``tcp_rtt_estimator`` then ``tcp_set_rto``: srtt by RFC 6298's gain; ``mdev`` four times the mean
        deviation, a fall of the round trip weighted an eighth as much ("like Eifel"); ``rttvar`` follows the
        round trip's largest ``mdev`` up at once and down by a quarter once a round trip, when ``mdev_max`` restarts
        at ``tcp_rto_min``; RTO = srtt + ``rttvar`` (``__tcp_set_rto``), so at least srtt plus the minimum, rounded up
        to whole ticks of :attr:`hz` in microseconds as ``usecs_to_jiffies`` takes it."""
        srtt = self.srtt_s
        if srtt is None:
            self.srtt_s = srtt = m
            self._mdev4_s = 2.0 * m
            self._var4_s = self._mdev4_max_s = max(self._mdev4_s, self.min_rto_s)
            self._rtt_seq = snd_nxt
        else:
            err = m - srtt
            self.srtt_s = srtt = srtt + err / 8.0
            if err < 0.0:
                a = -err - self._mdev4_s / 4.0
                if a > 0.0:
                    a /= 8.0
            else:
                a = err - self._mdev4_s / 4.0
            self._mdev4_s += a
            if self._mdev4_s > self._mdev4_max_s:
                self._mdev4_max_s = self._mdev4_s
                if self._mdev4_max_s > self._var4_s:
                    self._var4_s = self._mdev4_max_s
            if snd_una > self._rtt_seq:
                if self._mdev4_max_s < self._var4_s:
                    self._var4_s -= (self._var4_s - self._mdev4_max_s) / 4.0
                self._rtt_seq = snd_nxt
                self._mdev4_max_s = self.min_rto_s
        self.rttvar_s = self._var4_s / 4.0
        self.backoff = 1
        rto = srtt + self._var4_s
        hz = self.hz
        if hz:
            rto = math.ceil(round(rto * 1e6) * hz / 1e6 - 1e-9) / hz
        self.rto_s = min(rto, self.max_rto_s)

    def after_lost_syn(self) -> None:
        """Data starts on a timeout of at least 3 s when the SYN had to be sent again and was not timed
        (RFC 6298 §5.7)."""
        if self.srtt_s is None and self.rto_s < RTO_AFTER_LOST_SYN_S:
            self.rto_s = min(RTO_AFTER_LOST_SYN_S, self.max_rto_s)

    def timeout_s(self) -> float:
        """The current timeout including exponential back-off."""
        return min(self.rto_s * self.backoff, self.max_rto_s)

    def on_timeout(self) -> None:
        """Double the timer (RFC 6298 §5.5)."""
        self.backoff = min(self.backoff * 2, 1 << 20)
