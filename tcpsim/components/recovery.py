"""Loss repair of a TCP endpoint: go-back-N after a timeout, fast retransmit, SACK-based recovery, timers.

Ref: RFC 5681 §3.1-3.2 and RFC 6582 (fast retransmit, NewReno), RFC 6675 (SACK-based loss recovery),
RFC 6298 (retransmission timer), RFC 9293 §3.8.6.1 (persist).
"""

from __future__ import annotations

from ..errors import AuditError
from ..protocol.sack import next_retransmission, set_pipe
from .sender import TcpSender
from .tcb import AUDIT

__all__ = ["TcpRecovery"]


class TcpRecovery(TcpSender):
    """Retransmission: what to resend, when, and how much the window allows meanwhile."""

    # --- retransmission ---------------------------------------------------------------------------
    def _retransmit_next(self, cpu: int) -> bool:
        """Go-back-N after a timeout: resend the segment at snd_nxt if cwnd allows."""
        in_flight = self.snd_nxt - self.snd_una
        for entry in self.sent:
            if entry[0] >= self.snd_nxt:
                break
        else:
            self.snd_nxt = self.snd_max
            return True
        if entry[0] != self.snd_nxt:
            self.snd_nxt = entry[0]
        if in_flight + entry[1] > self.cc.cwnd and in_flight > 0:
            self._set_block("cwnd")
            return False
        entry[3] = True
        self.snd_nxt = entry[0] + entry[1]
        self._emit(entry[0], entry[1], cpu, True, self.snd_nxt >= self.written)
        return True

    def _retransmit_first(self, cpu: int) -> None:
        if self.sent:
            entry = self.sent[0]
            entry[3] = True
            self._emit(entry[0], entry[1], cpu, True, entry[0] + entry[1] >= self.written)
            self._arm_rto()

    # --- SACK-based loss recovery (RFC 6675 §5) ---------------------------------------------------
    def _sack_enter_recovery(self, cpu: int, prr: bool = False) -> None:
        """Step 4: the congestion window was set by :meth:`NewReno.on_dupack` (with PRR, by this ACK's
        :meth:`_prr_step`, ``prr`` saying :meth:`_prr_mark` ran before it); resend the first unacknowledged segment
        at once, then send by ``pipe``."""
        self._sack_rec = True
        self._high_rxt = 0
        if prr:
            self._prr_sent = self.bytes_sent
            self._prr_step()
        if self.sent:
            self._resend(self.sent[0], cpu)
            self._arm_rto()
        self._sack_output(cpu)

    # --- Proportional Rate Reduction (RFC 6937; Linux tcp_cwnd_reduction) -------------------------------
    def _prr_mark(self) -> None:
        """Before an ACK in SACK recovery (or one that may start it): what :meth:`_prr_step` measures it against."""
        board, una = self._board, self.snd_una
        self._prr_una = una
        self._prr_sacked = board.sacked_bytes(una, self.snd_max)
        self._prr_lost = una if self._rack else max(board.lost_below(self.sent, self.mss), una)

    def _prr_step(self) -> None:
        """After that ACK: ``tcp_cwnd_reduction`` with the bytes it delivered, whether it made RFC 6675's IsLost count
        new bytes lost (``rs->losses``) and ``pipe`` (SetPipe)."""
        board, una, mss = self._board, self.snd_una, self.mss
        lost = board.lost_below(self.sent, mss)
        start = max(self._prr_lost, una)
        newly_lost = lost > start and board.sacked_bytes(start, lost) < lost - start
        pipe = set_pipe(board, self.sent, una, self.snd_max, self._high_rxt, mss)
        self._prr_apply(self._prr_delivered(), pipe, newly_lost, self._prr_una < self._high_rxt)

    def _prr_delivered(self) -> int:
        """What the ACK delivered, cumulatively or by new SACK blocks (``tcp_newly_delivered``)."""
        una = self.snd_una
        return una - self._prr_una + self._board.sacked_bytes(una, self.snd_max) - self._prr_sacked

    def _prr_apply(self, delivered: int, pipe: int, newly_lost: bool, retrans_below: bool) -> None:
        """``tcp_cwnd_reduction``, with whether ``snd_una`` advanced and over retransmitted data
        (``FLAG_RETRANS_DATA_ACKED``: it began below retransmitted bytes)."""
        una0, una = self._prr_una, self.snd_una
        self.cc.prr_reduce(delivered, pipe, self.bytes_sent - self._prr_sent, una > una0, newly_lost,
                           una0 < una and retrans_below)

    # --- Linux recovery without SACK (rule 167; tcp_add_reno_sack, tcp_cwnd_reduction) ------------------------
    def _reno_dupack(self, entering: bool) -> None:
        """A duplicate ACK counts one segment SACKed, keeping one hole (``tcp_add_reno_sack``,
        ``tcp_limit_reno_sacked``); in recovery, the segment it counted was delivered. ``entering``: this third one
        began the recovery, whose head it marks lost."""
        before = self._reno_sacked
        self._reno_sacked = min(before + self.mss, max(self.snd_max - self.snd_una - self.mss, 0))
        if self.cc.in_recovery:
            self._reno_reduce(self._reno_sacked - before, self.snd_una, entering)

    def _reno_ack(self, acked: int, una0: int, partial: bool) -> None:
        """An ACK that moved ``snd_una`` by ``acked`` bytes in recovery. Partial: it delivered max(acked - SACKed, one
        segment) and eats acked - 1 segment's worth of the duplicate ACKs' count (``tcp_remove_reno_sacks``), and the
        new head is marked lost (``tcp_newreno_mark_lost``). At ``recover`` itself the count is cleared and cwnd is
        left as PRR set it (the recovery held, ``tcp_try_undo_recovery``); past it the recovery ended at ssthresh."""
        if partial:
            delivered = max(acked - self._reno_sacked, self.mss)
            self._reno_sacked = max(self._reno_sacked - (acked - self.mss), 0)
            self._reno_reduce(delivered, una0, True)
            return
        self._reno_sacked = 0
        if self.cc.in_recovery:
            self.cc.cwnd = self._reno_cwnd

    def _reno_reduce(self, delivered: int, una0: int, head_lost: bool) -> None:
        """``tcp_cwnd_reduction`` with ``pipe`` = the flight less the segments counted SACKed and the head marked lost
        and not yet resent (``tcp_packets_in_flight``). The output gates on the flight, so cwnd holds the SACKed
        count besides (the head is resent on this ACK, and counts in both again)."""
        if delivered <= 0:
            return
        cc, advanced = self.cc, self.snd_una > una0
        pipe = max(self.snd_max - self.snd_una - self._reno_sacked - (self.mss if head_lost else 0), 0)
        cc.prr_reduce(delivered, pipe, self.bytes_sent - self._prr_sent, advanced, head_lost, advanced)
        self._reno_cwnd = cc.cwnd
        cc.cwnd += self._reno_sacked

    def _sack_output(self, cpu: int) -> None:
        """Step (C): while cwnd - pipe allows a segment, NextSeg rule 1 (lost data), 2 (new data), 3 (other
        data below the highest SACKed byte)."""
        self._pipe = set_pipe(self._board, self.sent, self.snd_una, self.snd_max, self._high_rxt, self.mss)
        self._sack_resend(cpu, True)
        self._output(cpu)
        self._sack_resend(cpu, False)

    def _sack_resend(self, cpu: int, lost_only: bool) -> None:
        while self.cc.cwnd - self._pipe >= self.mss:
            entry = next_retransmission(self._board, self.sent, self.snd_una, self._high_rxt, self.mss, lost_only)
            if entry is None:
                return
            self._resend(entry, cpu)

    def _resend(self, entry: list, cpu: int) -> None:
        if AUDIT["on"] and self._board.sacked_bytes(entry[0], entry[0] + entry[1]) == entry[1]:
            raise AuditError(f"{self.name}: resending {entry[0]}+{entry[1]}, which the peer SACKed (RFC 6675 §4)")
        entry[3] = True
        self._high_rxt = entry[0] + entry[1]
        self._pipe += entry[1]
        self._emit(entry[0], entry[1], cpu, True, entry[0] + entry[1] >= self.written)

    def _enter_loss(self, cpu: int) -> None:
        """The loss state (Linux ``tcp_enter_loss``): the window by RFC 5681 §3.1, every unacknowledged byte sent
        again from ``snd_una`` (go-back-N, which RFC 6675 §5.1 leaves open) and the timer restarted. RFC 2018 §8: the
        receiver may have reneged, so the SACKed bits are cleared (``tcp_timeout_mark_lost``)."""
        self.cc.on_timeout(self.snd_max - self.snd_una, self.snd_max)
        self._reno_sacked = 0
        if self.sack_ok:
            self._sack_rec = False
            self._board.clear()
        self.snd_nxt = self.snd_una
        self.output(cpu)
        self._arm_rto()

    def _sack_reneged(self, cpu: int) -> None:
        """An ACK advanced ``snd_una`` to data the scoreboard holds as SACKed: the receiver dropped what it had SACKed
        (``tcp_clean_rtx_queue``: ``FLAG_SACK_RENEGING``). Linux ``tcp_check_sack_reneging``: before 4.16 the loss
        state at once (:meth:`_enter_loss`, the timer not backed off); from 4.16 the retransmission timer re-armed
        for max(srtt / 2, 10 ms) (``srtt_us >> 4``), whose expiry is the loss state, in case more ACKs restore the
        scoreboard (:attr:`~tcpsim.config.TcpOptions.renege_rule`). Not modelled: before 6.6 an ACK that did not
        advance re-armed it too."""
        if self.opts.renege_rule == 1:
            self._enter_loss(cpu)
            return
        srtt = self.rto.srtt_s or 0.0
        self._arm_rto(max(srtt / 2.0, 0.010))

    # --- timers -----------------------------------------------------------------------------------
    def _charge_stall(self) -> None:
        """A retransmission timer fired: the sender has waited on a lost segment since the timer was
        last started (by the last ACK that moved ``snd_una``, or the send); that wait is loss recovery,
        whatever hold the output path recorded for it."""
        now = self.kernel.now_s
        stall_from = self._rto_armed_s if self._rto_armed_s > self.block_since else self.block_since
        self.block_time[self.block] += stall_from - self.block_since
        self.block_time["recovery"] += now - stall_from
        self.block_since = now

    def _rto_expired(self) -> None:
        """RFC 6298 §5.4-5.6: resend the earliest unacknowledged segment, back the timer off, restart it
        (so a lost retransmission is itself retransmitted); RFC 5681 §3.1 for the window."""
        cpu = self.host.irq_cpu(self.stream)
        self.rto.on_timeout()
        if self.snd_max > self.snd_una:
            if self.peer_wnd > 0:  # not a zero-window probe: a segment or its ACK was lost
                self._charge_stall()
            self._enter_loss(cpu)
        elif self.written > self.snd_nxt:
            # Persist: force one byte out past the closed window; the peer ACKs it or restates its
            # window (RFC 9293 §3.8.6.1, 4.4BSD tcp_setpersist).
            self._send_new(1, cpu)
        if AUDIT["on"]:
            self._audit_timer()
