"""Packet-by-packet timeline of a scenario's first segments: who sends what, when, and why it waited.

``explain(os="solaris", message=100, message_rate=20000)`` runs the scenario with a segment trace and
returns an :class:`Explanation`: ``.text()`` is a text sequence diagram (the Sun blueprint's Figure 8
as a table), ``.cycle()`` the payload sizes the connection settles into, ``.plot()`` the figure,
``.plot_timeseries()`` the windows over time and a time-sequence plot, ``.to_pcap()`` a capture file.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from .config import Scenario
from .report_text import limit_name, workload_text
from .result import Result
from .units import format_duration, format_rate

__all__ = ["REASONS", "Explanation", "explain"]

REASONS = {
    "app": "",
    "nagle": "after a Nagle hold",
    "window": "after waiting for the peer's window",
    "cwnd": "after waiting for cwnd",
    "sndbuf": "after the send buffer filled",
    "tsq": "after TCP small queues held it",
    "pacing": "after the pacing cap held it",
    "retransmit": "retransmission",
}
"""The engine's reason a sender had been held before this segment left (trace column ``why``) -> words."""


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One segment of the trace, with the arrow direction and a reason in words."""

    time_s: float
    endpoint: str
    forward: bool
    """True when the segment goes sender -> receiver."""
    kind: str
    seq: int
    length_bytes: int
    ack: int
    window_bytes: int
    why: str
    push: bool = False
    """The PSH flag (:mod:`tcpsim.protocol.push`): a Solaris receiver hands queued data up on it."""
    sack: tuple = ()
    """SACK blocks ``((start, end), ...)`` an ACK carries (RFC 2018), latest first."""


@dataclass(frozen=True)
class Explanation:
    """A traced run: the scenario, its result, and the first ``segments`` segments on the wire."""

    scenario: Scenario
    result: Result
    segments: int

    @property
    def trace(self) -> tuple:
        """The first ``segments`` trace tuples ``(time_s, endpoint, kind, seq, length, ack, window, why, push,
        sack)``."""
        return tuple(self.result.trace[: self.segments])

    def rows(self) -> list[TraceRow]:
        """The trace with directions and reasons; an ACK's reason says what it acknowledges."""
        out: list[TraceRow] = []
        last_ack: dict[str, tuple[int, int]] = {}
        sent: dict[str, list[tuple[int, int]]] = {}
        for t, who, kind, seq, length, ack, wnd, why, push, sack in self.trace:
            who = str(who)
            host, _, stream = who.partition("#")
            peer = ("receiver" if host == "sender" else "sender") + (f"#{stream}" if stream else "")
            if kind == "data":
                sent.setdefault(who, []).append((seq, length))
                words = REASONS.get(why, why)
            else:
                prev = last_ack.get(who)
                if prev is not None and ack == prev[0]:
                    words = "window update" if wnd > prev[1] else "duplicate ACK"
                else:
                    start = prev[0] if prev is not None else 0
                    covered = [s for s in sent.get(peer, []) if start <= s[0] < ack]
                    n = len(covered)
                    words = f"acks {ack - start} B" + (f" ({n} segment{'s' if n != 1 else ''})" if n else "")
            if sack:
                words += "; SACK " + ", ".join(f"{a}-{b}" for a, b in sack)
            last_ack[who] = (ack, wnd)
            out.append(TraceRow(time_s=t, endpoint=who, forward=host == "sender", kind=kind, seq=seq,
                                length_bytes=length, ack=ack, window_bytes=wnd, why=words, push=push,
                                sack=sack or ()))
        return out

    def cycle(self, top: int | None = 3) -> list[tuple[int, int]]:
        """Most common on-wire data payloads in the measured run, as ``(payload_bytes, n_segments)``."""
        return Counter(self.result.payload_histogram).most_common(top)

    def cycle_text(self) -> str:
        """One line: the payload sizes the connection settles into, with their shares."""
        total = sum(self.result.payload_histogram.values())
        if not total:
            return "payload cycle: no data segments in the measured run"
        parts = ", ".join(f"{size} B {n / total:.0%}" for size, n in self.cycle())
        return f"payload cycle (measured run, {total:,} data segments): {parts}"

    def text(self) -> str:
        """A text sequence diagram: time in us, arrow, kind, flags (tcpdump's: ``P.`` is PSH and ACK), seq, len,
        ack, window and the reason."""
        sc, r = self.scenario, self.result
        multi = sc.workload.n_streams > 1 or sc.workload.bidirectional
        head = (f"{'time us':>10s}  {'direction':20s}  {'stream  ' if multi else ''}{'kind':4s}  {'flags':5s}  {'seq':>9s}  "
                f"{'len':>5s}  {'ack':>9s}  {'window':>7s}  why")
        lines = [self._scenario_line(), head]
        for row in self.rows():
            arrow = "sender ---> receiver" if row.forward else "sender <--- receiver"
            stream = f"{row.endpoint.partition('#')[2]:>6s}  " if multi else ""
            flags = "P." if row.push else "."
            lines.append(f"{row.time_s * 1e6:10.1f}  {arrow:20s}  {stream}{row.kind:4s}  {flags:5s}  {row.seq:9d}  "
                         f"{row.length_bytes:5d}  {row.ack:9d}  {row.window_bytes:7d}  {row.why}".rstrip())
        if len(self.trace) < self.segments:
            lines.append(f"(the run sent {len(self.trace)} segments in all)")
        lines.append(self.cycle_text())
        lines.append(f"goodput {format_rate(r.goodput_bps)}, {r.data_packets_per_s:,.0f} data segments/s, "
                     f"limited by {limit_name(r.limited_by)}")
        return "\n".join(lines)

    def _scenario_line(self) -> str:
        sc = self.scenario
        what = workload_text(sc)
        return (f"{sc.sender.platform.name} ({sc.sender.platform.os.family}) -> {sc.receiver.platform.name} "
                f"({sc.receiver.platform.os.family}): {format_rate(sc.link.rate_bps)}, MTU {sc.link.mtu_bytes}, "
                f"one-way delay {format_duration(sc.link.one_way_delay_s)}, {what}, "
                f"delayed ACK {sc.receiver.tcp.delack}{', TCP_NODELAY' if sc.sender.tcp.nodelay else ''}")

    def __str__(self) -> str:
        return self.text()

    def plot(self, ax=None, to_scale: bool = False):
        """The first segments as a Figure-8 style sequence diagram on ``ax`` (matplotlib, imported here);
        ``to_scale``: time down the page, each arrow's flight as the run's link charged its bytes (options and
        framing, :func:`tcpsim.plot.plot_sequence`). Returns the Axes."""
        from .plot import plot_sequence
        from .protocol import framing

        sc = self.scenario
        opt = framing.tcp_option_bytes(sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
        return plot_sequence(self.trace, one_way_delay_s=sc.link.one_way_delay_s, rate_bps=sc.link.rate_bps,
                             title=self._scenario_line()[:90], to_scale=to_scale, ax=ax, option_bytes=opt,
                             skb_charged=sc.link.skb_charged)

    def plot_timeseries(self, axes=None):
        """The windows and goodput over the run and a time-sequence plot of the first segments
        (:func:`tcpsim.plot.plot_explanation`); returns the three Axes."""
        from .plot import plot_explanation

        return plot_explanation(self.result.timeseries, self.trace, title=self._scenario_line()[:110], axes=axes)

    def to_pcap(self, path, snaplen: int = 65535) -> int:
        """Write the traced segments as a libpcap capture (:func:`tcpsim.pcap.write_pcap`); returns the
        number of frames written."""
        from .pcap import write_pcap

        return write_pcap(path, self.trace, self.scenario, snaplen=snaplen, window_shifts=self.result.window_shifts)


def explain(segments: int = 40, **kwargs: Any) -> Explanation:
    """Run ``build_scenario(**kwargs)`` with a segment trace and keep its first ``segments`` segments.

    Segments are data segments and ACKs in the order they left their hosts. The run goes on to
    convergence as usual, so ``.cycle()`` describes the steady state, not the start-up.
    """
    from .api import build_scenario, check_keywords, simulate
    from .errors import ConfigError

    check_keywords(kwargs)
    if isinstance(segments, bool) or not isinstance(segments, int) or not 1 <= segments <= 100_000:
        raise ConfigError("segments", segments, "a whole number in 1..100000")
    sc = build_scenario(**kwargs)
    sc = replace(sc, budget=replace(sc.budget, record_trace=True, trace_limit=segments, record_timeseries=True))
    return Explanation(scenario=sc, result=simulate(sc), segments=segments)
