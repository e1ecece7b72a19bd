"""A fourth machine tcpsim never saw, against the issues' targets: the first Xeon's model at 2.1 GHz (2026-12-01).

Its tables (``validation/vm4_2026-12-01/data``: the 46 rows without a delay line in three pinned passes, each row its
median run, and ``window6`` once) were measured by the rule written before its parts were read (validation/README.md,
"A fourth machine: the first Xeon's core at another clock") and scored once: the file ``tcpsim machine detect --probes``
wrote (A4, nothing fitted) and the one README's classroom step 2 fitted on its twelve calibration runs (B4n,
``fit_rw.toml``: the per-packet and per-byte costs, the write and the read detect measured kept). ``cpu4`` came later,
to check the default that study chose ("The default the fourth machine chose, checked on a table measured after it").
A known miss is a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, errors as _errors, median_on, scored_outcomes, tables_not_below_the_calculator,
                            window_limited)

HERE = Path(__file__).resolve().parent.parent / "validation" / "vm4_2026-12-01"
FILES = {"parts": "parts.toml", "calibrated": "fit_rw.toml"}
CPU_TARGET, WINDOW_TARGET, WINDOW_MAX = 0.15, 0.05, 0.15

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")]


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


def test_the_tables_are_the_measured_ones(scored):
    for outcomes in scored.values():
        assert len(outcomes) == 77
        assert len(_errors(outcomes, lambda p: p.table_id == "cpu4")) == 10
        assert len(_errors(outcomes, lambda p: p.table_id in HELD_OUT)) == 37
        assert len(_errors(outcomes, window_limited)) == 19


_RULE164 = ("since rule 164 (validation/README.md, 'What keeping a machine's own receive skbs off the delay line "
            "gave'), which scores its rows without the delay line unpaged, as step 2 fitted them: ")
HELD_OUT_MISSES = {
    "parts": "from its parts 21.0 % at its score, every CPU table too fast (signed +18 %): this VM is slower than its "
             "clock (a write 0.63 us, the first Xeon's at 2.3 GHz 0.41), where the parts file's per-packet and "
             "per-byte costs are the catalog's cycles at the nominal clock (validation/README.md, 'What the fourth "
             "machine gave')",
    "calibrated": _RULE164 + "15.5 % (14.96 % at its score, paged): cpu2 22.3, cpu3 19.0, messages3 16.2 %",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=HELD_OUT_MISSES[n]))
                                  if n in HELD_OUT_MISSES else n for n in FILES])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating (B4n 14.96 % at its score) and issue 21's 15 % for a machine left out,
    predicted from its parts, on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["parts"]) == []


@pytest.mark.parametrize("check", ["median", "max"])
def test_window_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows with no fitted parameter (the parts file): median 5 %, none above 15 % (4.1 and
    9.4 % at its score)."""
    errors = _errors(scored["parts"], window_limited)
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)


CPU4_MISSES = {
    "parts": "from its parts 16.8 % at its score: 768-byte writes -42 %, two streams of 8 KiB -34 %, 24 KiB writes "
             "+48 %, the kernel's two states (validation/README.md, 'What the check gave')",
    "calibrated": _RULE164 + "15.1 % (14.3 % at its score, paged)",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=CPU4_MISSES[n]))
                                  if n in CPU4_MISSES else n for n in FILES])
def test_the_table_measured_after_the_study_within_target(scored, name):
    """``lab/cpu4`` (10 rows: small messages with Nagle on and off, unshaped writes at both MTUs, two streams), measured
    after the study to check calibrate's default: issue 22's 15 % after calibrating (B4n 14.3 % at its score) and issue
    21's from the parts."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == "cpu4")) <= CPU_TARGET
