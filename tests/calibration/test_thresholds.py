"""`tcpsim validate --thresholds`: the regression guard is the error now plus a fixed margin."""

import tomllib

import pytest

from tcpsim.calibration.validate import TableSummary, threshold_for, write_thresholds


@pytest.mark.parametrize("now, threshold", [(0.0, 0.02), (0.102, 0.14), (0.048, 0.08), (1.525, 1.775)])
def test_threshold_is_the_error_times_1_15_plus_2_points_rounded_up_to_half_a_percent(now, threshold):
    assert threshold_for(now) == pytest.approx(threshold)
    assert threshold_for(now) >= now * 1.15 + 0.02 - 1e-12


def test_written_thresholds_are_read_back_per_table(tmp_path):
    rows = [TableSummary("tru64", "table1", "Table 1", "calibration", 6, 6, 0.052, 0.11, 1.4),
            TableSummary("vbox", "text", "text", "holdout", 2, 0, None, None, None)]
    path = write_thresholds(rows, tmp_path / "thresholds.toml")
    data = tomllib.loads(path.read_text())["median_abs_rel_error"]
    assert data == {"tru64/table1": pytest.approx(threshold_for(0.052))}
