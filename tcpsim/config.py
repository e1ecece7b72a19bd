"""Scenario inputs: frozen, validated dataclasses. Variants are made with :func:`dataclasses.replace`.

Every check raises :class:`~tcpsim.errors.ConfigError` with the field name and the accepted range.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from typing import Optional

from .errors import ConfigError
from .fields import check_types
from .platform import CONGESTION_CONTROLS, DELACK_RULES, OsTcp, Platform, _check_range, os_defaults
from .protocol.linux_window import DEFAULT_RATIO_6_6, DEFAULT_RATIO_6_8
from .protocol.window import WINDOW_UPDATE_RULES
from .units import UNSHAPED_RATE_BPS

__all__ = ["Link", "TcpOptions", "Host", "Workload", "Budget", "Scenario", "WORKLOAD_KINDS", "MAX_LOSS_FRAC",
           "MAX_WORKERS"]

WORKLOAD_KINDS = ("bulk", "rr")
MAX_LOSS_FRAC = 0.5
"""The largest random loss a link takes (``Link.loss_frac``): every flag, file and API that gives one names this
range."""
MAX_WORKERS = 256
"""The most worker processes a sweep, validation or fit starts (``--workers``, ``sweep(workers=)``): more than any
machine's cores gain nothing, and thousands of processes exhaust it before the first point is run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Link:
    """A full-duplex Ethernet path: line rate, one-way propagation delay, MTU, optional bounded queue."""

    rate_bps: float = 1e9
    one_way_delay_s: float = 50e-6
    mtu_bytes: int = 1500
    queue_packets: Optional[int] = None
    """Frames the transmit queue of each direction holds before it drops (None = unbounded)."""
    loss_frac: float = 0.0
    """Independent random loss per frame (seeded)."""
    switch_hops: int = 0
    """Store-and-forward switches on the path; each adds one frame's serialization to its delay."""
    burst_bytes: int = 0
    """0: a line that serializes every frame at ``rate_bps``. Otherwise a token-bucket shaper (Linux ``tbf``
    on a veth, as ``tcpsim lab`` sets up): tokens fill at ``rate_bps`` up to this many bytes, and a frame
    leaves as soon as the bucket holds its size, at the veth's own speed, so a window smaller than the
    bucket arrives in one burst."""
    relay_packet_s: float = 0.0
    relay_byte_s: float = 0.0
    relay_latency_byte_s: float = 0.0
    """A user-space relay on the path (``tcpsim lab``'s delay line, :mod:`tcpsim.lab.relay`): one FIFO stage
    shared by both directions that serves each packet (a GSO aggregate is one) in ``relay_packet_s`` plus
    ``relay_byte_s`` a byte, after which the packet takes ``relay_latency_byte_s`` a byte more to come out.
    All 0: no relay."""
    rx_on_sending_cpu: bool = False
    """A software path that hands each frame to the receiving stack in the sender's context, as a veth pair
    does (``veth_xmit`` -> ``veth_forward_skb`` -> ``__netif_rx`` -> ``enqueue_to_backlog`` on the current
    CPU, drivers/net/veth.c, net/core/dev.c): a frame's receive-side stack work runs on the CPU of the host
    that sent it. What follows the hand-off to the socket (the reader's copy, the ACKs it sends) stays on
    the receiver. With no delay on the way (``one_way_delay_s`` 0, no relay) that work is part of the call that
    sent the frame: the call returns after it (the softirq runs as the send re-enables bottom halves). False:
    a NIC, whose interrupt runs the receive work on the receiving host."""

    @property
    def skb_charged(self) -> bool:
        """Whether a frame's time at the rate is its skb's length rather than the 802.3 wire's: a token bucket's
        rate is Linux ``tbf``'s, which charges ``qdisc_pkt_len`` (:func:`tcpsim.protocol.framing.wire_bytes`)."""
        return self.burst_bytes > 0

    def __post_init__(self) -> None:
        check_types(self)
        _check_range("rate_bps", self.rate_bps, 1e3, 1e13, "in 1e3..1e13 bit/s")
        _check_range("burst_bytes", self.burst_bytes, 0, 1 << 32, "0 (no bucket) or a bucket in bytes")
        _check_range("one_way_delay_s", self.one_way_delay_s, 0.0, 10.0, "in 0..10 s")
        if isinstance(self.mtu_bytes, bool) or not isinstance(self.mtu_bytes, int) \
                or not 68 <= self.mtu_bytes <= 65535:
            raise ConfigError("mtu_bytes", self.mtu_bytes, "in 68..65535")
        if self.queue_packets is not None:
            _check_range("queue_packets", self.queue_packets, 1, 1 << 24)
        _check_range("loss_frac", self.loss_frac, 0.0, MAX_LOSS_FRAC, f"in 0..{MAX_LOSS_FRAC:g}")
        _check_range("switch_hops", self.switch_hops, 0, 64, "in 0..64")
        _check_range("relay_packet_s", self.relay_packet_s, 0.0, 1.0, "in 0..1 s")
        _check_range("relay_byte_s", self.relay_byte_s, 0.0, 1e-6, "in 0..1e-6 s a byte")
        _check_range("relay_latency_byte_s", self.relay_latency_byte_s, 0.0, 1e-6, "in 0..1e-6 s a byte")
        if not isinstance(self.rx_on_sending_cpu, bool):
            raise ConfigError("rx_on_sending_cpu", self.rx_on_sending_cpu, "True (a veth pair) or False (NICs)")


@dataclass(frozen=True, slots=True, kw_only=True)
class TcpOptions:
    """One endpoint's TCP settings, as the kernel holds them (after any OS capping or doubling).

    Build it from an OS and a requested socket buffer with :meth:`for_os`, which applies that OS's
    semantics; the constructor takes the kernel values as they are.
    """

    sndbuf_bytes: int = 65536
    rcvbuf_bytes: int = 65536
    rcv_window_bytes: Optional[int] = None
    """Largest window advertised; None = the whole receive buffer (Linux advertises only part)."""
    nodelay: bool = False
    timestamps: bool = False
    sack: bool = False
    window_scaling: bool = True
    delack: str = "bsd"
    delack_timeout_s: float = 0.2
    deferred_acks_max: int = 2
    quickack_segments: int = 0
    whole_message_segments: bool = False
    initial_cwnd_segments: int = 2
    slow_start_ack_segments: int = 2
    """The most one ACK adds to cwnd in slow start, in segments: RFC 3465's L = 2 SMSS (appropriate byte counting);
    1 for Linux before 3.18 (``tcp_slow_start``: one increment per ACK); 0 for Linux 3.18 on, every segment the ACK
    acknowledges, up to ssthresh, the rest going on to congestion avoidance (commit 9f9843a751d0, "tcp: properly
    handle stretch acks in slow start")."""
    tick_hz: int = 0
    """The kernel's tick rate (Linux ``CONFIG_HZ``, ``OsTcp.hz``; 0 = a continuous clock), for what it counts in
    ticks: CUBIC's update hold, once-a-tick clause and cubic clock (:class:`tcpsim.protocol.cubic.Cubic`), and with
    :attr:`linux_rto` the retransmission timeout and its timer (:func:`tcpsim.protocol.rto.wheel_expiry_s`)."""
    hystart_ack_delay: bool = False
    """CUBIC's HyStart as Linux 5.7 on runs it (``hystart_update``, ``cubictcp_acked``): an ACK train ends slow start
    once it spans ``delay_min`` plus ``hystart_ack_delay`` (min(1 ms, ``sk_gso_max_size`` x 4 / ``sk_pacing_rate``)),
    halved unless the socket is paced, and HyStart keeps no round until cwnd reaches ``hystart_low_window``;
    False: half of ``delay_min``, rounds from the start (validation/README.md, "HyStart's ACK train as Linux 5.7 on
    times it")."""
    srtt_from_oldest: bool = False
    """srtt (the RTO, the pacing rate, TSO deferral, RACK's and TLP's timers, the RTT a run reports) from the round
    trip of the oldest segment an ACK newly covers, as Linux's ``tcp_clean_rtx_queue`` hands ``first_ackt`` to
    ``tcp_rtt_estimator``; the newest's (``last_ackt``) still goes to ``min_rtt`` and the congestion control. False:
    the newest's to all (validation/README.md, "The smoothed RTT from the oldest segment an ACK covers")."""
    linux_rto: bool = False
    """The retransmission timeout as Linux computes it (``tcp_rtt_estimator``, ``__tcp_set_rto``): srtt plus a variance
    never below ``min_rto_s``, in whole ticks where :attr:`tick_hz` is set; False: RFC 6298's max(``min_rto_s``, srtt +
    4 x rttvar) (validation/README.md, "Linux's retransmission timeout", "Linux's retransmission timer in whole
    ticks")."""
    rack_tlp: bool = False
    """Linux's RACK-TLP (RFC 8985, 4.18 on, with SACK): losses found by when segments were sent, and a probe for a
    flight's tail (:mod:`tcpsim.components.rack`); False: RFC 6675's duplicate-ACK count and the timer."""
    comp_sack_nr: int = 0
    """Linux's SACK compression (4.18 on, with SACK; ``tcp_comp_sack_nr``): once three ACKs for one ``rcv_nxt`` went at
    once, later SACKs of out-of-order data wait for a timer, up to this many (``__tcp_ack_snd_check``); 0 = none."""
    comp_sack_delay_s: float = 1e-3
    """``tcp_comp_sack_delay_ns`` in seconds: the timer's cap."""
    comp_sack_slack_s: float = 0.0
    """``tcp_comp_sack_slack_ns`` in seconds (5.8 on): the timer fires this much after its delay."""
    comp_sack_rtt_frac: float = 0.05
    """The timer's delay as a share of the round trip (5 %; ``tcp_comp_sack_rtt_percent`` from 6.19)."""
    prr_rule: int = 0
    """How SACK recovery brings cwnd down (:data:`tcpsim.protocol.prr.PRR_RULES`): 0, RFC 6675's cwnd = ssthresh at
    once (every stack but Linux 3.2 on); 1-4, Linux's Proportional Rate Reduction (RFC 6937, ``tcp_cwnd_reduction``)
    as 3.2-4.2, 4.3-5.10, 5.11-5.18 and 5.19 on have it."""
    min_rto_s: float = 1.0
    naglim_bytes: Optional[int] = None
    maxpsz_segments: int = 0
    """Solaris ``tcp_maxpsz_multiplier``: a send call moves at most this many MSS into TCP per kernel
    pass, and each further pass costs a kernel entry (0 = the whole call in one pass, as BSD and Linux)."""
    half_window_beats_nagle: bool = True
    """Send a piece of at least half the peer's largest window even with data unacknowledged (4.4BSD
    ``tcp_output``'s sender silly-window rule); False = only when idle, as RFC 1122 §4.2.3.4 words it
    and Linux (whose Nagle test has no such exception) does."""
    nagle_minshall: bool = False
    """Nagle holds a short segment only while an earlier short one is unacknowledged (Minshall's
    variant, Linux since 2.4); False = while anything is (RFC 896, BSD)."""
    push_at_window_edge: bool = False
    """PSH also marks the last segment a window lets out, not only the one that empties the send queue
    (Solaris ``tcp_wput_slow``); see :mod:`tcpsim.protocol.push`."""
    forced_push: bool = False
    """PSH at least every half of the peer's largest window while the writer keeps the queue full (Linux
    ``tcp_sendmsg``'s ``forced_push``)."""
    window_update_rule: str = "bsd"
    """When a read sends a window update of its own (:data:`tcpsim.protocol.window.WINDOW_UPDATE_RULES`):
    ``bsd`` when the window can move by two segments or half the buffer (4.4BSD ``tcp_output``),
    ``linux`` when the read at least doubles a window that had fallen to half (``tcp_cleanup_rbuf``),
    ``solaris`` when a window that had fallen to half or below an MSS grows by an MSS (``tcp_rsrv``)."""
    rcv_push_wait_bytes: int = 0
    """Solaris ``tcp_rcv_push_wait``: in-order data waits in TCP's receive list until a segment with PSH
    arrives or this much is queued (0 = every segment is readable at once, as BSD and Linux)."""
    cwnd_validation: bool = False
    """Grow cwnd only while the sender uses it (RFC 7661; Linux ``tcp_is_cwnd_limited``); BSD-derived
    stacks of the sources' era grow it on every ACK."""
    owner_backlog: bool = False
    """A segment that reaches TCP while the socket's application is inside a call is run by that application on
    its CPU when its own work is done, before the call returns, and wakes no one (Linux ``tcp_v4_rcv`` ->
    ``tcp_add_backlog``, ``__release_sock``); off, the CPU that took it in runs it. tcpsim's Linux 4.3+ rules
    have it (validation/README.md, "The socket's owner runs what arrives during its call")."""
    read_length_at_copy: bool = False
    """A receive call copies what the receive queue holds when its copy begins, up to its length, not what it held
    when the call was entered (Linux ``tcp_recvmsg_locked`` walks ``sk_receive_queue`` once it holds the socket);
    a non-blocking reader leaves the backlog that gathers meanwhile to the call's end. tcpsim's versioned Linux rules
    have it (validation/README.md, "A receive call copies what the queue holds when its copy begins")."""
    measured_cwnd_limited: bool = False
    """With ``cwnd_validation``: whether cwnd is in use is measured by each output pass (Linux 4.3+
    ``tcp_cwnd_validate``: the pass filled cwnd, or ``tcp_tso_should_defer`` waited on it), kept per window
    with the most data out, and slow start grows cwnd while it is below twice that (``tcp_is_cwnd_limited``);
    before 4.3, an ACK grows cwnd only if the flight before it came within ``tcp_max_burst`` of cwnd."""
    limited_transmit: bool = False
    """Send a new segment on each of the first two duplicate ACKs (RFC 3042, RFC 5681 §3.2 step 1); the OS
    decides (:attr:`tcpsim.platform.OsTcp.limited_transmit`)."""
    writer_wakes_at_third: bool = False
    """A writer blocked on a full send buffer wakes once a third of it is free (Linux
    ``sk_stream_write_space``: free space at least half of what is queued), and until then copies
    nothing; False = once ``SO_SNDLOWAT`` (2048 bytes) is free (4.4BSD ``sowriteable``)."""
    wake_after_output: bool = False
    """An ACK that frees room in the send buffer transmits what it lets go before it wakes the blocked writer (Linux
    ``tcp_data_snd_check``: ``tcp_push_pending_frames``, then ``tcp_check_space``), so the wake-up's cost on that CPU
    (``CpuCost.wake_cost_s``) comes after the transmit work; False = the wake-up comes first (4.4BSD ``tcp_input``:
    ``sowwakeup`` in the ACK's processing, ``tcp_output`` at its end)."""
    writer_copies_whole_skbs: bool = False
    """A ``send`` fills the last unsent skb to the size goal whatever the buffer holds and starts a new skb
    only while the buffer has room (Linux ``tcp_sendmsg_locked``: ``tcp_xmit_size_goal``,
    ``sk_stream_memory_free``), so the queue overshoots the buffer by less than one skb; False = it copies
    exactly the free bytes. Set for a versioned Linux."""
    tx_skb_overhead_bytes: int = 0
    """With :attr:`writer_copies_whole_skbs`: what each skb of the send queue charges to the buffer beyond its
    payload (``sk_wmem_queued``, :attr:`tcpsim.platform.OsTcp.tx_skb_overhead_bytes`), the skbs counted as the
    writer builds them, in size goals; 0 = the buffer holds payload only."""
    sndbuf_autotune_max_bytes: Optional[int] = None
    """Linux send-buffer autotuning (``tcp_wmem[2]``): the buffer of a socket whose application set no
    SO_SNDBUF grows with the congestion window up to this. None = the buffer is fixed."""
    sndbuf_skb_head_bytes: int = 0
    """Linux 3.14+ (:mod:`tcpsim.protocol.linux_sndbuf`): an autotuned send buffer starts at the handshake and grows
    to 2 x max(10, cwnd) segments of ``per_mss`` bytes, the truesize of a one-segment skb with this head room
    (:attr:`tcpsim.platform.OsTcp.tx_skb_head_bytes`); 0 = the older rule: three segments at the handshake, then
    2 x cwnd in bytes."""
    rcv_window_autotune_max_bytes: Optional[int] = None
    """Linux receive autotuning (``tcp_moderate_rcvbuf``, the window part of ``tcp_rmem[2]``): the window of
    a socket whose application set no SO_RCVBUF grows to twice what the reader takes per round trip, up
    to this. None = the window is fixed."""
    sndbuf_requested_bytes: Optional[int] = None
    """What the application asked for with ``setsockopt(SO_SNDBUF)`` (None = not set); ``sndbuf_bytes`` is
    what the OS granted (:meth:`tcpsim.platform.OsTcp.kernel_buffer`). Reports show the two when they differ."""
    rcvbuf_requested_bytes: Optional[int] = None
    """What the application asked for with ``setsockopt(SO_RCVBUF)`` (None = not set)."""
    rcv_window_rule: str = "plain"
    """``plain``: the window is :attr:`max_window_bytes` less what is buffered, with RFC 1122 SWS avoidance
    (the model the calibrated profiles were fitted with); ``linux``: the kernel's own rules for the
    version given by the fields below (:mod:`tcpsim.protocol.linux_window`)."""
    adv_win_scale: int = 0
    """``linux`` rule: ``tcp_adv_win_scale`` where the kernel uses it (before 6.6)."""
    scaling_ratio_default: int = 0
    """``linux`` rule, 6.6 on: the ratio (in 1/256) a socket starts from, before it measures one from the
    segments it receives; 0 = the kernel sizes windows with :attr:`adv_win_scale`."""
    clamp_follows_ratio: bool = False
    """``linux`` rule, 6.11 on: a buffer set with SO_RCVBUF offers the measured ratio of it, not the
    starting one."""
    nomem_zero_window: bool = False
    """``linux`` rule, 6.10 on: a segment dropped because the receive queue outgrew its buffer makes the ACK sent at
    once offer a window of 0 (``ICSK_ACK_NOMEM`` in ``tcp_select_window``, "tcp: correct handling of extreme memory
    squeeze"); before, that ACK offers the window as usual."""
    end_seq_in_window: bool = False
    """``linux`` rule, 6.17 on: a segment whose end passes the window's right edge is dropped while unread data waits in
    the receive queue (``tcp_sequence``: ``TCP_INVALID_END_SEQUENCE``, "tcp: do not accept packets beyond window");
    before, only where it starts is tested."""
    ofo_grows_window: bool = False
    """``linux`` rule, 4.19 on: an out-of-order segment of a SACK flow grows ``rcv_ssthresh`` as in-order data does
    (``tcp_data_queue_ofo`` -> ``tcp_grow_window``, "tcp: properly increase rcv_ssthresh for ofo packets"); before,
    only in-order data grows it."""
    ofo_prune_rule: int = 0
    """``linux`` rule: what ``tcp_prune_ofo_queue`` drops when collapsing left the memory above the buffer: 0, the whole
    out-of-order queue (before 4.18); 1, batches of ``sk_rcvbuf / 8`` of truesize from its highest sequence down, until
    the memory fits (4.18 on, "tcp: free batches of packets in tcp_prune_ofo_queue()"); 2, the same, sparing the skbs
    before the one that asked (6.2 on, "tcp: refine tcp_prune_ofo_queue() logic")."""
    renege_rule: int = 0
    """How a SACK sender meets an ACK that advances to data it holds as SACKed (the receiver reneged, RFC 2018 §8): 0, its
    retransmission timer as it was (every stack but a versioned Linux); 1, Linux before 4.16, loss at once
    (``tcp_check_sack_reneging`` -> ``tcp_enter_loss``); 2, 4.16 on, the timer re-armed for max(srtt / 2, 10 ms)
    ("tcp: reduce spurious retransmits due to transient SACK reneging")."""
    init_rcv_wnd_segments: int = 0
    """``linux`` rule: the SYN's window is at most this many segments (10 before 4.20, 4 before 2.6.39; 0 = no cap)."""
    rx_skb_overhead_bytes: int = 832
    """``linux`` rule: ``skb->truesize - skb->len`` of a received segment (:attr:`tcpsim.platform.OsTcp.rx_skb_overhead_bytes`)."""
    rx_skb_page_bytes: int = 0
    """``linux`` rule: packets that do not fit a page are held in whole pages of this size (:attr:`tcpsim.platform.OsTcp.rx_skb_page_bytes`)."""
    rcvbuf_autotune_max_bytes: int = 0
    """``linux`` rule: ``tcp_rmem[2]``, the buffer an unset receive buffer may grow to (0 = fixed)."""
    drs_rule: int = 0
    """``linux`` rule, how an unset receive buffer grows (``tcp_rcv_space_adjust``, once a receiver round trip): 0 =
    the window twice what the application read in the round trip (2.6.7's dynamic right-sizing); 1 (4.16 on, "tcp:
    smoother receive buffer autotuning") = the buffer for 2 x read + 16 advmss, grown by twice that times the read's
    rise since the last measure (the sender's slow start); 2 (6.16 on, "tcp: receive side improvements") = the read
    less what is still queued, and no 16 advmss (``tcp_rcvbuf_grow``)."""
    wscale_space_bytes: int = 0
    """``linux`` rule: the space the window scale is chosen for (``tcp_select_initial_window``): the
    largest of the buffer, ``tcp_rmem[2]`` and ``rmem_max`` for an unset buffer, the buffer for a set one."""
    tso_rule: int = 0
    """``linux`` rule, the size of a TSO/GSO aggregate (``tcp_xmit_size_goal``, ``tcp_tso_autosize``): 0 = up
    to 64 KiB; 1 (3.12 on) = about 1 ms of the pacing rate (``tcp_update_pacing_rate``), at least two
    segments; 2 (5.18 on) = plus 64 KiB >> (min RTT >> 9 us); 3 (6.11 on) = also not cut to half the peer's
    largest window (``tcp_grow_skb`` grows the skb to what may be sent)."""
    tso_half_cwnd: bool = False
    """``linux`` rule, 3.19 on: an aggregate holds at most half the congestion window (``tcp_cwnd_test``'s
    quota, min(max(cwnd / 2, 1), cwnd - in flight) segments: "at least 2 GSO packets in flight")."""
    tso_defer_rule: int = 0
    """``linux`` rule, the TSO Nagle test (``tcp_tso_should_defer``, :mod:`tcpsim.protocol.tso_defer`): a sender
    of GSO aggregates holds a partial one for the next ACK; 0 = never (before 4.1: a deferral bounded by two
    jiffies, not modelled); 1 (4.1 on) = unless the oldest unacknowledged skb left less than half an srtt ago;
    2 (6.18 on) = unless its ACK is due in more than min(1 ms, half the srtt)."""
    tso_win_divisor: int = 3
    """``linux`` rule: ``tcp_tso_win_divisor`` of the TSO Nagle test (:attr:`tcpsim.platform.OsTcp.tso_win_divisor`)."""
    tsq_limit_bytes: int = 0
    """``linux`` rule, TCP small queues (3.6 on; 0 = none): ``tcp_limit_output_bytes``, the cap of the bytes
    a sender may have in its host's transmit path (``tcp_small_queue_check``; :attr:`tsq_rule`)."""
    tsq_rule: int = 0
    """``linux`` rule, the TSQ limit: 0 (3.6) = :attr:`tsq_limit_bytes`; 1 (3.12 on) = max(2 aggregates, pacing
    rate >> 10) at most that; 2 (6.7 on, "relax tcp_small_queue_check() when rtx queue contains a single
    skb", October 2023; the release between 6.2 and 6.8 not confirmed) = as 1, and a sender with one
    aggregate or less unacknowledged is not held."""
    pacing_rule: int = 0
    """``linux`` rule, pacing (:mod:`tcpsim.protocol.pacing`): 0 = none; 1 = each new skb leaves no sooner than the
    last one's payload at the pacing rate after it (``fq`` before 4.20); 2 (4.20 on) = by the departure time TCP
    stamps on each skb, which takes back up to half of an skb's time where the flow fell behind
    (``tcp_update_skb_after_send``). Paced: a host with the ``fq`` qdisc (3.12 on), or a socket with a
    :attr:`max_pacing_rate_bps` (4.13 on, TCP's own pacing)."""
    max_pacing_rate_bps: float = 0.0
    """``SO_MAX_PACING_RATE`` (iperf3 ``--fq-rate``) in bit/s of payload: the pacing rate is at most this (0 = no
    cap); it caps the TSO/GSO size goal and the TSQ limit that derive from the rate too."""
    congestion_control: str = "reno"
    """``reno`` or ``cubic`` (:mod:`tcpsim.protocol.cubic`, with HyStart)."""
    autocork: bool = False
    """Linux ``tcp_autocorking`` (3.14 on): a small write is held while earlier segments of the socket are
    still in the host's transmit path (``tcp_should_autocork``), so back-to-back small writes coalesce."""

    def __post_init__(self) -> None:
        check_types(self)
        _check_range("sndbuf_bytes", self.sndbuf_bytes, 1, 1 << 31, "in 1..2**31 bytes")
        _check_range("rcvbuf_bytes", self.rcvbuf_bytes, 1, 1 << 31, "in 1..2**31 bytes")
        if self.rcv_window_bytes is not None:
            _check_range("rcv_window_bytes", self.rcv_window_bytes, 1, self.rcvbuf_bytes,
                         f"in 1..rcvbuf_bytes ({self.rcvbuf_bytes})")
        if self.delack not in DELACK_RULES:
            raise ConfigError("delack", self.delack, "one of " + ", ".join(DELACK_RULES))
        if self.rcv_window_rule not in ("plain", "linux"):
            raise ConfigError("rcv_window_rule", self.rcv_window_rule, "plain or linux")
        if self.congestion_control not in CONGESTION_CONTROLS:
            raise ConfigError("congestion_control", self.congestion_control, "one of " + ", ".join(CONGESTION_CONTROLS))
        _check_range("scaling_ratio_default", self.scaling_ratio_default, 0, 255)
        _check_range("rx_skb_overhead_bytes", self.rx_skb_overhead_bytes, 0, 1 << 20)
        _check_range("rx_skb_page_bytes", self.rx_skb_page_bytes, 0, 1 << 20)
        _check_range("tx_skb_overhead_bytes", self.tx_skb_overhead_bytes, 0, 1 << 20)
        _check_range("tso_rule", self.tso_rule, 0, 3)
        _check_range("drs_rule", self.drs_rule, 0, 2)
        _check_range("tsq_limit_bytes", self.tsq_limit_bytes, 0, (1 << 31) - 1)
        _check_range("tsq_rule", self.tsq_rule, 0, 2)
        _check_range("tso_defer_rule", self.tso_defer_rule, 0, 2)
        _check_range("pacing_rule", self.pacing_rule, 0, 2)
        _check_range("max_pacing_rate_bps", self.max_pacing_rate_bps, 0.0, _MAX_PACING_BPS, _PACING_RANGE)
        _check_range("tso_win_divisor", self.tso_win_divisor, 0, (1 << 31) - 1)
        _check_range("init_rcv_wnd_segments", self.init_rcv_wnd_segments, 0, 1000)
        if self.window_update_rule not in WINDOW_UPDATE_RULES:
            raise ConfigError("window_update_rule", self.window_update_rule, "one of " + ", ".join(WINDOW_UPDATE_RULES))
        _check_range("delack_timeout_s", self.delack_timeout_s, 1e-6, 10.0, "in 1e-6..10 s")
        _check_range("deferred_acks_max", self.deferred_acks_max, 1, 1024)
        _check_range("quickack_segments", self.quickack_segments, 0, 1 << 20)
        _check_range("initial_cwnd_segments", self.initial_cwnd_segments, 1, 1000)
        _check_range("slow_start_ack_segments", self.slow_start_ack_segments, 0, 1000)
        _check_range("prr_rule", self.prr_rule, 0, 4)
        _check_range("ofo_prune_rule", self.ofo_prune_rule, 0, 2)
        _check_range("renege_rule", self.renege_rule, 0, 2)
        _check_range("comp_sack_nr", self.comp_sack_nr, 0, 255)
        _check_range("comp_sack_delay_s", self.comp_sack_delay_s, 0.0, 1.0, "in 0..1 s")
        _check_range("comp_sack_slack_s", self.comp_sack_slack_s, 0.0, 1.0, "in 0..1 s")
        _check_range("comp_sack_rtt_frac", self.comp_sack_rtt_frac, 0.01, 10.0)
        _check_range("tick_hz", self.tick_hz, 0, 10000)
        if not isinstance(self.rack_tlp, bool):
            raise ConfigError("rack_tlp", self.rack_tlp, "True (Linux 4.18+ RACK-TLP) or False")
        _check_range("min_rto_s", self.min_rto_s, 1e-6, 60.0)
        if self.naglim_bytes is not None:
            _check_range("naglim_bytes", self.naglim_bytes, 1, 1 << 31)
        _check_range("maxpsz_segments", self.maxpsz_segments, 0, 100)
        _check_range("rcv_push_wait_bytes", self.rcv_push_wait_bytes, 0, 1 << 20)
        if self.sndbuf_autotune_max_bytes is not None:
            _check_range("sndbuf_autotune_max_bytes", self.sndbuf_autotune_max_bytes, self.sndbuf_bytes, 1 << 31,
                         f"in sndbuf_bytes ({self.sndbuf_bytes})..2**31 bytes")
        _check_range("sndbuf_skb_head_bytes", self.sndbuf_skb_head_bytes, 0, 1 << 16)
        if self.rcv_window_autotune_max_bytes is not None:
            _check_range("rcv_window_autotune_max_bytes", self.rcv_window_autotune_max_bytes,
                         self.max_window_bytes, 1 << 31, f"in max_window_bytes ({self.max_window_bytes})..2**31 bytes")

    @property
    def max_window_bytes(self) -> int:
        """Largest receive window this endpoint offers at the start (64 KiB - 1 without window scaling, RFC 7323)."""
        wnd = self.rcvbuf_bytes if self.rcv_window_bytes is None else self.rcv_window_bytes
        return wnd if self.window_scaling else min(wnd, 65535)

    @property
    def window_limit_bytes(self) -> int:
        """Largest receive window this endpoint can ever offer, receive autotuning included."""
        wnd = self.rcv_window_autotune_max_bytes or self.max_window_bytes
        return wnd if self.window_scaling else min(wnd, 65535)

    @property
    def sndbuf_limit_bytes(self) -> int:
        """Largest send buffer this endpoint can ever have, send autotuning included."""
        return self.sndbuf_autotune_max_bytes or self.sndbuf_bytes

    @classmethod
    def for_os(cls, os: OsTcp | str, *, sockbuf_bytes: Optional[int] = None, sndbuf_bytes: Optional[int] = None,
               rcvbuf_bytes: Optional[int] = None, nodelay: bool = False, max_pacing_rate_bps: float = 0.0,
               **overrides) -> "TcpOptions":
        """Endpoint settings under ``os``'s rules; requested buffers go through its setsockopt semantics.

        A buffer left unset (None) starts at the OS default and, where the OS autotunes (Linux), may grow to
        its autotuning limit; a requested one is fixed, as setsockopt locks it in the kernel.
        ``max_pacing_rate_bps`` is ``SO_MAX_PACING_RATE`` (0: not set), which a Linux of 4.13 on, or of 3.12 on
        with the ``fq`` qdisc, paces the socket to (:func:`_pacing_rule`).
        """
        if isinstance(os, str):
            os = os_defaults(os)
        for name, value in (("sockbuf_bytes", sockbuf_bytes), ("sndbuf_bytes", sndbuf_bytes),
                            ("rcvbuf_bytes", rcvbuf_bytes)):
            if value is not None:
                _check_range(name, value, 1, 1 << 31, "in 1..2**31 bytes")
        snd_req = sndbuf_bytes if sndbuf_bytes is not None else sockbuf_bytes
        rcv_req = rcvbuf_bytes if rcvbuf_bytes is not None else sockbuf_bytes
        snd = os.kernel_buffer(snd_req, send=True) if snd_req is not None else os.default_sndbuf_bytes
        rcv = os.kernel_buffer(rcv_req, send=False) if rcv_req is not None else os.default_rcvbuf_bytes
        naglim = 1 if nodelay else os.naglim_bytes
        # Autotuning applies only to buffers the application left alone (SOCK_SNDBUF_LOCK, SOCK_RCVBUF_LOCK).
        snd_auto = os.sndbuf_autotune_max_bytes if snd_req is None and os.sndbuf_autotune_max_bytes > snd else None
        rcv_auto = (os.window_bytes(os.rcvbuf_autotune_max_bytes)
                    if rcv_req is None and os.rcvbuf_autotune_max_bytes > rcv else None)
        values = dict(
            sndbuf_bytes=snd, rcvbuf_bytes=rcv, rcv_window_bytes=os.window_bytes(rcv),
            nodelay=nodelay or naglim == 1, timestamps=os.timestamps, sack=os.sack,
            window_scaling=os.window_scaling, delack=os.delack, delack_timeout_s=os.delack_timeout_s,
            deferred_acks_max=os.deferred_acks_max, quickack_segments=os.quickack_segments,
            whole_message_segments=os.whole_message_segments, initial_cwnd_segments=os.initial_cwnd_segments,
            min_rto_s=os.min_rto_s, naglim_bytes=naglim, maxpsz_segments=os.maxpsz_multiplier,
            sndbuf_autotune_max_bytes=snd_auto, rcv_window_autotune_max_bytes=rcv_auto,
            cwnd_validation=os.family == "linux",
            limited_transmit=os.family == "linux" if os.limited_transmit is None else os.limited_transmit,
            half_window_beats_nagle=os.family == "bsd",
            nagle_minshall=os.family == "linux", push_at_window_edge=os.family == "solaris",
            forced_push=os.family == "linux", rcv_push_wait_bytes=os.rcv_push_wait_bytes,
            writer_wakes_at_third=os.family == "linux", wake_after_output=os.family == "linux",
            srtt_from_oldest=os.family == "linux", linux_rto=os.family == "linux",
            window_update_rule=os.family, sndbuf_requested_bytes=snd_req, rcvbuf_requested_bytes=rcv_req,
            congestion_control=os.congestion_control, autocork=os.autocorking,
        )
        if os.version:
            values.update(_linux_window_rules(os, rcv, rcv_req is None))
        rule = _pacing_rule(os, max_pacing_rate_bps)
        if rule:
            values.update(pacing_rule=rule, max_pacing_rate_bps=max_pacing_rate_bps)
        values.update(overrides)
        return cls(**values)


_MAX_PACING_BPS, _PACING_RANGE = 1e13, "0 (no cap) or up to 10 Tbit/s"
"""The range of ``SO_MAX_PACING_RATE`` in bit/s, as :class:`TcpOptions` and :func:`_pacing_rule` check it."""


def _pacing_rule(os: OsTcp, max_pacing_rate_bps: float) -> int:
    """:attr:`TcpOptions.pacing_rule` for a socket on ``os`` with that ``SO_MAX_PACING_RATE`` (0: none): paced by
    the ``fq`` qdisc from 3.12, by TCP itself for a capped socket from 4.13 (``sock_setsockopt`` sets
    ``SK_PACING_NEEDED``); stamped departure times from 4.20. A cap no kernel rule paces is refused."""
    _check_range("max_pacing_rate_bps", max_pacing_rate_bps, 0.0, _MAX_PACING_BPS, _PACING_RANGE)
    v = os.version_tuple if os.family == "linux" else ()
    paced = (os.fq_qdisc and v >= (3, 12)) or (max_pacing_rate_bps > 0.0 and v >= (4, 13))
    if max_pacing_rate_bps > 0.0 and not paced:
        raise ConfigError("max_pacing_rate_bps", max_pacing_rate_bps,
                          "set on a versioned Linux of 4.13 or later (--os linux-4.19 ...), or of 3.12 or later "
                          "with the fq qdisc: the kernels that pace a socket to SO_MAX_PACING_RATE")
    if not paced:
        return 0
    return 2 if v >= (4, 20) else 1


def _linux_window_rules(os: OsTcp, rcvbuf_bytes: int, autotuned: bool) -> dict:
    """TcpOptions fields for a versioned Linux (see :mod:`tcpsim.os_versions`)."""
    v = os.version_tuple
    rmem2 = os.rcvbuf_autotune_max_bytes if autotuned and os.rcvbuf_autotune_max_bytes > rcvbuf_bytes else 0
    ratio0 = 0
    if v >= (6, 6):
        ratio0 = DEFAULT_RATIO_6_8 if v >= (6, 8) else DEFAULT_RATIO_6_6
    return dict(
        rcv_window_rule="linux", writer_copies_whole_skbs=True, adv_win_scale=os.adv_win_scale,
        measured_cwnd_limited=v >= (4, 3), owner_backlog=v >= (4, 3), read_length_at_copy=True,
        slow_start_ack_segments=0 if v >= (3, 18) else 1,
        tick_hz=os.hz, rack_tlp=v >= (4, 18), hystart_ack_delay=v >= (5, 7),
        comp_sack_nr=os.comp_sack_nr if v >= (4, 18) else 0, comp_sack_delay_s=os.comp_sack_delay_s,
        comp_sack_slack_s=os.comp_sack_slack_s if v >= (5, 8) else 0.0,
        comp_sack_rtt_frac=os.comp_sack_rtt_percent / 100,
        prr_rule=4 if v >= (5, 19) else 3 if v >= (5, 11) else 2 if v >= (4, 3) else 1 if v >= (3, 2) else 0,
        scaling_ratio_default=ratio0,
        clamp_follows_ratio=v >= (6, 11), nomem_zero_window=v >= (6, 10), end_seq_in_window=v >= (6, 17),
        ofo_grows_window=v >= (4, 19), ofo_prune_rule=2 if v >= (6, 2) else 1 if v >= (4, 18) else 0,
        renege_rule=2 if v >= (4, 16) else 1,
        init_rcv_wnd_segments=4 if v < (2, 6, 39) else 10 if v < (4, 20) else 0,
        rx_skb_overhead_bytes=os.rx_skb_overhead_bytes, rx_skb_page_bytes=os.rx_skb_page_bytes,
        tx_skb_overhead_bytes=os.tx_skb_overhead_bytes,
        tso_rule=3 if v >= (6, 11) else 2 if v >= (5, 18) else 1 if v >= (3, 12) else 0, tso_half_cwnd=v >= (3, 19),
        tso_defer_rule=2 if v >= (6, 18) else 1 if v >= (4, 1) else 0, tso_win_divisor=os.tso_win_divisor,
        tsq_limit_bytes=os.limit_output_bytes if v >= (3, 6) else 0,
        sndbuf_skb_head_bytes=os.tx_skb_head_bytes if v >= (3, 14) else 0,
        tsq_rule=2 if v >= (6, 7) else 1 if v >= (3, 12) else 0,
        rcvbuf_autotune_max_bytes=rmem2, drs_rule=2 if v >= (6, 16) else 1 if v >= (4, 16) else 0,
        wscale_space_bytes=max(rcvbuf_bytes, os.rcvbuf_autotune_max_bytes, os.max_sockbuf_bytes) if autotuned
        else rcvbuf_bytes,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Host:
    """One end: the machine (:class:`Platform`) and the TCP settings of its sockets."""

    platform: Platform = field(default_factory=Platform)
    tcp: TcpOptions = field(default_factory=TcpOptions)

    def __post_init__(self) -> None:
        check_types(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """What the applications do.

    ``bulk``: each stream's writer calls ``send(write_bytes)`` back to back (netperf TCP_STREAM, ttcp,
    iperf, GenSink); small writes make it a message stream. ``rr``: one transaction at a time, a
    ``write_bytes`` request answered by a ``response_bytes`` reply (netperf TCP_RR).
    """

    kind: str = "bulk"
    write_bytes: int = 65536
    response_bytes: Optional[int] = None
    read_bytes: Optional[int] = None
    """Size of the reader's ``recv`` calls (None = as large as the receive buffer allows)."""
    n_streams: int = 1
    one_process: bool = False
    """The streams' applications on each host are one process (iperf3 before 3.16: one thread, one ``select``
    over every socket): it sleeps only once none of its streams can go on, and one wake-up serves them all
    (:class:`tcpsim.components.app.Process`). False: a process (or thread) a stream, as netperf and iperf2 run."""
    bidirectional: bool = False
    """Each stream also runs in the other direction (the 10 GbE report's A <-> B: totals add both ways)."""
    message_rate_hz: Optional[float] = None
    """Pace each writer to this many writes per second (None = back to back)."""
    total_bytes: Optional[int] = None
    """Each writer sends this many bytes and the run ends when all have arrived; the result is then the
    whole transfer's mean, slow start included (None = write for ever; the run stops on convergence)."""

    def __post_init__(self) -> None:
        check_types(self)
        if self.kind not in WORKLOAD_KINDS:
            raise ConfigError("workload.kind", self.kind, "one of " + ", ".join(WORKLOAD_KINDS))
        _check_range("write_bytes", self.write_bytes, 1, 1 << 30, "in 1..2**30 bytes")
        if self.response_bytes is not None:
            _check_range("response_bytes", self.response_bytes, 1, 1 << 30, "in 1..2**30 bytes")
        if self.read_bytes is not None:
            _check_range("read_bytes", self.read_bytes, 1, 1 << 30, "in 1..2**30 bytes")
        _check_range("n_streams", self.n_streams, 1, 1000, "in 1..1000")
        if self.message_rate_hz is not None:
            _check_range("message_rate_hz", self.message_rate_hz, 1e-3, 1e9)
        if self.total_bytes is not None:
            _check_range("total_bytes", self.total_bytes, 1, 1 << 50)

    @property
    def n_flows(self) -> int:
        """Connections' directions that carry data: each stream, twice when bidirectional."""
        return self.n_streams * (2 if self.bidirectional else 1)


MAX_TRACE_SEGMENTS = 1_000_000
"""Longest segment log a run keeps (``Budget.trace_limit``, ``explain --segments``): some 200 MB."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """When a run stops: converged estimate, or a budget of events, simulated time or wall time."""

    rel_tol: float = 0.01
    """Stop when the 95 % interval of the steady-state goodput is within this fraction of it."""
    min_sim_time_s: float = 0.002
    max_sim_time_s: Optional[float] = None
    """Simulated-time budget. None: what the stop rule needs for this scenario, from its round trip, loss and
    closed-form goodput (:func:`tcpsim.stopping.sim_time_needed_s`: at least 5 s and 500 round trips, at
    most an hour)."""
    max_events: int = 5_000_000
    max_wall_s: float = 60.0
    record_trace: bool = False
    """Keep a log of the run's first ``trace_limit`` segments, data and ACKs (``Result.trace``, for ``explain``)."""
    trace_limit: int = 2000
    skb_log_limit: int = 0
    """Keep the first this many packets the first connection's receiver takes in and sends, as a packet socket on
    its interface sees them: each in-order skb (a GSO aggregate whole) of a Linux receiver, and each ACK
    (``Result.skb_log``, the packets :func:`tcpsim.lab.skbtrace.summarize` reads; ``python -m tcpsim.lab.skbtrace
    --model``); 0 = none."""
    record_timeseries: bool = False
    """Sample the first connection's windows and the goodput over time (``Result.timeseries``,
    :mod:`tcpsim.timeseries`)."""
    timeseries_points: int = 1000
    """At most this many samples (the spacing doubles when they fill up)."""

    def __post_init__(self) -> None:
        check_types(self)
        _check_range("rel_tol", self.rel_tol, 1e-6, 0.5, "in 1e-6..0.5")
        _check_range("min_sim_time_s", self.min_sim_time_s, 0.0, 3600.0)
        if self.max_sim_time_s is not None:
            _check_range("max_sim_time_s", self.max_sim_time_s, 1e-6, 3600.0,
                         "in 1e-6..3600 s, or None (what the scenario needs)")
        _check_range("max_events", self.max_events, 100, 1 << 40, "in 100..2**40")
        _check_range("max_wall_s", self.max_wall_s, 0.01, 86400.0)
        _check_range("trace_limit", self.trace_limit, 0, MAX_TRACE_SEGMENTS,
                     f"in 0..{MAX_TRACE_SEGMENTS:,} (each logged segment takes some 200 bytes)")
        _check_range("skb_log_limit", self.skb_log_limit, 0, MAX_TRACE_SEGMENTS, f"in 0..{MAX_TRACE_SEGMENTS:,}")
        _check_range("timeseries_points", self.timeseries_points, 2, 1 << 20, "in 2..2**20")


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """Everything one run needs: two hosts, the link between them, the workload, a seed and a budget."""

    sender: Host = field(default_factory=Host)
    receiver: Host = field(default_factory=Host)
    link: Link = field(default_factory=Link)
    workload: Workload = field(default_factory=Workload)
    seed: int = 0
    budget: Budget = field(default_factory=Budget)

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) or self.seed < 0:
            raise ConfigError("seed", self.seed, "a whole number >= 0")
        check_types(self)
        if self._unbounded():
            raise ConfigError("link.one_way_delay_s", self.link.one_way_delay_s,
                              "> 0 on an unshaped link between ideal hosts: nothing else bounds the rate (give a "
                              "round trip or a rate, or hosts with costs)")

    def _unbounded(self) -> bool:
        """Ideal hosts, an unshaped link with no delay and no relay, unpaced writes: only the unshaped link's
        10 Tbit/s stand-in would set the rate, and the run would spend its event budget to say so."""
        link = self.link
        return (link.rate_bps == UNSHAPED_RATE_BPS and link.one_way_delay_s == 0 and not link.relay_packet_s
                and not link.relay_byte_s and not self.workload.message_rate_hz
                and not self.sender.platform.host_model_on and not self.receiver.platform.host_model_on)

    def replace(self, **changes) -> "Scenario":
        """``dataclasses.replace`` as a method, for notebooks."""
        return replace(self, **changes)

    def summary(self) -> str:
        """One line: hosts, link, buffers as granted, workload, streams and seed."""
        from .report_text import workload_text
        from .units import format_duration, format_rate, format_size

        snd, rcv = self.sender, self.receiver
        return (f"{snd.platform.name} -> {rcv.platform.name}, {format_rate(self.link.rate_bps)}, "
                f"MTU {self.link.mtu_bytes}, RTT {format_duration(2 * self.link.one_way_delay_s)}, "
                f"sndbuf {format_size(snd.tcp.sndbuf_bytes)}, rcvbuf {format_size(rcv.tcp.rcvbuf_bytes)}, "
                f"{workload_text(self)}, {self.workload.n_streams} stream(s), seed {self.seed}")

    def __repr__(self) -> str:
        """Short (the generated one runs to thousands of characters): the summary; every field is an attribute."""
        return f"<Scenario {self.summary()}>"

    def _repr_html_(self) -> str:
        """The main inputs as a table, for Jupyter."""
        from html import escape

        from .api import scenario_inputs
        from .units import format_quantity

        rows = "".join(f"<tr><td>{escape(k)}</td><td>{escape(format_quantity(k, v))}</td></tr>"
                       for k, v in scenario_inputs(self).items())
        return f"<div><b>Scenario</b> {escape(self.summary())}<table>{rows}</table></div>"
