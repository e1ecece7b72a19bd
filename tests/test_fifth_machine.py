"""A fifth machine, against the issues' targets: the lab's AMD EPYC VM on another build (2026-12-01).

Its tables (``validation/epyc_2026-12-01/data``: the 46 rows without a delay line in three pinned passes, each row its
median run, ``window6`` once, and ``cpu4``) were measured by rules written before they were run (validation/README.md,
"The EPYC's own gaps, measured on its machine" and "A fifth machine: the lab's EPYC on another build") and scored
once: the file ``tcpsim machine detect --probes`` wrote (A5, nothing fitted) and the one README's classroom step 2
fitted on its twelve calibration runs (B5, ``fit.toml``). A known miss is a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, errors as _errors, median_on, scored_outcomes, tables_not_below_the_calculator,
                            window_limited)

HERE = Path(__file__).resolve().parent.parent / "validation" / "epyc_2026-12-01"
FILES = {"parts": "parts.toml", "calibrated": "fit.toml"}
CPU_TARGET, WINDOW_TARGET, WINDOW_MAX = 0.15, 0.05, 0.15

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")]


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


def test_the_tables_are_the_measured_ones(scored):
    for outcomes in scored.values():
        assert len(outcomes) == 78
        assert len(_errors(outcomes, lambda p: p.table_id == "cpu4")) == 11
        assert len(_errors(outcomes, lambda p: p.table_id in HELD_OUT)) == 37
        assert len(_errors(outcomes, window_limited)) == 20


_PARTS = ("from its parts 2.1 times too fast: the catalog's zen5 cycles (a guess from vendor IPC figures) give 0.59 us "
          "a segment sent and 0.73 received, where this machine's calibration found 1.99 and 2.06 (validation/"
          "README.md, 'What the fifth machine gave')")
HELD_OUT_MISSES = {"parts": "94.6 % at its score: " + _PARTS}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=HELD_OUT_MISSES[n]))
                                  if n in HELD_OUT_MISSES else n for n in FILES])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating (B5 7.2 % at its score) and issue 21's 15 % for a machine left out, predicted
    from its parts, on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.xfail(strict=True, reason="worse than the calculator on writes, cpu2, cpu3, cpu4 and unshaped: " + _PARTS)
def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["parts"]) == []


_RELAY = ("ten of the 20 window-limited rows retransmitted (2-22 segments in 3 s) and their mean RTT ran 0.1-0.9 ms "
          "above the lab tables' same rows: tcpsim lab's user-space relay has a 90th-percentile latency up to 2.5 ms "
          "on this build (drops or timers fired by its stalls), where the model's path is lossless (validation/"
          "README.md, 'What the fifth machine gave')")
WINDOW_MISSES = {"median": "24.5 % at its score: " + _RELAY, "max": "214 % at its score: " + _RELAY}


@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=WINDOW_MISSES[c]))
                                   for c in ("median", "max")])
def test_window_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows with no fitted parameter (the parts file): median 5 %, none above 15 %."""
    errors = _errors(scored["parts"], window_limited)
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="111.8 % at its score: "
                                                                          + _PARTS)) if n == "parts" else n
                                  for n in FILES])
def test_the_gaps_table_within_target(scored, name):
    """``lab/cpu4`` (11 rows: no-delay messages, unshaped writes at both MTUs, two and three streams), measured for the
    gaps rule before this study: issue 22's 15 % after calibrating (B5 9.1 %) and issue 21's from the parts."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == "cpu4")) <= CPU_TARGET
