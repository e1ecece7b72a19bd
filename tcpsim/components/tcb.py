"""State shared by both directions of one TCP endpoint (the TCB, RFC 9293 §3.3.1), and the one way out.

The endpoint is split by job along a single line of inheritance, each module one job: this state and
segment emission; :mod:`.receiver` (receive window, data arrival, hand-up); :mod:`.sender` (output,
Nagle, send buffer); :mod:`.recovery` (retransmission, SACK recovery, timers); :mod:`.endpoint` (the
connection: pairing and segment arrival). mypyc compiles them as one group (``setup.py`` HOT_PATH).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable, Final

from ..config import TcpOptions
from ..protocol import framing
from ..protocol.congestion import NewReno
from ..protocol.cubic import Cubic
from ..protocol.delack import make_delack
from ..protocol.rto import RtoEstimator, wheel_expiry_s
from ..protocol.sack import Scoreboard, max_blocks
from ..protocol.sack import option_bytes as sack_option_bytes
from ..protocol.window import scale_window, window_shift
from .host import HostRuntime
from .kernel import Kernel, Lane
from .segment import Segment

if TYPE_CHECKING:
    from .endpoint import TcpEndpoint

__all__ = ["EndpointState", "BLOCK_REASONS", "AUDIT", "audit"]

BLOCK_REASONS = ("window", "cwnd", "nagle", "sndbuf", "app", "recovery", "tsq", "pacing")
"""Why a sender is not sending: what :attr:`EndpointState.block_time` accumulates. ``recovery`` is a
window, cwnd or send-buffer hold while a loss is being repaired (fast recovery, or the go-back-N resend
after a timeout), and the wait for a retransmission timer that fired. ``tsq``: Linux TCP small queues hold
data while the host's transmit path drains (the line or the host binds, not TCP). ``pacing``: the socket's
pacing cap (``SO_MAX_PACING_RATE``) holds the next skb; pacing at a multiple of cwnd / srtt counts as the
window's hold (the rate follows the window)."""
_HELD_BY_WINDOW: Final = frozenset(("window", "cwnd", "sndbuf"))


AUDIT: Final = {"on": False, "sndbuf": True}


def audit(on: bool = True, sndbuf: bool = True) -> None:
    """Check window invariants on every segment sent (for tests; slows runs down a little); ``sndbuf`` also
    checks that the send buffer never holds more than its size (a Linux writer of whole skbs: no more unsent
    than its size and one skb, :meth:`~tcpsim.components.sender.TcpSender._audit_sndbuf`)."""
    AUDIT["on"] = on
    AUDIT["sndbuf"] = sndbuf


class EndpointState:
    """Sender and receiver state of one side of a connection; emitting a segment."""

    peer: TcpEndpoint
    """The other end of the connection (:meth:`TcpEndpoint.connect` sets it before the first segment)."""

    def __init__(self, kernel: Kernel, host: HostRuntime, opts: TcpOptions, peer_opts: TcpOptions,
                 mtu_bytes: int, rate_bps: float, stream: int, trace: deque | None, name: str,
                 skb_charged: bool = False) -> None:
        self.kernel = kernel
        self.host = host
        self.opts = opts
        self.stream = stream
        self.name = name
        self.trace = trace
        self._trace_limit = (trace.maxlen or 0) if trace is not None else 0
        """The shared log keeps the run's first segments, up to this many."""
        self.skb_log: list | None = None
        """The receiver's packets as a packet socket sees them (``Budget.skb_log_limit``, set by the engine on the
        first connection's receiver): (time_s, outgoing, 0, seq, payload_bytes, ack, window_bytes, False, -1)."""
        self.skb_log_limit = 0
        """At most this many entries in :attr:`skb_log`."""
        # Both ends must agree to use timestamps (RFC 7323 §3.2); the MSS is the smaller one offered.
        ts = opts.timestamps and peer_opts.timestamps
        self.option_bytes = framing.tcp_option_bytes(ts)
        self.mss = framing.mss_bytes(mtu_bytes, ts)
        self._path_mss = self.mss  # the MSS the path allows; Linux may send less (tcp_bound_to_half_wnd)
        self._rate_bps = rate_bps
        self._skb_charged = skb_charged  # the rate is a tbf's: a frame costs its skb's bytes (framing.wire_bytes)
        self._wire_cache: dict[int, tuple[int, float]] = {}
        # --- send side ---
        self.sndbuf = opts.sndbuf_bytes
        self.sndbuf_max = opts.sndbuf_autotune_max_bytes or 0
        self._sndbuf_per_mss = 0
        """Linux 3.14+ ``tcp_sndbuf_expand``'s bytes a segment (set at the handshake); 0 = the older rule."""
        self.tx_skb_overhead = opts.tx_skb_overhead_bytes if opts.writer_copies_whole_skbs else 0
        self.snd_una = 0
        self.snd_nxt = 0
        self.snd_max = 0
        self.written = 0
        self.whole_messages = opts.whole_message_segments
        self.messages: deque[int] = deque()
        self.sent: deque[list] = deque()  # [seq, length, sent_s, retransmitted, lost (RACK)]
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
        self.cc = self._new_cc()
        self._cc_timed = opts.congestion_control == "cubic"  # the rule reads each ACK's time and RTT (HyStart)
        self._cc_rated = self._cc_timed and opts.hystart_ack_delay  # ... and the pacing rate (Linux 5.7 on)
        self._srtt_oldest = opts.srtt_from_oldest  # srtt from the oldest segment an ACK covers (Linux first_ackt)
        self._sack_rec = False  # in RFC 6675 loss recovery
        self._board = Scoreboard()
        self._pipe = 0
        self._high_rxt = 0
        self._prr_sent = 0  # bytes_sent when SACK recovery began: PRR's prr_out is what was sent since
        self._prr_una = self._prr_sacked = self._prr_lost = 0  # snd_una, SACKed bytes, IsLost's edge before an ACK
        self._reno_sacked = 0  # without SACK (rule 167): bytes duplicate ACKs count SACKed (Linux sacked_out)
        self._reno_cwnd = 0  # ... and the cwnd PRR last set, before the output's allowance for them
        # RACK-TLP (Linux 4.18+, :mod:`.rack`): the last delivered segment's transmission, end and round trip; the
        # segments marked lost and not resent, the resent ones not yet delivered; the reordering and probe timers.
        self._rack = opts.rack_tlp and self.sack_ok
        self._rack_xmit_s = -1.0
        self._rack_end = 0
        self._rack_rtt_s = 0.0
        self._rack_lost: list[list] = []
        self._rack_rtx: list[list] = []
        self._rack_newly_lost = False
        self._rack_retrans_acked = False  # the last ACK acknowledged a retransmission cumulatively
        self._rack_timer = kernel.timer(self._rack_expired)
        self._tlp_timer = kernel.timer(self._tlp_expired)
        self._tlp_high = 0  # tlp_high_seq: snd_nxt when a probe went out, 0 when none is unanswered
        self._tlp_retrans = False
        self._probing = False  # the probe may take one segment beyond cwnd (tcp_write_xmit's push_one = 2)
        self._tick_s = 1.0 / opts.tick_hz if opts.tick_hz else 0.0
        self.rto = RtoEstimator(min_rto_s=opts.min_rto_s, linux=opts.linux_rto, hz=opts.tick_hz)
        self._rto_timer = kernel.timer(self._rto_expired)
        self.peer_wnd = 0
        self.max_sndwnd = 0
        self.on_writable: Callable[[], None] | None = None
        self._wake_after_output = opts.wake_after_output  # an ACK's output runs before the writer's wake-up
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
        self.ooo: dict[int, int] = {}  # out-of-order segments held: start -> length
        self._sack_blocks: list[list[int]] = []  # out-of-order data as [start, end), latest first
        self._sack_max = max_blocks(self.option_bytes)
        self._wnd_field_max = 65535 << self.rcv_shift
        self._sws_step = min(window_max // 2, self.mss)
        self.right_edge = scale_window(window_max, self.rcv_shift)
        self.last_adv = self.right_edge
        # Linux's own window rules (opts.rcv_window_rule "linux", tcpsim.protocol.linux_window); set up at connect.
        self._linux_wnd = opts.rcv_window_rule == "linux"
        self._rcv_room = window_max  # bytes the receive queue takes in: the window (plain), the buffer (linux)
        self._rcvbuf = opts.rcvbuf_bytes  # sk_rcvbuf
        self._ratio = 0  # scaling_ratio in 1/256 (0: tcp_adv_win_scale sizes the window)
        # the receive queue's skbs (payload bytes, truesize) in order, their truesize summed (sk_rmem_alloc)
        # and the bytes already read from the first
        self._rq_bytes: deque[int] = deque()
        self._rq_truesize: deque[int] = deque()
        self._rmem = 0
        self._rq_read = 0
        self._nomem = False  # icsk_ack.pending & ICSK_ACK_NOMEM: the next ACK offers a window of 0
        self.memory_drops = 0
        """Data segments the receiver dropped for memory: in order, its queue above its buffer (``TCPRcvQDrop``) or its
        window 0 (``TCPZeroWindowDrop``), :meth:`tcpsim.components.linux_rcv.LinuxReceive._linux_admit`; out of order,
        the memory not to be had (``TCPOFODrop``), :meth:`tcpsim.components.linux_rcv.LinuxReceive._linux_ofo_admit`."""
        self.window_drops = 0
        """Data segments the receiver dropped for lying beyond the window it offered (``TCP_INVALID_SEQUENCE``,
        ``TCP_OVERWINDOW``, ``TCP_INVALID_END_SEQUENCE``): :meth:`tcpsim.components.linux_rcv.LinuxReceive._linux_beyond_window`."""
        self._oow_next = -1  # where the next segment of an out-of-order GSO aggregate starts, and its skb's judgement
        self._oow_drop = False
        self._ofo_next = -1  # the same for the out-of-order queue's memory (tcp_try_rmem_schedule)
        self._ofo_fits = True
        self.prunes = 0
        """``tcp_prune_queue`` calls (``PruneCalled``): data arrived with the socket's memory above its buffer."""
        self.ofo_pruned = 0
        """Out-of-order segments the receiver held and then dropped for memory, reneging what it had SACKed
        (``tcp_prune_ofo_queue``, whose calls ``OFOPruned`` counts): :meth:`tcpsim.components.linux_rcv.LinuxReceive._prune_ofo`."""
        self._rcv_ssthresh = 0
        self._autocork = opts.autocork
        self.owner_backlog = opts.owner_backlog
        self.owner_until_s = -1.0
        """While a call of this socket's application runs (with ``owner_backlog``): when it returns; a segment
        arriving from :attr:`owner_from_s` to then joins the socket's backlog (:meth:`HostRuntime._handle`)."""
        self.owner_from_s = -1.0
        """When that call took the socket (``lock_sock``): a send call at its start, a receive call where its copy
        begins, or once its entry has run with ``TcpOptions.read_length_at_copy`` (``tcp_recvmsg``: the call's
        entry ran unlocked)."""
        self.owner_call_end_s = -1.0
        """When that call's own work ends, before the backlog it runs (:meth:`HostRuntime._deliver`)."""
        self.owned_ahead: list = []
        """Segments that found the socket owned once their softirq work was done, in the order they came: the head
        of its backlog (:meth:`HostRuntime._deliver`)."""
        self.owner_cpu = 0
        self.tx_order_s = 0.0
        """When the sending host last released a segment to this endpoint to its driver (``HostRuntime.transmit``):
        a field here, not a dict of the host's, since only one host sends to an endpoint."""
        self.rx_order_s = 0.0
        """When this host's stack last finished taking in one of this endpoint's segments (``HostRuntime._handle``)."""
        self.tx_watch: Lane | None = None
        """The sender's transmit-completion lane for segments to this endpoint (``HostRuntime.watch_transmits``)."""
        self._tx_unfreed = 0  # data segments handed to the host and not yet off the wire (Linux sk_wmem_alloc)
        # TCP small queues (tcpsim.components.sender._tsq_holds): bytes handed to the host and not yet off the wire
        self._tsq_cap = opts.tsq_limit_bytes if self._linux_wnd else 0
        self._tsq_bytes = 0
        self._tsq_held = False
        # Pacing (tcpsim.components.sender._pacing_holds, tcpsim.protocol.pacing): the next skb's departure time
        # (tcp_wstamp_ns), the credit an skb being sent may still take back, SO_MAX_PACING_RATE in bytes/s
        self._pacing = opts.pacing_rule if self._linux_wnd else 0
        self._pace_at_s = 0.0
        self._pace_credit_s = 0.0
        self._pace_cap_Bps = opts.max_pacing_rate_bps / 8.0
        self._pace_cpu = 0
        self._pace_timer = kernel.timer(self._pace_expired)
        self._rcv_wnd = 0  # tp->rcv_wnd: the window last offered
        self._rcv_wup = 0  # tp->rcv_wup: RCV.NXT when it was offered
        self._rcv_mss = self.mss  # icsk_ack.rcv_mss: the payload of a full-sized received segment
        self._advmss = self.mss + self.option_bytes  # tp->advmss
        self._adv_win_scale = opts.adv_win_scale
        self._linux_ready = False
        # GSO aggregates carried whole to the peer (nic.gso_whole; tcpsim.components.sender._send_new)
        self._gso = self._linux_wnd and host.platform.nic.gso_whole
        self._agg_prev: Segment | None = None  # the last segment of the aggregate being built in this pass
        self._agg_sent = 0  # its bytes so far
        self._agg_goal = 0  # tcp_tso_autosize's goal for this pass, bytes
        self._agg_first_write = False  # a write found the send queue empty: its first skb is pushed when full
        self._defer_rule = opts.tso_defer_rule if self._gso else 0  # tcp_tso_should_defer (tcpsim.protocol.tso_defer)
        self._pass_cwnd_limited = False  # this output pass deferred on cwnd (tcp_write_xmit's is_cwnd_limited)
        self._agg_bytes = 0  # receiver: bytes of an aggregate whose end has not arrived (rcv_nxt stays before them)
        self._agg_seg = 0  # receiver: the gso_size of that aggregate (its first segment)
        # tcp_measure_rcv_mss / tcp_cleanup_rbuf (versioned Linux): ICSK_ACK_PUSHED (1) and PUSHED2 (2) marks
        # since the last ACK, the last small segment's size (icsk_ack.last_seg_size), ping-pong mode and the
        # time data last arrived (icsk_ack.lrcvtime).
        self._pushed = 0
        self._last_seg_size = 0
        self._pingpong = False
        self._lrcv_s = -1.0
        # A versioned Linux sizes its quick-ACK run from the window at connect (tcp_incr_quickack).
        self.delack = make_delack(opts.delack, self.mss, opts.delack_timeout_s, opts.deferred_acks_max,
                                  0 if self._linux_wnd else opts.quickack_segments)
        self._delack_timer = kernel.timer(self._delack_expired)
        # Linux's SACK compression (tcpsim.components.receiver._sack_compressed): tcp_comp_sack_nr (0: none),
        # compressed_ack, compressed_ack_rcv_nxt, dup_ack_counter and the hrtimer that sends what was compressed
        self._comp_nr = opts.comp_sack_nr if self.sack_ok and self._linux_wnd else 0
        self._comp_acks = 0
        self._comp_rcv_nxt = -1
        self._comp_dups = 0
        self._comp_timer = kernel.timer(self._comp_expired)
        self.acks_compressed = 0
        """SACKs of out-of-order data that Linux's SACK compression folded into a later ACK (``TCPAckCompressed``)."""
        self.on_readable: Callable[[], None] | None = None
        # --- counters ---
        self.data_segments = 0
        self.data_skbs = 0
        """Data skbs sent: a GSO aggregate counts once, as the sending interface counts it (``tx_packets``)."""
        self.retransmits = 0
        self.out_of_order_segments = 0
        """Segments that arrived ahead of a hole (netstat's "out-of-order packets")."""
        self.acks_sent = 0
        self.hand_ups = 0
        self.bytes_sent = 0
        self.block = "app"
        self.block_since = 0.0
        self.block_time = dict.fromkeys(BLOCK_REASONS, 0.0)
        self._rto_armed_s = 0.0
        self.rtt_sum_s = 0.0
        self.rtt_n = 0
        self._min_rtt_s = 0.0  # tcp_min_rtt: the smallest RTT sample (tcp_tso_autosize, 5.18 on)

    def handshake_sample(self, rtt_s: float) -> None:
        """The handshake's round trip as the first RTT sample (Linux ``tcp_ack_update_rtt`` on the SYN-ACK,
        ``tcp_synack_rtt_meas``): it sets srtt, rttvar and the RTO (RFC 6298 §2.2) and the minimum RTT, so
        the pacing rate and ``tcp_tso_autosize`` have a round trip at the first write; the reported mean RTT
        counts data segments only. A round trip past the initial timeout means the SYN went out again: with
        timestamps the echo still times it (RFC 7323 §4.1, Linux ``tcp_rtt_tsopt_us``); without them Karn's
        rule forbids the sample (RFC 6298 §3) and data starts on a timeout of at least 3 s (§5.7)."""
        if rtt_s <= 0.0:
            return
        if rtt_s < self.rto.timeout_s() or self.option_bytes:
            self.rto.sample(rtt_s, self.snd_una, self.snd_nxt)
            self._min_rtt_s = rtt_s
        else:
            self.rto.after_lost_syn()

    def _new_cc(self) -> NewReno:
        """The congestion control the options name, for the current MSS."""
        o = self.opts
        if o.congestion_control == "cubic":
            return Cubic(self.mss, o.initial_cwnd_segments, o.slow_start_ack_segments, validate=o.cwnd_validation,
                         sack=self.sack_ok, limited_transmit=o.limited_transmit, measured=o.measured_cwnd_limited,
                         prr_rule=o.prr_rule, hz=o.tick_hz, rack=o.rack_tlp, train_rule=int(o.hystart_ack_delay))
        return NewReno(self.mss, o.initial_cwnd_segments, o.slow_start_ack_segments, validate=o.cwnd_validation,
                       sack=self.sack_ok, limited_transmit=o.limited_transmit, measured=o.measured_cwnd_limited,
                       prr_rule=o.prr_rule, rack=o.rack_tlp, halve_cwnd=o.rcv_window_rule == "linux")

    # --- helpers ----------------------------------------------------------------------------------
    def _log_packet(self, now_s: float, outgoing: bool, seq: int, length: int, ack: int, wnd: int) -> None:
        """One entry of :attr:`skb_log`, in the layout :func:`tcpsim.lab.skbtrace.summarize` reads a capture's
        packets (its unused fields 0, False and -1), while the log has room."""
        log = self.skb_log
        if log is not None and len(log) < self.skb_log_limit:
            log.append((now_s, outgoing, 0, seq, length, ack, wnd, False, -1))

    def _wire(self, length: int) -> tuple[int, float]:
        cached = self._wire_cache.get(length)
        if cached is None:
            frame = framing.frame_bytes(length, self.option_bytes)
            wire_s = framing.wire_bytes(length, self.option_bytes, self._skb_charged) * 8.0 / self._rate_bps
            cached = self._wire_cache[length] = (frame, wire_s)
        return cached

    def _set_block(self, reason: str) -> None:
        if reason in _HELD_BY_WINDOW and (self.cc.in_recovery or self.snd_una < self.cc.recover):
            reason = "recovery"  # the window waits on a repair: every segment above the hole stays unacknowledged
        if reason != self.block:
            now = self.kernel.now_s
            self.block_time[self.block] += now - self.block_since
            self.block = reason
            self.block_since = now

    def set_writer_blocked(self, blocked: bool) -> None:
        """The writer waits for send-buffer space (or no longer does).

        Data Nagle holds back while the writer is blocked waits on the full send buffer, not on Nagle: the
        block reason moves to ``sndbuf`` at once rather than at the next output attempt.
        """
        self.writer_blocked = blocked
        if blocked and self.block in ("nagle", "app"):
            self._set_block("sndbuf")

    def _emit(self, seq: int, length: int, cpu: int, retransmit: bool, push: bool = False, cont: bool = False) -> Segment:
        now = self.kernel.now_s
        wnd = self._window_to_advertise()
        if self._sack_blocks and not length:
            # SACK blocks ride on pure ACKs (RFC 2018 §4); a data segment would have to shrink to make room.
            blocks = tuple((b[0], b[1]) for b in self._sack_blocks[:self._sack_max])
            extra = self.option_bytes + sack_option_bytes(len(blocks))
            frame = framing.frame_bytes(0, extra)
            wire_s = framing.wire_bytes(0, extra, self._skb_charged) * 8.0 / self._rate_bps
            seg = Segment(self.peer, seq, 0, self.rcv_nxt, wnd, frame, wire_s, retransmit, now, push, blocks)
        else:
            frame, wire_s = self._wire(length)
            seg = Segment(self.peer, seq, length, self.rcv_nxt, wnd, frame, wire_s, retransmit, now, push)
            seg.cont = cont
        if self.delack.held_segments:
            self.delack.on_ack_sent()
        self._delack_timer.deadline = None  # Timer.cancel(), inlined: every segment passes here
        self._pushed = 0  # tcp_event_ack_sent -> inet_csk_clear_xmit_timer(ICSK_TIME_DACK): pending = 0
        if self._comp_acks:  # tcp_event_ack_sent: what was compressed goes with this segment
            self.acks_compressed += self._comp_acks
            self._comp_acks = 0
            self._comp_timer.deadline = None
        self.last_adv = self.rcv_nxt + wnd
        if length:
            if self._linux_wnd and now - self._lrcv_s < self.delack.timeout_s:
                self._pingpong = True  # tcp_event_data_sent: data sent within ato of data received
            if self._autocork or self._tsq_cap:
                self._tx_unfreed += 1
                self._tsq_bytes += length
            self.data_segments += 1
            if not cont:
                self.data_skbs += 1
            self.bytes_sent += length
            if retransmit:
                self.retransmits += 1
        else:
            self.acks_sent += 1
            if self.skb_log is not None:
                self._log_packet(now, True, seq, 0, self.rcv_nxt, wnd)
        if self.trace is not None and len(self.trace) < self._trace_limit:
            self.trace.append((now, self.name, "data" if length else "ack", seq, length, self.rcv_nxt, wnd,
                               "retransmit" if retransmit else self.block, push, seg.sack))
        self.host.transmit(seg, cpu)
        return seg

    def _send_ack(self, cpu: int) -> None:
        self._emit(self.snd_nxt, 0, cpu, False)

    def _arm_rto(self, after_s: float = -1.0) -> None:
        """The retransmission timer, ``after_s`` from now (default: the RTO), on the tick wheel where the OS has one."""
        now = self.kernel.now_s
        self._rto_armed_s = now
        rto = self.rto
        delay = rto.timeout_s() if after_s < 0.0 else after_s
        self._rto_timer.arm(wheel_expiry_s(now, delay, rto.hz) if rto.hz else now + delay)

    # --- filled in by the subclasses (receiver, sender, recovery) ---------------------------------------
    def _window_to_advertise(self) -> int:
        raise NotImplementedError

    def output(self, cpu: int) -> None:
        raise NotImplementedError

    def _output(self, cpu: int) -> None:
        raise NotImplementedError

    def _retransmit_next(self, cpu: int) -> bool:
        raise NotImplementedError

    def _sack_output(self, cpu: int) -> None:
        raise NotImplementedError

    def _rto_expired(self) -> None:
        raise NotImplementedError

    def _delack_expired(self) -> None:
        raise NotImplementedError

    def _rack_expired(self) -> None:
        raise NotImplementedError

    def _comp_expired(self) -> None:
        raise NotImplementedError

    def _tlp_expired(self) -> None:
        raise NotImplementedError

    def _push_expired(self) -> None:
        raise NotImplementedError

    def _pace_expired(self) -> None:
        raise NotImplementedError
