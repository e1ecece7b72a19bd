"""FIFO servers that spend time: a CPU, a bus, one direction of a link.

All work is submitted at the current simulated time, so "start = max(now, free_at)" is an exact FIFO
queue without a process per server; the completion time is returned for the caller to schedule.
"""

from __future__ import annotations

from collections import deque

__all__ = ["Server", "LinkDirection"]


class Server:
    """A non-preemptive FIFO server (a CPU or a shared bus) with busy-time accounting."""

    __slots__ = ("name", "free_at", "busy_s")

    def __init__(self, name: str) -> None:
        self.name = name
        self.free_at = 0.0
        self.busy_s = 0.0

    def run(self, now: float, cost_s: float) -> float:
        """Queue ``cost_s`` of work at ``now``; returns when it completes."""
        start = self.free_at if self.free_at > now else now
        done = start + cost_s
        self.free_at = done
        self.busy_s += cost_s
        return done

    def busy_until(self, now: float) -> float:
        """Busy seconds accumulated up to ``now`` (work already queued beyond ``now`` is left out)."""
        ahead = self.free_at - now
        return self.busy_s - ahead if ahead > 0 else self.busy_s


class LinkDirection:
    """One direction of a full-duplex link: serialization at line rate, store-and-forward switch hops,
    propagation, a bounded queue."""

    __slots__ = ("rate_bps", "delay_s", "queue_packets", "free_at", "busy_s", "departures", "drops", "loss_frac",
                 "rng", "iface_bytes", "hops", "_hop_free_at")

    def __init__(self, rate_bps: float, delay_s: float, queue_packets: int | None, loss_frac: float = 0.0,
                 rng=None, hops: int = 0) -> None:
        self.hops = hops
        self._hop_free_at = [0.0] * hops
        """When each switch's output port on the path finishes its last frame."""
        self.loss_frac = loss_frac
        self.rng = rng
        self.iface_bytes = 0
        """Bytes an interface counter sees (Ethernet header to payload, FCS left out, as /proc/net/dev)."""
        self.rate_bps = rate_bps
        self.delay_s = delay_s
        self.queue_packets = queue_packets
        self.free_at = 0.0
        self.busy_s = 0.0
        self.departures: deque[float] = deque()
        self.drops = 0

    def send(self, now: float, ready_s: float, wire_s: float, frame_bytes: int = 0) -> float | None:
        """Serialize a frame ready at ``ready_s``; returns its arrival time at the far end, or None if dropped."""
        if self.queue_packets is not None:
            q = self.departures
            while q and q[0] <= now:
                q.popleft()
            if len(q) > self.queue_packets:
                self.drops += 1
                return None
        start = self.free_at if self.free_at > ready_s else ready_s
        end = start + wire_s
        self.free_at = end
        self.busy_s += wire_s
        self.iface_bytes += frame_bytes - 4
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

    def busy_until(self, now: float) -> float:
        ahead = self.free_at - now
        return self.busy_s - ahead if ahead > 0 else self.busy_s
