"""FIFO servers that spend time: a CPU, a bus, one direction of a link.

All work is submitted at the current simulated time, so "start = max(now, free_at)" is an exact FIFO
queue without a process per server; the completion time is returned for the caller to schedule.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable

__all__ = ["Server", "LinkDirection", "GapSchedule"]


class GapSchedule:
    """When a CPU is taken from its work, and for how long (``CpuCost.preempt_per_s``, ``preempt_s``): gaps as a
    Poisson process of ``rate_per_s`` counted from the end of the last, each as long as ``length_s(draw)``; ``draw``
    gives uniform draws in [0, 1) from the run's seeded generator for this CPU."""

    __slots__ = ("rate_per_s", "length_s", "draw")

    def __init__(self, rate_per_s: float, length_s: Callable[[float], float], draw: Callable[[], float]) -> None:
        self.rate_per_s = rate_per_s
        self.length_s = length_s
        self.draw = draw

    def next_start(self, after_s: float) -> float:
        return after_s - math.log(1.0 - self.draw()) / self.rate_per_s

    def next_length(self) -> float:
        return self.length_s(self.draw())


class Server:
    """A non-preemptive FIFO server (a CPU or a shared bus) with busy-time accounting; a CPU may also lose gaps to
    the system (:meth:`set_gaps`), which its work waits out."""

    __slots__ = ("name", "free_at", "busy_s", "gap_at", "gap_len", "gaps")

    def __init__(self, name: str) -> None:
        self.name = name
        self.free_at = 0.0
        self.busy_s = 0.0
        self.gap_at = math.inf
        """When the next gap begins (infinity: none)."""
        self.gap_len = 0.0
        self.gaps: GapSchedule | None = None

    def set_gaps(self, gaps: GapSchedule) -> None:
        """Lose the gaps ``gaps`` draws, the first counted from time 0."""
        self.gaps = gaps
        self.gap_at = gaps.next_start(0.0)
        self.gap_len = gaps.next_length()

    def run(self, now: float, cost_s: float) -> float:
        """Queue ``cost_s`` of work at ``now``; returns when it completes."""
        start = self.free_at if self.free_at > now else now
        done = start + cost_s
        if done > self.gap_at:
            done = self._through_gaps(start, cost_s)
        self.free_at = done
        self.busy_s += cost_s
        return done

    def _through_gaps(self, start: float, cost_s: float) -> float:
        """When work of ``cost_s`` that could start at ``start`` is done, waiting out the gaps it meets; gaps that
        ended before it could start are passed by."""
        gaps = self.gaps
        assert gaps is not None
        t = start
        left = cost_s
        while True:
            begin = self.gap_at
            end = begin + self.gap_len
            if begin >= t + left:
                return t + left
            if begin > t:
                left -= begin - t
            if end > t:
                t = end
            self.gap_at = gaps.next_start(end)
            self.gap_len = gaps.next_length()

    def busy_until(self, now: float) -> float:
        """Busy seconds accumulated up to ``now`` (work already queued beyond ``now`` is left out)."""
        ahead = self.free_at - now
        return self.busy_s - ahead if ahead > 0 else self.busy_s


class _Frame:
    """A frame queued for the wire or on it, until its last bit has left: one native object, where a tuple of
    its fields boxed each number (the link's per-frame bookkeeping was some 8 % of a run)."""

    __slots__ = ("end_s", "wire_s", "size", "stream", "payload")

    def __init__(self, end_s: float, wire_s: float, size: int, stream: int, payload: int) -> None:
        self.end_s = end_s
        self.wire_s = wire_s
        self.size = size
        self.stream = stream
        self.payload = payload


_COMPACT_AT = 1024
"""Frames gone from the head of :attr:`LinkDirection._on_wire` before the list drops them (in one slice)."""


class LinkDirection:
    """One direction of a full-duplex link: serialization at line rate, store-and-forward switch hops,
    propagation, a bounded queue."""

    __slots__ = ("rate_bps", "delay_s", "queue_packets", "free_at", "busy_s", "departures", "drops", "loss_frac",
                 "rng", "iface_bytes", "hops", "_hop_free_at", "_on_wire", "_gone", "sent_iface_bytes",
                 "_stream_frames", "sent_payloads", "burst_bytes", "_tokens", "_tokens_at", "relay", "relay_packet_s",
                 "relay_byte_s", "relay_latency_byte_s", "_relay_bytes", "held")

    def __init__(self, rate_bps: float, delay_s: float, queue_packets: int | None, loss_frac: float = 0.0,
                 rng=None, hops: int = 0, burst_bytes: int = 0, relay: Server | None = None,
                 relay_packet_s: float = 0.0, relay_byte_s: float = 0.0, relay_latency_byte_s: float = 0.0) -> None:
        self.relay = relay
        """The user-space relay's stage, shared with the other direction (None: no relay); see
        :attr:`tcpsim.config.Link.relay_packet_s`."""
        self.relay_packet_s = relay_packet_s
        self.relay_byte_s = relay_byte_s
        self.relay_latency_byte_s = relay_latency_byte_s
        self._relay_bytes = 0
        """Bytes of the packet the relay is taking in: a GSO aggregate's segments so far."""
        self.held = False
        """Whether the last frame sent waited for the token bucket (the qdisc's watchdog, not its sender's
        call, then releases it)."""
        self.burst_bytes = float(burst_bytes)
        """Token bucket (``tbf``): 0 = none; see :attr:`tcpsim.config.Link.burst_bytes`."""
        self._tokens = float(burst_bytes)
        self._tokens_at = 0.0
        self.hops = hops
        self._hop_free_at = [0.0] * hops
        """When each switch's output port on the path finishes its last frame."""
        self.loss_frac = loss_frac
        self.rng = rng
        self.iface_bytes = 0
        """Bytes an interface counter sees (Ethernet header to payload, FCS left out, as /proc/net/dev), counted
        when the frame is queued for the wire."""
        self._on_wire: list[_Frame] = []
        """The frames queued or on the wire, in the order they leave, from index :attr:`_gone` on (a list and an
        index: compiled, a deque's every ``popleft`` is a Python method call)."""
        self._gone = 0
        self.sent_iface_bytes = 0
        """Interface bytes of the frames whose last bit has left (what crossed the wire)."""
        self._stream_frames: list[int] = [0]
        """Frames whose last bit has left: pure ACKs at index 0, data frames of stream ``s`` at ``s + 1``."""
        self.sent_payloads: dict[int, int] = {}
        """Data frames whose last bit has left, by payload bytes."""
        self.rate_bps = rate_bps
        self.delay_s = delay_s
        self.queue_packets = queue_packets
        self.free_at = 0.0
        self.busy_s = 0.0
        self.departures: deque[float] = deque()
        self.drops = 0

    def send(self, now: float, ready_s: float, wire_s: float, frame_bytes: int = 0, stream: int = -1,
             payload_bytes: int = 0, cont: bool = False) -> float | None:
        """Serialize a frame ready at ``ready_s``; returns its arrival time at the far end, or None if dropped.

        ``stream``: the connection a data frame belongs to (-1 for a pure ACK), for :meth:`sent_by`; ``cont``:
        the frame continues a GSO aggregate, one packet for a relay on the path."""
        relay = self.relay
        if relay is not None:
            ready_s = self._through_relay(relay, ready_s, frame_bytes, cont)
        if self.queue_packets is not None:
            q = self.departures
            while q and q[0] <= now:
                q.popleft()
            if len(q) > self.queue_packets:
                self.drops += 1
                return None
        start = self.free_at if self.free_at > ready_s else ready_s
        busy = wire_s
        if self.burst_bytes > 0.0:
            ready = start
            start, wire_s = self._take_tokens(start, wire_s)
            self.held = start > ready
        end = start + wire_s
        self.free_at = end
        self.busy_s += busy
        self.iface_bytes += frame_bytes - 4
        on_wire = self._on_wire
        if self._gone < len(on_wire) and on_wire[self._gone].end_s <= now:
            self._settle(now)
        on_wire.append(_Frame(end, wire_s, frame_bytes - 4, stream, payload_bytes))
        if self.queue_packets is not None:
            self.departures.append(end)
        if self.loss_frac and self.rng.random() < self.loss_frac:
            self.drops += 1
            return None
        # A store-and-forward switch receives the whole frame, then sends it on when its output port
        # is free: a short frame cannot overtake the long one ahead of it.
        out = end
        hop_free_at = self._hop_free_at
        for i in range(self.hops):
            start = hop_free_at[i] if hop_free_at[i] > out else out
            out = hop_free_at[i] = start + wire_s
        return out + self.delay_s

    def _through_relay(self, relay: Server, ready_s: float, frame_bytes: int, cont: bool) -> float:
        """When the frame leaves the relay: it is served once the relay is free (``relay_packet_s`` for a packet,
        the first frame of an aggregate, plus ``relay_byte_s`` a byte), then takes ``relay_latency_byte_s`` a
        byte of its packet so far. The receiver takes an aggregate at its last frame, so the whole packet's."""
        if cont:
            self._relay_bytes += frame_bytes
            cost_s = frame_bytes * self.relay_byte_s
        else:
            self._relay_bytes = frame_bytes
            cost_s = self.relay_packet_s + frame_bytes * self.relay_byte_s
        return relay.run(ready_s, cost_s) + self._relay_bytes * self.relay_latency_byte_s

    def _take_tokens(self, start: float, wire_s: float) -> tuple[float, float]:
        """Linux ``tbf_dequeue``: the frame leaves once the bucket (filling at the rate, up to the burst) holds
        its bytes; it then crosses the veth at memory speed (1/1000 of its time at the shaped rate)."""
        byte_s = 8.0 / self.rate_bps
        size = wire_s / byte_s
        tokens = self._tokens + (start - self._tokens_at) / byte_s
        if tokens > self.burst_bytes:
            tokens = self.burst_bytes
        if tokens < size:
            start += (size - tokens) * byte_s
            tokens = size
        self._tokens = tokens - size
        self._tokens_at = start
        return start, wire_s * 1e-3

    def busy_until(self, now: float) -> float:
        ahead = self.free_at - now
        return self.busy_s - ahead if ahead > 0 else self.busy_s

    def _settle(self, now: float) -> None:
        """Count the frames whose last bit has left by ``now``."""
        on_wire = self._on_wire
        counts = self._stream_frames
        payloads = self.sent_payloads
        gone = self._gone
        n = len(on_wire)
        while gone < n:
            frame = on_wire[gone]
            if frame.end_s > now:
                break
            gone += 1
            self.sent_iface_bytes += frame.size
            index = frame.stream + 1
            while index >= len(counts):
                counts.append(0)
            counts[index] += 1
            payload = frame.payload
            if payload:
                payloads[payload] = payloads.get(payload, 0) + 1
        if gone >= _COMPACT_AT:
            del on_wire[:gone]
            gone = 0
        self._gone = gone

    def sent_by(self, now: float) -> tuple[float, dict[int, float]]:
        """Interface bytes, and frames by stream (pure ACKs under -1), that have crossed the wire by ``now``; the frame
        being serialized counts for the share of it sent, so a rate over any interval stays within the line rate."""
        self._settle(now)
        size = float(self.sent_iface_bytes)
        data = {i - 1: float(v) for i, v in enumerate(self._stream_frames)}
        if self._gone < len(self._on_wire):
            head = self._on_wire[self._gone]
            frac = (now - (head.end_s - head.wire_s)) / head.wire_s if head.wire_s > 0 else 0.0
            if frac > 0.0:
                size += frac * head.size
                data[head.stream] = data.get(head.stream, 0.0) + frac
        return size, data
