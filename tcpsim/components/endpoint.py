"""One end of a TCP connection: socket buffers, segmentation, ACK processing, timers.

The endpoint is full duplex (request/response traffic piggybacks ACKs on data); a bulk stream simply
never writes on its receiving side. Every decision is delegated to :mod:`tcpsim.protocol`. The state
lives in :mod:`.tcb`, the halves in :mod:`.receiver`, :mod:`.sender`, :mod:`.recovery` and :mod:`.rack`; this module
pairs two ends and takes a segment in.

Ref: RFC 9293 §3.8-3.10 (sequence space, windows, segment arrival), RFC 5681 and 6582 (congestion
control), RFC 2018 and 6675 (SACK and SACK-based loss recovery), RFC 6298 (retransmission timer),
RFC 1122 §4.2.3 (Nagle, SWS avoidance, delayed ACK).
"""

from __future__ import annotations

from ..errors import AuditError
from ..protocol.linux_sndbuf import handshake_sndbuf_bytes, per_mss_bytes
from .rack import TcpRack
from .segment import Segment
from .tcb import AUDIT, BLOCK_REASONS, audit

__all__ = ["TcpEndpoint", "BLOCK_REASONS", "AuditError", "audit"]


class TcpEndpoint(TcpRack):
    """Sender and receiver state of one side of a connection."""

    def connect(self, peer: "TcpEndpoint") -> None:
        """Pair with the other end; the initial windows are what each side offers (the handshake)."""
        self.peer = peer
        if self._autocork or self._tsq_cap:
            self.host.watch_transmits(peer, self._tx_done)
        if self._linux_wnd or peer._linux_wnd:  # each end's window rules need the MSS both will use
            mss = min(self.mss, peer.mss)
            if self._linux_wnd:
                self._linux_rcv_setup(mss)
            if peer._linux_wnd:
                peer._linux_rcv_setup(mss)
        if peer.mss < self.mss:
            self.mss = peer.mss
            self.naglim = min(self.naglim, peer.mss)
            self.cc = self._new_cc()
            self.delack.mss = self.mss
            self._sws_step = min(self.rcv_window_max // 2, self.mss)
        self.delack.fit_window(self.rcv_window_max)
        self.peer_wnd = peer.right_edge
        self.max_sndwnd = self.peer_wnd
        self._path_mss = self.mss
        if self._linux_wnd:
            self._bound_to_half_wnd()
        if self.sndbuf_max:
            head = self.opts.sndbuf_skb_head_bytes
            if head:  # Linux 3.14+ tcp_init_buffer_space -> tcp_sndbuf_expand; the peer's MSS option is mss_clamp
                self._sndbuf_per_mss = per_mss_bytes(self.mss + self.option_bytes, head)
                self.sndbuf = handshake_sndbuf_bytes(self.sndbuf, self.sndbuf_max, self.cc.cwnd // self.mss,
                                                     self._sndbuf_per_mss)
            else:  # Linux tcp_fixup_sndbuf (2.6): room for three segments
                self.sndbuf = max(self.sndbuf, min(3 * self.mss, self.sndbuf_max))

    # --- input ------------------------------------------------------------------------------------
    def on_segment(self, seg: Segment, cpu: int) -> None:
        """A segment reached TCP (after the host's receive path): ACK processing, then data."""
        if seg.ack > self.snd_una or (seg.length == 0 and seg.ack == self.snd_una):
            self._process_ack(seg, cpu)
        elif seg.wnd != self.peer_wnd:
            self.peer_wnd = seg.wnd
            self.output(cpu)
        if seg.length:
            self._process_data(seg, cpu)
        if AUDIT["on"]:
            self._audit_timer()

    def _process_ack(self, seg: Segment, cpu: int) -> None:
        ack = seg.ack
        now = self.kernel.now_s
        sacked_before = -1
        rack = self._rack
        # in, or maybe entering, recovery (with RACK any ACK that SACKs, or finds segments still marked lost)
        prr = self.cc.prr_rule != 0 and (self._sack_rec or self.cc.dupacks == 2
                                         or (rack and (seg.sack is not None or len(self._rack_lost) > 0)))
        if prr:
            self._prr_mark()
        if seg.sack is not None and self.sack_ok:
            if ack == self.snd_una and self.cc.limited_transmit and self.cc.dupacks < 2:
                sacked_before = self._board.sacked_bytes(ack, self.snd_max)
            self._board.add(seg.sack, ack if ack > self.snd_una else self.snd_una)
            if rack:
                self._rack_sacked(seg.sack, now)
        elif self._board.ranges and ack > self.snd_una:
            self._board.prune(ack)
        self.cc.now_s = now
        una_before = self.snd_una
        wake = False  # wake the writer after the output (TcpOptions.wake_after_output)
        if ack > self.snd_una:
            acked = ack - self.snd_una
            self.snd_una = ack
            sent = self.sent
            sample = None  # the send time of the newest segment covered that was sent once (last_ackt)
            oldest = -1.0  # ... of the oldest (first_ackt)
            karn = False  # a retransmitted segment is covered
            newest = None  # RACK: the delivered segment sent last
            while sent and sent[0][0] + sent[0][1] <= ack:
                entry = sent.popleft()
                if not entry[3]:
                    sample = entry[2]
                    if oldest < 0.0:
                        oldest = sample
                else:
                    karn = True
                if rack and (newest is None or entry[2] > newest[2]):
                    newest = entry
            if newest is not None:
                self._rack_retrans_acked = newest[3]
                self._rack_advance(newest, now)
            if sent and sent[0][0] < ack:  # partially acknowledged segment (after a window probe)
                head = sent[0]
                head[1] -= ack - head[0]
                head[0] = ack
            rtt = -1.0
            # hystart_update reads sk_pacing_rate as the previous ACK left it (tcp_update_pacing_rate comes after);
            # only slow start reads it, so congestion avoidance's ACKs skip the computation
            cc = self.cc
            pacing_Bps = self._pacing_rate() if self._cc_rated and cc.cwnd < cc.ssthresh else 0.0
            if sample is not None:
                rtt = now - sample
                # Linux tcp_clean_rtx_queue: srtt from first_ackt (seq_rtt_us), min_rtt and the congestion control
                # from last_ackt (ca_rtt_us). An ACK covering a retransmission keeps the newest segment sent once,
                # where Linux takes the timestamp echo or nothing: a known deviation (rule 170, not adopted)
                seq_rtt = now - oldest if self._srtt_oldest and not karn else rtt
                self.rto.sample(seq_rtt, ack, self.snd_nxt)
                if rtt < self._min_rtt_s or self._min_rtt_s <= 0.0:
                    self._min_rtt_s = rtt
                self.rtt_sum_s += seq_rtt
                self.rtt_n += 1
            if self._cc_timed:
                self.cc.on_ack_timing(rtt, self.snd_nxt, ack, pacing_Bps, self._pacing != 0)
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            self.peer_wnd = seg.wnd
            if seg.wnd > self.max_sndwnd:
                self.max_sndwnd = seg.wnd
                if self.mss < self._path_mss:
                    self._bound_to_half_wnd()
            reno_rec = self.cc.reno_prr_rule and self.cc.in_recovery
            partial = self.cc.on_new_ack(acked, ack, self.snd_max - ack)
            if reno_rec:
                self._reno_ack(acked, una_before, partial)
            elif self.cc.reno_prr_rule:
                self._reno_sacked = 0  # tcp_reset_reno_sack: snd_una advanced outside recovery
            if partial:
                self._retransmit_first(cpu)
            elif self._sack_rec and not self.cc.in_recovery:
                self._sack_rec = False  # RFC 6675 §5: the cumulative ACK passed RecoveryPoint
            elif prr and self._sack_rec and not rack:
                self._prr_step()
            if self.snd_max > ack:
                if self._board.ranges and self._board.ranges[0][0] == ack and self.opts.renege_rule:
                    self._sack_reneged(cpu)
                else:
                    self._arm_rto()
            else:
                self._rto_timer.cancel()
            if self._wake_after_output:
                wake = True
            else:
                self._new_space()
        else:
            if self.snd_max > self.snd_una and seg.wnd == self.peer_wnd:
                new_info = sacked_before < 0 or self._board.sacked_bytes(ack, self.snd_max) > sacked_before
                held = self.cc.in_recovery and self.snd_una >= self.cc.recover
                if self.cc.on_dupack(self.snd_max - self.snd_una, self.snd_max, self.snd_una, new_info):
                    if self.sack_ok:
                        self._sack_enter_recovery(cpu, prr)
                        return
                    if self.cc.reno_prr_rule:
                        self._prr_sent = self.bytes_sent
                        self._reno_dupack(True)
                    self._retransmit_first(cpu)
                elif self.cc.reno_prr_rule and not held:
                    self._reno_dupack(False)
            if prr and self._sack_rec and not rack:
                self._prr_step()
            self.peer_wnd = seg.wnd
            if seg.wnd > self.max_sndwnd:
                self.max_sndwnd = seg.wnd
                if self.mss < self._path_mss:
                    self._bound_to_half_wnd()
        if rack:
            self._rack_ack(ack, ack > una_before, seg.sack is not None, now, prr)
        self.output(cpu)
        if wake:
            self._new_space()

    def _new_space(self) -> None:
        """The ACK freed room: a blocked writer's buffer may grow, and the writer is woken (Linux ``tcp_new_space``,
        4.4BSD ``sowwakeup``)."""
        if self.writer_blocked and self.sndbuf < self.sndbuf_max:
            self._expand_sndbuf()
        if self.on_writable is not None:
            self.on_writable()

    def _bound_to_half_wnd(self) -> None:
        """Linux ``tcp_sync_mss`` -> ``tcp_bound_to_half_wnd``: the sender's segments are at most half the
        largest window the peer offered (once it exceeds 536 bytes), never below 68 bytes of headers and
        payload; run at the handshake and whenever that window grows. A 16 KiB SO_RCVBUF at MTU 9000 offers
        8948 bytes, so the sender sends 4474-byte segments."""
        mss = self._path_mss
        wnd = self.max_sndwnd
        cutoff = wnd >> 1 if wnd > 536 else wnd
        if 0 < cutoff < mss:
            mss = max(cutoff, 68 - 20 - self.option_bytes)
        if mss != self.mss:
            self.mss = mss
            self.cc.mss = mss
            self.cc.abc_limit = self.opts.slow_start_ack_segments * mss
            self.naglim = min(self.opts.naglim_bytes, mss) if self.opts.naglim_bytes else mss
