"""The stated 95 % interval on goodput holds the long-run mean (issue 24).

Each scenario runs with 20 seeds; the mean over seeds stands for the long-run mean, and about 95 % of the
runs' intervals must hold it: 17 of 20 at least (with 20 trials, 19 expected, a count of 17 or more has
probability 0.92 even when the intervals are exactly right). Scenarios without random loss do not depend
on the seed: there the interval must hold the one answer every seed gives.
"""

import statistics

import pytest

from tcpsim.api import build_scenario, predict, simulate
from tcpsim.config import Budget

SEEDS = range(20)
BUDGET = Budget(rel_tol=0.05, max_sim_time_s=5.0)


def _coverage(kw: dict) -> tuple[int, list]:
    results = [simulate(build_scenario(seed=s, budget=BUDGET, **kw)) for s in SEEDS]
    mean = statistics.mean(r.goodput_bps for r in results)
    held = sum(1 for r in results if r.goodput_halfwidth_bps is not None
               and abs(r.goodput_bps - mean) <= r.goodput_halfwidth_bps)
    return held, results


@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    pytest.param(dict(rate="10mbit", loss=0.01, rtt="2ms", sockbuf="64k", os="linux"),  # line-bound, losses repaired
                 id="loss-1%-line"),
    pytest.param(dict(rate="10mbit", loss=0.05, rtt="2ms", sockbuf="64k", os="linux"),  # timeouts: the time budget
                 id="loss-5%-timeouts"),
    pytest.param(dict(rate="10mbit", loss=0.01, rtt="20ms", sockbuf="64k", os="linux"),  # the cwnd's sawtooth
                 id="loss-1%-sawtooth"),
])
def test_about_95_percent_of_lossy_intervals_hold_the_mean_over_seeds(kw):
    held, results = _coverage(kw)
    assert held >= 17, [(r.goodput_bps, r.goodput_halfwidth_bps, r.termination) for r in results]


@pytest.mark.slow
def test_a_lossless_run_does_not_depend_on_the_seed_and_its_interval_holds_the_answer():
    held, results = _coverage(dict(rate="100mbit", platform="es40_tru64", sockbuf="64k"))
    assert len({r.goodput_bps for r in results}) == 1
    assert held == len(SEEDS)


@pytest.mark.fuzz
@pytest.mark.xfail(strict=True, reason=(
    "16 of 20 (61 of 80 over seeds 0-79, checked 2026-12-01; 18 of 20 when README first said so): the line stays "
    "full through most losses, and the long-run mean (93.1 Mbit/s) owes its deficit to rarer clusters of losses "
    "that take cwnd below the path's 25 KB (seeds 0, 5, 16: down to 11.6-17.4 KB for 8-13 % of the span); a run "
    "that drew none (seed 7: cwnd never below 30 KB) states a batch-means interval of 0.1-0.7 % around 93.7-94.1, "
    "and no stall it did not see shows in its own samples"))
def test_a_line_bound_path_with_rare_losses_holds_the_mean():
    """100 Mbit/s, 2 ms, 0.1 % loss, Linux: 17 of 20 intervals hold the mean."""
    held, _ = _coverage(dict(rate="100mbit", loss=0.001, rtt="2ms", sockbuf="256k", os="linux"))
    assert held >= 17


@pytest.mark.slow
def test_line_bound_lossy_runs_with_rare_timeouts_hold_the_mean():
    """100 Mbit/s, 1 ms, 1 % loss: a retransmission lost again waits for a 200 ms timeout, about one a second.
    A run whose span saw none stated a narrow interval above the long-run mean (11 of 20 held it) until the
    span had to expect five such timeouts and MSER could no longer cut one as warm-up: 20 of 20."""
    held, _ = _coverage(dict(rate="100mbit", loss=0.01, rtt="1ms", sockbuf="256k", os="linux"))
    assert held >= 17


_LINE_BOUND_LOSSY = {  # held of 40 on 2026-12-01, validate's default budget
    "100M-2ms-0.03%": (dict(rate="100mbit", loss=0.0003, rtt="2ms", sockbuf="256k", os="linux"), 33),
    "1G-1ms-0.01%": (dict(rate="1gbit", loss=0.0001, rtt="1ms", sockbuf="4M", os="linux"), 30),
    "100M-2ms-0.1%-reno": (dict(rate="100mbit", loss=0.001, rtt="2ms", sockbuf="256k"), 32),
}


@pytest.mark.fuzz
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=(
    f"{held} of 40 on 2026-12-01: a run that drew no loss cluster taking cwnd below the path states a narrow "
    "interval above the long-run mean"))) for n, (_, held) in _LINE_BOUND_LOSSY.items()])
def test_line_bound_lossy_intervals_over_40_seeds(name):
    """The survey behind :func:`tcpsim.stopping.lossy_interval_caution`: a 95 % interval should hold the mean over
    seeds 38 times of 40; each of these held fewer (``-m fuzz``, about a minute)."""
    kw, _ = _LINE_BOUND_LOSSY[name]
    results = [simulate(build_scenario(seed=s, **kw)) for s in range(40)]
    mean = statistics.mean(r.goodput_bps for r in results)
    assert sum(abs(r.goodput_bps - mean) <= r.goodput_halfwidth_bps for r in results) >= 38


def test_a_line_bound_lossy_answer_says_what_its_interval_cannot_hold():
    """The caution :func:`tcpsim.stopping.lossy_interval_caution` gives, in the answer's cautions and its text."""
    lossy = predict(rate="100mbit", loss=0.001, rtt="2ms", sockbuf="256k", os="linux", seed=7)
    said = [c for c in lossy.cautions if "held it 30-33 times of 40 seeds" in c]
    assert lossy.limited_by == "line" and len(said) == 1 and said[0] in str(lossy)
    for quiet in (predict(rate="100mbit", rtt="2ms", sockbuf="256k", os="linux"),
                  predict(rate="100mbit", loss=0.01, rtt="5ms", sockbuf="1M", os="linux")):
        assert not any("held it" in c for c in quiet.cautions), quiet.limited_by
