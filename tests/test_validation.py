"""Regression guard on the validation: no table's median error may rise above its recorded threshold.

The thresholds in ``validation/thresholds.toml`` are the errors of the committed calibration plus a
small margin; the issue's targets (10 % calibration, 20 % holdout) are reported, met or missed, in
``validation/REPORT.md``. Runs every point of the sources once (about a minute on two cores).
"""

import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, table_summary

ROOT = Path(__file__).resolve().parents[1] / "validation"


@pytest.fixture(scope="module")
def summary():
    points = load_points(ROOT / "data")
    with ProcessPoolExecutor(2) as ex:
        outcomes = evaluate(points, ex)
    return {f"{r.source_id}/{r.table_id}": r for r in table_summary(outcomes)}, outcomes


@pytest.mark.slow
def test_no_table_regresses(summary):
    rows, _ = summary
    thresholds = tomllib.loads((ROOT / "thresholds.toml").read_text())["median_abs_rel_error"]
    assert set(thresholds) <= set(rows)
    worse = {k: (rows[k].median_error, t) for k, t in thresholds.items()
             if rows[k].median_error is not None and rows[k].median_error > t}
    assert not worse, f"median error above threshold: {worse}"


@pytest.mark.slow
def test_tcpsim_beats_the_bdp_calculator_on_every_throughput_table(summary):
    rows, _ = summary
    for key, r in rows.items():
        if r.naive_median_error is not None and r.median_error is not None and r.n_scored >= 3:
            assert r.median_error < r.naive_median_error, key


@pytest.mark.slow
def test_every_run_ended_on_purpose(summary):
    _, outcomes = summary
    for o in outcomes:
        assert o.termination in (None, "converged", "time_budget"), o.point.key


@pytest.mark.slow
def test_every_rate_carries_its_interval_and_converged_ones_meet_the_tolerance(summary):
    from tcpsim.calibration.mapping import CALIBRATION_BUDGET

    _, outcomes = summary
    rates = [o for o in outcomes if o.scored and o.point.metric in ("throughput", "packet_rate", "transactions")
             and o.termination in ("converged", "time_budget")]
    assert rates
    for o in rates:
        assert o.sim_halfwidth is not None and o.sim_halfwidth >= 0, o.point.key
        if o.termination == "converged":
            assert o.sim_halfwidth <= CALIBRATION_BUDGET.rel_tol * 1.05, o.point.key
