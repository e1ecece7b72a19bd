"""Wire a :class:`~tcpsim.config.Scenario` into components, run it until the estimate converges, measure.

After a short warm-up (the first RTTs) the run samples its counters at equal intervals and hands them to
:class:`~tcpsim.stopping.StopRule`, which says when the 95 % interval is within ``Budget.rel_tol`` of the
mean (with the further conditions of a lossy link); a budget (events, simulated time, wall time) can end
the run first. The result says which, and measures from the end of the transient either way. A finite
transfer (``Workload.total_bytes``) instead runs to its last byte and is measured whole.
"""

from __future__ import annotations

import gc
import math
import time
from collections import deque
from typing import Callable, Optional

import numpy as np

from . import ceilings
from .config import Scenario
from .errors import ConfigError
from .platform import Platform
from .components.app import Process, Reader, RequestResponse, Writer
from .components.census import stream_totals, transactions
from .components.endpoint import BLOCK_REASONS, TcpEndpoint
from .components.host import HostRuntime
from .components.kernel import BudgetExhausted, Kernel
from .components.resources import LinkDirection, Server
from .protocol import framing
from .result import Result, StreamResult
from .stopping import SAMPLING_PLAN_S, StopRule, sim_time_needed_s
from .timeseries import Recorder

__all__ = ["run"]

_MIN_SPAN_SAMPLES = 200
"""The sample spacing is at most the time after the warm-up over this many, so a long run has enough."""
_PHYSICAL_BINDING_FRAC = 0.95
_RISING_BOUNDARIES = 3
"""Batch boundaries of the measured span at which the windows must all have risen for the run to wait."""
_HELD_BINDING_FRAC = 0.5
"""Senders held back for at least this share of the time by one TCP reason: that reason binds, whatever the
busiest (unsaturated) resource is."""


MAX_SEGMENTS_IN_FLIGHT = 1_000_000
"""Segments the windows of all connections may hold at once: each one in flight (its event, its frame, its
record for retransmission) takes about a kilobyte, so this caps a run's memory near a gigabyte."""


def segments_in_flight_max(sc: Scenario) -> int:
    """Most segments the scenario's windows can hold at once, all streams and directions together."""
    wl = sc.workload
    ts = sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps
    mss = framing.mss_bytes(sc.link.mtu_bytes, ts)
    total = 0
    pairs = [(sc.sender.tcp, sc.receiver.tcp)]
    if wl.bidirectional or wl.kind == "rr":
        pairs.append((sc.receiver.tcp, sc.sender.tcp))
    for src, dst in pairs:
        window = min(src.sndbuf_limit_bytes, dst.window_limit_bytes)
        if wl.kind == "rr":  # one request or one response at a time
            window = min(window, max(wl.write_bytes, wl.response_bytes or wl.write_bytes))
        total += wl.n_streams * (window // mss + 1)
    return total


def check_fits(sc: Scenario) -> None:
    """Refuse, before anything is built, a scenario whose windows could hold more segments in flight than
    :data:`MAX_SEGMENTS_IN_FLIGHT` (the honest answer is the limit: the run would not fit in memory)."""
    n = segments_in_flight_max(sc)
    if n > MAX_SEGMENTS_IN_FLIGHT:
        mss = framing.mss_bytes(sc.link.mtu_bytes, sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
        raise ConfigError("streams", sc.workload.n_streams,
                          f"fewer for these windows: {n:,} segments of {mss} bytes could be in flight at once, "
                          f"more than the {MAX_SEGMENTS_IN_FLIGHT:,} a run holds (about 1 KB of memory each); "
                          "use fewer streams, a larger MTU or smaller socket buffers")


def _poll() -> None:
    """Nothing: being a Python function, its call lets the interpreter run pending signal handlers
    (Ctrl-C) when the event loop is compiled (:attr:`Kernel.poll`)."""


def _base_rtt_s(sc: Scenario) -> float:
    link = sc.link
    ts = sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps
    mss = framing.mss_bytes(link.mtu_bytes, ts)
    opt = framing.tcp_option_bytes(ts)
    skb = link.skb_charged
    ser = (framing.wire_bytes(mss, opt, skb) + framing.wire_bytes(0, opt, skb)) * 8.0 / link.rate_bps
    host = 0.0
    for h in (sc.sender.platform, sc.receiver.platform):
        c = h.cpu
        host += c.per_packet_tx_s + c.per_packet_rx_s + c.per_ack_tx_s + c.per_ack_rx_s + 2 * c.per_interrupt_s
        host += h.nic.coalesce_delay_s
        host += 2 * h.bus.transfer_s(framing.frame_bytes(mss, opt))
    return 2 * link.one_way_delay_s + ser * (1 + link.switch_hops) + host


def _sim_time_needed_s(sc: Scenario, rtt_s: float) -> float:
    """The simulated-time budget of a run whose ``Budget`` leaves it to the stop rule, at the goodput the
    closed-form bounds allow (the least ceiling, and Mathis et al.'s rate on a lossy link)."""
    goodput = min(ceilings.binding_ceiling(sc)[1], ceilings.loss_estimate_bps(sc))
    wl = sc.workload
    n_flows = wl.n_flows
    finite = None if wl.total_bytes is None else wl.total_bytes * 8.0 * n_flows
    mss = framing.mss_bytes(sc.link.mtu_bytes, sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
    return sim_time_needed_s(rtt_s=rtt_s, goodput_bps=goodput, segment_bytes=mss, loss_frac=sc.link.loss_frac,
                             n_flows=n_flows, finite_bits=finite)


def _wake_draw(platform: Platform, seed: int, host_index: int) -> Callable[[], float] | None:
    """Uniform draws for one host's wake-ups (``CpuCost.wake_latency_spread``, ``wake_stall_frac``; None without
    either): a generator of their own, seeded by the scenario's seed and the host, so the link's loss draws are the
    same either way."""
    if not platform.cpu.wake_draws:
        return None
    return np.random.default_rng((seed, host_index)).random


def _gap_draws(platform: Platform, seed: int, host_index: int) -> list[Callable[[], float]] | None:
    """Uniform draws for the gaps each CPU of one host loses (``CpuCost.preempt_per_s``; None without them): a
    generator for each CPU, seeded by the scenario's seed, the host and the CPU, so no other draw changes."""
    cpu = platform.cpu
    if not cpu.gaps:
        return None
    return [np.random.default_rng((seed, host_index, 16 + i)).random for i in range(cpu.n_cpus)]


class _Run:
    """State of one run: hosts, endpoints, applications and the convergence monitor."""

    def __init__(self, sc: Scenario) -> None:
        check_fits(sc)
        self.sc = sc
        b = sc.budget
        self.kernel = Kernel(b.max_events, b.max_wall_s)
        self.kernel.poll = _poll
        self.rng = np.random.default_rng(sc.seed)
        self.trace = deque(maxlen=b.trace_limit) if b.record_trace else None
        wl = sc.workload
        n_dirs = 2 if wl.bidirectional else 1
        streams_per_host = wl.n_streams * n_dirs
        self.snd_host = HostRuntime(self.kernel, sc.sender.platform, "sender", streams_per_host,
                                    _wake_draw(sc.sender.platform, sc.seed, 1),
                                    _gap_draws(sc.sender.platform, sc.seed, 1))
        self.rcv_host = HostRuntime(self.kernel, sc.receiver.platform, "receiver", streams_per_host,
                                    _wake_draw(sc.receiver.platform, sc.seed, 2),
                                    _gap_draws(sc.receiver.platform, sc.seed, 2))
        link = sc.link
        relay = Server("relay") if link.relay_packet_s or link.relay_byte_s or link.relay_latency_byte_s else None
        fwd, rev = (LinkDirection(link.rate_bps, link.one_way_delay_s, link.queue_packets, link.loss_frac, self.rng,
                                  link.switch_hops, link.burst_bytes, relay, link.relay_packet_s, link.relay_byte_s,
                                  link.relay_latency_byte_s) for _ in range(2))
        self.links = {"forward": fwd, "reverse": rev}
        self.snd_host.link_out, self.snd_host.peer = fwd, self.rcv_host
        self.rcv_host.link_out, self.rcv_host.peer = rev, self.snd_host
        if link.rx_on_sending_cpu:
            self.snd_host.receive_on_peer_cpus()
            self.rcv_host.receive_on_peer_cpus()
        self.flows: list[tuple[str, int, TcpEndpoint, TcpEndpoint, Reader | None]] = []
        self.handshake_rtt_s = ceilings.handshake_rtt_s(sc)
        self.rr: list[RequestResponse] = []
        self.writers: list[Writer] = []
        self.processes: dict[str, Process] = {}
        """Each host's one application process, where the workload's streams share it."""
        for i in range(wl.n_streams):
            self._add_flow("forward", i, self.snd_host, self.rcv_host, sc.sender.tcp, sc.receiver.tcp)
            if wl.bidirectional:
                self._add_flow("reverse", wl.n_streams + i, self.rcv_host, self.snd_host, sc.receiver.tcp,
                               sc.sender.tcp)
        self.base_rtt_s = _base_rtt_s(sc)
        self.max_sim_time_s = _sim_time_needed_s(sc, self.base_rtt_s) if b.max_sim_time_s is None else b.max_sim_time_s
        self.recorder: Recorder | None = None
        if b.record_timeseries:
            eps = [f[k] for f in self.flows for k in (2, 3)]
            self.recorder = Recorder(self.kernel, self.flows[0][2], lambda: sum(ep.read_total for ep in eps),
                                     self.base_rtt_s / 4, b.timeseries_points, self.flows[0][1])

    def _window_bytes(self) -> int:
        """The largest swing of bytes in flight one connection can make now (autotuned buffers grow);
        many streams rarely swing together."""
        return max(min(a.sndbuf, b.rcv_window_max) for _, _, a, b, _ in self.flows)

    def _add_flow(self, direction, stream, src_host, dst_host, src_opts, dst_opts) -> None:
        wl = self.sc.workload
        link = self.sc.link
        a = TcpEndpoint(self.kernel, src_host, src_opts, dst_opts, link.mtu_bytes, link.rate_bps, stream,
                        self.trace, f"{src_host.name}#{stream}", link.skb_charged)
        b = TcpEndpoint(self.kernel, dst_host, dst_opts, src_opts, link.mtu_bytes, link.rate_bps, stream,
                        self.trace, f"{dst_host.name}#{stream}", link.skb_charged)
        a.connect(b)
        b.connect(a)
        if self.sc.budget.skb_log_limit and not self.flows:
            b.skb_log, b.skb_log_limit = [], self.sc.budget.skb_log_limit
        a.handshake_sample(self.handshake_rtt_s)
        b.handshake_sample(self.handshake_rtt_s)
        src_cpu, dst_cpu = src_host.app_cpu(stream), dst_host.app_cpu(stream)
        if wl.kind == "rr":
            rr = RequestResponse(a, b, wl.write_bytes, wl.response_bytes or wl.write_bytes, src_cpu, dst_cpu)
            self.rr.append(rr)
            self.flows.append((direction, stream, a, b, None))
            return
        interval = 1.0 / wl.message_rate_hz if wl.message_rate_hz else None
        writer = Writer(a, wl.write_bytes, src_cpu, interval, wl.total_bytes, process=self._process(src_host))
        reader = Reader(b, wl.read_bytes, dst_cpu, on_data=self._on_data if wl.total_bytes else None,
                        process=self._process(dst_host))
        self.writers.append(writer)
        self.flows.append((direction, stream, a, b, reader))

    def _process(self, host: HostRuntime) -> Optional[Process]:
        """The host's one application process where the workload's streams share it; None: one each."""
        if not self.sc.workload.one_process:
            return None
        proc = self.processes.get(host.name)
        if proc is None:
            proc = self.processes[host.name] = Process(host, one_thread=True)  # iperf3 before 3.16
        return proc

    def _on_data(self, _chunk: int) -> None:
        """A finite transfer (``Workload.total_bytes``) ends when every stream has delivered all of it."""
        total = self.sc.workload.total_bytes
        if all(f[4].delivered_bytes >= total for f in self.flows):
            self.kernel.stop()

    # --- measurement -------------------------------------------------------------------------------
    def _snapshot(self) -> dict:
        now = self.kernel.now
        wire = {k: d.sent_by(now) for k, d in self.links.items()}
        snap = {
            "t": now,
            "delivered": [f[4].delivered_bytes if f[4] else 0 for f in self.flows],
            "transactions": transactions(self.rr),
            # Frames whose bits have left the interface (not those still queued for it), data by stream.
            "segs": [sum(w[1].get(f[1], 0.0) for w in wire.values()) for f in self.flows],
            "acks": sum(w[1].get(-1, 0.0) for w in wire.values()),
            "skbs": sum(f[2].data_skbs + f[3].data_skbs for f in self.flows),
            "retx": [f[2].retransmits + f[3].retransmits for f in self.flows],
            "cpu": {h.name: [c.busy_until(now) for c in h.cpus] for h in (self.snd_host, self.rcv_host)},
            "bus": {h.name: (h.bus.busy_until(now) if h.bus else 0.0) for h in (self.snd_host, self.rcv_host)},
            "link": {k: d.busy_until(now) for k, d in self.links.items()},
            "frames": {k: w[0] for k, w in wire.items()},
            "last_read": {d: max((f[4].last_read_s for f in self.flows if f[0] == d and f[4]), default=0.0)
                          for d in self.links},
            "block": self._block_times(now),
            "rtt": [(f[2].rtt_sum_s, f[2].rtt_n) for f in self.flows],
            "drops": self._drops(),
            "hist": self._payload_hist(),
            "windows": sum(min(f[2].cc.cwnd, f[2].peer_wnd) for f in self.flows),
        }
        return snap

    def _payload_hist(self) -> dict[int, int]:
        """Data frames that crossed the wire (in either direction), by payload (after a snapshot's
        :meth:`LinkDirection.sent_by` has counted them)."""
        hist: dict[int, int] = {}
        for d in self.links.values():
            for k, v in d.sent_payloads.items():
                hist[k] = hist.get(k, 0) + v
        return hist

    def _drops(self) -> dict[str, int]:
        hosts = (self.snd_host, self.rcv_host)
        return {"link": sum(d.drops for d in self.links.values()),
                "receiver_ring": sum(h.ring_drops for h in hosts),
                "receiver_backlog": sum(h.rx_drops for h in hosts),
                "receiver_memory": sum(f[2].memory_drops + f[3].memory_drops for f in self.flows),
                "receiver_window": sum(f[2].window_drops + f[3].window_drops for f in self.flows),
                "receiver_pruned": sum(f[2].ofo_pruned + f[3].ofo_pruned for f in self.flows)}

    def _block_times(self, now: float) -> dict[str, float]:
        total = dict.fromkeys(BLOCK_REASONS, 0.0)
        for f in self.flows:
            for ep in (f[2], f[3]) if self.rr else (f[2],):
                for k, v in ep.block_time.items():
                    total[k] += v
                total[ep.block] += now - ep.block_since
        return total

    def run(self) -> Result:
        kernel, b = self.kernel, self.sc.budget
        wall0 = time.perf_counter()
        max_sim_s = self.max_sim_time_s
        # A budget the rule set spaces the samples as the fixed 5 s default did: a run that converged within it
        # stops where it did; one that had not goes on.
        plan_s = max_sim_s if b.max_sim_time_s is not None else min(max_sim_s, SAMPLING_PLAN_S)
        warmup_s = min(max(b.min_sim_time_s, 40 * self.base_rtt_s), plan_s / 4)
        first_check_s = max(warmup_s / 2, 20 * self.base_rtt_s)
        finite = self.sc.workload.total_bytes is not None and not self.rr
        loss_frac = self.sc.link.loss_frac
        min_rto_s = min(self.sc.sender.tcp.min_rto_s, self.sc.receiver.tcp.min_rto_s)
        state: dict = {"termination": None}
        rule = StopRule(rel_tol=b.rel_tol, loss_frac=loss_frac, min_rto_s=min_rto_s, n_flows=len(self.flows),
                        rr=bool(self.rr), window_bytes=self._window_bytes, window_binds=self._window_binds,
                        windows_rising=self._windows_rising)

        senders, receivers = [f[2] for f in self.flows], [f[3] for f in self.flows]
        readers = [f[4] for f in self.flows if f[4] is not None]

        def sample():
            # Equally spaced samples of the cumulative counters (the rule thins them past its bound and
            # doubles the spacing); only a sample where the warm-up can end needs the full snapshot. Delivered
            # counts transactions where the streams exchange requests; segments are the data segments sent
            # either way, retransmissions included (the frames random loss can hit), and again those sent again.
            kernel.check_wall()  # a sample of thousands of streams is slow work
            now = kernel.now
            delivered, sent, segments, again = stream_totals(senders, receivers, readers)
            rule.record((now, transactions(self.rr) if self.rr else delivered, sent, segments, again),
                        self._snapshot)
            if rule.due() and not finite and rule.converged(now):
                state["termination"] = "converged"
                kernel.stop()
                return
            if now >= max_sim_s - 1e-12:
                state["termination"] = "time_budget"
                kernel.stop()
                return
            kernel.call_in(min(rule.gap_s, max_sim_s - now + 1e-12), sample)

        def begin():
            # At least five base round trips between samples, so the first decision (forty of them) looks
            # at two hundred or more. Sampling every round trip let MSER and the batch means stop inside a
            # drift of a tenth of a second while claiming +-3 % (tests/test_engine.py,
            # test_a_converged_answer_agrees_with_a_long_run).
            rule.gap_s = min(first_check_s / 4, (plan_s - warmup_s) / _MIN_SPAN_SAMPLES)
            sample()

        kernel.call_in(warmup_s, begin)
        if self.recorder is not None:
            self.recorder.start()
        # The cyclic collector pauses while events run: a run makes no reference cycles, and with a million
        # segments in flight one full collection took seconds (a wall budget overrun) and the run 2.6x longer.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for w in self.writers:  # a first burst of writes can spend a budget already
                w.start()
            for rr in self.rr:
                rr.start()
            if not kernel.run():
                state["termination"] = "finished"
        except BudgetExhausted as exc:
            state["termination"] = exc.which
        finally:
            if collecting:
                gc.enable()
        if state["termination"] is None:
            state["termination"] = "finished"
        if finite:
            # The whole transfer, slow start included, is the answer: what it took from first byte to last.
            return self._result(self._empty_snapshot(), state["termination"], None, time.perf_counter() - wall0)
        if state["termination"] != "converged":
            rule.settle()
        snap0 = rule.snaps[rule.cut] if rule.samples else self._empty_snapshot()
        return self._result(snap0, state["termination"], rule.halfwidth, time.perf_counter() - wall0)

    def _window_binds(self, snap0: dict) -> bool:
        """Since ``snap0``: the windows (cwnd, loss recovery) held the senders half the time or more and the line
        was not saturated, so the losses drawn set the rate (:meth:`tcpsim.stopping.StopRule.halfwidth`)."""
        now = self.kernel.now
        s1 = {"block": self._block_times(now), "link": {k: d.busy_until(now) for k, d in self.links.items()}}
        dt = now - snap0["t"]
        held = self._held_fracs(snap0, s1, dt)
        return held["cwnd"] + held["recovery"] >= _HELD_BINDING_FRAC and \
            self._line_frac(snap0, s1, dt) < _PHYSICAL_BINDING_FRAC

    def _windows_rising(self, snaps: list[dict]) -> bool:
        """The senders' windows (each min(cwnd, peer window), summed) rose at every one of ``snaps``, three or
        more batch boundaries, while the forward line was not full between the first and the last: the run's
        rate may still be climbing with them (the stop rule waits)."""
        if len(snaps) < _RISING_BOUNDARIES:
            return False
        if any(later["windows"] <= earlier["windows"] for earlier, later in zip(snaps, snaps[1:])):
            return False
        dt = snaps[-1]["t"] - snaps[0]["t"]
        return dt > 0 and self._line_frac(snaps[0], snaps[-1], dt) < _PHYSICAL_BINDING_FRAC

    def _held_fracs(self, s0: dict, s1: dict, dt: float) -> dict[str, float]:
        """Share of the time between two snapshots the senders were held, by reason (per sender)."""
        n_senders = len(self.flows) * (2 if self.rr else 1)
        return {k: (s1["block"][k] - s0["block"][k]) / (dt * n_senders) for k in BLOCK_REASONS}

    def _line_frac(self, s0: dict, s1: dict, dt: float) -> float:
        """Share of the time between two snapshots the line was busy (the forward one; either, both ways)."""
        link_util = {k: min(max((s1["link"][k] - s0["link"][k]) / dt, 0.0), 1.0) for k in self.links}
        return max(link_util.values()) if self.sc.workload.bidirectional else link_util["forward"]

    def _empty_snapshot(self) -> dict:
        """The state at time zero (when a budget ends the run before the warm-up does)."""
        n = len(self.flows)
        hosts = (self.snd_host, self.rcv_host)
        return {"t": 0.0, "delivered": [0] * n, "transactions": 0, "segs": [0] * n, "acks": 0, "skbs": 0,
                "retx": [0] * n, "cpu": {h.name: [0.0] * len(h.cpus) for h in hosts},
                "bus": {h.name: 0.0 for h in hosts},
                "link": dict.fromkeys(self.links, 0.0), "frames": dict.fromkeys(self.links, 0),
                "last_read": dict.fromkeys(self.links, 0.0),
                "block": dict.fromkeys(BLOCK_REASONS, 0.0), "rtt": [(0.0, 0)] * n,
                "drops": dict.fromkeys(self._drops(), 0), "hist": {}, "windows": 0}

    def _result(self, s0: dict, termination: str, halfwidth: float | None, wall_s: float) -> Result:
        sc = self.sc
        s1 = self._snapshot()
        dt = max(s1["t"] - s0["t"], 1e-12)
        # Goodput counts the bytes read after the window opens; the window opens at the last read before it
        # (at most one full frame's serialization earlier): data read just after the start crossed the wire
        # before it, and a rate over a window not aligned on frames could read above the line rate. Where
        # the receiver holds data back and hands it up in bursts (Solaris's push), the bytes read can still
        # exceed what the wire carried in the window; the window is then taken as long as the wire needed
        # for them, since they crossed it, in part, before the window opened.
        link = sc.link
        opt = framing.tcp_option_bytes(sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
        mss = framing.mss_bytes(link.mtu_bytes, opt > 0)
        frame_s = framing.wire_bytes(mss, opt, link.skb_charged) * 8.0 / link.rate_bps
        span = {d: max(s1["t"] - max(s0["last_read"][d], s0["t"] - frame_s), 1e-12) for d in self.links}
        read = {d: sum(s1["delivered"][i] - s0["delivered"][i] for i, f in enumerate(self.flows) if f[0] == d)
                for d in self.links}
        for d in self.links:
            span[d] = max(span[d], read[d] * frame_s / mss)
        for platform in (sc.sender.platform, sc.receiver.platform):
            # Each host's bus carries every data frame, both ways (sent on one host, received on the other).
            if platform.bus.clock_hz > 0:
                bus_rate = mss / platform.bus.transfer_s(framing.frame_bytes(mss, opt))
                rate = sum(read[d] / span[d] for d in self.links)
                if rate > bus_rate:
                    span = {d: v * rate / bus_rate for d, v in span.items()}
        streams = []
        total_bits = 0.0
        for i, (direction, stream, a, b, reader) in enumerate(self.flows):
            got = (s1["delivered"][i] - s0["delivered"][i]) * 8.0
            total_bits += got * dt / span[direction]
            rtt_sum = s1["rtt"][i][0] - s0["rtt"][i][0]
            rtt_n = s1["rtt"][i][1] - s0["rtt"][i][1]
            streams.append(StreamResult(
                stream=stream, direction=direction, goodput_bps=got / span[direction],
                data_packets_per_s=(s1["segs"][i] - s0["segs"][i]) / dt,
                retransmits=s1["retx"][i] - s0["retx"][i],
                rtt_s=(rtt_sum / rtt_n) if rtt_n else (a.rto.srtt_s),
                cwnd_bytes=int(a.cc.cwnd), peer_window_bytes=int(a.peer_wnd)))
        transactions = None
        bits_per_count = 8.0
        if self.rr:
            transactions = (s1["transactions"] - s0["transactions"]) / dt
            wl = sc.workload
            per_transaction_bits = 8.0 * (wl.write_bytes + (wl.response_bytes or wl.write_bytes))
            total_bits = transactions * dt * per_transaction_bits
            bits_per_count = per_transaction_bits
        hist = {k: v - s0["hist"].get(k, 0) for k, v in s1["hist"].items() if v > s0["hist"].get(k, 0)}
        cpu_util = {}
        util: dict[str, float] = {}
        for host, role in ((self.snd_host, "sender"), (self.rcv_host, "receiver")):
            per_cpu = [min(max((b1 - b0) / dt, 0.0), 1.0) for b0, b1 in zip(s0["cpu"][host.name], s1["cpu"][host.name])]
            cpu_util[role] = per_cpu
            if host.modelled:
                util[f"cpu_{role}"] = max(per_cpu)
            if host.bus is not None:
                util[f"bus_{role}"] = min(max((s1["bus"][host.name] - s0["bus"][host.name]) / dt, 0.0), 1.0)
        util["line"] = self._line_frac(s0, s1, dt)
        block = self._held_fracs(s0, s1, dt)
        util["window"] = min(max(block["window"], 0.0), 1.0)
        util["cwnd"] = min(max(block["cwnd"], 0.0), 1.0)
        util["sndbuf"] = min(max(block["sndbuf"], 0.0), 1.0)
        util["nagle_delack"] = min(max(block["nagle"], 0.0), 1.0)
        util["application"] = min(max(block["app"], 0.0), 1.0)
        util["loss_recovery"] = min(max(block["recovery"], 0.0), 1.0)
        if self.sc.sender.tcp.max_pacing_rate_bps or self.sc.receiver.tcp.max_pacing_rate_bps:
            util["pacing"] = min(max(block["pacing"], 0.0), 1.0)
        drops = {k: v - s0["drops"][k] for k, v in s1["drops"].items()}
        retx = sum(s.retransmits for s in streams)
        # Interface byte counters (Linux /proc/net/dev counts the Ethernet header, not the FCS).
        iface = {k: (s1["frames"][k] - s0["frames"][k]) * 8.0 / dt for k in self.links}
        limited_by = _binding(util, drops, retx)
        rtts = [s.rtt_s for s in streams if s.rtt_s]
        return Result(
            goodput_bps=total_bits / dt,
            interface_bps=iface,
            data_packets_per_s=(sum(s1["segs"]) - sum(s0["segs"])) / dt,
            ack_packets_per_s=(s1["acks"] - s0["acks"]) / dt,
            data_skbs_per_s=(s1["skbs"] - s0["skbs"]) / dt,
            transactions_per_s=transactions,
            payload_histogram=dict(sorted(hist.items())),
            rtt_s=(sum(rtts) / len(rtts)) if rtts else None,
            limited_by=limited_by,
            utilization_frac=util,
            cpu_utilization_frac=cpu_util,
            retransmits=retx,
            drops=drops,
            streams=tuple(streams),
            termination=termination,
            converged=termination == "converged",
            sim_time_s=self.kernel.now,
            measure_time_s=dt,
            events=self.kernel.n_events,
            wall_s=wall_s,
            goodput_halfwidth_bps=(halfwidth * bits_per_count
                                   if halfwidth is not None and math.isfinite(halfwidth) else None),
            delivered_bytes=sum(s1["delivered"]),
            trace=tuple(self.trace) if self.trace is not None else (),
            skb_log=tuple(self.flows[0][3].skb_log or ()),
            window_shifts=({ep.name: ep.rcv_shift for f in self.flows for ep in (f[2], f[3])}
                           if self.trace is not None else {}),
            timeseries=self.recorder.result() if self.recorder is not None else None,
        )


def _binding(util: dict[str, float], drops: dict[str, int], retransmits: int) -> str:
    """The binding limit: a physical resource that is (nearly) saturated, else what held the senders."""
    physical = {k: v for k, v in util.items() if k == "line" or k.startswith(("cpu_", "bus_"))}
    if physical:
        name, frac = max(physical.items(), key=lambda kv: kv[1])
        if frac >= _PHYSICAL_BINDING_FRAC:
            return name
    if drops.get("receiver_backlog", 0) + drops.get("receiver_ring", 0) > 0 and retransmits > 0:
        return "receiver_drops"
    held = {k: util[k] for k in ("window", "cwnd", "sndbuf", "nagle_delack", "application", "loss_recovery", "pacing")
            if k in util}
    name, frac = max(held.items(), key=lambda kv: kv[1])
    if physical and frac < _HELD_BINDING_FRAC:
        pname, pfrac = max(physical.items(), key=lambda kv: kv[1])
        if pfrac > frac:
            return pname
    if name == "sndbuf":
        return "window"
    return name


def run(scenario: Scenario) -> Result:
    """Simulate ``scenario`` once; deterministic for a given seed."""
    return _Run(scenario).run()
