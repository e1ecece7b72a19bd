"""The sending half of a TCP endpoint: the send buffer, segmentation, Nagle and the output loop.

Ref: RFC 1122 §4.2.3.4 (Nagle, sender SWS avoidance), RFC 5681 (congestion window), RFC 9293 §3.8.6.1
(zero-window probing); Linux send-buffer autotuning and autocorking (``tcp_should_autocork``: a write
that leaves a short tail while earlier segments of the socket are still in the host's transmit path is
not pushed; the tail grows with later writes and goes out when they have left, or with the next ACK);
Solaris whole-message segmentation.
"""

from __future__ import annotations

from ..errors import AuditError
from ..protocol.linux_sndbuf import expanded_sndbuf_bytes
from ..protocol.nagle import may_send_bytes, solaris_nagle_holds, whole_message_length
from ..protocol.pacing import PACING_MIN_SEGMENTS, advance, pacing_rate_Bps, skb_start
from ..protocol.push import sender_sets_push
from ..protocol.tso_defer import deferral_is_cwnd_limited, tso_should_defer
from .receiver import TcpReceiver
from .tcb import AUDIT

__all__ = ["TcpSender"]


class TcpSender(TcpReceiver):
    """Send buffer and output: what the windows, Nagle and SWS avoidance let out."""

    # --- buffer autotuning (Linux) ----------------------------------------------------------------
    def _expand_sndbuf(self) -> None:
        """Linux ``tcp_new_space``: a blocked writer's buffer grows to 2 x max(cwnd, reordering + 1)
        segments, while the connection could send more than it has in flight (``tcp_should_expand_sndbuf``);
        from 3.14 to 2 x max(10, cwnd) segments of ``per_mss`` bytes (:mod:`tcpsim.protocol.linux_sndbuf`)."""
        cwnd = self.cc.cwnd
        if self.snd_max - self.snd_una >= cwnd:
            return
        if self._sndbuf_per_mss:
            want = expanded_sndbuf_bytes(cwnd // self.mss, self._sndbuf_per_mss)
        else:
            want = 2 * max(cwnd, 4 * self.mss)
        if want > self.sndbuf:
            self.sndbuf = want if want < self.sndbuf_max else self.sndbuf_max

    # --- application interface --------------------------------------------------------------------
    def send_space(self) -> int:
        """Free bytes in the send buffer (sent-but-unacknowledged data still occupies it). A Linux writer of whole
        skbs also finds each skb's truesize overhead there (``sk_wmem_queued``, ``tcp_stream_alloc_skb``), the skbs
        counted in size goals as it builds them: the unacknowledged data's, then the unsent data's."""
        queued = self.written - self.snd_una
        over = self.tx_skb_overhead
        if over and queued > 0:
            goal = self.skb_size_goal()
            unsent = self.written - self.snd_nxt
            queued += (-(-(queued - unsent) // goal) - (-unsent // goal)) * over
        return self.sndbuf - queued

    def app_write(self, size_bytes: int, cpu: int) -> None:
        """The application's bytes entered the send buffer (one message or one piece of a blocked write)."""
        if self._gso and self.written == self.snd_nxt:
            self._agg_first_write = True  # tcp_sendmsg -> tcp_push_one: the first skb leaves when full
        self.written += size_bytes
        if self.whole_messages:
            self.messages.append(size_bytes)
        if self._autocork and self._tx_unfreed and 0 < self.written - self.snd_nxt < self.mss \
                and self.snd_max > self.snd_una and self.snd_nxt == self.snd_max:
            self._set_block("nagle")  # corked: the tail waits for the segments still in the host
            return
        self.output(cpu)

    def _tx_done(self, length: int) -> None:
        """One of this connection's data segments left the host (Linux frees its skb, ``tcp_wfree``): once none
        is left, corked data goes out, and data TCP small queues held goes out once under the limit
        (``tcp_tsq_handler`` -> ``tcp_write_xmit``)."""
        self._tx_unfreed -= 1
        self._tsq_bytes -= length
        if self._tsq_held:
            if self._tsq_bytes <= self._tsq_limit():
                self._tsq_held = False
                self.output(self.host.irq_cpu(self.stream))
            return
        if self._autocork and not self._tx_unfreed and self.written > self.snd_nxt:
            self.output(self.host.irq_cpu(self.stream))

    def _pacing_rate(self) -> float:
        """``sk_pacing_rate`` in bytes/s (:func:`tcpsim.protocol.pacing.pacing_rate_Bps`); 0 before the first RTT
        sample on a socket without a cap (unlimited)."""
        srtt = self.rto.srtt_s
        cwnd = self.cc.cwnd
        return pacing_rate_Bps(cwnd, self.snd_nxt - self.snd_una, srtt if srtt is not None else 0.0,
                               cwnd < self.cc.ssthresh // 2, self._pace_cap_Bps)

    def _pacing_holds(self, length: int, cpu: int, cwnd: int, peer_wnd: int) -> bool:
        """``tcp_pacing_check`` before a new skb (a segment that extends this pass's aggregate is part of one): the
        flow's departure time has not come, so the pacing timer is armed for it and the pass ends; the timer's
        ``tcp_pace_kick`` runs the output again on the CPU that armed it (``HRTIMER_MODE_ABS_PINNED_SOFT``). With
        ``fq`` the skb would wait in the qdisc instead; it leaves at the same time."""
        if self._extends_aggregate(length):
            return False
        at = self._pace_at_s
        if at <= self.kernel.now_s:
            return False
        self._pace_cpu = cpu
        self._pace_timer.arm(at)
        cap = self._pace_cap_Bps
        if cap > 0.0 and self._pacing_rate() >= cap:
            self._set_block("pacing")
        else:
            self._set_block("cwnd" if cwnd < peer_wnd else "window")
        return True

    def _pace_expired(self) -> None:
        self.output(self._pace_cpu)

    def _paced(self, length: int, cont: bool) -> None:
        """A new segment left (``__tcp_transmit_skb``): the first of an skb brings the departure time up to now
        (:func:`~tcpsim.protocol.pacing.skb_start`); from the tenth data segment on each moves it on by its
        payload at the pacing rate (:func:`~tcpsim.protocol.pacing.advance`)."""
        if not cont:
            self._pace_at_s, self._pace_credit_s = skb_start(self._pace_at_s, self.kernel.now_s, self._pacing == 2)
        if self.data_segments >= PACING_MIN_SEGMENTS:
            self._pace_at_s, self._pace_credit_s = advance(self._pace_at_s, self._pace_credit_s, length,
                                                           self._pacing_rate())

    def _tsq_limit(self) -> int:
        """The TCP small queues limit (``tcp_small_queue_check``, a flow not paced: ``SK_PACING_NONE``): before
        3.12 ``tcp_limit_output_bytes``; from 3.12 max(2 skbs, pacing rate >> ``sk_pacing_shift`` (10)) at most
        that. An skb is the aggregate being built (its payload; ``skb->truesize`` adds its headers)."""
        cap = self._tsq_cap
        if self.opts.tsq_rule == 0:
            return cap
        skb = self._agg_goal if self._gso and self._agg_goal > self.mss else self.mss
        lim = 2 * skb
        paced = int(self._pacing_rate()) >> 10
        if paced > lim:
            lim = paced
        if self._pacing:  # a paced flow is not capped by tcp_limit_output_bytes (SK_PACING_NONE only)
            return lim
        return lim if lim < cap else cap

    def _tsq_holds(self) -> bool:
        """``tcp_small_queue_check`` before a new skb (``tcp_write_xmit`` asks it once an skb, so an aggregate being
        built goes out whole): too many bytes in the host's transmit path hold the sender, unless nothing it sent
        is unacknowledged (from 6.7: one aggregate or less)."""
        if self._tsq_bytes <= self._tsq_limit():
            return False
        in_flight = self.snd_nxt - self.snd_una
        if in_flight <= 0 or (self.opts.tsq_rule == 2 and in_flight <= (self._agg_goal if self._gso else self.mss)):
            return False
        self._tsq_held = True
        self._set_block("tsq")
        return True

    # --- output -----------------------------------------------------------------------------------
    def output(self, cpu: int) -> None:
        """Send what the windows, Nagle and SWS avoidance allow (RFC 1122 §4.2.3.4, RFC 5681); in SACK
        recovery, what RFC 6675's NextSeg picks while cwnd - pipe allows a segment."""
        self._agg_prev = None  # one tcp_write_xmit pass: segments sent back to back may form one aggregate
        self._pass_cwnd_limited = False
        sent_before = self.snd_max
        if self._sack_rec:
            self._sack_output(cpu)
        else:
            self._output(cpu)
        if self.cc.measured:
            self._cwnd_validate(sent_before)

    def _cwnd_validate(self, sent_before: int) -> None:
        """The end of ``tcp_write_xmit`` (Linux 4.3+): the pass was cwnd-limited if a deferral waited on cwnd
        (:meth:`_tso_defers`) or the flight fills cwnd; one that sent new data or was cwnd-limited updates what
        ``tcp_is_cwnd_limited`` reads (:meth:`tcpsim.protocol.congestion.NewReno.cwnd_validate`). The kernel
        counts whole packets (``tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp)``), so a byte cwnd with no room
        for one more full segment is filled (validation/README.md, "The cwnd-limited test counts whole
        segments")."""
        cc = self.cc
        flight = self._pipe if self._sack_rec else self.snd_nxt - self.snd_una
        limited = self._pass_cwnd_limited or cc.cwnd - flight < self.mss
        if limited or self.snd_max > sent_before:
            cc.cwnd_validate(limited, self.snd_max - self.snd_una, self.snd_una, self.snd_nxt)

    def _output(self, cpu: int) -> None:
        mss = self.mss
        nagle_tested = False
        while True:
            if self.snd_nxt < self.snd_max:
                if not self._retransmit_next(cpu):
                    return
                continue
            unsent = self.written - self.snd_nxt
            if unsent <= 0:
                self._set_block("sndbuf" if self.writer_blocked else "app")
                return
            in_flight = self.snd_nxt - self.snd_una
            cc = self.cc
            cwnd = cc.cwnd + cc.extra
            peer_wnd = self.peer_wnd
            if self._sack_rec:  # RFC 6675 §5 (C), NextSeg rule 2: new data within cwnd - pipe and the window
                usable = min(cwnd - self._pipe, peer_wnd - in_flight)
            else:
                usable = (cwnd if cwnd < peer_wnd else peer_wnd) - in_flight
            if self.whole_messages:
                # Solaris tcp_wput_data (each write, each ACK) tests Nagle once, then sends all it may,
                # the short tail of the queue included (tcp_send): the blueprint's 1400 + 100 pair.
                sendable = unsent if unsent < usable else usable
                if not nagle_tested:
                    nagle_tested = True
                    if not self.nodelay and solaris_nagle_holds(sendable, in_flight, self.naglim, self.last_sent):
                        if unsent < self.naglim:
                            self._set_block("sndbuf" if self.writer_blocked else "nagle")
                        else:
                            self._block_for_window(cwnd, peer_wnd, in_flight)
                        return
                limit = mss if mss < usable else usable
                length = whole_message_length(self.messages, limit, mss) if limit > 0 else 0
                if length <= 0:
                    if limit > 0 and 2 * limit >= self.max_sndwnd and self.messages:
                        length = limit  # sender SWS: half the largest window may be sent (RFC 1122)
                    else:
                        self._block_for_window(cwnd, peer_wnd, in_flight)
                        return
                elif usable < mss and length < unsent and 2 * length < self.max_sndwnd:
                    # tcp_send's sender SWS avoidance: a piece the window cuts short waits, unless it ends
                    # the queued data or is half the largest window (RFC 1122 §4.2.3.4).
                    self._block_for_window(cwnd, peer_wnd, in_flight)
                    return
            else:
                length = unsent if unsent < mss else mss
                if usable < length:
                    length = usable
                small_unacked = (self.snd_sml > self.snd_una) if self.minshall and length < mss else None
                if not may_send_bytes(length, unsent, mss, in_flight, self.nodelay, self.max_sndwnd,
                                      self.half_window_beats_nagle, small_unacked):
                    if length > 0 and length == unsent and usable >= unsent:
                        self._set_block("sndbuf" if self.writer_blocked else "nagle")
                    else:
                        self._block_for_window(cwnd, peer_wnd, in_flight)
                    return
                if self._defer_rule and unsent > mss and usable >= mss \
                        and self._tso_defers(length, unsent, usable, cwnd, peer_wnd):
                    self._block_for_window(cwnd, peer_wnd, in_flight)
                    return
            if self._tsq_cap and not self._extends_aggregate(length) and self._tsq_holds():
                return  # tcp_small_queue_check is asked before an skb, never inside one
            if self._pacing and self._pacing_holds(length, cpu, cwnd, peer_wnd):
                return
            self._send_new(length, cpu, usable)

    def _tso_defers(self, length: int, unsent: int, usable: int, cwnd: int, peer_wnd: int) -> bool:
        """``tcp_write_xmit`` asks ``tcp_tso_should_defer`` before it starts an skb of more than one segment,
        except for ``tcp_push_one`` (a write's first full skb on an empty queue) and in recovery. The write
        queue's skbs are not tracked: its head is one size goal of the unsent data, the tail if no more is queued."""
        if self._extends_aggregate(length):
            return False
        if self._agg_first_write or self.cc.in_recovery or self._sack_rec:
            return False
        sent = self.sent
        if not sent:
            return False
        max_bytes = self._tso_goal(False)
        skb = self._tso_goal() if self.opts.tso_rule < 3 else max_bytes
        head = skb if skb < unsent else unsent
        srtt = self.rto.srtt_s
        if not tso_should_defer(self._defer_rule, self.kernel.now_s, sent[-1][2], sent[0][2],
                                srtt if srtt is not None else 0.0, usable, max_bytes, head,
                                unsent <= skb, peer_wnd, cwnd, self.mss, self.opts.tso_win_divisor):
            return False
        in_flight = self.snd_nxt - self.snd_una
        if deferral_is_cwnd_limited(cwnd - in_flight, peer_wnd - in_flight, head):
            self._pass_cwnd_limited = True
        return True

    def _block_for_window(self, cwnd: int, peer_wnd: int, in_flight: int) -> None:
        self._set_block("cwnd" if cwnd < peer_wnd else "window")
        if in_flight == 0 and self.written > self.snd_nxt:
            self._arm_rto()  # zero-window persist: probe when the timer fires (RFC 9293 §3.8.6.1)

    def _send_new(self, length: int, cpu: int, usable: int = 0) -> None:
        seq = self.snd_nxt
        if self.whole_messages:
            msgs = self.messages
            left = length
            while left > 0:
                head = msgs[0]
                if head <= left:
                    left -= head
                    msgs.popleft()
                else:
                    msgs[0] = head - left
                    left = 0
        if AUDIT["on"]:
            self._audit(seq, length)
        self.last_sent = length
        end = seq + length
        if length < self.mss:
            self.snd_sml = end
        push = end >= self.written or (self._push_rules and sender_sets_push(
            end, self.written, length, usable, self.push_at_window_edge,
            self.max_sndwnd >> 1 if self.forced_push else 0, self._pushed_seq))
        if push:
            self._pushed_seq = end
        now = self.kernel.now_s
        self.sent.append([seq, length, now, False, False])
        if self._sack_rec:
            self._pipe += length
        self.snd_nxt = self.snd_max = end
        if self._rto_timer.deadline is None:
            self._arm_rto()
        if not self._gso:
            self._emit(seq, length, cpu, False, push)
            if self._pacing:
                self._paced(length, False)
            return
        prev = self._agg_prev
        cont = self._extends_aggregate(length)
        if prev is not None and cont:
            prev.more = True
            self._agg_sent += length
        else:
            self._agg_goal = self._tso_goal()
            if self.opts.tso_half_cwnd:  # tcp_cwnd_test: at least two aggregates in flight
                half = (self.cc.cwnd // self.mss) >> 1
                half = (half if half > 1 else 1) * self.mss
                if half < self._agg_goal:
                    self._agg_goal = half
            if self._agg_first_write:
                self._agg_first_write = False
                half = self.skb_size_goal()
                if half < self._agg_goal:
                    self._agg_goal = half
            self._agg_sent = length
        self._agg_prev = self._emit(seq, length, cpu, False, push, cont)
        if self._pacing:
            self._paced(length, cont)

    def _extends_aggregate(self, length: int) -> bool:
        """``length`` more bytes go on the aggregate this ``tcp_write_xmit`` pass is building (it has room)."""
        return self._agg_prev is not None and self._agg_sent + length <= self._agg_goal

    def skb_size_goal(self) -> int:
        """``tcp_xmit_size_goal``: the skbs a write builds hold at most half the peer's largest window
        (``tcp_bound_to_half_wnd`` of 64 KiB less headers), at least one MSS."""
        mss = self.mss
        limit = 65536 - 320
        if self.max_sndwnd > 536 and limit > self.max_sndwnd >> 1:
            limit = self.max_sndwnd >> 1
        segs = limit // mss
        return (segs if segs > 1 else 1) * mss

    def _tso_goal(self, half_wnd: bool = True) -> int:
        """Bytes one TSO/GSO aggregate may carry (``tcp_xmit_size_goal``, ``tcp_tso_autosize``, by
        :attr:`tcpsim.config.TcpOptions.tso_rule`; the caller also applies ``tcp_cwnd_test``'s half cwnd,
        :attr:`~tcpsim.config.TcpOptions.tso_half_cwnd`): from 3.12 the pacing rate (``tcp_update_pacing_rate``:
        max(cwnd, in flight) x MSS / srtt, x2 while cwnd < ssthresh / 2, else x1.2) >> 10, plus from 5.18
        64 KiB >> (min RTT in us >> 9), at least two segments; at most 64 KiB; before 6.11 at most half the
        peer's largest window (``tcp_bound_to_half_wnd``; 6.11's ``tcp_grow_skb`` grows past it) unless ``half_wnd``
        is false (``tcp_tso_segs``, the ``max_segs`` of ``tcp_tso_should_defer``)."""
        mss = self.mss
        rule = self.opts.tso_rule
        limit = 65536 - 320  # sk_gso_max_size less MAX_TCP_HEADER
        segs = limit // mss
        rate = self._pacing_rate() if rule >= 1 else 0.0
        if rate > 0.0:
            pace_goal = rate / 1024.0  # a float; the size goal below is an int (mypyc keeps one type per name)
            if rule >= 2 and self._min_rtt_s > 0.0:
                r = int(self._min_rtt_s * 1e6) >> 9
                if r < 32:
                    pace_goal += 65536 >> r
            auto = int(pace_goal) // mss
            segs = min(segs, auto if auto > 2 else 2)
        goal = (segs if segs > 1 else 1) * mss
        if rule < 3 and half_wnd:
            half = self.skb_size_goal()
            if half < goal:
                goal = half
        return goal

    def _audit(self, seq: int, length: int) -> None:
        in_flight = seq + length - self.snd_una
        probe = length == 1 and seq == self.snd_una
        if not probe and in_flight > max(self.peer_wnd, 0):
            raise AuditError(f"{self.name}: {in_flight} bytes in flight > peer window {self.peer_wnd}")
        if self._sack_rec:
            if self._pipe + length > self.cc.cwnd:
                raise AuditError(f"{self.name}: pipe {self._pipe} + {length} bytes > cwnd {self.cc.cwnd}")
        elif not probe and not self._probing and in_flight > self.cc.cwnd + self.cc.extra:
            raise AuditError(f"{self.name}: {in_flight} bytes in flight > cwnd {self.cc.cwnd} "
                             f"(+ {self.cc.extra} of limited transmit)")
        if seq + length > self.written:
            raise AuditError(f"{self.name}: sending byte {seq + length} never written ({self.written})")
        if length > self.mss:
            raise AuditError(f"{self.name}: segment of {length} bytes > MSS {self.mss}")
        if AUDIT["sndbuf"]:
            self._audit_sndbuf()

    def _audit_sndbuf(self) -> None:
        """The send buffer never holds more than its size. A Linux writer of whole skbs begins an skb only while
        the buffer has room but fills the unsent tail skb to the size goal without asking (``tcp_sendmsg_locked``
        calls ``sk_stream_memory_free`` only at ``new_segment``), also after ``tso_fragment`` sent part of it, so
        what it bounds is the unsent data: less than the buffer and one skb."""
        if self.opts.writer_copies_whole_skbs:
            held = self.written - self.snd_nxt
            limit = self.sndbuf + self.skb_size_goal() - 1
            what = "unsent"
        else:
            held = self.written - self.snd_una
            limit = self.sndbuf
            what = "queued"
        if held > limit:
            raise AuditError(f"{self.name}: send buffer holds {held} bytes {what} > {limit} (sndbuf {self.sndbuf})")

    def _audit_timer(self) -> None:
        if self.snd_max > self.snd_una and self._rto_timer.deadline is None:
            raise AuditError(f"{self.name}: {self.snd_max - self.snd_una} bytes outstanding and no retransmission "
                             "timer running (RFC 6298 §5.1)")
