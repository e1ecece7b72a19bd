"""One end of a TCP connection: socket buffers, segmentation, ACK processing, timers.

The endpoint is full duplex (request/response traffic piggybacks ACKs on data); a bulk stream simply
never writes on its receiving side. Every decision is delegated to :mod:`tcpsim.protocol`.

Ref: RFC 9293 §3.8-3.10 (sequence space, windows, segment arrival), RFC 5681 and 6582 (congestion
control), RFC 2018 and 6675 (SACK and SACK-based loss recovery), RFC 6298 (retransmission timer),
RFC 1122 §4.2.3 (Nagle, SWS avoidance, delayed ACK).
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from ..config import TcpOptions
from ..errors import AuditError
from ..protocol import framing
from ..protocol.congestion import NewReno
from ..protocol.delack import make_delack
from ..protocol.nagle import may_send_bytes, solaris_nagle_holds, whole_message_length
from ..protocol.push import receiver_pushes, sender_sets_push
from ..protocol.rto import RtoEstimator
from ..protocol.sack import Scoreboard, max_blocks, next_retransmission, record_arrival, set_pipe
from ..protocol.sack import option_bytes as sack_option_bytes
from ..protocol.window import read_update_due, scale_window, window_shift
from .host import HostRuntime
from .kernel import Kernel
from .segment import Segment

__all__ = ["TcpEndpoint", "BLOCK_REASONS", "AuditError", "audit"]

BLOCK_REASONS = ("window", "cwnd", "nagle", "sndbuf", "app", "recovery")
"""Why a sender is not sending: what :attr:`TcpEndpoint.block_time` accumulates. ``recovery`` is a
window, cwnd or send-buffer hold while a loss is being repaired (fast recovery, or the go-back-N resend
after a timeout), and the wait for a retransmission timer that fired."""
_HELD_BY_WINDOW = frozenset(("window", "cwnd", "sndbuf"))


AUDIT = {"on": False}


def audit(on: bool = True) -> None:
    """Check window invariants on every segment sent (for tests; slows runs down a little)."""
    AUDIT["on"] = on


class TcpEndpoint:
    """Sender and receiver state of one side of a connection."""

    def __init__(self, kernel: Kernel, host: HostRuntime, opts: TcpOptions, peer_opts: TcpOptions,
                 mtu_bytes: int, rate_bps: float, stream: int, trace: deque | None, name: str) -> None:
        self.kernel = kernel
        self.host = host
        self.opts = opts
        self.stream = stream
        self.name = name
        self.trace = trace
        self._trace_limit = (trace.maxlen or 0) if trace is not None else 0
        """The shared log keeps the run's first segments, up to this many."""
        self.peer: TcpEndpoint | None = None
        # Both ends must agree to use timestamps (RFC 7323 §3.2); the MSS is the smaller one offered.
        ts = opts.timestamps and peer_opts.timestamps
        self.option_bytes = framing.tcp_option_bytes(ts)
        self.mss = framing.mss_bytes(mtu_bytes, ts)
        self._rate_bps = rate_bps
        self._wire_cache: dict[int, tuple[int, float]] = {}
        # --- send side ---
        self.sndbuf = opts.sndbuf_bytes
        self.sndbuf_max = opts.sndbuf_autotune_max_bytes or 0
        self.snd_una = 0
        self.snd_nxt = 0
        self.snd_max = 0
        self.written = 0
        self.whole_messages = opts.whole_message_segments
        self.messages: deque[int] = deque()
        self.sent: deque[list] = deque()  # [seq, length, sent_s, retransmitted]
        self.nodelay = opts.nodelay
        self.half_window_beats_nagle = opts.half_window_beats_nagle
        self.last_sent = 0
        self.minshall = opts.nagle_minshall
        self.snd_sml = 0  # end of the last short segment sent (Linux snd_sml)
        self.naglim = min(self.mss, opts.naglim_bytes) if opts.naglim_bytes else self.mss
        self.push_at_window_edge = opts.push_at_window_edge
        self.forced_push = opts.forced_push
        self._push_rules = opts.push_at_window_edge or opts.forced_push  # PSH beyond the queue's end
        self._pushed_seq = 0  # end of the last segment sent with PSH
        # SACK is used only when both ends permit it (RFC 2018 §2, the SYN's SACK-permitted option).
        self.sack_ok = opts.sack and peer_opts.sack
        self.cc = NewReno(self.mss, opts.initial_cwnd_segments, validate=opts.cwnd_validation, sack=self.sack_ok,
                          limited_transmit=opts.limited_transmit)
        self._sack_rec = False  # in RFC 6675 loss recovery
        self._board = Scoreboard()
        self._pipe = 0
        self._high_rxt = 0
        self.rto = RtoEstimator(min_rto_s=opts.min_rto_s)
        self._rto_timer = kernel.timer(self._rto_expired)
        self.peer_wnd = 0
        self.max_sndwnd = 0
        self.on_writable: Callable[[], None] | None = None
        self.writer_blocked = False
        # --- receive side ---
        window_max = opts.max_window_bytes
        # The scale is chosen once, for the largest window autotuning may reach (Linux tcp_select_initial_window).
        self.rcv_window_limit = opts.window_limit_bytes
        self.rcv_shift = window_shift(self.rcv_window_limit, opts.window_scaling)
        self.rcv_window_max = window_max
        self.read_total = 0
        self._drs = self.rcv_window_limit > window_max
        self._drs_space = window_max  # Linux rcvq_space: .space, .seq (read_total), .time
        self._drs_seq = 0
        self._drs_time = 0.0
        self._rcv_rtt_s = 0.0  # Linux rcv_rtt_est: the receiver's own round-trip estimate
        self._rcv_rtt_seq = -1
        self._rcv_rtt_time = 0.0
        self.rcv_nxt = 0
        self.rcv_buffered = 0  # in the receive buffer (what the window counts)
        self.rcv_readable = 0  # of that, handed up to the socket: what a recv can take
        self.rcv_unpushed = 0  # of that, still in TCP's receive list (Solaris tcp_rcv_list)
        self.rcv_push_wait = opts.rcv_push_wait_bytes
        self.window_update_rule = opts.window_update_rule
        self._push_timeout_s = opts.delack_timeout_s
        self._push_timer = kernel.timer(self._push_expired)
        self._hand_up_costs = host.per_push_s > 0.0
        self.ooo: dict[int, int] = {}
        self._sack_blocks: list[list[int]] = []  # out-of-order data as [start, end), latest first
        self._sack_max = max_blocks(self.option_bytes)
        self._wnd_field_max = 65535 << self.rcv_shift
        self._sws_step = min(window_max // 2, self.mss)
        self.right_edge = scale_window(window_max, self.rcv_shift)
        self.last_adv = self.right_edge
        self.delack = make_delack(opts.delack, self.mss, opts.delack_timeout_s, opts.deferred_acks_max,
                                  opts.quickack_segments)
        self._delack_timer = kernel.timer(self._delack_expired)
        self.on_readable: Callable[[], None] | None = None
        # --- counters ---
        self.data_segments = 0
        self.retransmits = 0
        self.out_of_order_segments = 0
        """Segments that arrived ahead of a hole (netstat's "out-of-order packets")."""
        self.acks_sent = 0
        self.hand_ups = 0
        self.bytes_sent = 0
        self.payload_hist: dict[int, int] = {}
        self.block = "app"
        self.block_since = 0.0
        self.block_time = dict.fromkeys(BLOCK_REASONS, 0.0)
        self._rto_armed_s = 0.0
        self.rtt_sum_s = 0.0
        self.rtt_n = 0

    def connect(self, peer: "TcpEndpoint") -> None:
        """Pair with the other end; the initial windows are what each side offers (the handshake)."""
        self.peer = peer
        if peer.mss < self.mss:
            self.mss = peer.mss
            self.naglim = min(self.naglim, peer.mss)
            self.cc = NewReno(self.mss, self.opts.initial_cwnd_segments, validate=self.opts.cwnd_validation,
                              sack=self.sack_ok, limited_transmit=self.opts.limited_transmit)
            self.delack.mss = self.mss
            self._sws_step = min(self.rcv_window_max // 2, self.mss)
        self.delack.fit_window(self.rcv_window_max)
        self.peer_wnd = peer.right_edge
        self.max_sndwnd = self.peer_wnd
        if self.sndbuf_max:
            # Linux tcp_fixup_sndbuf: an autotuned send buffer starts with room for three segments.
            self.sndbuf = max(self.sndbuf, min(3 * self.mss, self.sndbuf_max))

    # --- helpers -----------------------------------------------------------------------------------
    def _wire(self, length: int) -> tuple[int, float]:
        cached = self._wire_cache.get(length)
        if cached is None:
            frame = framing.frame_bytes(length, self.option_bytes)
            wire_s = framing.wire_bytes(length, self.option_bytes) * 8.0 / self._rate_bps
            cached = self._wire_cache[length] = (frame, wire_s)
        return cached

    def _set_block(self, reason: str) -> None:
        if reason in _HELD_BY_WINDOW and (self.cc.in_recovery or self.snd_una < self.cc.recover):
            reason = "recovery"  # the window waits on a repair: every segment above the hole stays unacknowledged
        if reason != self.block:
            now = self.kernel.env._now
            self.block_time[self.block] += now - self.block_since
            self.block = reason
            self.block_since = now

    # --- buffer autotuning (Linux) --------------------------------------------------------------------
    def _expand_sndbuf(self) -> None:
        """Linux ``tcp_new_space``: a blocked writer's buffer grows to 2 x max(cwnd, reordering + 1)
        segments, while the connection could send more than it has in flight (``tcp_should_expand_sndbuf``)."""
        cwnd = self.cc.cwnd
        if self.snd_max - self.snd_una >= cwnd:
            return
        want = 2 * max(cwnd, 4 * self.mss)
        if want > self.sndbuf:
            self.sndbuf = want if want < self.sndbuf_max else self.sndbuf_max

    def _rcv_rtt_measure(self) -> None:
        """Linux ``tcp_rcv_rtt_measure``: the time to receive one advertised window is a round trip
        (an upper bound when the sender is slow, so the smallest sample is kept)."""
        now = self.kernel.env._now
        if self._rcv_rtt_seq >= 0:
            if self.rcv_nxt < self._rcv_rtt_seq:
                return
            sample = now - self._rcv_rtt_time
            if self._rcv_rtt_s <= 0.0 or sample < self._rcv_rtt_s:
                self._rcv_rtt_s = sample
        if self.right_edge - self.rcv_nxt < self.mss:  # a (nearly) closed window times nothing useful
            self._rcv_rtt_seq = -1
            return
        self._rcv_rtt_seq = self.right_edge
        self._rcv_rtt_time = now

    def _rcv_space_adjust(self) -> None:
        """Linux ``tcp_rcv_space_adjust`` (dynamic right-sizing, 2.6.7+): once per receiver round trip,
        the window grows to twice what the application read in it, up to ``tcp_rmem[2]``'s window.

        Not modelled: ``rcv_ssthresh`` (tcp_grow_window), which opens the advertised window by two
        segments per segment received rather than at once.
        """
        now = self.kernel.env._now
        rtt = self._rcv_rtt_s
        if rtt <= 0.0 or now - self._drs_time < rtt:
            return
        space = 2 * (self.read_total - self._drs_seq)
        if space > self._drs_space:
            self._drs_space = space
            if space > self.rcv_window_max:
                wnd = space if space < self.rcv_window_limit else self.rcv_window_limit
                self.rcv_window_max = wnd
                self._sws_step = min(wnd // 2, self.mss)
        self._drs_seq = self.read_total
        self._drs_time = now

    def set_writer_blocked(self, blocked: bool) -> None:
        """The writer waits for send-buffer space (or no longer does).

        Data Nagle holds back while the writer is blocked waits on the full send buffer, not on Nagle: the
        block reason moves to ``sndbuf`` at once rather than at the next output attempt.
        """
        self.writer_blocked = blocked
        if blocked and self.block in ("nagle", "app"):
            self._set_block("sndbuf")

    def _window_to_advertise(self) -> int:
        """RFC 1122 §4.2.3.3 receiver SWS avoidance and RFC 7323 scaling; see :mod:`tcpsim.protocol.window`."""
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

    def _emit(self, seq: int, length: int, cpu: int, retransmit: bool, push: bool = False) -> None:
        now = self.kernel.env._now
        wnd = self._window_to_advertise()
        if self._sack_blocks and not length:
            # SACK blocks ride on pure ACKs (RFC 2018 §4); a data segment would have to shrink to make room.
            blocks = tuple((b[0], b[1]) for b in self._sack_blocks[:self._sack_max])
            extra = self.option_bytes + sack_option_bytes(len(blocks))
            frame = framing.frame_bytes(0, extra)
            wire_s = framing.wire_bytes(0, extra) * 8.0 / self._rate_bps
            seg = Segment(self.peer, seq, 0, self.rcv_nxt, wnd, frame, wire_s, retransmit, now, push, blocks)
        else:
            frame, wire_s = self._wire(length)
            seg = Segment(self.peer, seq, length, self.rcv_nxt, wnd, frame, wire_s, retransmit, now, push)
        if self.delack.held_segments:
            self.delack.on_ack_sent()
        self._delack_timer.deadline = None  # Timer.cancel(), inlined: every segment passes here
        self.last_adv = self.rcv_nxt + wnd
        if length:
            self.data_segments += 1
            self.bytes_sent += length
            hist = self.payload_hist
            hist[length] = hist.get(length, 0) + 1
            if retransmit:
                self.retransmits += 1
        else:
            self.acks_sent += 1
        if self.trace is not None and len(self.trace) < self._trace_limit:
            self.trace.append((now, self.name, "data" if length else "ack", seq, length, self.rcv_nxt, wnd,
                               "retransmit" if retransmit else self.block, push, seg.sack))
        self.host.transmit(seg, cpu)

    # --- application interface ---------------------------------------------------------------------
    def send_space(self) -> int:
        """Free bytes in the send buffer (sent-but-unacknowledged data still occupies it)."""
        return self.sndbuf - (self.written - self.snd_una)

    def app_write(self, size_bytes: int, cpu: int) -> None:
        """The application's bytes entered the send buffer (one message or one piece of a blocked write)."""
        self.written += size_bytes
        if self.whole_messages:
            self.messages.append(size_bytes)
        self.output(cpu)

    def app_read(self, size_bytes: int, cpu: int) -> None:
        """The application took ``size_bytes`` out of the receive buffer; maybe send a window update."""
        self.rcv_buffered -= size_bytes
        self.rcv_readable -= size_bytes
        self.read_total += size_bytes
        if self._drs:
            self._rcv_space_adjust()
        free = self.rcv_window_max - self.rcv_buffered
        if read_update_due(self.window_update_rule, self.last_adv - self.rcv_nxt, free, self.rcv_window_max,
                           self.mss, self._sws_step):
            self._send_ack(cpu)

    # --- output ------------------------------------------------------------------------------------
    def output(self, cpu: int) -> None:
        """Send what the windows, Nagle and SWS avoidance allow (RFC 1122 §4.2.3.4, RFC 5681); in SACK
        recovery, what RFC 6675's NextSeg picks while cwnd - pipe allows a segment."""
        if self._sack_rec:
            self._sack_output(cpu)
        else:
            self._output(cpu)

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
            self._send_new(length, cpu, usable)

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
        now = self.kernel.env._now
        self.sent.append([seq, length, now, False])
        if self._sack_rec:
            self._pipe += length
        self.snd_nxt = self.snd_max = end
        if self._rto_timer.deadline is None:
            self._arm_rto()
        self._emit(seq, length, cpu, False, push)

    def _audit(self, seq: int, length: int) -> None:
        in_flight = seq + length - self.snd_una
        probe = length == 1 and seq == self.snd_una
        if not probe and in_flight > max(self.peer_wnd, 0):
            raise AuditError(f"{self.name}: {in_flight} bytes in flight > peer window {self.peer_wnd}")
        if self._sack_rec:
            if self._pipe + length > self.cc.cwnd:
                raise AuditError(f"{self.name}: pipe {self._pipe} + {length} bytes > cwnd {self.cc.cwnd}")
        elif not probe and in_flight > self.cc.cwnd + self.cc.extra:
            raise AuditError(f"{self.name}: {in_flight} bytes in flight > cwnd {self.cc.cwnd} "
                             f"(+ {self.cc.extra} of limited transmit)")
        if seq + length > self.written:
            raise AuditError(f"{self.name}: sending byte {seq + length} never written ({self.written})")
        if length > self.mss:
            raise AuditError(f"{self.name}: segment of {length} bytes > MSS {self.mss}")
        if self.written - self.snd_una > self.sndbuf:
            raise AuditError(f"{self.name}: send buffer holds {self.written - self.snd_una} > {self.sndbuf}")

    def _audit_timer(self) -> None:
        if self.snd_max > self.snd_una and self._rto_timer.deadline is None:
            raise AuditError(f"{self.name}: {self.snd_max - self.snd_una} bytes outstanding and no retransmission "
                             "timer running (RFC 6298 §5.1)")

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

    # --- SACK-based loss recovery (RFC 6675 §5) ----------------------------------------------------
    def _sack_enter_recovery(self, cpu: int) -> None:
        """Step 4: the congestion window was set by :meth:`NewReno.on_dupack`; resend the first
        unacknowledged segment at once, then send by ``pipe``."""
        self._sack_rec = True
        self._high_rxt = 0
        if self.sent:
            self._resend(self.sent[0], cpu)
            self._arm_rto()
        self._sack_output(cpu)

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

    # --- timers ------------------------------------------------------------------------------------
    def _arm_rto(self) -> None:
        now = self.kernel.env._now
        self._rto_armed_s = now
        self._rto_timer.arm(now + self.rto.timeout_s())

    def _charge_stall(self) -> None:
        """A retransmission timer fired: the sender has waited on a lost segment since the timer was
        last started (by the last ACK that moved ``snd_una``, or the send); that wait is loss recovery,
        whatever hold the output path recorded for it."""
        now = self.kernel.env._now
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
            self.cc.on_timeout(self.snd_max - self.snd_una, self.snd_max)
            if self.sack_ok:
                # RFC 2018 §8: the receiver may have reneged, so the SACKed bits are cleared (and go-back-N
                # resends everything, RFC 6675 §5.1 leaves the choice open).
                self._sack_rec = False
                self._board.clear()
            self.snd_nxt = self.snd_una
            self.output(cpu)
            self._arm_rto()
        elif self.written > self.snd_nxt:
            # Persist: force one byte out past the closed window; the peer ACKs it or restates its
            # window (RFC 9293 §3.8.6.1, 4.4BSD tcp_setpersist).
            self._send_new(1, cpu)
        if AUDIT["on"]:
            self._audit_timer()

    def _delack_expired(self) -> None:
        if self.delack.held_segments:
            self._send_ack(self.host.irq_cpu(self.stream))

    def _send_ack(self, cpu: int) -> None:
        self._emit(self.snd_nxt, 0, cpu, False)

    # --- input -------------------------------------------------------------------------------------
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
        now = self.kernel.env._now
        sacked_before = -1
        if seg.sack is not None and self.sack_ok:
            if ack == self.snd_una and self.cc.limited_transmit and self.cc.dupacks < 2:
                sacked_before = self._board.sacked_bytes(ack, self.snd_max)
            self._board.add(seg.sack, ack if ack > self.snd_una else self.snd_una)
        elif self._board.ranges and ack > self.snd_una:
            self._board.prune(ack)
        if ack > self.snd_una:
            acked = ack - self.snd_una
            self.snd_una = ack
            sent = self.sent
            sample = None
            while sent and sent[0][0] + sent[0][1] <= ack:
                entry = sent.popleft()
                if not entry[3]:
                    sample = entry[2]
            if sent and sent[0][0] < ack:  # partially acknowledged segment (after a window probe)
                head = sent[0]
                head[1] -= ack - head[0]
                head[0] = ack
            if sample is not None:
                rtt = now - sample
                self.rto.sample(rtt)
                self.rtt_sum_s += rtt
                self.rtt_n += 1
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            self.peer_wnd = seg.wnd
            if seg.wnd > self.max_sndwnd:
                self.max_sndwnd = seg.wnd
            if self.cc.on_new_ack(acked, ack, self.snd_max - ack):
                self._retransmit_first(cpu)
            elif self._sack_rec and not self.cc.in_recovery:
                self._sack_rec = False  # RFC 6675 §5: the cumulative ACK passed RecoveryPoint
            if self.snd_max > ack:
                self._arm_rto()
            else:
                self._rto_timer.cancel()
            if self.writer_blocked and self.sndbuf < self.sndbuf_max:
                self._expand_sndbuf()
            if self.on_writable is not None:
                self.on_writable()
        else:
            if self.snd_max > self.snd_una and seg.wnd == self.peer_wnd:
                new_info = sacked_before < 0 or self._board.sacked_bytes(ack, self.snd_max) > sacked_before
                if self.cc.on_dupack(self.snd_max - self.snd_una, self.snd_max, self.snd_una, new_info):
                    if self.sack_ok:
                        self._sack_enter_recovery(cpu)
                        return
                    self._retransmit_first(cpu)
            self.peer_wnd = seg.wnd
            if seg.wnd > self.max_sndwnd:
                self.max_sndwnd = seg.wnd
        self.output(cpu)

    def _process_data(self, seg: Segment, cpu: int) -> None:
        seq, length = seg.seq, seg.length
        rcv_nxt = self.rcv_nxt
        if seq == rcv_nxt and self.rcv_buffered + length <= self.rcv_window_max:
            filled_hole = bool(self.ooo)
            rcv_nxt += length
            ooo = self.ooo
            while rcv_nxt in ooo:
                more = ooo.pop(rcv_nxt)
                self.rcv_buffered += more
                rcv_nxt += more
            arrived = rcv_nxt - self.rcv_nxt
            self.rcv_nxt = rcv_nxt
            if self._sack_blocks:
                self._sack_blocks = [b if b[0] >= rcv_nxt else [rcv_nxt, b[1]]
                                     for b in self._sack_blocks if b[1] > rcv_nxt]
            self.rcv_buffered += length
            if self._drs:
                self._rcv_rtt_measure()
            ack_now = self.delack.on_segment(length, not filled_hole)
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
        elif seq > rcv_nxt and seq + length - rcv_nxt <= self.rcv_window_max:
            self.ooo.setdefault(seq, length)
            if self.sack_ok:
                record_arrival(self._sack_blocks, seq, seq + length, rcv_nxt)
            self.out_of_order_segments += 1
            self.delack.on_segment(length, False)
            ack_now = True  # RFC 5681 §4.2: out-of-order data is ACKed at once (a duplicate ACK)
        else:
            ack_now = True  # duplicate or outside the window: restate our state (RFC 9293 §3.10.7.4)
        if ack_now:
            self._send_ack(cpu)
        elif self._delack_timer.deadline is None:
            self._delack_timer.arm(self.delack.deadline_s(self.kernel.env._now))
        if self.on_readable is not None and self.rcv_readable:
            self.on_readable()

    # --- hand-off to the socket ----------------------------------------------------------------------
    def _hand_up(self, size_bytes: int, cpu: int) -> None:
        """In-order data goes up to the socket; the reader sees it once the host has done the hand-off."""
        self.hand_ups += 1
        done = self.host.hand_up(cpu)
        if done > self.kernel.env._now:
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
        self._push_timer.arm(self.kernel.env._now + self._push_timeout_s)

    def _push_expired(self) -> None:
        cpu = self.host.irq_cpu(self.stream)
        self._push_up(cpu)
        if self.on_readable is not None and self.rcv_readable:
            self.on_readable()
