"""RACK-TLP for a Linux 4.18+ endpoint: segments marked lost by when they were sent, and the tail loss probe.

Ref: RFC 8985; Linux ``net/ipv4/tcp_recovery.c`` (``tcp_rack_advance``, ``tcp_rack_detect_loss``,
``tcp_rack_reo_timeout``), ``tcp_input.c`` (``tcp_time_to_recover``, ``tcp_process_tlp_ack``) and ``tcp_output.c``
(``tcp_schedule_loss_probe``, ``tcp_send_loss_probe``, ``tcp_xmit_retransmit_queue``). With RACK on (``TcpOptions
.rack_tlp`` and SACK), recovery begins when a segment is marked lost, marked segments go out before new data, and what
is in flight is the unacknowledged, unSACKed bytes less the marked ones not yet resent; RFC 6675's IsLost and NextSeg
(:mod:`.recovery`) serve every other stack.

A sent segment is ``[seq, length, sent_s, retransmitted, lost]``; ``sent_s`` is its latest transmission here.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort

from ..protocol.rack import reo_wnd_s, sent_after, tlp_timeout_s
from .recovery import TcpRecovery

__all__ = ["TcpRack"]

_SEQ, _LEN, _SENT, _RETX, _LOST = 0, 1, 2, 3, 4


def _seq(entry: list) -> int:
    return entry[_SEQ]


class TcpRack(TcpRecovery):
    """RACK's loss marks, its reordering timer and the tail loss probe, over :class:`TcpRecovery`."""

    # --- RACK: what was delivered last, and what was sent before it ---------------------------------------
    def _rack_advance(self, entry: list, now: float) -> None:
        """``tcp_rack_advance``: ``entry`` was delivered; a retransmission answered sooner than the minimum RTT may be
        its original's delivery and is passed over."""
        xmit = entry[_SENT]
        rtt = now - xmit
        if entry[_RETX] and rtt < self._min_rtt_s:
            return
        self._rack_rtt_s = rtt
        end = entry[_SEQ] + entry[_LEN]
        if sent_after(xmit, end, self._rack_xmit_s, self._rack_end):
            self._rack_xmit_s = xmit
            self._rack_end = end

    def _rack_sacked(self, blocks, now: float) -> None:
        """The SACK blocks of an ACK: the segment ending each block (the latest sent of the originals in it) and every
        retransmission inside one are delivered."""
        sent = self.sent
        for start, stop in blocks:
            i = bisect_right(sent, stop - 1, key=_seq) - 1
            if i >= 0 and sent[i][_SEQ] >= start:
                self._rack_advance(sent[i], now)
        if self._rack_rtx:
            for entry in list(self._rack_rtx):
                s, e = entry[_SEQ], entry[_SEQ] + entry[_LEN]
                if any(start <= s and e <= stop for start, stop in blocks):
                    self._rack_advance(entry, now)
                    self._rack_rtx.remove(entry)

    def _rack_detect(self, now: float) -> None:
        """``tcp_rack_detect_loss``: mark every unacknowledged, unSACKed segment sent before the last delivered one
        and older than its round trip plus the reordering window; arm the reordering timer for the last of the others
        to come due. :attr:`_rack_newly_lost` says whether this marked any."""
        self._rack_newly_lost = False
        if self._rack_xmit_s < 0.0:
            return
        board, sent = self._board, self.sent
        una = self.snd_una
        ranges = board.ranges
        nr = len(ranges)
        sacked = board.sacked_bytes(una, self.snd_max)
        reo = reo_wnd_s(self._sack_rec, sacked // self.mss, self._min_rtt_s, self.rto.srtt_s or self._min_rtt_s)
        rack_xmit, rack_end, rack_rtt = self._rack_xmit_s, self._rack_end, self._rack_rtt_s
        edge = board.high_sacked if ranges else una
        wait = 0.0
        i = max(bisect_right(sent, una, key=_seq) - 1, 0)
        n = len(sent)
        ri = 0
        while i < n:
            entry = sent[i]
            seq = entry[_SEQ]
            end = seq + entry[_LEN]
            while ri < nr and ranges[ri][1] <= seq:
                ri += 1
            if ri < nr and ranges[ri][0] <= seq and end <= ranges[ri][1]:
                i = max(bisect_left(sent, ranges[ri][1], key=_seq), i + 1)  # SACKed: past the whole block
                continue
            i += 1
            if end <= una or entry[_LOST]:
                continue
            before = sent_after(rack_xmit, rack_end, entry[_SENT], end)
            if not before:
                if seq >= edge and not entry[_RETX]:
                    break  # beyond the SACKed data the originals went in order: none later went before
                continue
            left = entry[_SENT] + rack_rtt + reo - now
            if left <= 0.0:
                entry[_LOST] = True
                insort(self._rack_lost, entry, key=_seq)
                self._rack_newly_lost = True
            elif left > wait:
                wait = left
        if wait > 0.0:
            self._rack_timer.arm(now + wait)

    def _rack_marked(self) -> list:
        """The segments marked lost and not resent since, still unacknowledged and unSACKed, lowest first; the rest
        leave the list."""
        board, una = self._board, self.snd_una
        live = []
        for e in self._rack_lost:
            if e[_LOST] and e[_SEQ] + e[_LEN] > una and board.sacked_bytes(e[_SEQ], e[_SEQ] + e[_LEN]) < e[_LEN]:
                live.append(e)
            else:
                e[_LOST] = False  # delivered after all
        self._rack_lost = live
        return live

    def _rack_pipe(self) -> int:
        """``tcp_packets_in_flight`` in bytes: unacknowledged, unSACKed, not marked lost unless resent."""
        una, snd_max = self.snd_una, self.snd_max
        return (snd_max - una) - self._board.sacked_bytes(una, snd_max) - sum(e[_LEN] for e in self._rack_marked())

    def _rack_after_ack(self, now: float) -> bool:
        """After an ACK's advance: mark losses; with any marked and no recovery yet, begin it (``tcp_time_to_recover``,
        ``tcp_enter_recovery``). True if it began (the caller sends by it)."""
        self._rack_detect(now)
        if self._sack_rec or not self._rack_marked():
            return False
        self.cc.enter_recovery(self.snd_max - self.snd_una, self.snd_max)
        self._sack_rec = True
        self._prr_sent = self.bytes_sent
        return True

    def _rack_ack(self, ack: int, advanced: bool, sacked: bool, now: float, prr: bool) -> None:
        """RACK's part of an ACK, after its advance and SACK blocks were taken (``tcp_fastretrans_alert`` then
        ``tcp_cong_control``): the probe's answer, loss marks and maybe the start of recovery, then PRR."""
        if not advanced:
            self._rack_retrans_acked = False
        if self._tlp_high:
            self._tlp_ack(ack, advanced, sacked)
        if sacked or self._sack_rec or self._rack_lost:
            self._rack_after_ack(now)
        if prr and self._sack_rec:
            self._prr_step()

    def _rack_output(self, cpu: int) -> None:
        """``tcp_xmit_retransmit_queue`` then new data: marked segments first, lowest first, while cwnd - pipe allows a
        segment; then new data within what is left (:meth:`_output`)."""
        self._pipe = self._rack_pipe()
        cc, mss = self.cc, self.mss
        for entry in list(self._rack_lost):
            if cc.cwnd - self._pipe < mss:
                break
            if entry[_LOST]:
                self._rack_resend(entry, cpu)
        self._output(cpu)

    def _rack_resend(self, entry: list, cpu: int) -> None:
        """A marked segment goes again (``tcp_xmit_retransmit_queue``): in flight once more."""
        entry[_LOST] = False
        self._rack_lost.remove(entry)
        self._pipe += entry[_LEN]
        self._rack_send_again(entry, cpu)

    def _rack_send_again(self, entry: list, cpu: int) -> None:
        """Retransmit ``entry`` now: its latest transmission is this one, and it waits among the resent for its
        delivery (:meth:`_rack_sacked`)."""
        entry[_RETX] = True
        entry[_SENT] = self.kernel.now_s
        self._rack_rtx.append(entry)
        self._emit(entry[_SEQ], entry[_LEN], cpu, True, entry[_SEQ] + entry[_LEN] >= self.written)

    def _rack_expired(self) -> None:
        """``tcp_rack_reo_timeout``: the reordering window of a segment has run out; mark, begin recovery as one
        segment delivered would (``tcp_cwnd_reduction(sk, 1, ...)``), resend."""
        cpu = self.host.irq_cpu(self.stream)
        if self._rack_after_ack(self.kernel.now_s):
            self._prr_una = self.snd_una
            self._prr_apply(self.mss, self._rack_pipe(), self._rack_newly_lost, False)
        if self._sack_rec:
            self.output(cpu)
            self._arm_rto()

    # --- what RACK changes in the endpoint's recovery ---------------------------------------------------
    def _prr_step(self) -> None:
        """With RACK, PRR's ``pipe`` and newly lost segments are RACK's (``tcp_packets_in_flight``, ``rs->losses``)."""
        if not self._rack:
            TcpRecovery._prr_step(self)
            return
        self._prr_apply(self._prr_delivered(), self._rack_pipe(), self._rack_newly_lost, self._rack_retrans_acked)

    def _sack_output(self, cpu: int) -> None:
        if self._rack:
            self._rack_output(cpu)
        else:
            TcpRecovery._sack_output(self, cpu)

    def output(self, cpu: int) -> None:
        """Send what may go (:meth:`TcpSender.output`), then with RACK-TLP schedule the probe for what is out."""
        TcpRecovery.output(self, cpu)
        if self._rack:
            self._tlp_arm()

    def _rto_expired(self) -> None:
        """With RACK-TLP a probe that comes due with the retransmission timer goes instead of it (the kernel keeps one
        of the two pending: ``ICSK_TIME_LOSS_PROBE`` replaces ``ICSK_TIME_RETRANS``)."""
        if self._rack:
            due = self._tlp_timer.deadline
            if due is not None and due <= self.kernel.now_s + 1e-12 and not self._tlp_high:
                self._tlp_expired()
                if self._tlp_high:
                    return
            self._rack_forget()
        TcpRecovery._rto_expired(self)

    def _rack_forget(self) -> None:
        """A retransmission timeout: go-back-N resends everything, so no mark, probe or timer stands."""
        for entry in self._rack_lost:
            entry[_LOST] = False
        self._rack_lost = []
        self._rack_rtx = []
        self._rack_timer.cancel()
        self._tlp_timer.cancel()
        self._tlp_high = 0

    # --- TLP -------------------------------------------------------------------------------------------
    def _tlp_arm(self) -> None:
        """``tcp_schedule_loss_probe``: outside recovery and the loss state, with nothing SACKed (``TCP_CA_Open``),
        data outstanding and no probe unanswered, a probe two round trips (in ticks) after now."""
        outstanding = self.snd_max - self.snd_una
        if (outstanding <= 0 or self._sack_rec or self._board.ranges or self._tlp_high
                or self.snd_una < self.cc.recover):
            self._tlp_timer.cancel()
            return
        now = self.kernel.now_s
        srtt = self.rto.srtt_s
        if srtt is None:
            return  # TCP_TIMEOUT_INIT: the retransmission timer is as early
        rto_at = self._rto_timer.deadline
        left = rto_at - now if rto_at is not None else 0.0
        segments_out = -(-outstanding // self.mss)
        self._tlp_timer.arm(now + tlp_timeout_s(srtt, segments_out, self._tick_s, self.opts.min_rto_s, left))

    def _tlp_expired(self) -> None:
        """``tcp_send_loss_probe``: one new segment if there is one and the peer's window takes it, whatever cwnd
        says; else the last segment again. Then the retransmission timer."""
        if self.snd_max <= self.snd_una or self._sack_rec or self._board.ranges or self._tlp_high:
            return
        cpu = self.host.irq_cpu(self.stream)
        unsent = self.written - self.snd_nxt
        size = min(self.mss, unsent)
        if size > 0 and self.snd_nxt == self.snd_max and self.snd_nxt + size <= self.snd_una + self.peer_wnd:
            self._probing = True
            self._agg_prev = None  # a pass of its own (tcp_write_xmit with push_one = 2)
            self._send_new(size, cpu)
            self._probing = False
            self._tlp_retrans = False
        else:
            self._rack_send_again(self.sent[-1], cpu)
            self._tlp_retrans = True
        self._tlp_high = self.snd_max
        self._arm_rto()

    def _tlp_ack(self, ack: int, advanced: bool, sacked: bool) -> None:
        """``tcp_process_tlp_ack``: an ACK at or past the probe ends it; one past a retransmitted probe says the probe
        repaired a loss, and cwnd falls to ssthresh (``TCP_CA_CWR`` begun and ended); a pure duplicate says both
        copies arrived."""
        high = self._tlp_high
        if ack < high:
            return
        if not self._tlp_retrans:
            self._tlp_high = 0
        elif ack > high:
            cc = self.cc
            cc.ssthresh = cc.loss_ssthresh(self.snd_max - self.snd_una)
            cc.cwnd = cc.ssthresh
            self._tlp_high = 0
        elif not advanced and not sacked:
            self._tlp_high = 0
