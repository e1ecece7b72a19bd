"""Plain-text explanation of a result: what limits it, by how much, and the one change that helps most."""

from __future__ import annotations

import math

from . import ceilings
from .config import Scenario
from .platform import BUS_PRESETS, Bus
from .protocol import framing
from .protocol.linux_sndbuf import handshake_sndbuf_bytes, per_mss_bytes
from .protocol.rto import RTO_AFTER_LOST_SYN_S, first_data_times_out
from .result import LIMIT_NAMES, Result
from .tuning.advice import buffer_plan, cap_knob
from .units import UNSHAPED_RATE_BPS, format_duration, format_mbps, format_rate, format_size

__all__ = ["advice", "describe", "granted_note", "limit_name", "line_goodput_bps", "workload_text"]

_NAMES = {**LIMIT_NAMES, "closed_form": "the closed-form bound"}

_BUDGETS = {"time_budget": ("simulated-time", "--max-time"), "event_budget": ("event", "--max-events"),
            "wall_budget": ("wall-clock", "--max-wall")}
"""A :attr:`Result.termination` that means the run did not converge: the budget it spent, in words, and the flag that
gives more of it."""


def limit_name(limit: str) -> str:
    """A limit of :data:`tcpsim.result.LIMITS` in words."""
    return _NAMES.get(limit, limit)


def _sack(sc: Scenario) -> bool:
    """Both ends permit SACK, so the connection uses it (RFC 2018 §2)."""
    return sc.sender.tcp.sack and sc.receiver.tcp.sack


def _sack_tip(sc: Scenario) -> str:
    """The SACK suggestion for a run that lost several segments of a window, where SACK is off."""
    return "" if _sack(sc) else ("; SACK on both ends (--sack on) repairs several losses of one window in about "
                                 "one round trip")


def _bus_advice(sc: Scenario, bus: Bus) -> str:
    """The next faster bus preset, the other cards' share, and jumbo frames where they are not yet on."""
    faster = [(b.raw_bps, name) for name, b in BUS_PRESETS.items() if b.clock_hz > 0 and b.raw_bps > bus.raw_bps]
    ideas = [f"a faster bus (--bus {min(faster)[1]})" if faster else "a faster bus"]
    if bus.other_load_frac > 0:
        ideas.append(f"a bus of its own (other cards take {bus.other_load_frac:.0%} of this one)")
    if sc.link.mtu_bytes < 9000:
        ideas.append("jumbo frames (--mtu 9000): fewer DMA transfers, each with its set-up time")
    return "; ".join(ideas)


def ideal_unshaped_note(flags: str = "--platform NAME, --machine FILE") -> str:
    """What an unshaped run on ideal hosts means, instead of advice sized from a 10 Tbit/s line; ``flags``: how
    the command at hand names a host."""
    return ("ideal hosts (no CPU, NIC or bus costs) on an unshaped link: nothing but the window limits them, so the "
            f"figure says nothing about a machine; name the hosts ({flags}, or the file tcpsim calibrate --lab fits "
            "for yours) to ask how fast they go")


def ideal_unshaped(sc: Scenario) -> bool:
    """An unshaped link between two ideal hosts: only the protocol's window limits the run."""
    return (sc.link.rate_bps == UNSHAPED_RATE_BPS and not sc.sender.platform.host_model_on
            and not sc.receiver.platform.host_model_on)


def _cuts(sc: Scenario) -> str:
    """What a loss does to the sender's window: CUBIC keeps 0.7 of it (RFC 9438), Reno half (RFC 5681)."""
    if sc.sender.tcp.congestion_control == "cubic":
        return "keeps cutting the congestion window to 0.7"
    return "keeps halving the congestion window"


def advice(sc: Scenario, r: Result) -> str:
    """The single change most likely to raise goodput, phrased as a tcpsim flag where there is one."""
    lim = r.limited_by
    if ideal_unshaped(sc):
        return ideal_unshaped_note()
    if lim == "cwnd" and sc.link.loss_frac > 0:
        ideas = "a cleaner path or a shorter round trip"
        if sc.link.mtu_bytes < 9000:
            ideas += ", jumbo frames (--mtu 9000: a larger MSS climbs faster)"
        return (f"random loss ({sc.link.loss_frac:g} of frames) {_cuts(sc)}, and goodput goes as MSS / (RTT x "
                f"sqrt(loss)): {ideas}, or parallel streams (--streams N), each with its own sawtooth")
    if lim == "cwnd" and r.drops.get("link"):
        return (f"the link queue overflows and {_cuts(sc)}: a deeper queue (--queue N), or socket buffers that stop "
                "the window just short of bandwidth x RTT plus the queue" + _sack_tip(sc))
    if lim == "loss_recovery":
        ideal_hosts = not (sc.sender.platform.host_model_on or sc.receiver.platform.host_model_on)
        if sc.link.loss_frac == 0 and sc.link.queue_packets is None and ideal_hosts and not any(r.drops.values()):
            # Nothing can drop a frame here: the retransmissions are timeouts that fired before the ACK returned.
            cause = ("retransmission timeouts with nothing lost (the timer expired before the ACKs came back: "
                     "the round trip outlasts the retransmission timeout)")
            fix = ("a run long enough for the round-trip estimate to settle (--max-time several round trips), or a "
                   "shorter round trip")
            return (f"the senders wait on retransmission timers ({r.retransmits:,} retransmissions in the measured run) "
                    f"from {cause}: {fix}")
        if sc.link.loss_frac > 0:
            cause, fix = f"random loss ({sc.link.loss_frac:g} of frames)", "a cleaner path"
        elif sc.link.queue_packets is not None:
            cause, fix = "overflows of the link queue", ("a deeper queue (--queue N), or socket buffers that stop "
                                                         "the window just short of bandwidth x RTT plus the queue")
        elif r.drops.get("receiver_memory", 0) > r.drops.get("receiver_ring", 0) + r.drops.get("receiver_backlog", 0):
            cause, fix = ("a receive queue above its buffer (the reader slower than the sender)",
                          "a larger receive buffer (--rcvbuf), larger reads, or a faster reader")
        else:
            cause, fix = "drops in the hosts", "longer receive rings or backlogs, or a faster receiver"
        return (f"the senders wait on the repair of losses ({r.retransmits:,} retransmissions in the measured run) "
                f"from {cause}: {fix}" + _sack_tip(sc))
    path_rtt_s = 2 * sc.link.one_way_delay_s
    if lim == "cwnd" and not r.drops.get("link") and first_data_times_out(path_rtt_s, sc.sender.tcp.min_rto_s,
                                                                         sc.sender.tcp.timestamps):
        return (f"the first data timed out before their ACK came back: the round trip ({format_duration(path_rtt_s)}) "
                f"reaches the {format_duration(RTO_AFTER_LOST_SYN_S)} timeout data start on when the SYN went out "
                "twice, untimed (RFC 6298 §5.7; Karn's rule, §3), so the congestion window fell to one segment and "
                "grows by one a round trip (RFC 5681): an OS with TCP timestamps (RFC 7323; --os linux) times the SYN "
                "and climbs in slow start; larger buffers do not help")
    if lim in ("window", "sndbuf", "cwnd"):
        # A segment sent during loss recovery is acknowledged only once the holes below it are repaired, so
        # with retransmissions the measured round trip is recovery time: size buffers by the path's instead.
        recovering = r.retransmits > 0
        rtt = ceilings.base_rtt_s(sc) if recovering else (r.rtt_s or path_rtt_s)
        target = line_goodput_bps(sc) / 8 * rtt
        size = 1 << max(12, math.ceil(math.log2(max(target * 1.25, 4096))))
        have = min(sc.sender.tcp.sndbuf_limit_bytes, sc.receiver.tcp.window_limit_bytes)
        if size <= have:
            text = (f"the socket buffers ({format_size(have)}) already cover bandwidth x RTT; the window waits on the "
                    "round trip itself")
        else:
            text = _buffer_advice(sc, size)
        if r.rtt_s and path_rtt_s > 0 and r.rtt_s > 3 * path_rtt_s:
            text += (f"; the measured round trip ({format_duration(r.rtt_s)}) is {r.rtt_s / path_rtt_s:.0f}x the "
                     "path's: ")
            if recovering:
                text += (f"ACKs wait for loss recovery ({r.retransmits:,} retransmissions in the measured run)"
                         + _sack_tip(sc))
            else:  # most of the round trip is spent in the hosts: the window waits on them, not on the wire
                text += "interrupt coalescing, delayed ACKs and host queues hold the ACKs"
        return text
    if lim == "pacing":
        cap = sc.sender.tcp.max_pacing_rate_bps
        return (f"each socket's pacing cap ({format_rate(cap)}, SO_MAX_PACING_RATE) holds its stream: a higher "
                "--max-pacing-rate (iperf3 --fq-rate), none, or more streams")
    if lim == "nagle_delack":
        return "disable Nagle on the sending socket (TCP_NODELAY): --nodelay"
    if lim == "line":
        if sc.link.mtu_bytes < 9000:
            return "the link is full: jumbo frames (--mtu 9000) carry a few % more payload per frame; else a faster link"
        return "the link is full: only a faster link (--rate) goes faster"
    if lim.startswith("cpu_"):
        host = sc.sender if lim == "cpu_sender" else sc.receiver
        ideas = []
        if sc.link.mtu_bytes < 9000:
            ideas.append("jumbo frames (--mtu 9000): fewer packets for the same bytes")
        if sc.workload.write_bytes < 65536 and lim == "cpu_sender":
            ideas.append("larger writes (--write 64k): fewer system calls")
        if sc.link.rx_on_sending_cpu and lim == "cpu_sender":
            ideas.append("on a veth the sending CPU also runs the receiver's stack: RPS on the receiving veth "
                         "(queues/rx-0/rps_cpus) moves that work to another CPU")
        if not host.platform.nic.checksum_offload and host.platform.cpu.per_byte_csum_s > 0:
            ideas.append("checksum offload")
        if host.platform.cpu.interrupts_on_one_cpu and host.platform.cpu.n_cpus > 1:
            ideas.append("spreading interrupts over the CPUs")
        elif host.platform.cpu.n_cpus > 1 and sc.workload.n_streams == 1 and sc.workload.kind != "rr":
            ideas.append("parallel streams (--streams N, iperf3 -P N): each connection's work on CPUs of its own")
        ideas.append("faster CPUs (more CPUs help only while one CPU is not the bottleneck: --cpus)")
        return "; ".join(ideas)
    if lim.startswith("bus_"):
        return _bus_advice(sc, (sc.sender if lim == "bus_sender" else sc.receiver).platform.bus)
    if lim == "receiver_drops":
        return ("a longer receive ring (ixgb RxDescriptors) or backlog (net.core.netdev_max_backlog), "
                "or a faster receiver")
    if lim == "application":
        wl = sc.workload
        if wl.kind == "rr":
            return ("each stream has one transaction in flight, so every one waits a full round trip: more "
                    "concurrent transactions (--streams N), or a shorter round trip (less interrupt coalescing, "
                    "faster hosts)")
        if wl.message_rate_hz:
            offered = wl.message_rate_hz * wl.write_bytes * 8 * wl.n_streams
            return (f"the application offers {format_rate(offered)} ({format_size(wl.write_bytes)} at "
                    f"{wl.message_rate_hz:,.0f}/s a stream): the workload, not the network, sets the rate")
        return "the application does not write fast enough: larger writes (--write) or more streams (--streams N)"
    return "no single change stands out"


def _buffer_advice(sc: Scenario, size_bytes: int) -> str:
    """Buffers of about ``size_bytes``, said so that they can be had: the flag, and before it the tuning lines that
    let the OS grant them (:func:`tcpsim.tuning.advice.buffer_plan`)."""
    plan = buffer_plan(sc, size_bytes)
    size = format_size(plan.size_bytes)
    why = "(bandwidth x RTT with margin)" if plan.size_bytes == size_bytes else "(the most without window scaling)"
    if plan.flag:
        text = f"raise the socket buffers to about {size} {why}: {plan.flag}"
    elif plan.lines:
        text = f"let autotuning grow the buffers to about {size} {why}:"
    else:
        return "; ".join(plan.notes)
    if plan.lines:
        text += (", with" if plan.flag else "") + " a --sysctl file of " + ", ".join(f"'{line}'" for line in plan.lines)
        text += " (the OS grants less without it)"
    return "; ".join([text, *plan.notes])


def _exact_size(size_bytes: int) -> str:
    """A size in KiB/MiB, or in bytes where the short form would hide a difference (262,142 B)."""
    short = format_size(size_bytes)
    return short if size_bytes < 1024 or size_bytes % 1024 == 0 else f"{size_bytes:,} B"


def granted_note(sc: Scenario) -> str:
    """Buffers the OS granted other than the application asked, and why; "" when every request held.

    Follows :meth:`~tcpsim.platform.OsTcp.kernel_buffer`: Linux caps the request at ``[wr]mem_max`` and
    doubles it (socket(7), ``sock_setsockopt``); BSD and Solaris cap it (``sbreserve``, ``tcp_max_buf``).
    """
    sides, doubles, caps = [], [], {}
    for name, host, send in (("sndbuf", sc.sender, True), ("rcvbuf", sc.receiver, False)):
        tcp, os = host.tcp, host.platform.os
        asked = tcp.sndbuf_requested_bytes if send else tcp.rcvbuf_requested_bytes
        got = tcp.sndbuf_bytes if send else tcp.rcvbuf_bytes
        if asked is None or asked == got:
            continue
        sides.append(f"{name} {_exact_size(asked)} granted {_exact_size(got)}")
        cap = os.max_sndbuf_bytes if send and os.max_sndbuf_bytes is not None else os.max_sockbuf_bytes
        if os.setsockopt_doubles and "Linux doubles the request (socket(7))" not in doubles:
            doubles.append("Linux doubles the request (socket(7))")
        if asked > cap:
            knob = cap_knob(os, send)
            knobs = caps.setdefault(cap, [])
            if knob not in knobs:
                knobs.append(knob)
    if not sides:
        return ""
    why = doubles + [f"capped {'first ' if doubles else ''}at {' and '.join(k)} = {_exact_size(c)}"
                     for c, k in caps.items()]
    return f"{', '.join(sides)}: {', '.join(why)}"


def workload_text(sc: Scenario) -> str:
    """The workload in words: bulk writes, small messages (back to back or paced), or request/response."""
    wl = sc.workload
    if wl.kind == "rr":
        resp = wl.response_bytes or wl.write_bytes
        return (f"request/response {format_size(wl.write_bytes)}"
                + (f" / {format_size(resp)}" if resp != wl.write_bytes else ""))
    pace = f" at {wl.message_rate_hz:,.0f}/s" if wl.message_rate_hz else ""
    if wl.write_bytes < framing.mss_bytes(sc.link.mtu_bytes, sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps) or pace:
        return f"{format_size(wl.write_bytes)} messages{pace or ' back to back'}"
    return f"bulk {format_size(wl.write_bytes)} writes"


def line_goodput_bps(sc: Scenario) -> float:
    """Line-rate goodput one way: the ``line`` ceiling (segment size and options as the run uses them)
    per direction, so the header and the headroom line name the same figure."""
    return ceilings.line_ceiling_bps(sc) / (2 if sc.workload.bidirectional else 1)


def _buffer(start_bytes: int, autotune_max_bytes: int | None, what: str = "", handshake_bytes: int = 0) -> str:
    """A socket buffer as the header shows it, with its autotuning limit where the OS autotunes it (and what the
    handshake made of it, where that differs)."""
    if not autotune_max_bytes:
        return format_size(start_bytes)
    grown = f"{format_size(handshake_bytes)} at the handshake, " if handshake_bytes > start_bytes else ""
    return f"{format_size(start_bytes)} (autotuned, {grown}{what}up to {format_size(autotune_max_bytes)})"


def _sndbuf_at_handshake(sc: Scenario) -> int:
    """An autotuned Linux 3.14+ send buffer after ``tcp_init_buffer_space`` (:mod:`tcpsim.protocol.linux_sndbuf`),
    as the sender's endpoint sets it; 0 where the older rule or a set buffer applies."""
    tcp = sc.sender.tcp
    cap = tcp.sndbuf_autotune_max_bytes
    if not (tcp.sndbuf_skb_head_bytes and cap):
        return 0
    ts = tcp.timestamps and sc.receiver.tcp.timestamps
    mss_clamp = framing.mss_bytes(sc.link.mtu_bytes, ts) + framing.tcp_option_bytes(ts)
    return handshake_sndbuf_bytes(tcp.sndbuf_bytes, cap, tcp.initial_cwnd_segments,
                                  per_mss_bytes(mss_clamp, tcp.sndbuf_skb_head_bytes))


_CPUS_LISTED = 4
"""The most CPUs a host's line lists by number; the rest are summed up (a 64-CPU server's line stays short)."""


def _cpus(fracs: list[float]) -> str:
    """A host's CPUs by number (``CPU0 22%, CPU1 61%``), or ``CPU 22%`` for one; of many, the busiest
    :data:`_CPUS_LISTED` that are busy at all, by number, and the busiest of the others (``16 others at most 1%``)."""
    if len(fracs) == 1:
        return f"CPU {fracs[0]:.0%}"
    if len(fracs) <= _CPUS_LISTED:
        return ", ".join(f"CPU{i} {c:.0%}" for i, c in enumerate(fracs))
    top = sorted(range(len(fracs)), key=lambda i: -fracs[i])[:_CPUS_LISTED]
    busiest = sorted([i for i in top if fracs[i] >= 0.005] or top[:1])  # an idle CPU is said in the sum
    rest = max(c for i, c in enumerate(fracs) if i not in busiest)
    listed = ", ".join(f"CPU{i} {fracs[i]:.0%}" for i in busiest)
    return f"{listed}, {len(fracs) - len(busiest)} others at most {rest:.0%}"


def _interval(r: Result) -> str:
    """The goodput's 95 % interval relative to it, never "0.0%" (an interval is never exactly zero)."""
    if r.goodput_halfwidth_bps is None or not r.goodput_bps > 0:
        return ""
    rel = r.goodput_halfwidth_bps / r.goodput_bps
    return f", goodput \u00b1{'<0.1%' if rel < 0.001 else f'{rel:.1%}'} (95 %)"


FAR_LIMIT = 10.0
"""A next limit more than this many times the goodput is "no nearby limit", not a percentage."""


def _next_limits_bps(r: Result) -> dict[str, float]:
    """Each limit's rate as the answer states it: its closed-form ceiling, except that a CPU the run kept busy is
    taken at no more than the goodput over its busiest share (a receiver 84 % busy binds near 1.19 times the
    goodput, whatever the closed form assumed about its reads and ACKs)."""
    out = dict(r.ceilings_bps)
    for k in ("cpu_sender", "cpu_receiver"):
        busy = r.utilization_frac.get(k, 0.0)
        if k in out and busy > 0.0 and r.goodput_bps > 0:
            out[k] = min(out[k], r.goodput_bps / busy)
    return out


def _headroom(sc: Scenario, r: Result) -> str | None:
    """The next limit above goodput (:func:`_next_limits_bps`); an unshaped link's 10 Tbit/s stand-in is not one."""
    unshaped = sc.link.rate_bps == UNSHAPED_RATE_BPS
    others = sorted((v, k) for k, v in _next_limits_bps(r).items()
                    if k != r.limited_by and math.isfinite(v) and v > r.goodput_bps * 1.001
                    and not (unshaped and k == "line"))
    if not others:
        return None
    v, k = others[0]
    if not r.goodput_bps > 0 or v > FAR_LIMIT * r.goodput_bps:
        return f"no nearby limit: the next, {limit_name(k)}, is at {format_mbps(v)} Mbit/s"
    gain = v / r.goodput_bps - 1
    return (f"next limit: {limit_name(k)} at {format_mbps(v)} Mbit/s"
            + (f" ({gain:+.0%} if the current limit were lifted)" if gain >= 0.005 else
               " (under 1 % above: the two limits bind together)"))


def _goodput_line(sc: Scenario, r: Result) -> str:
    """Goodput beside the line-rate goodput it is a share of; never printed above that figure as a share
    over 100 %: within the run's interval of it, it reads "at line rate"."""
    wl = sc.workload
    # Full duplex: data both ways (or requests one way and responses the other) can fill both directions.
    ways = 2 if wl.bidirectional or wl.kind == "rr" else 1
    line = line_goodput_bps(sc)
    each = " each way" if ways == 2 else ""
    head = f"goodput      {format_mbps(r.goodput_bps, 9)} Mbit/s  "  # bit/s like every rate tcpsim prints
    if sc.link.rate_bps == UNSHAPED_RATE_BPS:
        return head + ("(unshaped link, ideal hosts: the window's limit only)" if ideal_unshaped(sc)
                       else "(unshaped link: the hosts' own limit)")
    full = ways * line
    if r.goodput_bps > full:
        noise = r.goodput_halfwidth_bps or 0.0
        what = "within its interval" if r.goodput_bps - noise <= full else "above it: a model error"
        return head + f"(at line-rate goodput {format_mbps(line)} Mbit/s{each}, {what})"
    return head + f"({r.goodput_bps / full:.0%} of line-rate goodput {format_mbps(line)} Mbit/s{each})"


def describe(sc: Scenario, r: Result) -> str:
    """The short report ``tcpsim predict`` prints."""
    wl = sc.workload
    snd = sc.sender.tcp
    lines = [
        f"{sc.sender.platform.name} -> {sc.receiver.platform.name}: {format_rate(sc.link.rate_bps)}"
        f"{' over a veth pair' if sc.link.rx_on_sending_cpu else ''}, MTU {sc.link.mtu_bytes}, "
        f"RTT {format_duration(2 * sc.link.one_way_delay_s)}, "
        f"sndbuf {_buffer(snd.sndbuf_bytes, snd.sndbuf_autotune_max_bytes, '', _sndbuf_at_handshake(sc))}, "
        f"rcvbuf {_buffer(sc.receiver.tcp.rcvbuf_bytes, sc.receiver.tcp.rcv_window_autotune_max_bytes, 'window ')}, "
        f"{workload_text(sc)}, {wl.n_streams} stream(s){' both ways' if wl.bidirectional else ''}"
        f"{', TCP_NODELAY' if sc.sender.tcp.nodelay else ''}"
        f"{', SACK' if _sack(sc) else ''}",
    ]
    granted = granted_note(sc)
    if granted:
        lines.append(f"granted      {granted}")
    lines.append(_goodput_line(sc, r))
    if r.transactions_per_s is not None:
        lines.append(f"transactions {r.transactions_per_s:9,.0f} /s")
    if not math.isnan(r.data_packets_per_s):
        lines.append(f"packets      {_count(r.data_packets_per_s, 9)} data/s  {_count(r.ack_packets_per_s, 8)} ACK/s")
    dropped = {k: v for k, v in r.drops.items() if v}
    if dropped or r.retransmits:
        where = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in dropped.items()) or "none"
        lines.append(f"losses       {r.retransmits:,} retransmitted segments; drops: {where}")
    for role in ("sender", "receiver"):
        cpus = r.cpu_utilization_frac.get(role)
        bus = r.utilization_frac.get(f"bus_{role}")
        parts = []
        if cpus and any(cpus):
            parts.append(_cpus(cpus))
        if bus is not None:
            parts.append(f"bus {bus:.0%}")
        if parts:
            lines.append(f"{role:12s} " + ", ".join(parts))
    if sc.link.loss_frac > 0:
        flows = sc.workload.n_flows
        lines.append(f"loss model   {format_mbps(ceilings.loss_estimate_bps(sc), 9)} Mbit/s  Mathis et al.'s long-run average, "
                     f"MSS / RTT x {ceilings.MATHIS_C:.2f} / sqrt({sc.link.loss_frac:g}) a stream"
                     + (f", x {flows} streams" if flows > 1 else ""))
    lines.append(f"limited by   {limit_name(r.limited_by)}")
    room = _headroom(sc, r)
    if room:
        lines.append(f"headroom     {room}")
    lines.append(f"try          {r.advice or advice(sc, r)}")
    lines.append(f"run          {r.termination}, {format_duration(r.sim_time_s)} simulated, {r.events:,} events, "
                 f"{r.wall_s:.2f} s wall time{_interval(r)}")
    lines.extend(f"caution      {c}" for c in r.cautions)  # the validation's and the run's (api._explained)
    if r.termination in _BUDGETS:
        what, flag = _BUDGETS[r.termination]
        rare = _rare_loss(sc, r, flag)
        lines.append(f"caution      the {what} budget ended the run before the estimate converged: "
                     + (rare or f"read the goodput with its interval, or allow more ({flag})"))
    return "\n".join(lines)


def _count(per_s: float, width: int) -> str:
    """Packets a second: whole ones with thousands separators, three significant figures below ten (a 1 kbit/s
    link's 0.0791, not 0)."""
    return f"{per_s:{width},.0f}" if per_s == 0 or per_s >= 10 else f"{per_s:{width}.3g}"


def _rare_loss(sc: Scenario, r: Result, flag: str) -> str:
    """Why a lossy run that spent its budget could not converge, where it drew fewer random losses than the stop
    rule waits for (:func:`tcpsim.stopping.losses_needed`): its goodput is mostly that of the stretches between
    losses, and a first loss can change the steady state for good (validation/README.md, rules 165 and 166: on Linux
    it grows the receive window). When at this rate they take longer than the longest run the rule plans
    (:data:`tcpsim.stopping.MAX_AUTO_SIM_TIME_S`), no budget holds them. Empty otherwise."""
    from .stopping import MAX_AUTO_SIM_TIME_S, losses_needed

    p, pps = sc.link.loss_frac, r.data_packets_per_s
    if not (p > 0.0 and pps > 0.0 and math.isfinite(pps)):
        return ""
    needed = losses_needed(sc.workload.n_flows)
    every_s = 1.0 / (p * pps)
    if needed * every_s > MAX_AUTO_SIM_TIME_S:
        return (f"at a loss of {p:g} one comes every {format_duration(every_s)} simulated, and the stop rule "
                f"averages over {needed}: no budget holds them, so the goodput is that of the stretches between losses "
                f"(the loss model line gives the long run's where losses set the window)")
    drawn = p * pps * r.sim_time_s
    if drawn >= needed:
        return ""
    expect = (f"at a loss of {p:g} it could expect {drawn:.2g} of the {needed} random losses the stop rule averages "
              f"over (one every {format_duration(every_s)} simulated)")
    if drawn >= 1.0:
        return f"{expect}: read the goodput with its interval, or allow more ({flag}) to draw them"
    return (f"{expect}, so the goodput is most likely that of a run before any loss, and a first loss can change the steady "
            f"state for good (validation/README.md, rules 165 and 166); allow more ({flag}) to draw them")
