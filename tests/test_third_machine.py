"""A third machine tcpsim never saw, against the issues' targets: the Intel Xeon VM of 2026-12-01.

Its tables (``validation/vm3_2026-12-01/data``: the 46 rows without a delay line in three pinned passes, each row its
median run, and ``window6`` once) were measured by the rule written before its parts were read (validation/README.md,
"A third machine never seen"), and scored once as a class would: the file ``tcpsim machine detect --probes`` wrote
(A3, nothing fitted) and the one ``tcpsim calibrate --lab`` fitted on its twelve calibration runs (B3). ``cpu4`` to
``cpu7`` came later, each to judge a rule of its own. A3 is the file detect writes there today: since "A core's flags
bound its microarchitecture from below" (written after that score) it names ``golden-cove``, as its flags show AMX
where its model number says ``sunny-cove``, and since "The tools' own costs judged again, the goodput first" (decided
by ``cpu6``) its write and read are iperf3's own. The calibrated file is B3n since "After calibrating from the new
parts, or the parts alone" (decided by ``cpu7``): the three other costs fitted from A3 (``fit_rw.toml``).
``parts_as_detected.toml`` keeps the first file, where B3's fit starts. A known miss is a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, errors as _errors, median_on, scored_outcomes, tables_not_below_the_calculator,
                            window_limited)

HERE = Path(__file__).resolve().parent.parent / "validation" / "vm3_2026-12-01"
FILES = {"parts": "parts.toml", "calibrated": "fit_rw.toml"}
CPU_TARGET, WINDOW_TARGET, WINDOW_MAX = 0.15, 0.05, 0.15

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")]


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


def test_the_tables_are_the_measured_ones(scored):
    for outcomes in scored.values():
        assert len(outcomes) == 107
        assert [len(_errors(outcomes, lambda p, t=t: p.table_id == t)) for t in JUDGING] == [10] * len(JUDGING)
        assert len(_errors(outcomes, lambda p: p.table_id in HELD_OUT)) == 37
        assert len(_errors(outcomes, window_limited)) == 19


@pytest.mark.parametrize("name", FILES)
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating (B3: 5.3 % at its score, B3n 3.7 %) and issue 21's 15 % for a machine left out,
    predicted from its parts (A3: 4.7 % at its score as first detected, 9.6 % with the core its flags show, 3.0 % with
    iperf3's own write and read), on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["parts"]) == []


_FLAGS = "validation/README.md, 'What the third machine gave' and 'What the flags gave'"
WINDOW_MISSES = {
    "median": f"window6's window-limited median 6.5 % from the parts (3.4 % with the core its model number names): "
              f"every MTU-1500 row too fast, the more the shorter the round trip ({_FLAGS})",
    "max": f"window6's window-limited max 20.1 % from the parts: its 0.35 ms rows of 20 and 26 KiB, through the delay "
           f"line whose relay stage tcpsim takes from the EPYC's path probe; the kernel's round trip there 80-100 us "
           f"longer than the path's at MTU 1500 ({_FLAGS})",
}


@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=WINDOW_MISSES[c]))
                                   for c in ("median", "max")])
def testwindow_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows with no fitted parameter (the parts file): median 5 %, none above 15 %."""
    errors = _errors(scored["parts"], window_limited)
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)


JUDGING = ("cpu4", "cpu5", "cpu6", "cpu7")
"""This machine's tables each fixed and measured after a rule and used once to judge it."""
JUDGING_MISSES: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("table, name", [
    pytest.param(t, n, marks=pytest.mark.xfail(strict=True, reason=JUDGING_MISSES[t, n])) if (t, n) in JUDGING_MISSES
    else (t, n) for t in JUDGING for n in FILES])
def test_the_tables_that_judged_a_rule_within_target(scored, table, name):
    """This machine's lab/cpu4 to lab/cpu7 (10 rows each: small messages with Nagle on and off, unshaped writes at both
    MTUs, several streams), each fixed and measured after its rule and used once to judge it ("A parts file's read as
    iperf3's saturated reader measures it", "... read and write as iperf3's processes spend them", "The tools' own
    costs judged again, the goodput first", "After calibrating from the new parts, or the parts alone"): issue 22's
    15 % after calibrating (B3n 5.4, 4.1, 2.6, 3.9 %), issue 21's from the parts (A3 7.1, 5.7, 3.5, 7.2 %)."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == table)) <= CPU_TARGET
