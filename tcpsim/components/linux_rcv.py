"""Linux's own receive rules, by kernel version, for an endpoint that runs them (``TcpOptions.rcv_window_rule``
``"linux"``): the window from the buffer and its truesize, ``rcv_ssthresh`` growth, the ACK tests that depend
on the window, and the receive queue's memory (its skbs' truesize, pruning, collapsing, dropping).

The byte rules themselves are pure functions in :mod:`tcpsim.protocol.linux_window`; this class holds the
socket state they act on (``tcp_sock``'s receive fields) and is the base of
:class:`tcpsim.components.receiver.TcpReceiver`. Ref: Linux ``net/ipv4/tcp_input.c`` and ``tcp_output.c``.
"""

from __future__ import annotations

from ..protocol.linux_window import (IP_TCP_HEADER_BYTES, collapsed_skbs, grow_ssthresh, initial_window, quickack_ends,
                                     rx_truesize, scaling_ratio, select_window, win_from_space, window_clamp)
from ..protocol.window import window_shift
from .tcb import EndpointState

__all__ = ["LinuxReceive"]


class LinuxReceive(EndpointState):
    """The receive side's Linux rules (see the module docstring)."""

    def _linux_rcv_setup(self, mss: int) -> None:
        """The window at connection set-up, once the MSS is agreed: ``tcp_connect_init`` (a buffer set with
        SO_RCVBUF clamps the window to its full space), ``tcp_select_initial_window`` (scale, SYN window),
        ``tcp_init_buffer_space`` (clamp less one MSS) and ``tcp_initialize_rcv_mss`` (the first guess of
        the peer's segment size). From 6.6 the ratio starts at the version's default and is measured on the
        first data segment (:meth:`_linux_measure_rcv_mss`)."""
        if self._linux_ready:
            return
        self._linux_ready = True
        o = self.opts
        advmss = mss + self.option_bytes
        self._advmss = advmss
        adv = self._adv_win_scale
        ratio = o.scaling_ratio_default
        full = win_from_space(self._rcvbuf, adv, ratio)
        autotuned = o.rcvbuf_autotune_max_bytes > 0
        shift = window_shift(o.wscale_space_bytes if autotuned else full, o.window_scaling)
        clamp = (65535 << shift) if autotuned else full
        rcv_wnd = initial_window(full, mss, clamp, shift, o.init_rcv_wnd_segments)
        if clamp >= full:
            clamp = window_clamp(full, advmss)
        self._ratio = ratio
        self.rcv_shift = shift
        self._wnd_field_max = 65535 << shift
        self.rcv_window_max = clamp
        self._rcv_room = 1 << 62  # in-window data always fits the buffer the window was taken from
        self._rcv_ssthresh = min(rcv_wnd, clamp)
        self._rcv_wnd = rcv_wnd
        self.right_edge = self.last_adv = self.rcv_nxt + rcv_wnd
        self.rcv_window_limit = win_from_space(o.rcvbuf_autotune_max_bytes, adv, ratio) if autotuned else clamp
        self._drs = self.rcv_window_limit > clamp
        self._drs_space = min(self._rcv_ssthresh, 10 * advmss)
        self._sws_step = min(clamp // 2, mss)
        # tcp_initialize_rcv_mss: at most 536 bytes (TCP_MSS_DEFAULT) and half the window, at least 88
        # (TCP_MIN_MSS); tcp_incr_quickack on the first data: rcv_wnd / (2 x that guess), 2..16 segments.
        guess = max(min(advmss, rcv_wnd // 2, 536), 88)
        self._rcv_mss = guess
        quick = rcv_wnd // (2 * guess)
        self.delack.set_quickack(min(quick if quick > 0 else 2, 16))

    def _linux_measure_rcv_mss(self, length: int, skb_bytes: int, truesize: int) -> None:
        """``tcp_measure_rcv_mss`` for an in-order skb whose segments (``gso_size``, or its length) are at least
        ``rcv_mss``: when that length differs from ``rcv_mss`` (from 6.6) it measures ``scaling_ratio`` as
        ``skb->len / skb->truesize`` of the whole skb (``skb_bytes``: a GSO aggregate taken whole counts as one;
        the receive path's truesize, :func:`~tcpsim.protocol.linux_window.rx_truesize`) and, from 6.11, a
        changed ratio resets the clamp to the window of the buffer (``tcp_set_window_clamp``: ``rcv_ssthresh``
        follows a lower clamp down); then ``rcv_mss`` is the length, at most ``advmss``."""
        o = self.opts
        self._rcv_mss = length if length < self._advmss else self._advmss
        if self._ratio:
            ratio = scaling_ratio(skb_bytes, truesize)
            if ratio != self._ratio:
                self._ratio = ratio
                if o.clamp_follows_ratio:
                    clamp = win_from_space(self._rcvbuf, 0, ratio)
                    if clamp < self._rcv_ssthresh:
                        self._rcv_ssthresh = clamp
                    elif clamp > self.rcv_window_max and self._rcv_ssthresh < min(self._rcv_wnd, clamp):
                        self._rcv_ssthresh = min(self._rcv_wnd, clamp)
                    self.rcv_window_max = clamp
                    self._sws_step = min(clamp // 2, self.mss)
                    if not self._drs:
                        self.rcv_window_limit = clamp
                if self._drs:
                    self.rcv_window_limit = win_from_space(o.rcvbuf_autotune_max_bytes, self._adv_win_scale, ratio)

    def _linux_mark_push(self, gso_size: int, push: bool) -> None:
        """``tcp_measure_rcv_mss``'s marks for ``tcp_cleanup_rbuf``: an skb of at least ``rcv_mss`` with PSH is
        pushed (``ICSK_ACK_PUSHED``); a smaller one is too (``PUSHED2`` if already), unless its size repeats the
        last small segment's, which then becomes ``rcv_mss`` (a peer whose full frame is smaller)."""
        lss = self._last_seg_size
        self._last_seg_size = 0
        if gso_size >= self._rcv_mss:
            if push:
                self._pushed |= 1
            return
        with_header = gso_size + 20 + self.option_bytes  # skb->data - skb_transport_header: the TCP header
        if with_header >= 536 + 20 or (with_header >= 88 + 20 and not push):  # TCP_MSS_DEFAULT, TCP_MIN_MSS
            self._last_seg_size = gso_size
            if gso_size == lss:
                self._rcv_mss = gso_size
                return
        self._pushed |= 3 if self._pushed else 1

    def _linux_free_space(self) -> int:
        """``tcp_space``: the window the free buffer holds; each queued skb counts with its own truesize
        (``sk_rmem_alloc``)."""
        return win_from_space(self._rcvbuf - self._rmem, self._adv_win_scale, self._ratio)

    def _truesize(self, skb_bytes: int) -> int:
        """The truesize the receive path gives an skb of ``skb_bytes`` (:func:`~tcpsim.protocol.linux_window.rx_truesize`)."""
        o = self.opts
        return rx_truesize(skb_bytes, skb_bytes + self.option_bytes + IP_TCP_HEADER_BYTES,
                           o.rx_skb_overhead_bytes, o.rx_skb_page_bytes)

    def _queue_skb(self, skb_bytes: int, charged: bool = False) -> int:
        """An in-order skb of ``skb_bytes`` (a segment, or a GSO aggregate taken whole) joins the receive queue,
        charged the truesize the receive path gave it (``tcp_queue_rcv`` -> ``skb_set_owner_r``; ``charged``: an skb
        of the out-of-order queue, charged when it was queued there, :meth:`_linux_ofo_admit`; not modelled:
        ``tcp_try_coalesce`` merging it into the queue's last skb); returns that truesize."""
        truesize = self._truesize(skb_bytes)
        self._rq_bytes.append(skb_bytes)
        self._rq_truesize.append(truesize)
        if not charged:
            self._rmem += truesize
        return truesize

    def _linux_ofo_admit(self, seq: int, length: int, more: bool) -> bool:
        """``tcp_data_queue_ofo`` for an out-of-order segment inside the window: ``tcp_try_rmem_schedule`` with the memory
        above the buffer prunes the queues (:meth:`_prune`, which may drop out-of-order data above this segment), and if
        it still does not fit the skb is dropped (``TCPOFODrop``; no ACK is scheduled for it). A segment held for the
        first time is charged as its own skb (``skb_set_owner_r``), as it is once in order; on a SACK flow from 4.19 it
        first grows ``rcv_ssthresh`` (``tcp_grow_window(sk, skb, false)``, before the charge). The segments of a GSO
        aggregate share its first's judgement. False: dropped."""
        if seq == self._ofo_next:
            fits = self._ofo_fits
        else:
            fits = self._rmem <= self._rcvbuf or self._prune(seq)
            self._ofo_fits = fits
            if not fits:
                self.memory_drops += 1
        self._ofo_next = seq + length if more else -1
        if fits and seq not in self.ooo:
            if self.sack_ok and self.opts.ofo_grows_window:
                self._grow_window(length)
            self._rmem += self._truesize(length)
        return fits

    def _release_covered_ofo(self) -> None:
        """``tcp_ofo_queue``: out-of-order segments wholly below ``rcv_nxt`` (data that came again in larger
        segments) are dropped and their memory freed."""
        rcv_nxt = self.rcv_nxt
        for seq in [s for s, n in self.ooo.items() if s + n <= rcv_nxt]:
            length = self.ooo.pop(seq)
            if self._linux_wnd:
                self._rmem -= self._truesize(length)

    def _linux_admit(self) -> bool:
        """``tcp_data_queue`` before an in-order skb joins the queue: with the window 0 it is dropped and ACKed at once
        (``out_of_window``: ``tcp_enter_quickack_mode``); with the queue above the buffer the queue is pruned first
        (:meth:`_prune`), and if it still does not fit the skb is dropped unless the queue is empty (``TCPRcvQDrop``;
        6.10 on, the ACK sent at once offers a window of 0: ``ICSK_ACK_NOMEM``). False: dropped."""
        if self.right_edge <= self.rcv_nxt:
            self.memory_drops += 1
            self.delack.set_quickack(16)  # TCP_MAX_QUICKACKS
            return False
        if self._prune(self.rcv_nxt) or not self._rq_bytes:
            return True
        self.memory_drops += 1
        self._nomem = self.opts.nomem_zero_window
        return False

    def _linux_beyond_window(self, seq: int, length: int, more: bool) -> bool:
        """``tcp_sequence`` (``tcp_validate_incoming``) and ``tcp_data_queue``'s "Out of window" test for a data
        segment from ``rcv_nxt`` on, against the right edge of the window offered (``rcv_nxt +
        tcp_receive_window``: after a zero window for memory, ``ICSK_ACK_NOMEM``, that is ``rcv_nxt``). An skb
        starting beyond the edge is dropped and ACKed at once (``tcp_send_dupack``); out-of-order data starting at
        the edge is dropped by ``tcp_data_queue``, which also enters quick-ACK mode (``out_of_window``). From 6.17
        an skb ending beyond the edge is dropped while the receive queue holds unread data (:attr:`end_seq_in_window`).
        A GSO aggregate carried whole is one skb: the segments after its first share the first's judgement, and the
        end test, which needs the aggregate's length, is not applied to it. True: dropped (:attr:`window_drops`);
        in-order data at a zero window is :meth:`_linux_admit`'s."""
        if seq == self._oow_next:  # the next segment of an out-of-order aggregate: its skb was judged at its first
            self._oow_next = seq + length if more else -1
            return self._oow_drop
        rcv_nxt = self.rcv_nxt
        edge = self.right_edge if self.right_edge > rcv_nxt else rcv_nxt
        drop = quick = False
        if seq > edge:
            drop = True  # TCP_INVALID_SEQUENCE
        elif self.opts.end_seq_in_window and seq + length > edge and not more and self._rq_bytes:
            drop = True  # TCP_INVALID_END_SEQUENCE
        elif seq == edge and seq > rcv_nxt:
            drop = quick = True  # TCP_OVERWINDOW
        self._oow_next = seq + length if more and seq > rcv_nxt else -1
        self._oow_drop = drop
        if drop:
            self.window_drops += 1
            if quick:
                self.delack.set_quickack(16)  # TCP_MAX_QUICKACKS
        return drop

    def _prune(self, in_seq: int) -> bool:
        """``tcp_prune_queue`` with ``sk_rmem_alloc`` above ``sk_rcvbuf``, for the skb starting at ``in_seq``:
        ``tcp_clamp_window`` ends quick-ACK mode and lets an autotuned buffer (no SO_RCVBUF) grow to what is queued, up
        to ``tcp_rmem[2]``; a queue still above it cuts ``rcv_ssthresh`` to two segments and is collapsed
        (:meth:`_collapse`; not modelled: ``tcp_collapse_ofo_queue``), and if that is not enough the out-of-order queue
        is pruned (:meth:`_prune_ofo`). True if it then fits (``tcp_can_ingest``: ``sk_rmem_alloc <= sk_rcvbuf``, as
        6.18 has it)."""
        self.prunes += 1
        self.delack.end_quickack()
        rmem2 = self.opts.rcvbuf_autotune_max_bytes
        if self._rcvbuf < rmem2:
            self._rcvbuf = self._rmem if self._rmem < rmem2 else rmem2
        if self._rmem <= self._rcvbuf:
            return True
        self._rcv_ssthresh = min(self.rcv_window_max, 2 * self._advmss)
        self._collapse()
        if self._rmem <= self._rcvbuf:
            return True
        self._prune_ofo(in_seq)
        return self._rmem <= self._rcvbuf

    def _prune_ofo(self, in_seq: int) -> bool:
        """``tcp_prune_ofo_queue``: out-of-order skbs are dropped from the highest sequence down and their memory freed,
        the whole queue before 4.18, then batches of ``sk_rcvbuf / 8`` of truesize until the memory fits, from 6.2
        stopping at the first skb before ``in_seq`` (:attr:`~tcpsim.config.TcpOptions.ofo_prune_rule`). If any went,
        the SACK blocks are reset (``tcp_sack_reset``): the sender finds the data it holds as SACKed reneged. True if
        any went."""
        ooo = self.ooo
        rule = self.opts.ofo_prune_rule
        pruned = False
        goal = self._rcvbuf >> 3
        for seq in sorted(ooo, reverse=True):
            if rule == 2 and in_seq > seq:
                break
            truesize = self._truesize(ooo.pop(seq))
            self._rmem -= truesize
            goal -= truesize
            self.ofo_pruned += 1
            pruned = True
            if rule and goal <= 0:
                if self._rmem <= self._rcvbuf:
                    break
                goal = self._rcvbuf >> 3
        if pruned and self.sack_ok:
            self._sack_blocks = []
        return pruned

    def _collapse(self) -> None:
        """``tcp_collapse`` of the receive queue: from the first skb read in part or bloated (its truesize holds a
        larger window than its payload, ``tcp_win_from_space``) to the tail, the unread bytes are copied into
        new skbs of a page each (:func:`~tcpsim.protocol.linux_window.collapsed_skbs`); the old ones are freed."""
        sizes, trues = self._rq_bytes, self._rq_truesize
        adv, ratio = self._adv_win_scale, self._ratio
        first = 0 if self._rq_read else next(
            (i for i, (size, truesize) in enumerate(zip(sizes, trues)) if win_from_space(truesize, adv, ratio) > size),
            -1)
        if first < 0:
            return
        unread = -self._rq_read
        while len(sizes) > first:
            unread += sizes.pop()
            self._rmem -= trues.pop()
        if first == 0:
            self._rq_read = 0
        for size, truesize in collapsed_skbs(unread):
            sizes.append(size)
            trues.append(truesize)
            self._rmem += truesize

    def _dequeue_read(self, size_bytes: int) -> None:
        """The reader took ``size_bytes``: an skb is freed once all of it is read (``tcp_recvmsg_locked`` ->
        ``tcp_eat_recv_skb``); one read in part stays charged in full."""
        read = self._rq_read + size_bytes
        sizes = self._rq_bytes
        while sizes and read >= sizes[0]:
            read -= sizes.popleft()
            self._rmem -= self._rq_truesize.popleft()
        self._rq_read = read if sizes else 0

    def _linux_select(self, cur_window: int) -> int:
        """``__tcp_select_window`` (:func:`select_window`, ``cur_window`` what is left of the last offer, 0 for a
        test); like the kernel's, it ends quick-ACK mode when the free space is below half the window."""
        full = win_from_space(self._rcvbuf, self._adv_win_scale, self._ratio)
        free = self._linux_free_space()
        if quickack_ends(free, full, self.rcv_window_max):
            self.delack.end_quickack()
        return select_window(free, full, self.rcv_window_max, self._rcv_ssthresh, self._rcv_mss, self.rcv_shift,
                             self._rcv_wnd, cur_window)

    def _linux_advertise(self) -> int:
        """``tcp_select_window``: the window for the segment being sent, at most ``rcv_ssthresh``."""
        rcv_nxt = self.rcv_nxt
        if self._nomem:  # the ACK of a segment dropped for memory (ICSK_ACK_NOMEM): the window shrinks to 0
            self._nomem = False
            self._rcv_wnd = 0
            self._rcv_wup = self.right_edge = rcv_nxt
            return 0
        edge = self.right_edge
        wnd = self._linux_select(edge - rcv_nxt if edge > rcv_nxt else 0)
        self._rcv_wnd = wnd
        self._rcv_wup = rcv_nxt
        if wnd > self._wnd_field_max:
            wnd = self._wnd_field_max
        shift = self.rcv_shift
        wnd = (wnd >> shift) << shift
        if rcv_nxt + wnd > edge:
            self.right_edge = rcv_nxt + wnd
        return wnd

    def _linux_full_frame_ack_due(self) -> bool:
        """``__tcp_ack_snd_check``: more than one full frame unacknowledged sends an ACK at once only if
        the window it would carry is no smaller than the one last offered; otherwise the ACK waits for
        the reader (``tcp_cleanup_rbuf``) or the delayed-ACK timer. (Data the reader has not taken yet
        is the case here: the check runs before the reader is woken.)"""
        return self._linux_select(0) >= self._rcv_wnd

    def _linux_read_update_due(self) -> bool:
        """``tcp_cleanup_rbuf``: a read sends a window update when the window left is at most half the
        clamp and the window ``__tcp_select_window`` would offer now is at least twice it."""
        cur = self.right_edge - self.rcv_nxt
        if cur < 0:
            cur = 0
        if 2 * cur > self.rcv_window_max:
            return False
        new = self._linux_select(0)
        return new > 0 and new >= 2 * cur

    def _grow_window(self, length: int) -> None:
        """``tcp_grow_window`` for an skb of ``length`` bytes: in order (a segment, or a whole GSO aggregate; from
        ``tcp_event_data_recv``, that skb already in the buffer) or out of order (:meth:`_linux_ofo_admit`)."""
        grown = grow_ssthresh(self._rcv_ssthresh, self.rcv_window_max, self._linux_free_space(),
                              self._rcv_mss + self.option_bytes, length)
        if grown > self._rcv_ssthresh:
            self._rcv_ssthresh = grown
            self.delack.set_quickack(1)  # icsk_ack.quick |= 1: a growing window is ACKed at once
