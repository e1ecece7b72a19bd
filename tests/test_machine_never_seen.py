"""A machine tcpsim never saw, against the issues' targets: the Intel Xeon VM of 2026-11-30.

Its lab tables (``validation/xeon_2026-11-30/data``: 46 rows without a delay line, three pinned passes each, and
``window6`` once) were measured on a machine none of tcpsim's rules or fits had met, by the rule written before
(validation/README.md, "A machine never seen"), and scored as a class would: the machine file ``tcpsim machine
detect --probes`` wrote (A, nothing fitted) and the one ``tcpsim calibrate --lab`` fitted on its nine calibration
rows (B). The figures below are under the two rules that followed ("On the lab's path a machine's interface is the
veth it runs over", "A machine on the lab's path is placed as the lab places it"), written with A's first scores in
view: these tables are seen for them. A known miss is a strict xfail.
"""

import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms

HERE = Path(__file__).resolve().parent.parent / "validation" / "xeon_2026-11-30"
CPU_TARGET, WINDOW_TARGET, WINDOW_MAX = 0.15, 0.05, 0.15

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")]


@pytest.fixture(scope="module")
def scored():
    points = [p for p in load_points(HERE / "data") if p.source_id == "lab"]
    with ProcessPoolExecutor(2) as ex:
        return {name: evaluate(points, ex, given_platforms([f"lab_vm={HERE / f'{name}.toml'}"], points))
                for name in ("xeon_parts", "xeon_fit_lab_path")}


def _errors(outcomes, keep):
    return [abs(o.error) for o in outcomes if o.error is not None and keep(o.point)]


def _held_out_cpu_rows(p):
    return p.table_id not in ("window6", "cpu4", "cpu5") and p.get("role") == "holdout"


def _window_limited(p):
    return p.table_id == "window6" and p.value_si < 0.8 * float(p.get("rate_bps"))


def test_the_tables_are_the_measured_ones(scored):
    outcomes = scored["xeon_parts"]
    assert len(outcomes) == 87
    assert len(_errors(outcomes, _held_out_cpu_rows)) == 37 and len(_errors(outcomes, _window_limited)) == 19
    assert [len(_errors(outcomes, lambda p, t=t: p.table_id == t)) for t in ("cpu4", "cpu5")] == [10, 10]


CPU5_PARTS_MISS = ("lab/cpu5 from the parts alone: 20.0 % median (max 34.7 %): too slow on the unshaped rows at MTU "
                   "9000 (-23..-35 %) and with two or three streams (-19, -31 %), where the calibrated file is within "
                   "8 %; the catalog's cycles for the veth path, nothing of this machine fitted (validation/README.md, "
                   "'What the read's cost decided')")


@pytest.mark.parametrize("table,name", [
    ("cpu4", "xeon_parts"), ("cpu4", "xeon_fit_lab_path"), ("cpu5", "xeon_fit_lab_path"),
    pytest.param("cpu5", "xeon_parts", marks=pytest.mark.xfail(strict=True, reason=CPU5_PARTS_MISS))])
def test_a_cpu_table_measured_after_every_rule_within_target(scored, table, name):
    """lab/cpu4 and lab/cpu5 (10 rows each: unshaped writes at both MTUs, two and three streams, small messages
    with Nagle on and off), each fixed and measured after the rules above, held out from them (validation/README.md,
    "A fit that also weighs where the CPU time went", "Which read cost a class should measure"): issue 22's 15 %
    after calibrating, and issue 21's from the parts."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == table)) <= CPU_TARGET


PARTS_CPU_MISS = ("15.6 % from the parts alone (cpu2 24.2 %, unshaped 21.8 %, messages3 20.4 %; max 48.3 %): the "
                  "catalog's shared cycle costs for a Golden Cove core on a veth, nothing of this machine fitted "
                  "(validation/README.md, 'What placing the machine as the lab places it gave')")


@pytest.mark.parametrize("name", [
    pytest.param("xeon_parts", marks=pytest.mark.xfail(strict=True, reason=PARTS_CPU_MISS)), "xeon_fit_lab_path"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % on the small-message and CPU-bound rows after calibrating (B), and issue 21's 15 % for a
    machine left out, predicted from its parts (A): the 37 held-out rows without a delay line."""
    assert statistics.median(_errors(scored[name], _held_out_cpu_rows)) <= CPU_TARGET


def test_below_the_calculator_on_every_table_from_the_parts(scored):
    outcomes = scored["xeon_parts"]
    for table in {o.point.table_id for o in outcomes}:
        mine = _errors(outcomes, lambda p: p.table_id == table)
        calc = [abs(o.naive / o.point.value_si - 1) for o in outcomes if o.point.table_id == table and o.naive]
        assert statistics.median(mine) < statistics.median(calc), table


WINDOW_MISS = ("window6's window-limited max 17.1 % calibrated (3.8 % median; from the parts 3.4 %, max 7.6 %): the "
               "three MTU 9000, 50 KiB rows -14..-17 % (-1..-4 % from the parts), the fit's three costs the only "
               "difference: its receive cost unidentified at 0.15 us a segment, a sixth of the catalog's; not traced "
               "(validation/README.md, 'What placing the machine as the lab places it gave')")


_WINDOW_MISSES = {("xeon_fit_lab_path", "max")}


@pytest.mark.parametrize("name,check", [
    pytest.param(n, c, marks=pytest.mark.xfail(strict=True, reason=WINDOW_MISS)) if (n, c) in _WINDOW_MISSES
    else (n, c) for n in ("xeon_parts", "xeon_fit_lab_path") for c in ("median", "max")])
def test_window_limited_rows_within_target(scored, name, check):
    errors = _errors(scored[name], _window_limited)
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)
