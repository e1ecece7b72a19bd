"""Congestion control: slow start, congestion avoidance and NewReno fast recovery.

Ref: RFC 5681 §3.1 (slow start and congestion avoidance), §3.2 (fast retransmit / fast recovery);
RFC 3465 (appropriate byte counting, L = 2 SMSS in slow start: with delayed ACKs a receiver
ACKs two or more segments at once); RFC 6582 (NewReno: partial ACKs, ``recover``; the full ACK's deflation is
RFC 3782's, as FreeBSD before 12 had it); RFC 7661 §4.1
(congestion-window validation: a window the sender does not use is not grown; Linux
``tcp_is_cwnd_limited`` and, from 4.3, ``tcp_cwnd_validate``; 4.4BSD-derived stacks grow it regardless);
RFC 6675 §5 (with SACK, recovery sets cwnd to ssthresh and sends by the ``pipe`` estimate instead of
inflating cwnd per duplicate ACK); RFC 6937 (Linux 3.2 on: Proportional Rate Reduction brings cwnd down over the
recovery's round trip instead, :mod:`tcpsim.protocol.prr`, and from 3.2 without SACK too, each duplicate ACK counted as
a segment SACKed: ``tcp_add_reno_sack``, rule 167);
RFC 3042 and RFC 5681 §3.2 step 1 (limited transmit: one new segment on each of the first two duplicate
ACKs, cwnd unchanged).
"""

from __future__ import annotations

from typing import Final

from .prr import prr_sndcnt

__all__ = ["NewReno", "INFINITE_SSTHRESH"]

INFINITE_SSTHRESH: Final = 0x7FFFFFFF
"""The initial ssthresh, "arbitrarily high" (RFC 5681 §3.1): above any window, as Linux
``TCP_INFINITE_SSTHRESH``; an int, so the window stays whole bytes."""


class NewReno:
    """Congestion window state of one sender, in bytes."""

    __slots__ = ("mss", "cwnd", "ssthresh", "in_recovery", "recover", "dupacks", "abc_limit", "_ca_acc",
                 "validate", "sack", "limited_transmit", "extra", "now_s", "measured", "_max_out", "_usage_seq",
                 "_is_limited", "prr_rule", "reno_prr_rule", "prior_cwnd", "prr_delivered", "rack", "halve_cwnd")

    MAX_BURST_SEGMENTS = 3
    """Linux ``tcp_max_burst``: a window within this many segments of the flight still counts as used."""

    def __init__(self, mss_bytes: int, initial_window_segments: int = 2, abc_limit_segments: int = 2,
                 validate: bool = False, sack: bool = False, limited_transmit: bool = False,
                 measured: bool = False, prr_rule: int = 0, rack: bool = False, halve_cwnd: bool = False) -> None:
        self.mss = mss_bytes
        self.halve_cwnd = halve_cwnd
        """Linux's Reno (``tcp_reno_ssthresh``): ssthresh is half of cwnd, not of the flight (RFC 5681 eq. 4)."""
        self.rack = rack and sack
        """RACK finds the losses (the endpoint's :meth:`enter_recovery`); duplicate ACKs only count (limited
        transmit)."""
        self.prr_rule = prr_rule if sack else 0
        """Linux's PRR (``TcpOptions.prr_rule``) in SACK recovery: the endpoint sets cwnd on each ACK of the
        recovery (:meth:`prr_reduce`), from the window it had (:attr:`prior_cwnd`) and what was delivered since."""
        self.reno_prr_rule = 0 if sack else prr_rule
        """The same for a flow without SACK (rule 167): Linux counts each duplicate ACK as a segment SACKed
        (``tcp_add_reno_sack``) and reduces by PRR alike; no inflation per duplicate ACK, no RFC 6582 deflation on
        a partial ACK, and the recovery held until an ACK passes ``recover`` (``tcp_try_undo_recovery``), which
        ends it at ssthresh (``tcp_end_cwnd_reduction``)."""
        self.prior_cwnd = 0
        self.prr_delivered = 0
        self.validate = validate
        self.measured = measured
        """With ``validate``: the sender's output passes say whether cwnd was used (:meth:`cwnd_validate`, Linux
        4.3+), not the flight an ACK finds (:data:`MAX_BURST_SEGMENTS`, before)."""
        self._is_limited = False
        """``tp->is_cwnd_limited``: an output pass of the current window was cwnd-limited."""
        self._max_out = 0
        """``tp->max_packets_out`` in bytes: the most data out in the current window (``tcp_cwnd_validate``)."""
        self._usage_seq = 0
        """``tp->cwnd_usage_seq``: the window :attr:`_is_limited` and :attr:`_max_out` describe ends when this is
        acknowledged."""
        self.sack = sack
        self.limited_transmit = limited_transmit
        self.extra = 0
        """Bytes new data may take beyond cwnd now: limited transmit's one segment per duplicate ACK, up to two."""
        self.cwnd = initial_window_segments * mss_bytes
        self.ssthresh = INFINITE_SSTHRESH
        self.in_recovery = False
        self.recover = 0
        self.dupacks = 0
        self.abc_limit = abc_limit_segments * mss_bytes
        """The most one ACK adds in slow start (RFC 3465's L); 0: every byte it acknowledges (Linux 3.18+)."""
        self._ca_acc = 0
        self.now_s = 0.0
        """The time of the ACK being processed (the sender sets it; time-based rules such as CUBIC read it)."""

    def on_new_ack(self, acked_bytes: int, ack: int, flight_bytes: int) -> bool:
        """A cumulative ACK advanced by ``acked_bytes``; returns True if a partial ACK asks to retransmit."""
        self.dupacks = 0
        self.extra = 0
        mss = self.mss
        if self.in_recovery:
            if ack >= self.recover and self.reno_prr_rule:
                if ack > self.recover:  # "Hold old state until something *above* high_seq is ACKed"
                    self.in_recovery = False
                    self.cwnd = self.ssthresh
                return False
            if ack >= self.recover:
                # Full ACK. NewReno deflates to min(ssthresh, FlightSize + SMSS): RFC 3782 §3 step 5, as FreeBSD's
                # newreno_post_recovery (tcp_input's NewReno before it) did until FreeBSD 12 took RFC 6582 §3.2
                # step 3's max(FlightSize, SMSS) + SMSS. With nothing left in flight that is one segment, which a
                # delayed-ACK receiver holds for its timer (rule 165's record, validation/README.md). With SACK,
                # cwnd already is ssthresh (RFC 6675 §5) and stays there, as Linux leaves it.
                self.in_recovery = False
                if not self.sack:
                    self.cwnd = min(self.ssthresh, max(flight_bytes, 0) + mss)
                elif self.prr_rule:
                    self.cwnd = self.ssthresh  # tcp_end_cwnd_reduction
                return False
            if self.sack:
                return False  # RFC 6675: the scoreboard, not the partial ACK, says what to resend
            if self.reno_prr_rule:
                return True  # tcp_newreno_mark_lost: the new head is resent; PRR sets cwnd (the endpoint)
            # Partial ACK: deflate by the amount acked, add back one SMSS, retransmit the next hole.
            self.cwnd = max(self.cwnd - acked_bytes + mss, mss)
            return True
        if self.validate and not self._cwnd_limited(acked_bytes, ack, flight_bytes):
            return False  # application- or buffer-limited: the window was not used, so it does not grow
        if self.cwnd < self.ssthresh:
            if self.abc_limit:
                self.cwnd += min(acked_bytes, self.abc_limit)
                return False
            # Linux 3.18+ tcp_slow_start: every segment acknowledged, up to ssthresh; the rest grows the window
            # as congestion avoidance does (bictcp_cong_avoid, tcp_reno_cong_avoid).
            grown = min(self.cwnd + acked_bytes, self.ssthresh)
            acked_bytes -= grown - self.cwnd
            self.cwnd = grown
            if acked_bytes <= 0:
                return False
        self.avoid_congestion(acked_bytes)
        return False

    def _cwnd_limited(self, acked_bytes: int, ack: int, flight_bytes: int) -> bool:
        """``tcp_is_cwnd_limited``. From 4.3 (:attr:`measured`): an output pass of the current window was
        cwnd-limited, or in slow start cwnd is below twice the most data out in it (both kept by
        :meth:`cwnd_validate`). Before: the flight before this ACK came within ``tcp_max_burst`` segments of cwnd."""
        if self.measured:
            return self._is_limited or (self.cwnd < self.ssthresh and self.cwnd < 2 * self._max_out)
        return flight_bytes + acked_bytes + self.MAX_BURST_SEGMENTS * self.mss >= self.cwnd

    def cwnd_validate(self, is_cwnd_limited: bool, out_bytes: int, snd_una: int, snd_nxt: int) -> None:
        """``tcp_cwnd_validate`` after an output pass (``tcp_write_xmit``) that sent data or was cwnd-limited,
        ``out_bytes`` outstanding after it: per window (until ``snd_nxt`` is acknowledged) the strongest signal
        of use, cwnd-limited, else the most data out (6.0's "tcp: fix tcp_cwnd_validate() to not forget
        is_cwnd_limited", in the stable trees). RFC 7661's decay of an unused window is not modelled."""
        if snd_una >= self._usage_seq or is_cwnd_limited or (not self._is_limited and out_bytes > self._max_out):
            self._is_limited = is_cwnd_limited
            self._max_out = out_bytes
            self._usage_seq = snd_nxt

    def avoid_congestion(self, acked_bytes: int) -> None:
        """RFC 5681 eq. 3, in byte-counting form: one SMSS per cwnd of data acked."""
        self._ca_acc += acked_bytes
        if self._ca_acc >= self.cwnd:
            self._ca_acc -= self.cwnd
            self.cwnd += self.mss

    def on_ack_timing(self, rtt_s: float, snd_nxt: int, ack: int, pacing_Bps: float = 0.0, paced: bool = False) -> None:
        """An ACK's RTT sample (< 0: none), with the socket's pacing rate and whether it is paced, for rules that time
        the path (CUBIC's HyStart); Reno does not."""

    def loss_ssthresh(self, flight_bytes: int) -> int:
        """The slow-start threshold after a loss: max(FlightSize / 2, 2 SMSS) (RFC 5681 eq. 4); with
        :attr:`halve_cwnd`, Linux's max(cwnd / 2, 2) in whole segments (``tcp_reno_ssthresh``)."""
        mss = self.mss
        if self.halve_cwnd:
            return max((self.cwnd // mss) >> 1, 2) * mss
        return max(flight_bytes // 2, 2 * mss)

    def on_dupack(self, flight_bytes: int, snd_max: int, ack: int, new_sack_info: bool = True) -> bool:
        """A duplicate ACK of ``ack``; returns True on the third one (fast retransmit, RFC 5681 §3.2 step 2).

        Not when ``ack`` is below ``recover`` (RFC 6582 §3.2 step 1): after a timeout, go-back-N resends
        data the receiver already holds, and its duplicate ACKs announce no new loss. With SACK, limited
        transmit lends nothing for a duplicate ACK without ``new_sack_info`` (RFC 5681 §3.2 step 1).
        """
        self.dupacks += 1
        if self.in_recovery:
            if not (self.sack or self.reno_prr_rule):
                self.cwnd += self.mss
            return False
        if self.limited_transmit:  # the first two duplicate ACKs only
            if self.dupacks >= 3:
                self.extra = 0
            elif new_sack_info:
                self.extra = self.dupacks * self.mss
        if self.dupacks == 3 and ack >= self.recover and not self.rack:
            if self.limited_transmit:  # what limited transmit sent beyond cwnd is left out (RFC 5681 §3.2 step 2)
                flight_bytes = min(flight_bytes, self.cwnd)
            self.enter_recovery(flight_bytes, snd_max)
            return True
        return False

    def enter_recovery(self, flight_bytes: int, snd_max: int) -> None:
        """Fast recovery begins: ssthresh from the loss, and cwnd set (``tcp_enter_recovery``), until ``snd_max`` is
        acknowledged. With PRR the window it had is kept for :meth:`prr_reduce` (``tcp_init_cwnd_reduction``).
        Limited transmit's loan ends here (RFC 5681 §3.2 step 2), also where RACK begins recovery before the third
        duplicate ACK: from now on ``pipe`` and cwnd alone say what goes out (RFC 6675 §5, ``tcp_cwnd_reduction``)."""
        self.extra = 0
        self.ssthresh = self.loss_ssthresh(flight_bytes)
        if self.prr_rule or self.reno_prr_rule:
            self.prior_cwnd = self.cwnd
            self.prr_delivered = 0
        else:
            # RFC 6675 §5 step 4.2: cwnd = ssthresh, and ``pipe`` decides what may go out; NewReno
            # inflates by the three segments that left the network (RFC 6582 §3.2 step 2).
            self.cwnd = self.ssthresh if self.sack else self.ssthresh + 3 * self.mss
        self.in_recovery = True
        self.recover = snd_max

    def prr_reduce(self, delivered: int, pipe: int, prr_out: int, una_advanced: bool, newly_lost: bool,
                   retrans_acked: bool) -> None:
        """``tcp_cwnd_reduction`` for an ACK in SACK recovery that delivered ``delivered`` bytes: cwnd = ``pipe``
        plus what PRR lets out (:func:`tcpsim.protocol.prr.prr_sndcnt`); an ACK that delivers nothing changes
        nothing."""
        if delivered <= 0:
            return
        self.prr_delivered += delivered
        self.cwnd = pipe + prr_sndcnt(self.prr_rule, ssthresh=self.ssthresh, prior_cwnd=self.prior_cwnd,
                                      prr_delivered=self.prr_delivered, prr_out=prr_out, pipe=pipe,
                                      delivered=delivered, mss=self.mss, una_advanced=una_advanced,
                                      newly_lost=newly_lost, retrans_acked=retrans_acked)

    def on_timeout(self, flight_bytes: int, snd_max: int) -> None:
        """Retransmission timeout: ssthresh = max(FlightSize/2, 2 SMSS), cwnd = 1 SMSS (RFC 5681 eq. 4)."""
        self.ssthresh = self.loss_ssthresh(flight_bytes)
        self.cwnd = self.mss
        self.in_recovery = False
        self.recover = snd_max
        self.dupacks = 0
        self.extra = 0
