"""What a run returns: flat, documented numbers that print, tabulate and plot easily."""

from __future__ import annotations

import html
import math
import numbers

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from .errors import ConfigError
from .timeseries import TimeSeries
from .units import format_duration, format_rate

__all__ = ["Result", "StreamResult", "LIMITS", "LIMIT_NAMES", "json_ready"]

LIMITS = ("window", "cwnd", "sndbuf", "nagle_delack", "application", "line", "bus_sender", "bus_receiver",
          "cpu_sender", "cpu_receiver", "receiver_drops", "loss_recovery", "pacing")
"""Names ``Result.limited_by`` can take."""

LIMIT_NAMES = {
    "window": "the TCP window (socket buffers vs round-trip time)",
    "cwnd": "the congestion window",
    "sndbuf": "the send socket buffer",
    "nagle_delack": "the Nagle / delayed-ACK interlock",
    "application": "the application's write rate",
    "line": "the line rate",
    "bus_sender": "the sender's I/O bus",
    "bus_receiver": "the receiver's I/O bus",
    "cpu_sender": "the sender's CPU",
    "cpu_receiver": "the receiver's CPU",
    "receiver_drops": "receive ring or backlog drops and retransmissions",
    "loss_recovery": "loss recovery (repairing lost segments, and waiting for retransmission timers)",
    "pacing": "the socket's pacing cap (SO_MAX_PACING_RATE)",
}
"""Each of :data:`LIMITS` in words, as every printed answer names it."""


@dataclass(frozen=True, slots=True)
class StreamResult:
    """One connection in one direction."""

    stream: int
    direction: str
    """``"forward"`` (sender -> receiver) or ``"reverse"`` (bidirectional runs)."""
    goodput_bps: float
    data_packets_per_s: float
    retransmits: int
    rtt_s: Optional[float]
    cwnd_bytes: int
    peer_window_bytes: int


@dataclass(frozen=True, slots=True)
class Result:
    """Outcome of one simulated scenario; rates are over the measurement window (after warm-up)."""

    goodput_bps: float
    """Application bytes delivered per second, all streams and directions, in bit/s."""
    interface_bps: dict[str, float]
    """What interface counters report, per link direction (``forward``, ``reverse``), in bit/s: Ethernet
    header to payload, FCS left out, as Linux ``/proc/net/dev`` counts."""
    data_packets_per_s: float
    """Data segments put on the wire per second (retransmissions included)."""
    ack_packets_per_s: float
    """Pure ACKs and window updates per second."""
    transactions_per_s: Optional[float]
    """Completed request/response transactions per second (``rr`` workloads)."""
    payload_histogram: dict[int, int]
    """On-wire data payload in bytes -> number of segments sent in the measurement window."""
    rtt_s: Optional[float]
    """Mean RTT measured by the senders (ACK delay included)."""
    limited_by: str
    """The binding limit, one of :data:`LIMITS`."""
    utilization_frac: dict[str, float]
    """Each resource's busy fraction (0..1): line, buses, busiest CPU per host, and the share of time the
    senders were held by the window, cwnd, send buffer, Nagle, an idle application or loss recovery."""
    cpu_utilization_frac: dict[str, list[float]]
    """Per host (``sender``, ``receiver``), each CPU's busy fraction."""
    retransmits: int
    """Data segments sent again during the measurement."""
    drops: dict[str, int]
    """Frames lost during the measurement, ACKs included, by place: ``link`` (queue overflow or random
    loss), ``receiver_ring`` (no free receive descriptor), ``receiver_backlog`` (backlog full),
    ``receiver_memory`` (a segment a Linux receiver's memory could not take, or an in-order one at a zero window),
    ``receiver_window`` (a segment beyond the window a Linux receiver offered, dropped), ``receiver_pruned`` (an
    out-of-order segment a Linux receiver held, then dropped to make room: the SACK that reported it reneged)."""
    streams: tuple[StreamResult, ...]
    termination: str
    """``converged``, ``time_budget``, ``event_budget``, ``wall_budget`` or ``finished``."""
    converged: bool
    sim_time_s: float
    measure_time_s: float
    events: int
    wall_s: float
    """Wall-clock seconds the run took: the one field that differs between two runs of the same scenario
    and seed (:meth:`to_dict` leaves it out unless asked)."""
    goodput_halfwidth_bps: Optional[float] = None
    """Half-width of a 95 % interval on :attr:`goodput_bps` (batch means, :mod:`tcpsim.steady`); None when
    the run was too short to say."""
    data_skbs_per_s: float = math.nan
    """Data skbs the senders handed to their interfaces per second, a GSO aggregate counting once (what Linux's
    ``tx_packets`` counts on a veth, :attr:`tcpsim.lab.measure.Measured.tx_units_per_s`); without GSO it is
    :attr:`data_packets_per_s`, counted when sent rather than when on the wire. NaN where nothing was simulated."""
    delivered_bytes: int = 0
    """Application bytes the readers got from the start of the run to its end, all streams: the transient
    included, unlike :attr:`goodput_bps` (:meth:`run_average_bps`)."""
    ceilings_bps: dict[str, float] = field(default_factory=dict)
    """Closed-form bounds (:mod:`tcpsim.ceilings`), attached by :func:`tcpsim.simulate`."""
    trace: tuple = ()
    """With ``Budget.record_trace``: (time_s, endpoint, kind, seq, length, ack, window, why, push, sack) per
    segment; ``push`` is the PSH flag, ``sack`` an ACK's SACK blocks ``((start, end), ...)`` or None."""
    skb_log: tuple = ()
    """With ``Budget.skb_log_limit``: the first connection's receiver's packets, as
    :func:`tcpsim.lab.skbtrace.summarize` reads a capture's: (time_s, outgoing, 0, seq, payload_bytes, ack,
    window_bytes, False, -1), an in-order skb (a GSO aggregate whole) in, an ACK out."""
    window_shifts: dict[str, int] = field(default_factory=dict)
    """With ``Budget.record_trace``: each endpoint's RFC 7323 receive window shift, by trace name: the trace's
    windows are bytes, the TCP header's field holds ``window >> shift`` (:mod:`tcpsim.pcap`)."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """The scenario's main inputs, flat, for tables."""
    timeseries: Optional[TimeSeries] = None
    """With ``Budget.record_timeseries``: windows and goodput over time (:mod:`tcpsim.timeseries`)."""
    cautions: tuple[str, ...] = ()
    """Where to read the answer with care, attached by :func:`tcpsim.simulate`: the validation misses its regime,
    or a host's costs were not fitted to measurements of it (:func:`tcpsim.confidence.cautions`)."""
    advice: str = ""
    """The one change most likely to raise goodput, as ``tcpsim predict`` words it on its ``try`` line (a flag, or the
    tuning lines the OS needs), attached by :func:`tcpsim.simulate` (:func:`tcpsim.report_text.advice`)."""

    @property
    def goodput_mbps(self) -> float:
        return self.goodput_bps / 1e6

    def run_average_bps(self, duration_s: float) -> float:
        """The goodput a tool reports that counts the bytes read from the connection's start over ``duration_s``
        (iperf3's ``end.sum_received``, ``tcpsim lab``'s generator): the bytes read by the run's end, and
        :attr:`goodput_bps` for the rest of the duration if the run ended earlier (it stopped on the steady
        state). A run longer than the duration gives its own average over its length."""
        if isinstance(duration_s, bool) or not isinstance(duration_s, numbers.Real) \
                or not (math.isfinite(duration_s) and duration_s > 0.0):
            raise ConfigError("duration_s", duration_s, "a positive number of seconds")
        if self.sim_time_s >= duration_s:
            return self.delivered_bytes * 8.0 / self.sim_time_s
        return (self.delivered_bytes * 8.0 + self.goodput_bps * (duration_s - self.sim_time_s)) / duration_s

    @property
    def throughput_bps(self) -> float:
        """Alias of :attr:`goodput_bps` (the sources call it throughput)."""
        return self.goodput_bps

    def to_dict(self, timing: bool = False) -> dict[str, Any]:
        """A dict with stable keys that is strict JSON: an infinite or undefined number (the ceiling of a
        resource that is not modelled, a rate with nothing to count) is None. Everything in it is the same
        for the same scenario and seed; ``wall_s``, the one measured quantity, is left out unless ``timing``."""
        d = asdict(self)
        d["payload_histogram"] = {str(k): v for k, v in sorted(self.payload_histogram.items())}
        d["trace"] = [list(t) for t in self.trace]
        d["skb_log"] = [list(t) for t in self.skb_log]
        d["streams"] = [asdict(s) for s in self.streams]
        if not timing:
            del d["wall_s"]
        return json_ready(d)

    def summary(self) -> str:
        """Two lines for a terminal. Rates in bit/s (Mbit/s, Gbit/s: :func:`~tcpsim.units.format_rate`), like
        every answer tcpsim prints; bytes per second appear nowhere."""
        util = ", ".join(f"{k} {v:.0%}" for k, v in sorted(self.utilization_frac.items(), key=lambda kv: -kv[1])[:4])
        return (f"goodput {format_rate(self.goodput_bps)}, "
                f"{self.data_packets_per_s:,.0f} data pkt/s, limited by {LIMIT_NAMES.get(self.limited_by, self.limited_by)}\n"
                f"busiest: {util}; {self.termination} after {format_duration(self.sim_time_s)} simulated, "
                f"{self.events:,} events, {self.wall_s:.2f} s wall"
                + (f"\ntry: {self.advice}" if self.advice else "")
                + "".join(f"\ncaution: {c}" for c in self.cautions))

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{k}</td><td>{v:.1%}</td></tr>" for k, v in
                       sorted(self.utilization_frac.items(), key=lambda kv: -kv[1]))
        return (f"<div><b>{format_rate(self.goodput_bps)}</b>, "
                f"limited by <b>{html.escape(LIMIT_NAMES.get(self.limited_by, self.limited_by))}</b>; "
                f"{self.data_packets_per_s:,.0f} data pkt/s; "
                f"{self.termination}<table><tr><th>resource</th><th>busy</th></tr>{rows}</table>"
                + (f"<p>try: {html.escape(self.advice)}</p>" if self.advice else "")
                + "".join(f"<p>caution: {html.escape(c)}</p>" for c in self.cautions) + "</div>")


def json_ready(obj: Any) -> Any:
    """``obj`` with infinite and NaN floats as None and dict keys as strings: valid JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    return obj
