"""Steady-state estimation from a sampled counter: where the warm-up ends, and how sure the mean is.

A run samples a cumulative counter (bytes delivered, transactions) at equal intervals. The interval
rates start with a transient (slow start, queues filling, a first timeout) and then fluctuate around the
steady state, often with correlated swings (loss and recovery cycles). Two standard tools of
simulation output analysis answer the two questions a stopping rule needs:

- **where the transient ends**: MSER-5 (White 1997; White, Cobb and Spratt 2000): average the rates in
  batches of five and cut the prefix that minimises the squared standard error of the remaining mean;
- **how precise the mean is**: non-overlapping batch means (Law and Kelton, *Simulation Modeling and
  Analysis*, §9.5.3): split what remains into equal contiguous batches and form a Student-t interval
  from their means, which stay nearly independent when a batch is longer than the correlation time.

Pure functions on sequences, so the engine's stopping rule can be tested without a simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

import numpy as np

__all__ = ["MSER_BATCH", "N_BATCHES", "mser_cut", "batch_means_halfwidth", "correlation_inflation", "t_975",
           "Estimate", "estimate"]

MSER_BATCH = 5
N_BATCHES = 10
_T_975_9 = 2.2622
"""Student t, 97.5 % quantile, 9 degrees of freedom (``N_BATCHES`` - 1): a two-sided 95 % interval
(scipy.stats.t.ppf(0.975, 9) = 2.26216; tests check it)."""


@lru_cache(maxsize=64)
def t_975(dof: int) -> float:
    """Student t's 97.5 % quantile for ``dof`` degrees of freedom: the half-width factor of a 95 % interval.

    ``scipy.stats.t.ppf``, except for the default batch count's 9 degrees of freedom, which uses the
    table value above, so a run does not import scipy.stats (about 1.5 s).
    """
    if dof == N_BATCHES - 1:
        return _T_975_9
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def mser_cut(rates: Sequence[float], batch: int = MSER_BATCH, limit: Optional[int] = None) -> int:
    """Number of leading samples to drop as warm-up (a multiple of ``batch``), by MSER-``batch``.

    The cut is searched over the first half of the batched series only, as MSER prescribes: a cut
    later than that means the run has not reached a steady state yet, and the caller should go on.
    ``limit``: no cut beyond this many samples (where the caller knows the transient is over: MSER would
    otherwise cut a rare deep dip of the steady state, a retransmission timeout, as if it were warm-up).
    """
    m = len(rates) // batch
    if m < 2:
        return 0
    z = np.asarray(rates[:m * batch], dtype=float).reshape(m, batch).mean(axis=1)
    z = z - z.mean()  # centred, so the suffix sums below lose nothing to cancellation
    n = np.arange(m, 0, -1, dtype=float)  # samples left after cutting d = 0, 1, ... batches
    s1 = np.cumsum(z[::-1])[::-1]
    s2 = np.cumsum((z * z)[::-1])[::-1]
    stat = np.maximum(s2 - s1 * s1 / n, 0.0) / (n * n)
    stat = stat[:m // 2 + 1 if limit is None else min(m // 2, limit // batch) + 1]
    # The earliest of (numerically) equal minima: cut no more than the data ask for.
    tol = 1e-12 * (float(np.mean(z * z)) + 1e-300)
    return int(np.flatnonzero(stat <= stat.min() + tol)[0]) * batch


def batch_means_halfwidth(rates: Sequence[float], n_batches: int = N_BATCHES) -> float:
    """Half-width of a 95 % interval on the mean of ``rates`` from ``n_batches`` batch means.

    The batches are contiguous and equal; leftover samples at the front are dropped (the latest data
    are the most stationary). Infinite when there are fewer than two samples per batch.
    """
    per = len(rates) // n_batches
    if per < 2:
        return math.inf
    start = len(rates) - per * n_batches
    means = [sum(rates[start + i * per:start + (i + 1) * per]) / per for i in range(n_batches)]
    mu = sum(means) / n_batches
    var = sum((x - mu) ** 2 for x in means) / (n_batches - 1)
    return t_975(n_batches - 1) * math.sqrt(var / n_batches * correlation_inflation(means))


_MAX_LAG1 = 0.8


def correlation_inflation(means: Sequence[float]) -> float:
    """Factor on the variance of the mean of batch means that are still positively correlated.

    Batches shorter than the correlation time (a loss-recovery cycle, a retransmission timeout) leave
    neighbouring means alike, and the plain interval is too narrow: for a first-order autoregressive series
    with lag-1 correlation r the variance of the mean grows by (1 + r) / (1 - r) (Law and Kelton, §9.5.3;
    Fishman's batch-size tests look at the same statistic). r is estimated from the means and capped at
    0.8 (a factor of 9): at that point the batches are too short for any correction to be trusted.
    """
    n = len(means)
    if n < 3:
        return 1.0
    mu = sum(means) / n
    dev = [x - mu for x in means]
    den = sum(d * d for d in dev)
    if den <= 0.0:
        return 1.0
    r1 = sum(dev[i] * dev[i + 1] for i in range(n - 1)) / den
    r1 = min(r1, _MAX_LAG1)
    return (1.0 + r1) / (1.0 - r1) if r1 > 0.0 else 1.0


@dataclass(frozen=True)
class Estimate:
    """The steady-state mean rate of a counter, from sample ``start`` on, with its 95 % half-width."""

    start: int
    """Index of the first sample of the measurement (after the cut warm-up)."""
    rate: float
    halfwidth: float


def estimate(times_s: Sequence[float], counts: Sequence[float], n_batches: int = N_BATCHES,
             max_cut: Optional[int] = None) -> Estimate:
    """Steady-state rate of a cumulative counter sampled at equally spaced ``times_s``.

    The mean is the counter's growth over the kept span divided by its length (exact whatever the
    batching); the half-width comes from the batch means of the interval rates. ``max_cut``: see
    :func:`mser_cut`'s ``limit``.
    """
    if len(times_s) != len(counts) or len(times_s) < 2:
        raise ValueError("estimate needs at least two samples of equal-length times and counts")
    rates = [(counts[i + 1] - counts[i]) / (times_s[i + 1] - times_s[i]) for i in range(len(times_s) - 1)]
    cut = mser_cut(rates, limit=max_cut)
    span = times_s[-1] - times_s[cut]
    rate = (counts[-1] - counts[cut]) / span
    return Estimate(cut, rate, batch_means_halfwidth(rates[cut:], n_batches))
