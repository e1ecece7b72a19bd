"""A seventh machine, against the issues' targets: a Zen 3 EPYC guest (family 25 model 1, 2026-12-02), never seen.

Its tables (``validation/zen3_2026-12-02``: the 46 rows without a delay line in three pinned passes, each row its
median run, ``window6`` and ``window`` once each placed by ``tcpsim lab``'s default, README's smallest example three
times) were measured by a rule written before anything ran on it (validation/README.md, "A seventh machine: a Zen 3
EPYC never seen") and scored once: the file ``tcpsim machine detect --probes`` wrote (A7, nothing fitted), the one
README's classroom step 2 fitted on its twelve calibration runs (B7, ``fit.toml``), and the window-limited runs as
``tcpsim lab --platform lab_vm`` predicts them on the committed delay line. A known miss is a strict xfail.
"""

from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, SMALLEST_TARGET, errors as _errors, instrument_scores, median_on,
                            scored_outcomes, smallest_example_error, tables_not_below_the_calculator, window_limited,
                            within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "zen3_2026-12-02"
FILES = {"parts": "parts.toml", "calibrated": "fit.toml",
         "parts_lat": "parts_lat.toml", "calibrated_lat": "fit_lat.toml"}
"""A7 and B7 as the seventh machine's rule made them; A7L and B7L, the same with the wake-up latency the probe
measured (the rule "A parts file carries the measured wake-up latency")."""
JUDGING = ("cpu4", "cpu5")
"""The tables measured after that rule to judge it (10 rows each)."""
CHECKING = ("cpu6", "cpu7")
"""The tables measured after its adoption to check it (the rule "The measured wake-up latency checked on two tables
measured after its adoption", 10 rows each)."""
CPU_TARGET = 0.15

_PACE = ("a VM at half the others' pace (0.53 of the lab tables' build on the 46 rows, 0.49 of the Zen 2 machine's), "
         "and the Nagle-on messages of up to 500 bytes 37-64 % slow: the parts file's reader woke on time, so tcpsim "
         "acknowledged each segment before the next write and Nagle never held one, where this VM's reader runs 12-110 "
         "us late and the kernel coalesces (validation/README.md, 'What the seventh machine gave'; detect measures the "
         "latency since 'A parts file carries the measured wake-up latency')")

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES, {"parts_lat": JUDGING + CHECKING, "calibrated_lat": JUDGING + CHECKING})


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    for name, outcomes in scored.items():
        assert [len(_errors(outcomes, lambda p, t=t: p.table_id == t)) for t in JUDGING + CHECKING] == [10] * 4
        if name in ("parts", "calibrated"):  # the files with the latency: on the tables that judged and checked it
            assert len(outcomes) == 107
            assert len(_errors(outcomes, lambda p: p.table_id in HELD_OUT)) == 37
            assert len(_errors(outcomes, window_limited)) == 19
        else:
            assert len(outcomes) == 40


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param("parts", marks=pytest.mark.xfail(strict=True, reason="52.3 % at its score, every CPU-bound table "
                                                  "fast (unshaped +122 %): " + _PACE)),
    pytest.param("calibrated", marks=pytest.mark.xfail(strict=True, reason="23.3 % at its score: " + _PACE))])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating and issue 21's 15 % for a machine left out, predicted from its parts, on the
    37 held-out rows."""
    assert median_on(scored[name], HELD_OUT) <= CPU_TARGET


@pytest.mark.slow
def test_the_measured_wake_up_latency_is_adopted_by_the_tables_measured_after_its_rule(scored):
    """The rule's decision, kept: with the latency the probe measured, the parts file's median |error| over the 20 rows
    of ``cpu4`` and ``cpu5`` is more than a point lower (25.4 against 48.8 % at its score) and the calibrated file's
    not more than a point higher (11.7 against 30.4 %), so ``machine detect --probes`` wrote it (until the eighth
    machine's rule: tests/test_zen5_machine.py)."""
    def g(name):
        return median_on(scored[name], JUDGING)

    assert g("parts_lat") < g("parts") - 0.01 and g("calibrated_lat") <= g("calibrated") + 0.01


@pytest.mark.slow
def test_the_latency_stays_on_the_tables_measured_after_its_adoption(scored):
    """The check's decision, kept: on the 20 rows of ``cpu6`` and ``cpu7`` neither file with the latency is more than
    a point worse than its twin without (from the parts 21.1 against 47.5 %, calibrated 11.5 against 27.3 %)."""
    def g(name):
        return median_on(scored[name], CHECKING)

    assert g("parts_lat") <= g("parts") + 0.01 and g("calibrated_lat") <= g("calibrated") + 0.01


@pytest.mark.slow
@pytest.mark.parametrize("tables", [JUDGING, CHECKING])
@pytest.mark.parametrize("name", [
    pytest.param("parts_lat", marks=pytest.mark.xfail(strict=True, reason="25.4 % (cpu4, cpu5) and 21.1 % (cpu6, "
                                                      "cpu7) at their scores: the Nagle-on rows "
                                                      "now within +5..+17 %, the unshaped rows still up to +107 %: the "
                                                      "catalog's cycles at a half-pace VM's nominal clock")),
    "calibrated_lat"])
def test_with_the_latency_within_target_on_the_tables_measured_after_it(scored, name, tables):
    """Issue 21's 15 % from the parts and issue 22's after calibrating, on each pair of tables measured after the
    latency's rule (B7L 11.7 and 11.5 % at their scores); the 37 earlier held-out rows are seen for these files (23.4
    and 12.1 %)."""
    assert median_on(scored[name], tables) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="unshaped 121.6 % against the calculator's 73.8 % (and writes, cpu3 close): "
                   + _PACE)
def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["parts"]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", "max"])
@pytest.mark.xfail(strict=True, reason="6.4 % median, 19.6 % max at its score: the kernel "
                   "below the parts file on the 0.35 and 0.7 ms rows of 20 and 26 KiB (+10 to +20 %), a half-pace "
                   "machine's CPU reaching rows the window should limit")
def test_window6_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter (the parts file): median 5 %, none above
    15 %."""
    assert within_window_target(_errors(scored["parts"], window_limited), check)


@pytest.fixture(scope="module")
def window_scores():
    """The window-limited runs of ``window6`` and ``window`` under ``lab_vm`` on the committed ``RELAY``."""
    tables = instrument_scores(HERE, {"window6": "RELAY", "window": "RELAY"}).values()  # window6_*.json, window_*.json
    return {"runs": [r for t in tables for r in t["runs"]], "errors": [e for t in tables for e in t["errors"]]}


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(strict=True, reason=(
    "33.8 % at its score: window's five MTU 1500 rows at 4 ms +19 to +34 % (the kernel a fifth slower there than on "
    "the Zen 2 machine, not at 2 ms), and its MTU 9000, 32 KiB rows at 0.5-2 ms -17 to -20 % (the kernel's window "
    "four jumbo segments where the model's is three, as on the other EPYC builds)")))])
def test_window_limited_runs_within_target_on_the_committed_delay_line(window_scores, check):
    """Issue 22's window-limited target on the 46 window-limited runs of ``window6`` and ``window``, as a user gets
    them: median 5 % (4.4 % at its score), none above 15 %."""
    assert len(window_scores["runs"]) == 71 and len(window_scores["errors"]) == 46
    assert within_window_target(window_scores["errors"], check)


def test_the_smallest_example_within_ten_percent():
    """README's smallest example as typed, against the prediction each run printed beside it: issue 22's 10 %, at the
    median of three (+9.4 % at its score)."""
    assert smallest_example_error(HERE) <= SMALLEST_TARGET
