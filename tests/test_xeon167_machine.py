"""A ninth machine, against the issues' targets: an Intel Xeon guest of the third machine's kind (family 6 model 167,
AMX, 2.6 GHz) on kernel build ``-v1045``, whose 46 rows without a delay line were never run before (2026-12-02).

Its tables (``validation/xeon167_2026-12-02``: the 46 rows in three pinned passes, each row its median run, ``window6``
once placed by ``tcpsim lab``'s default, README's smallest example three times) were measured by a rule written before
anything ran on it (validation/README.md, "A ninth machine") and scored once: the file ``tcpsim machine detect
--probes --wake-latency`` wrote (A9L), the same without the latency (A9), README's classroom step 2 from each (B9L,
B9), and from B9's fit the evaluation of least median |error| on its runs (B9m, ``calibrate --keep median``). A known
miss is a strict xfail.
"""

from pathlib import Path

import pytest

from machine_scores import (SMALLEST_TARGET, check_rtt0_tables, errors as _errors, median_on, scored_outcomes,
                            smallest_example_error, tables_not_below_the_calculator, window_limited,
                            within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "xeon167_2026-12-02"
FILES = {"parts_lat": "parts_lat.toml", "parts": "parts.toml", "calibrated_lat": "fit_lat.toml",
         "calibrated": "fit.toml", "calibrated_median": "fit_median.toml"}
CPU_TARGET = 0.15

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    check_rtt0_tables(scored, FILES)


@pytest.mark.slow
def test_the_latency_returns_to_the_default_by_the_rule(scored):
    """The rule's first decision, kept: with the latency g is more than a point lower both from the parts (6.1
    against 10.6 % at its score) and calibrated (3.8 against 8.6 %), so ``machine detect --probes`` writes it."""
    assert median_on(scored["parts_lat"]) <= median_on(scored["parts"]) - 0.01
    assert median_on(scored["calibrated_lat"]) <= median_on(scored["calibrated"]) - 0.01


@pytest.mark.slow
@pytest.mark.parametrize("name", ["parts_lat", "parts", "calibrated_lat", "calibrated", "calibrated_median"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 21's 15 % from the parts and issue 22's after calibrating, on the 37 held-out rows (at the score: A9L
    6.1, A9 10.6, B9L 3.8, B9 8.6, B9m 8.8 %)."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.parametrize("name", ["parts_lat", "parts"])
def test_below_the_calculator_on_every_table_from_the_parts(scored, name):
    """Issue 21's second target from the parts: every table below the calculator (the closest, A9L's unshaped
    50.8 against 89.3 % at its score)."""
    assert tables_not_below_the_calculator(scored[name]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(
    strict=True, reason="16.7 % at its score (median 2.7 %): 40 KiB at 3 ms +16.7 %, 20 KiB at 1.5 ms -15.1 % (MTU 1500)"))])
def test_window6_limited_rows_within_target_from_the_parts(scored, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter, from what detect writes (A9L): median 5
    %, none above 15 %. Without the latency (A9) the rows were 9.3 % (max 19.9 %) at the score."""
    assert within_window_target(_errors(scored["parts_lat"], window_limited), check)


@pytest.mark.xfail(strict=True, reason="+11.6 % at the median of three (+11.6, +11.3, +11.6 %): the bare command "
                   "predicts ideal hosts on the committed delay line, and this build ran 689-692 Mbit/s against 769.7")
def test_the_smallest_example_within_ten_percent():
    """README's smallest example as typed, against the prediction each run printed beside it: issue 22's 10 %, at the
    median of three."""
    assert smallest_example_error(HERE) <= SMALLEST_TARGET
