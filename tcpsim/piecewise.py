"""Piecewise-linear tables: a value against a gap, and a distribution given by its quantiles.

The host model reads them at every wake-up (:class:`tcpsim.platform.CpuCost`'s wake-up latency and cost, the
latency's spread, a preempted CPU's gap lengths). Compiled with the hot path (setup.py), where the methods of a
frozen dataclass would be interpreted calls.
"""

from __future__ import annotations

__all__ = ["from_zero", "held_below", "quantile_at"]


def from_zero(points: tuple[tuple[float, float], ...], x: float) -> float:
    """The value at ``x`` of the table ``points`` ((x, value) pairs, x rising), linear from (0, 0) to the first
    point and between points, held at the last."""
    prev_x, prev_v = 0.0, 0.0
    for px, pv in points:
        if x < px:
            return prev_v + (pv - prev_v) * (x - prev_x) / (px - prev_x)
        prev_x, prev_v = px, pv
    return prev_v


def held_below(points: tuple[tuple[float, float], ...], x: float) -> float:
    """The value at ``x`` of the table ``points`` (one pair or more, x rising), held at the first value up to the
    first x and at the last past the last, linear between."""
    prev_x, prev_v = points[0]
    if x <= prev_x:
        return prev_v
    for i in range(1, len(points)):
        px, pv = points[i]
        if x < px:
            return prev_v + (pv - prev_v) * (x - prev_x) / (px - prev_x)
        prev_x, prev_v = px, pv
    return prev_v


def quantile_at(quantiles: tuple[float, ...], draw: float) -> float:
    """The value at a uniform ``draw`` in [0, 1) of a distribution given by its quantiles at the middles of equal
    steps of probability, linear between them, the ends held at the first and last."""
    x = draw * len(quantiles) - 0.5
    if x <= 0.0:
        return quantiles[0]
    i = int(x)
    if i >= len(quantiles) - 1:
        return quantiles[-1]
    return quantiles[i] + (quantiles[i + 1] - quantiles[i]) * (x - i)
