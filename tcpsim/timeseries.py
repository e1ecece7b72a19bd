"""Windows and goodput over time: a run's first connection sampled at equal intervals, in bounded memory.

Opt in with ``Budget(record_timeseries=True)`` (``explain`` does); :attr:`tcpsim.Result.timeseries` then
holds a :class:`TimeSeries`. The :class:`Recorder` reads the sending endpoint of connection 0 every
``gap`` seconds from time zero; when it holds ``Budget.timeseries_points`` samples it keeps every other
one and doubles the gap, so the samples stay equally spaced and their number bounded (between half and
all of ``timeseries_points``) however long the run. Sampling only reads state: a run with a recorder
gives the same answer as one without (only ``Result.events`` counts its wake-ups).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Recorder", "TimeSeries"]


@dataclass(frozen=True, slots=True)
class TimeSeries:
    """Equally spaced samples of one connection's sender (one entry per sample in every field)."""

    time_s: tuple[float, ...]
    """Simulated time of each sample."""
    cwnd_bytes: tuple[int, ...]
    """Congestion window (RFC 5681 cwnd)."""
    flight_bytes: tuple[int, ...]
    """Bytes sent and not yet acknowledged (SND.MAX - SND.UNA)."""
    peer_window_bytes: tuple[int, ...]
    """The receive window the receiver last advertised, as the sender holds it (SND.WND)."""
    sndbuf_used_bytes: tuple[int, ...]
    """Bytes in the send buffer: written by the application and not yet acknowledged."""
    sndbuf_bytes: tuple[int, ...]
    """The send buffer's size (Linux autotuning grows it)."""
    goodput_bps: tuple[float, ...]
    """Application bytes read at the receivers (all connections, both directions) since the previous
    sample, per second, in bit/s; 0 at the first sample."""
    stream: int = 0
    """The connection whose windows these are."""

    def __len__(self) -> int:
        return len(self.time_s)

    def columns(self) -> dict[str, tuple]:
        """Field name -> values, for ``pandas.DataFrame(ts.columns())``."""
        return {name: getattr(self, name) for name in ("time_s", "cwnd_bytes", "flight_bytes", "peer_window_bytes",
                                                        "sndbuf_used_bytes", "sndbuf_bytes", "goodput_bps")}


class Recorder:
    """Samples ``endpoint`` every ``gap_s`` on ``kernel`` into at most ``max_points`` rows (see the module)."""

    def __init__(self, kernel: Any, endpoint: Any, delivered_bytes: Callable[[], int], gap_s: float,
                 max_points: int, stream: int = 0) -> None:
        self.kernel = kernel
        self.endpoint = endpoint
        self.delivered_bytes = delivered_bytes
        self.gap_s = gap_s
        self.max_points = max(2, max_points)
        self.stream = stream
        self.rows: list[tuple[float, int, int, int, int, int, int]] = []

    def start(self) -> None:
        self._sample()

    def _sample(self) -> None:
        ep = self.endpoint
        self.rows.append((self.kernel.now, int(ep.cc.cwnd), ep.snd_max - ep.snd_una, int(ep.peer_wnd),
                          ep.written - ep.snd_una, ep.sndbuf, self.delivered_bytes()))
        if len(self.rows) >= self.max_points:
            del self.rows[1::2]  # sample 2j becomes sample j: still equally spaced, at twice the gap
            self.gap_s *= 2
        self.kernel.call_at(self.rows[-1][0] + self.gap_s, self._sample)

    def result(self) -> TimeSeries:
        rows = self.rows
        goodput = [0.0] + [(b[6] - a[6]) * 8.0 / (b[0] - a[0]) if b[0] > a[0] else 0.0 for a, b in zip(rows, rows[1:])]
        cols = list(zip(*rows)) if rows else [()] * 7
        return TimeSeries(time_s=tuple(cols[0]), cwnd_bytes=tuple(cols[1]), flight_bytes=tuple(cols[2]),
                          peer_window_bytes=tuple(cols[3]), sndbuf_used_bytes=tuple(cols[4]),
                          sndbuf_bytes=tuple(cols[5]), goodput_bps=tuple(goodput), stream=self.stream)
