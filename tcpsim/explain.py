"""Packet-by-packet timeline of a scenario's first segments: who sends what, when, and why it waited."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from .config import Scenario
from .result import Result

__all__ = ["explain", "Explanation"]

_WHY = {"app": "", "window": "held by window", "cwnd": "held by cwnd", "nagle": "after Nagle hold",
        "sndbuf": "send buffer full", "retransmit": "retransmission"}


@dataclass(frozen=True)
class Explanation:
    scenario: Scenario
    result: Result
    segments: int

    @property
    def trace(self) -> tuple:
        return self.result.trace[: self.segments]

    def cycle(self, top: int = 3) -> list[tuple[int, int]]:
        """Most common on-wire data payloads (bytes, count) in the measured run."""
        return Counter(self.result.payload_histogram).most_common(top)

    def text(self) -> str:
        """A text sequence diagram: sender on the left, receiver on the right."""
        rows = [f"{'time us':>10s}  {'sender':^24s}      {'receiver':^24s}  why"]
        for t, who, kind, seq, length, ack, wnd, why in self.trace:
            label = f"{kind} seq={seq} len={length}" if kind == "data" else f"ack={ack} win={wnd}"
            if who.startswith("sender"):
                rows.append(f"{t * 1e6:10.1f}  {label:>24s} ---> {'':24s}  {_WHY.get(why, why)}")
            else:
                rows.append(f"{t * 1e6:10.1f}  {'':24s} <--- {label:<24s}")
        cyc = ", ".join(f"{size} B x{n}" for size, n in self.cycle())
        rows.append(f"most common data payloads in the measured run: {cyc}")
        rows.append(f"goodput {self.result.goodput_bps / 1e6:.1f} Mbit/s, limited by {self.result.limited_by}")
        return "\n".join(rows)

    def plot(self):
        from .plot import plot_sequence

        return plot_sequence(self.trace)


def explain(segments: int = 40, **kwargs: Any) -> Explanation:
    """Run ``build_scenario(**kwargs)`` with tracing and keep its first ``segments`` segments."""
    from .api import build_scenario, simulate

    sc = build_scenario(**kwargs)
    sc = replace(sc, budget=replace(sc.budget, record_trace=True, trace_limit=max(segments, 1)))
    return Explanation(scenario=sc, result=simulate(sc), segments=segments)
