"""An eighth machine, against the issues' targets: the Zen 5 EPYC guest (family 26 model 2) on kernel build
``-v1098``, whose 46 rows without a delay line were never run before (2026-12-02).

Its tables (``validation/zen5_2026-12-02``: the 46 rows in three pinned passes, each row its median run, ``window6``
once placed by ``tcpsim lab``'s default, README's smallest example three times) were measured by a rule written before
anything ran on it (validation/README.md, "The measured wake-up latency on a fast core") and scored once: the file
``tcpsim machine detect --probes`` wrote then, with the measured wake-up latency (A8L), the same without it (A8), and
README's classroom step 2 from each (B8L, B8). A known miss is a strict xfail.
"""

from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, SMALLEST_TARGET, check_rtt0_tables, errors as _errors, median_on,
                            scored_outcomes, smallest_example_error, tables_not_below_the_calculator, window_limited,
                            within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "zen5_2026-12-02"
FILES = {"parts_lat": "parts.toml", "parts": "parts_nolat.toml", "calibrated_lat": "fit.toml"}
"""A8L and A8 (what detect wrote after this rule), B8L as the rule made them."""
CALIBRATED = {"calibrated": "fit_nolat.toml"}
"""B8, scored on the 37 held-out rows only: its no-delay rows of 80-150 bytes each run to their time budget (the
receiver's CPU the slower end, its window opening and closing by megabytes), some 10 s a row compiled."""
CPU_TARGET = 0.15

_PACE = ("the catalog's zen5 cycles at the nominal clock: every CPU-bound row of larger writes 25-141 % fast (the "
         "fifth machine, this core on another build, 94.6 %; validation/README.md, 'What the measured wake-up latency "
         "gave on a fast core')")

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


@pytest.fixture(scope="module")
def scored_b8(scored):
    return {**scored, **scored_outcomes(HERE, CALIBRATED, {"calibrated": HELD_OUT})}


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    check_rtt0_tables(scored, FILES)


@pytest.mark.slow
def test_the_latency_leaves_the_default_by_the_rule(scored_b8):
    """The rule's decision, kept: calibrated from the file with the latency, g is more than a point higher than from
    the file without (14.1 against 11.4 % at its score), so ``machine detect --probes`` stopped writing it (until the
    ninth machine's rule, ``test_xeon167_machine``, restored it)."""
    assert median_on(scored_b8["calibrated_lat"]) > median_on(scored_b8["calibrated"]) + 0.01


@pytest.mark.slow
def test_from_the_parts_the_latency_moves_g_by_less_than_a_point(scored):
    """The rule's other half: from the parts, g with and without the latency within a point (56.3 and 56.1 %)."""
    assert abs(median_on(scored["parts_lat"]) - median_on(scored["parts"])) <= 0.01


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param("parts", marks=pytest.mark.xfail(strict=True, reason="56.1 % at its score: " + _PACE)),
    pytest.param("parts_lat", marks=pytest.mark.xfail(strict=True, reason="56.3 % at its score: " + _PACE)),
    "calibrated_lat"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating (B8L 14.1 % at its score; B8's 11.4 % below) and issue
    21's 15 % from the parts, on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.slow
def test_the_calibrated_file_without_the_latency_within_target(scored_b8):
    """Issue 22's 15 % for B8, the file step 2 fits from what detect writes since this rule (11.4 % at its score)."""
    assert median_on(scored_b8["calibrated"]) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "parts",
    pytest.param("parts_lat", marks=pytest.mark.xfail(strict=True, reason="cpu2 92.5 % and cpu3 90.6 % against the "
                                                      "calculator's 89.7 and 82.5 % at their score: " + _PACE))])
def test_below_the_calculator_on_every_table_from_the_parts(scored, name):
    """Issue 21's second target from the parts: every table below the calculator (A8: cpu2 71.2 against 89.7 %, cpu3
    76.0 against 82.5 % at its score)."""
    assert tables_not_below_the_calculator(scored[name]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", "max"])
@pytest.mark.parametrize("name", [
    pytest.param("parts", marks=pytest.mark.xfail(strict=True, reason="10.5 % median, 23.8 % max at its score: the "
                                                  "reader on time (the file with the measured latency: 3.5 and 11.7 "
                                                  "%)")),
    "parts_lat"])
def test_window6_limited_rows_within_target_with_no_fitted_parameter(scored, name, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter: median 5 %, none above 15 %."""
    assert within_window_target(_errors(scored[name], window_limited), check)


@pytest.mark.xfail(strict=True, reason="+14.0 % at the median of three (+10.1, +15.6, +14.0 %), as on this build's "
                   "earlier day (+17.4 % unpinned, validation/README.md, 'The pinned lab as the default')")
def test_the_smallest_example_within_ten_percent():
    """README's smallest example as typed, against the prediction each run printed beside it: issue 22's 10 %, at the
    median of three."""
    assert smallest_example_error(HERE) <= SMALLEST_TARGET
