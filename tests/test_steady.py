"""The steady-state estimator: MSER-5 finds a transient, batch means size the interval honestly."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.steady import batch_means_halfwidth, estimate, mser_cut


def test_mser_cuts_a_low_start_and_nothing_from_a_flat_series():
    rng = np.random.default_rng(1)
    noise = rng.normal(0.0, 1.0, 400)
    ramp = np.concatenate([np.full(60, -20.0), np.zeros(340)]) + noise
    assert 55 <= mser_cut(list(ramp)) <= 70
    assert mser_cut(list(noise)) <= 20


def test_mser_never_cuts_more_than_half():
    # A series that only rises has no steady state: the cut stays in the first half.
    rates = list(range(100))
    assert mser_cut(rates) <= 50


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1e10, allow_nan=False), min_size=0, max_size=300))
def test_mser_cut_is_a_multiple_of_the_batch_within_the_first_half(rates):
    cut = mser_cut(rates)
    assert cut % 5 == 0 and 0 <= cut <= len(rates) // 2 + 5


def test_batch_means_interval_covers_the_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    hits = 0
    trials = 400
    for _ in range(trials):
        x = rng.normal(10.0, 2.0, 200)
        hw = batch_means_halfwidth(list(x))
        hits += abs(x.mean() - 10.0) <= hw
    assert 0.90 <= hits / trials <= 0.99


def test_batch_means_widens_for_correlated_samples():
    """An AR(1) series with strong correlation: batch means see it, the naive iid interval does not."""
    rng = np.random.default_rng(3)
    x = np.empty(2000)
    x[0] = 0.0
    for i in range(1, len(x)):
        x[i] = 0.95 * x[i - 1] + rng.normal()
    naive = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    assert batch_means_halfwidth(list(x)) > 2 * naive


def test_too_few_samples_give_an_infinite_halfwidth():
    assert batch_means_halfwidth([1.0] * 19) == math.inf


def test_estimate_is_the_counter_growth_over_the_kept_span():
    times = [i * 0.01 for i in range(201)]
    counts = [0.0]
    for i in range(200):
        counts.append(counts[-1] + (1.0 if i < 40 else 5.0) * 0.01)
    est = estimate(times, counts)
    assert 35 <= est.start <= 45
    assert est.rate == pytest.approx((counts[-1] - counts[est.start]) / (times[-1] - times[est.start]))
    assert est.halfwidth == pytest.approx(0.0, abs=1e-9)


def test_estimate_rejects_mismatched_or_short_input():
    with pytest.raises(ValueError):
        estimate([0.0], [0.0])
    with pytest.raises(ValueError):
        estimate([0.0, 1.0], [0.0])


def test_a_limit_keeps_a_deep_dip_of_the_steady_state_in_the_measurement():
    """A timeout-like stall (zero rate for 35 samples) after the transient: plain MSER cuts it as warm-up and
    leaves a mean above the series'; with the caller's limit (the transient is known to be over) it stays."""
    rng = np.random.default_rng(5)
    rates = list(86.0 + rng.normal(0.0, 3.0, 600))
    rates[:20] = [20.0] * 20          # slow start
    rates[150:185] = [0.0] * 35      # a retransmission timeout
    assert mser_cut(rates) >= 185
    cut = mser_cut(rates, limit=25)
    assert 15 <= cut <= 25
    assert np.mean(rates[cut:]) < 82.0


def test_the_interval_shrinks_with_run_length():
    """Sixteen times the samples, a quarter of the half-width (on average): the interval is not widened blindly."""
    rng = np.random.default_rng(11)

    def mean_halfwidth(n):
        return np.mean([batch_means_halfwidth(list(rng.normal(10.0, 2.0, n))) for _ in range(60)])

    ratio = mean_halfwidth(6400) / mean_halfwidth(400)
    assert 0.2 <= ratio <= 0.3
