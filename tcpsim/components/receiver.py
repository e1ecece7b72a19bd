"""The receiving half of a TCP endpoint: the advertised window, data arrival, hand-up to the socket.

Ref: RFC 9293 §3.8.6 and §3.10.7.4 (windows, segment arrival), RFC 1122 §4.2.3.2-3 (delayed ACK,
receiver SWS avoidance), RFC 7323 (window scaling), RFC 2018 (SACK blocks); Linux dynamic right-sizing.
"""

from __future__ import annotations

from typing import Final

from ..protocol.delack import comp_sack_delay_s
from ..protocol.linux_window import drs_window, space_from_win, win_from_space
from ..protocol.push import receiver_pushes
from ..protocol.sack import DUP_THRESH, RECEIVER_BLOCKS, opens_block, record_arrival
from ..protocol.window import read_update_due
from .linux_rcv import LinuxReceive
from .segment import Segment

__all__ = ["TcpReceiver"]

_NONE_FILLED: Final[list[int]] = []  # no out-of-order skbs joined the queue (never appended to)


class TcpReceiver(LinuxReceive):
    """Receive window, receive buffer and the hand-off of in-order data to the reader."""

    # --- receive window (RFC 1122 §4.2.3.3, Linux autotuning) -------------------------------------
    def _rcv_rtt_measure(self) -> None:
        """Linux ``tcp_rcv_rtt_measure``: the time to receive one advertised window is a round trip
        (an upper bound when the sender is slow, so the smallest sample is kept). The window is counted from
        ``rcv_nxt`` (``rcv_rtt_est.seq = rcv_nxt + rcv_wnd``), so data already offered but not yet ACKed is not in
        the sample: a sender holding a whole window's data cannot end it within one burst. The unversioned Linux
        models count it from the advertised right edge, as before."""
        now = self.kernel.now_s
        if self._rcv_rtt_seq >= 0:
            if self.rcv_nxt < self._rcv_rtt_seq:
                return
            sample = now - self._rcv_rtt_time
            if self._rcv_rtt_s <= 0.0 or sample < self._rcv_rtt_s:
                self._rcv_rtt_s = sample
        if self.right_edge - self.rcv_nxt < self.mss:  # a (nearly) closed window times nothing useful
            self._rcv_rtt_seq = -1
            return
        self._rcv_rtt_seq = self.rcv_nxt + self._rcv_wnd if self._linux_wnd else self.right_edge
        self._rcv_rtt_time = now

    def _rcv_space_adjust(self) -> None:
        """Linux ``tcp_rcv_space_adjust`` (dynamic right-sizing, 2.6.7+): once per receiver round trip,
        the window grows to twice what the application read in it, up to ``tcp_rmem[2]``'s window; from 4.16
        (``TcpOptions.drs_rule`` 1) by :meth:`_rcvbuf_grow`.

        Not modelled (rule 0): ``rcv_ssthresh`` (tcp_grow_window), which opens the advertised window by two
        segments per segment received rather than at once.
        """
        now = self.kernel.now_s
        rtt = self._rcv_rtt_s
        if rtt <= 0.0 or now - self._drs_time < rtt:
            return
        copied = self.read_total - self._drs_seq
        rule = self.opts.drs_rule
        if rule == 2:  # 6.16 on: the read less what is still queued (copied -= inq)
            copied -= self.rcv_readable
        if rule:
            self._rcvbuf_grow(copied)
        else:
            self._window_twice_the_read(2 * copied)
        self._drs_seq = self.read_total
        self._drs_time = now

    def _window_twice_the_read(self, space: int) -> None:
        """2.6.7's dynamic right-sizing: the window grows to ``space``, twice what was read in the round trip."""
        if space > self._drs_space:
            self._drs_space = space
            if space > self.rcv_window_max:
                wnd = space if space < self.rcv_window_limit else self.rcv_window_limit
                self.rcv_window_max = wnd
                self._sws_step = min(wnd // 2, self.mss)
                if self._linux_wnd:  # the buffer grows to hold the window (tcp_space_from_win)
                    self._rcvbuf = max(self._rcvbuf, space_from_win(wnd, self._adv_win_scale, self._ratio))
                else:
                    self._rcv_room = wnd

    def _rcvbuf_grow(self, copied: int) -> None:
        """``tcp_rcv_space_adjust`` from 4.16 (``tcp_rcvbuf_grow`` from 6.16): when the application read more in the
        last round trip (``copied``) than in the last that grew the buffer (``rcvq_space.space``), the buffer grows to
        hold :func:`~tcpsim.protocol.linux_window.drs_window` (from 6.16 without its 16 advmss), at most
        ``tcp_rmem[2]`` (``tcp_space_from_win``); the window clamp follows (``tcp_win_from_space``)."""
        old = self._drs_space
        if copied <= old:
            return
        self._drs_space = copied
        advmss = self._advmss if self.opts.drs_rule == 1 else 0  # 6.16 on: no 16 advmss (tcp_rcvbuf_grow)
        rcvbuf = space_from_win(drs_window(copied, old, advmss), self._adv_win_scale, self._ratio)
        cap = self.opts.rcvbuf_autotune_max_bytes
        if rcvbuf > cap:
            rcvbuf = cap
        if rcvbuf > self._rcvbuf:
            self._rcvbuf = rcvbuf
            wnd = win_from_space(rcvbuf, self._adv_win_scale, self._ratio)
            if wnd > self.rcv_window_max:
                self.rcv_window_max = wnd
                self._sws_step = min(wnd // 2, self.mss)

    def _window_to_advertise(self) -> int:
        """RFC 1122 §4.2.3.3 receiver SWS avoidance and RFC 7323 scaling; see :mod:`tcpsim.protocol.window`."""
        if self._linux_wnd:
            return self._linux_advertise()
        rcv_nxt = self.rcv_nxt
        new_edge = rcv_nxt + self.rcv_window_max - self.rcv_buffered
        edge = self.right_edge
        if new_edge - edge >= self._sws_step:
            wnd = new_edge - rcv_nxt
        else:
            wnd = edge - rcv_nxt if edge > rcv_nxt else 0
        shift = self.rcv_shift
        if shift:
            wnd = (wnd >> shift) << shift
        if wnd > self._wnd_field_max:
            wnd = self._wnd_field_max
        if rcv_nxt + wnd > edge:
            self.right_edge = rcv_nxt + wnd
        return wnd

    # --- application interface --------------------------------------------------------------------
    def app_read(self, size_bytes: int, cpu: int) -> None:
        """The application took ``size_bytes`` out of the receive buffer; maybe send a window update."""
        self.rcv_buffered -= size_bytes
        self.rcv_readable -= size_bytes
        self.read_total += size_bytes
        if self._drs:
            self._rcv_space_adjust()
        if self._linux_wnd:
            self._dequeue_read(size_bytes)
            # tcp_cleanup_rbuf: an ACK held back leaves now if more than a full frame arrived since the last
            # window went out, or if this read emptied the queue of pushed data (PUSHED2, or PUSHED outside
            # ping-pong mode); so does a window update the read makes worth sending.
            if self.delack.held_segments and (
                    self.rcv_nxt - self._rcv_wup > self._rcv_mss
                    or (self._pushed and (self._pushed & 2 or not self._pingpong)
                        and self.rcv_buffered <= 0 and not self.ooo)) \
                    or self._linux_read_update_due():
                self._send_ack(cpu)
            return
        free = self.rcv_window_max - self.rcv_buffered
        if read_update_due(self.window_update_rule, self.last_adv - self.rcv_nxt, free, self.rcv_window_max,
                           self.mss, self._sws_step):
            self._send_ack(cpu)

    # --- input ------------------------------------------------------------------------------------
    def _process_data(self, seg: Segment, cpu: int) -> None:
        seq, length = seg.seq, seg.length
        agg = self._agg_bytes
        rcv_nxt = self.rcv_nxt + agg  # the next byte in order, past an aggregate's segments already in
        if (seq > rcv_nxt or seq + length > self.right_edge) and self._linux_wnd and seq >= rcv_nxt and not agg \
                and self._linux_beyond_window(seq, length, seg.more):
            if not seg.more:
                self._send_ack(cpu)
            if self.on_readable is not None and self.rcv_readable:
                self.on_readable()
            return
        if seq == rcv_nxt and (self._rmem > self._rcvbuf or self.right_edge <= rcv_nxt) and self._linux_wnd \
                and not seg.more and not agg and not self._linux_admit():
            self._send_ack(cpu)  # ICSK_ACK_NOW; the reader is woken all the same (sk_data_ready)
            if self.on_readable is not None and self.rcv_readable:
                self.on_readable()
            return
        if seq == rcv_nxt and self.rcv_buffered + agg + length <= self._rcv_room:
            if seg.more and self._linux_wnd:
                # inside a GSO aggregate carried whole: TCP takes the skb at its end (tcp_data_queue ->
                # tcp_rcv_nxt_update), so until then rcv_nxt, the buffer, and every ACK or read stay where it began
                if not agg:
                    self._agg_seg = length  # its gso_size
                self._agg_bytes = agg + length
                self.delack.on_segment(length, True)
                if self._delack_timer.deadline is None:
                    self._delack_timer.arm(self.delack.deadline_s(self.kernel.now_s))
                return
            filled_hole = bool(self.ooo)
            rcv_nxt += length
            ooo = self.ooo
            filled = _NONE_FILLED
            if filled_hole:
                filled = []
            while rcv_nxt in ooo:
                more = ooo.pop(rcv_nxt)
                self.rcv_buffered += more
                rcv_nxt += more
                filled.append(more)
            arrived = rcv_nxt - self.rcv_nxt
            self.rcv_nxt = rcv_nxt
            if filled_hole and ooo:
                self._release_covered_ofo()
            if self._sack_blocks:
                self._sack_blocks = [b if b[0] >= rcv_nxt else [rcv_nxt, b[1]]
                                     for b in self._sack_blocks if b[1] > rcv_nxt]
            self.rcv_buffered += length + agg
            if self._linux_wnd:
                whole = length + agg  # the aggregate's skb, or this segment's
                gso_size = self._agg_seg if agg else length
                self._agg_bytes = 0
                truesize = self._queue_skb(whole)
                if self.skb_log is not None:
                    self._log_packet(self.kernel.now_s, False, seq + length - whole, whole, 0, 0)
                for more in filled:
                    self._queue_skb(more, True)
                if gso_size > self._rcv_mss:
                    self._linux_measure_rcv_mss(gso_size, whole, truesize)  # tcp_event_data_recv -> tcp_measure_rcv_mss
                self._linux_mark_push(gso_size, seg.push)
                self._lrcv_s = self.kernel.now_s
                if whole >= 128:
                    self._grow_window(whole)
            if self._drs:
                self._rcv_rtt_measure()
            ack_now = self.delack.on_segment(length, not filled_hole)
            if ack_now and self._linux_wnd and not filled_hole:
                if not self.delack.quick:
                    ack_now = self._linux_full_frame_ack_due()
                elif self.rcv_nxt - self._rcv_wup > self._rcv_mss:
                    # __tcp_ack_snd_check tests the full-frame rule, and with it __tcp_select_window, before
                    # quick-ACK mode: a free space below half the window ends the mode for this ACK too.
                    due = self._linux_full_frame_ack_due()
                    if not self.delack.quick:
                        ack_now = due
            if self.rcv_push_wait:
                self.rcv_unpushed += arrived
                # Data that fills a hole comes out of reassembly with PSH (Solaris tcp_reass).
                if receiver_pushes(seg.push or filled_hole, length, self.mss, self.rcv_unpushed,
                                   self.rcv_push_wait):
                    self._push_up(cpu)
                else:
                    self._arm_push_timer()
            elif self._hand_up_costs:
                self._hand_up(arrived, cpu)
            else:  # every segment readable at once, at no cost (BSD, Linux): the hot path
                self.hand_ups += 1
                self.rcv_readable += arrived
        elif seq > rcv_nxt and seq + length - rcv_nxt <= self._rcv_room:
            if self._linux_wnd and not self._linux_ofo_admit(seq, length, seg.more):
                if self.on_readable is not None and self.rcv_readable:
                    self.on_readable()  # sk_data_ready
                return
            self.ooo.setdefault(seq, length)
            if self.sack_ok:
                if self._comp_acks and len(self._sack_blocks) >= RECEIVER_BLOCKS \
                        and opens_block(self._sack_blocks, seq, seq + length, rcv_nxt):
                    self._send_compressed(cpu)  # tcp_sack_new_ofo_skb: before a block is forgotten
                record_arrival(self._sack_blocks, seq, seq + length, rcv_nxt)
            self.out_of_order_segments += 1
            self.delack.on_segment(length, False)
            # RFC 5681 §4.2: out-of-order data is ACKed at once (a duplicate ACK); an aggregate carried whole is one
            # skb (GRO -> tcp_data_queue_ofo), ACKed once, at its last segment
            ack_now = not (seg.more and self._linux_wnd)
            if ack_now and self._comp_nr and self._sack_compressed():
                return
        else:
            ack_now = True  # duplicate or outside the window: restate our state (RFC 9293 §3.10.7.4)
        if ack_now:
            self._send_ack(cpu)
        elif self._delack_timer.deadline is None:
            self._delack_timer.arm(self.delack.deadline_s(self.kernel.now_s))
        if self.on_readable is not None and self.rcv_readable:
            self.on_readable()

    def _sack_compressed(self) -> bool:
        """Linux's SACK compression (4.18 on; ``__tcp_ack_snd_check`` with out-of-order data queued): True when this
        ACK is held back for the compression timer. Quick-ACK mode and more than a full frame unacknowledged send it
        at once first; then the first three ACKs for one ``rcv_nxt`` (``dup_ack_counter`` against
        ``TCP_FASTRETRANS_THRESH``, so a sender counting duplicate ACKs still sees them) and the one after
        ``tcp_comp_sack_nr`` compressed ones; the timer (:func:`comp_sack_delay_s`) sends the rest as one ACK."""
        if self.delack.in_quickack() or (self.rcv_nxt - self._rcv_wup > self._rcv_mss
                                         and self._linux_full_frame_ack_due()):
            return False
        if self._comp_acks >= self._comp_nr:
            return False
        if self._comp_rcv_nxt != self.rcv_nxt:
            self._comp_rcv_nxt = self.rcv_nxt
            self._comp_dups = 0
        if self._comp_dups < DUP_THRESH:
            self._comp_dups += 1
            return False
        self._comp_acks += 1
        if self._comp_timer.deadline is None:
            o = self.opts
            srtt = self.rto.srtt_s
            delay = comp_sack_delay_s(self._rcv_rtt_s, srtt if srtt is not None else 0.0, o.comp_sack_rtt_frac,
                                      o.comp_sack_delay_s, o.comp_sack_slack_s)
            self._comp_timer.arm(self.kernel.now_s + delay)
        return True

    def _comp_expired(self) -> None:
        """``tcp_compressed_ack_kick``: the compressed SACKs go as one ACK."""
        if self._comp_acks:
            self._send_compressed(self.host.irq_cpu(self.stream))

    def _send_compressed(self, cpu: int) -> None:
        """``tcp_sack_compress_send_ack``: one ACK for the compressed SACKs (itself not counted as compressed)."""
        self._comp_acks -= 1
        self._send_ack(cpu)

    def _delack_expired(self) -> None:
        self._pingpong = False  # tcp_delack_timer_handler: a delayed ACK missed, leave ping-pong mode
        if self.delack.held_segments:
            self._send_ack(self.host.irq_cpu(self.stream))

    # --- hand-off to the socket -------------------------------------------------------------------
    def _hand_up(self, size_bytes: int, cpu: int) -> None:
        """In-order data goes up to the socket; the reader sees it once the host has done the hand-off."""
        self.hand_ups += 1
        done = self.host.hand_up(cpu)
        if done > self.kernel.now_s:
            self.kernel.call_at(done, self._readable, size_bytes)
        else:
            self.rcv_readable += size_bytes

    def _readable(self, size_bytes: int) -> None:
        self.rcv_readable += size_bytes
        if self.on_readable is not None:
            self.on_readable()

    def _push_up(self, cpu: int) -> None:
        """Solaris: the whole receive list goes up in one ``putnext``."""
        queued = self.rcv_unpushed
        self.rcv_unpushed = 0
        self._push_timer.cancel()
        if queued:
            self._hand_up(queued, cpu)

    def _arm_push_timer(self) -> None:
        """Data left in the receive list goes up when the timer fires; each new segment restarts it
        (Solaris ``TCP_TIMER_RESTART`` with ``tcp_deferred_ack_interval``)."""
        self._push_timer.arm(self.kernel.now_s + self._push_timeout_s)

    def _push_expired(self) -> None:
        cpu = self.host.irq_cpu(self.stream)
        self._push_up(cpu)
        if self.on_readable is not None and self.rcv_readable:
            self.on_readable()
