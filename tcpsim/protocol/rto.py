"""Retransmission timer.

Ref: RFC 6298 §2 (SRTT, RTTVAR, RTO = SRTT + max(G, 4 RTTVAR), back-off by doubling, 60 s cap);
the lower bound is the OS's (RFC 6298 says 1 s; Linux uses 200 ms, Solaris 8 400 ms).
"""

from __future__ import annotations

__all__ = ["RtoEstimator"]


class RtoEstimator:
    """RTT smoothing and the retransmission timeout of one sender."""

    __slots__ = ("min_rto_s", "max_rto_s", "granularity_s", "srtt_s", "rttvar_s", "rto_s", "backoff")

    def __init__(self, min_rto_s: float = 1.0, max_rto_s: float = 60.0, granularity_s: float = 1e-3) -> None:
        self.min_rto_s = min_rto_s
        self.max_rto_s = max_rto_s
        self.granularity_s = granularity_s
        self.srtt_s: float | None = None
        self.rttvar_s = 0.0
        self.rto_s = max(1.0, min_rto_s)
        self.backoff = 1

    def sample(self, rtt_s: float) -> None:
        """Take one RTT measurement (never from a retransmitted segment: Karn's rule, RFC 6298 §3)."""
        if self.srtt_s is None:
            self.srtt_s = rtt_s
            self.rttvar_s = rtt_s / 2
        else:
            self.rttvar_s = 0.75 * self.rttvar_s + 0.25 * abs(self.srtt_s - rtt_s)
            self.srtt_s = 0.875 * self.srtt_s + 0.125 * rtt_s
        self.backoff = 1
        rto = self.srtt_s + max(self.granularity_s, 4 * self.rttvar_s)
        self.rto_s = min(max(rto, self.min_rto_s), self.max_rto_s)

    def after_lost_syn(self) -> None:
        """Data starts on a timeout of at least 3 s when the SYN had to be sent again and was not timed
        (RFC 6298 §5.7)."""
        if self.srtt_s is None and self.rto_s < 3.0:
            self.rto_s = min(3.0, self.max_rto_s)

    def timeout_s(self) -> float:
        """The current timeout including exponential back-off."""
        return min(self.rto_s * self.backoff, self.max_rto_s)

    def on_timeout(self) -> None:
        """Double the timer (RFC 6298 §5.5)."""
        self.backoff = min(self.backoff * 2, 1 << 20)
