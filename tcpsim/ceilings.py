"""Closed-form bounds on goodput: the simulator's cross-check and the vocabulary of "what limits it".

Two are estimates, not bounds: :func:`loss_estimate_bps`, the long-run average of a congestion window that
random loss keeps cutting (Mathis et al. 1997), and :func:`cpu_ceiling_bps`, which places each piece of work on a
fixed CPU at fixed rates where a run may do better (see there). The line, bus, window and pacing figures are
bounds.

Every function returns application goodput in bit/s for the whole scenario (all streams, both
directions when the workload is bidirectional) unless it says otherwise. No simpy here.
"""

from __future__ import annotations

import math

from .config import Host, Scenario
from .protocol import framing

__all__ = ["window_limit_bps", "base_rtt_s", "handshake_rtt_s", "line_ceiling_bps", "bus_ceiling_bps",
           "cpu_ceiling_bps", "nagle_interlock_bps", "nagle_pair_bytes", "naive_bdp_bps", "loss_estimate_bps",
           "acks_every", "segments_per_hand_up", "segments_per_aggregate", "ceilings", "binding_ceiling"]


def _timestamps(sc: Scenario) -> bool:
    return sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps


def _mss(sc: Scenario) -> int:
    return framing.mss_bytes(sc.link.mtu_bytes, _timestamps(sc))


def _payload(sc: Scenario) -> int:
    """Typical data payload: the MSS, or the message size when small messages go out one per segment."""
    mss = _mss(sc)
    wl = sc.workload
    if wl.kind == "rr" or (sc.sender.tcp.nodelay and wl.write_bytes < mss):
        return min(wl.write_bytes, mss)
    return mss


def _largest_payload(sc: Scenario) -> int:
    """The largest data payload a segment can carry in this workload: a bound on the line and the bus must
    hold however the bytes are cut, and a bulk stream's small writes fill whole segments whenever the window
    makes them wait (Nagle or not); a request or response goes alone."""
    if sc.workload.kind == "rr":
        return _payload(sc)
    return _mss(sc)


def _directions(sc: Scenario) -> int:
    return 2 if sc.workload.bidirectional else 1


def acks_every(sc: Scenario) -> float:
    """Data segments per ACK in a bulk stream under the receiver's delayed-ACK rule (RFC 1122: 2); where
    GSO aggregates arrive whole, one ACK per aggregate at most (``__tcp_ack_snd_check`` runs once per skb)."""
    tcp = sc.receiver.tcp
    if tcp.delack == "off":
        return 1.0
    if tcp.delack == "solaris":  # at most half the window (tcp_rwnd_set)
        return float(max(min(tcp.deferred_acks_max, tcp.max_window_bytes // _mss(sc) // 2), 1))
    return float(max(2, segments_per_aggregate(sc)))


def segments_per_hand_up(sc: Scenario) -> float:
    """In-order segments a receiver hands up to the socket at once (see :mod:`tcpsim.protocol.push`).

    One where the OS makes every segment readable (BSD, Linux) and for short segments; on Solaris a bulk
    stream's full segments go up at the PSH that ends each ACK-clocked burst, or at ``tcp_rcv_push_wait``.
    """
    wait = sc.receiver.tcp.rcv_push_wait_bytes
    payload = _payload(sc)
    if not wait or payload < _mss(sc):
        return 1.0
    return max(1.0, min(acks_every(sc), wait / payload))


GSO_MAX_BYTES = 65536 - 320
"""The most payload one GSO aggregate carries: ``sk_gso_max_size`` less ``MAX_TCP_HEADER``
(``tcp_tso_autosize``; :meth:`tcpsim.components.sender.TcpSender._tso_goal`)."""


def segments_per_aggregate(sc: Scenario) -> int:
    """Data segments per GSO aggregate the data sender hands down whole: the unit of per-packet CPU work on
    both ends (one ``tcp_transmit_skb`` and one ``netif_receive_skb`` per skb) where the simulation counts it
    so (platform ``nic.gso_whole`` and a versioned Linux sender; 1 elsewhere, and for small messages sent one
    per segment).

    The largest the sender's rules allow with this scenario's windows: 64 KiB less headers
    (``tcp_tso_autosize``), at most half the window in segments from 3.19 (``tcp_cwnd_test``: the cwnd is at
    most the window) and half the peer's largest window before 6.11 (``tcp_bound_to_half_wnd``). The pacing
    goal (rate >> 10) and an output pass with less to send make smaller ones, so a ceiling built on this
    stays a bound.
    """
    s = sc.sender
    if not (s.platform.nic.gso_whole and s.tcp.rcv_window_rule == "linux"):
        return 1
    mss = _mss(sc)
    if _payload(sc) < mss:
        return 1
    segs = GSO_MAX_BYTES // mss
    wnd_segs = min(s.tcp.sndbuf_limit_bytes, sc.receiver.tcp.window_limit_bytes) // mss
    if s.tcp.tso_half_cwnd or s.tcp.tso_rule < 3:
        segs = min(segs, wnd_segs >> 1)
    return max(segs, 1)


def window_limit_bps(window_bytes: float, rtt_s: float) -> float:
    """Sliding-window bound: at most one window per round trip (RFC 9293 §3.8.6; the BDP rule)."""
    return math.inf if rtt_s <= 0 else window_bytes * 8.0 / rtt_s


def _frames_path_s(sc: Scenario, payload_out: int, payload_back: int) -> float:
    """Propagation both ways, the two frames' serialization (and switch hops), and their bus transfers on
    both hosts: the part of a round trip the hosts' CPUs do not add."""
    link = sc.link
    opt = framing.tcp_option_bytes(_timestamps(sc))
    skb = link.skb_charged
    ser = (framing.wire_bytes(payload_out, opt, skb) + framing.wire_bytes(payload_back, opt, skb)) * 8.0 / link.rate_bps
    bus = 0.0
    for p in (sc.sender.platform, sc.receiver.platform):
        bus += (p.bus.transfer_s(framing.frame_bytes(payload_out, opt))
                + p.bus.transfer_s(framing.frame_bytes(payload_back, opt)))
    return 2 * link.one_way_delay_s + ser * (1 + link.switch_hops) + bus


def base_rtt_s(sc: Scenario) -> float:
    """Unloaded round trip of a full segment and its ACK: propagation, serialization (and switch hops),
    the per-packet and per-ACK CPU costs on the path, bus transfers and interrupt delays."""
    s, r = sc.sender.platform, sc.receiver.platform
    host = (s.cpu.per_packet_tx_s + r.cpu.per_packet_rx_s + r.cpu.per_ack_tx_s + s.cpu.per_ack_rx_s
            + s.cpu.per_interrupt_s + r.cpu.per_interrupt_s + r.nic.coalesce_delay_s + s.nic.coalesce_delay_s)
    return _frames_path_s(sc, _payload(sc), 0) + host


def handshake_rtt_s(sc: Scenario) -> float:
    """Idle round trip of a header-only segment and its reply (a SYN and its SYN-ACK): each connection's first
    RTT sample, taken before data flows (Linux ``tcp_ack_update_rtt`` when the SYN-ACK acknowledges the SYN,
    ``tcp_synack_rtt_meas`` on the passive side; 4.4BSD ``tcp_xmit_timer`` on the SYN-ACK; RFC 6298 §2.2).
    Propagation, serialization (and switch hops) and the relay stage both ways; on each host the send and
    receive costs of a header-only segment, an interrupt, its coalescing delay and the bus transfers."""
    link = sc.link
    frame = framing.frame_bytes(0, framing.tcp_option_bytes(_timestamps(sc)))
    relay = 2 * (link.relay_packet_s + (link.relay_byte_s + link.relay_latency_byte_s) * frame)
    host = 0.0
    for p in (sc.sender.platform, sc.receiver.platform):
        c = p.cpu
        host += c.per_ack_tx_s + c.per_ack_rx_s + c.per_interrupt_s + p.nic.coalesce_delay_s
    return _frames_path_s(sc, 0, 0) + relay + host


def line_ceiling_bps(sc: Scenario) -> float:
    """Goodput of a saturated line with the scenario's largest segments, per direction times the directions
    that carry data (requests go one way and responses the other: both, for request/response)."""
    opt = framing.tcp_option_bytes(_timestamps(sc))
    payload = _largest_payload(sc)
    ways = 2 if sc.workload.kind == "rr" else _directions(sc)
    return sc.link.rate_bps * payload / framing.wire_bytes(payload, opt, sc.link.skb_charged) * ways


def bus_ceiling_bps(sc: Scenario, host: Host) -> float:
    """Total goodput a host's bus allows: every data frame and every ACK frame crosses it (both directions
    share one bus, so for a bidirectional run the bound is on the sum)."""
    bus = host.platform.bus
    if bus.clock_hz == 0:
        return math.inf
    opt = framing.tcp_option_bytes(_timestamps(sc))
    payload = _largest_payload(sc)
    per_segment_s = bus.transfer_s(framing.frame_bytes(payload, opt)) + \
        bus.transfer_s(framing.frame_bytes(0, opt)) / acks_every(sc)
    return payload * 8.0 / per_segment_s


def _rx_stack_per_byte(sc: Scenario, host: Host, role: str) -> float:
    """CPU seconds per byte of goodput of the receive-side stack work of the frames ``host`` takes in (the
    data on the receiver, the ACKs on the sender), at ``host``'s own cost rates: what a veth runs on the
    sending host's CPU instead (``Link.rx_on_sending_cpu``, ``HostRuntime._rx_server``)."""
    p = host.platform
    c = p.cpu
    payload = _payload(sc)
    if role == "sender":
        return c.per_ack_rx_s / acks_every(sc) / payload
    k = 1.0 + c.per_stream_frac * (sc.workload.n_streams * _directions(sc) - 1)
    csum = 0.0 if p.nic.rx_checksum_offload else c.per_byte_csum_s
    return (k * c.per_packet_rx_s / segments_per_aggregate(sc) + payload * csum) / payload


def cpu_ceiling_bps(sc: Scenario, host: Host, role: str) -> float:
    """Goodput the host's CPUs allow, from the cost contract of :mod:`tcpsim.platform` (all streams).

    Work is split into the application threads' part (system calls and copies, one thread per stream)
    and the interrupt part (per-packet and per-ACK processing), placed on CPUs as the engine places
    them; the bound is the first CPU to saturate. Per-packet work is counted once per GSO aggregate where
    the simulation does (:func:`segments_per_aggregate`). On a veth (``Link.rx_on_sending_cpu``) each
    frame's receive stack work runs on the CPU that sent it: the receiver's data work on the sender's
    application CPU, the sender's ACK work on the receiver's interrupt CPU.

    An estimate, not a bound: a run can beat it where a driver's poll drains the ring without an interrupt a
    frame (NAPI), where a reader that falls behind makes the receiver ACK less often than every second segment
    (``__tcp_ack_snd_check`` waits for the window to move), where the socket owner's backlog runs receive work
    on the reader's CPU (a virtio host at 10 Gbit/s ran at 9.4 Gbit/s with this at 7.5), or where on a veth an ACK
    taken in outside the writer's call sends data from the CPU that took it in, whose receive work then runs there.
    """
    p = host.platform
    c = p.cpu
    peer, peer_role = (sc.receiver, "receiver") if role == "sender" else (sc.sender, "sender")
    veth = sc.link.rx_on_sending_cpu
    lends = veth and peer.platform.host_model_on  # our frames' receive work runs here, not there
    borrows = veth and p.host_model_on  # the peer's frames' receive work runs on our CPUs
    moved_in = _rx_stack_per_byte(sc, peer, peer_role) if borrows else 0.0
    if c.is_free and not moved_in:
        return math.inf
    wl = sc.workload
    payload = _payload(sc)
    n_streams = wl.n_streams * _directions(sc)
    k = 1.0 + c.per_stream_frac * (n_streams - 1)
    per_int = c.per_interrupt_s / p.nic.coalesce_packets
    ack_ratio = acks_every(sc)
    per_agg = segments_per_aggregate(sc)
    own_rx = 0.0 if lends else _rx_stack_per_byte(sc, host, role)
    if role == "sender":
        app_per_byte = c.per_syscall_s / wl.write_bytes + c.per_byte_copy_s + moved_in
        csum = 0.0 if p.nic.tx_checksum_offload else c.per_byte_csum_s
        irq_per_byte = (k * c.per_packet_tx_s / per_agg + payload * csum + per_int / ack_ratio) / payload + own_rx
    else:
        read = wl.read_bytes or max(host.tcp.rcvbuf_bytes // 2, payload)
        app_per_byte = c.syscall_rx_s / read + c.copy_rx_s
        irq_per_byte = (per_int + c.per_ack_tx_s / ack_ratio + c.per_push_s / segments_per_hand_up(sc)) / payload \
            + own_rx + moved_in
    n = c.n_cpus
    busy = [0.0] * n  # CPU-seconds per byte of total goodput, per CPU
    share = 1.0 / n_streams
    for i in range(n_streams):
        irq = 0 if c.interrupts_on_one_cpu else i % n
        app = 0 if n == 1 else ((1 + i % (n - 1)) if c.interrupts_on_one_cpu else (i + 1) % n)
        busy[irq] += irq_per_byte * share
        busy[app] += app_per_byte * share
    worst = max(busy)
    return math.inf if worst <= 0 else 8.0 / worst


def nagle_pair_bytes(message_bytes: int, mss_bytes: int) -> tuple[int, int] | None:
    """On-wire payloads of the Nagle / deferred-ACK cycle with whole-message segments (Sun blueprint
    Figure 8): one message, then as many whole messages as fit the MSS. None when messages fill segments."""
    if message_bytes >= mss_bytes:
        return None
    return message_bytes, (mss_bytes // message_bytes) * message_bytes


def nagle_interlock_bps(packet_rate_per_s: float, message_bytes: int, mss_bytes: int = 1460) -> float:
    """The Sun blueprint's formula: Throughput = Packet_Rate * (floor(MSS/message) + 1) * message / 2."""
    return packet_rate_per_s * (mss_bytes // message_bytes + 1) * message_bytes / 2.0 * 8.0


def naive_bdp_bps(sc: Scenario) -> float:
    """What a bandwidth-delay-product calculator says: min(line rate, socket buffer / RTT) per stream.

    RTT = twice the one-way delay; the buffer is the smaller of the sender's send and the receiver's
    receive buffer as configured. This is the baseline the validation report compares against.
    """
    rtt = 2 * sc.link.one_way_delay_s
    buf = min(sc.sender.tcp.sndbuf_bytes, sc.receiver.tcp.rcvbuf_bytes)
    per_stream = sc.link.rate_bps if rtt <= 0 else min(sc.link.rate_bps, buf * 8.0 / rtt)
    return min(per_stream * sc.workload.n_streams, sc.link.rate_bps) * _directions(sc)


MATHIS_C = math.sqrt(1.5)
"""Mathis et al.'s constant for a window that grows one segment per round trip (sqrt(3/2)): byte counting
(RFC 3465, as :class:`~tcpsim.protocol.congestion.NewReno` does) keeps that growth whatever the ACK ratio."""


def loss_estimate_bps(sc: Scenario) -> float:
    """Long-run goodput under the link's random loss: MSS / RTT x C / sqrt(p) per stream (Mathis, Semke,
    Mahdavi and Ott, "The macroscopic behavior of the TCP congestion avoidance algorithm", CCR 1997).

    The congestion window's sawtooth halves at each loss (RFC 5681 / 6582 fast recovery) and climbs one
    segment per round trip; ``p`` is the loss probability per data frame. It holds while losses are rare
    enough to be repaired by fast retransmit, not timeouts, and the window does not cap the sawtooth
    first: read it beside :func:`ceilings`, not as one of them. ``inf`` on a loss-free link.
    """
    p = sc.link.loss_frac
    if p <= 0.0:
        return math.inf
    per_stream = _mss(sc) * 8.0 / base_rtt_s(sc) * MATHIS_C / math.sqrt(p)
    return per_stream * sc.workload.n_streams * _directions(sc)


def ceilings(sc: Scenario) -> dict[str, float]:
    """Every closed-form bound, as total goodput in bit/s (inf where a resource is not modelled)."""
    rtt = base_rtt_s(sc)
    mss = _mss(sc)
    wnd = min(sc.sender.tcp.sndbuf_limit_bytes, sc.receiver.tcp.window_limit_bytes)
    whole = max((wnd // mss) * mss, min(wnd, mss))
    return {
        "line": line_ceiling_bps(sc),
        "window": window_limit_bps(whole, rtt) * sc.workload.n_streams * _directions(sc),
        "bus_sender": bus_ceiling_bps(sc, sc.sender),
        "bus_receiver": bus_ceiling_bps(sc, sc.receiver),
        "cpu_sender": cpu_ceiling_bps(sc, sc.sender, "sender"),
        "cpu_receiver": cpu_ceiling_bps(sc, sc.receiver, "receiver"),
        "pacing": pacing_ceiling_bps(sc),
    }


def pacing_ceiling_bps(sc: Scenario) -> float:
    """Goodput the sockets' pacing caps allow (``SO_MAX_PACING_RATE`` bounds each stream's payload rate,
    :mod:`tcpsim.protocol.pacing`; inf without a cap). The credit an skb takes back for time its flow fell behind
    lets a stream run above its cap only while it catches up."""
    caps = [host.tcp.max_pacing_rate_bps for host in (sc.sender, sc.receiver)[:_directions(sc)]]
    if not all(caps):
        return math.inf
    return min(caps) * sc.workload.n_streams * _directions(sc)


def binding_ceiling(sc: Scenario) -> tuple[str, float]:
    """The smallest bound and its name."""
    return min(ceilings(sc).items(), key=lambda kv: kv[1])
