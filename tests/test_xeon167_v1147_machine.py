"""An eleventh machine, against the issues' targets: the Intel Xeon guest of the third and ninth machines' kind (family
6 model 167, AMX, 2.6 GHz) on kernel build ``-v1147``, on which no row of any table had run (2026-12-03).

Its tables (``validation/xeon167_2026-12-03``: the 46 rows without a delay line in three pinned passes, each row its
median run, ``window6`` once placed by ``tcpsim lab``'s default, README's smallest example three times, every run
iperf3's) were measured by a rule written before anything ran on it (validation/README.md, "An eleventh machine")
and scored once: the file README's step 0 writes (``tcpsim machine detect --probes --spin``, A11S), the one ``--probes``
alone writes (A11L), README's step 2 from each (B11S, B11L), and the ninth machine's calibrated file borrowed (B9L,
the same kind of VM on build ``-v1045``). Rule 172 then measured rule 162's held-out tables (``lab/rr2``, ``lab/cpu9``)
on it, to ask whether step 2 from the short idles' latency earns the classroom's steps on a second VM, and rule 173
eight lossy paths, to ask whether ``tcpsim lab`` should predict them for the machine it runs on. A known miss is a
strict xfail.
"""

import json
import statistics
from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, SMALLEST_TARGET, check_rtt0_tables, errors as _errors, load_script, median_on,
                            rr_errors, scored_outcomes, smallest_example_error, tables_not_below_the_calculator,
                            window_limited, within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "xeon167_2026-12-03"
FILES = {"parts_spin": "parts_spin.toml", "parts_lat": "parts_lat.toml", "calibrated_spin": "fit_spin.toml",
         "calibrated_lat": "fit_lat.toml"}
CPU_TARGET = 0.15
RTT0 = HELD_OUT + ("writes", "messages_nodelay", "window6")
"""Rule 171's 67 rows (``lab/cpu9`` and ``rr2`` in the same folder are rule 172's)."""

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES, {name: RTT0 for name in FILES})


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    check_rtt0_tables(scored, FILES)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["parts_spin", "parts_lat", "calibrated_spin", "calibrated_lat"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 21's 15 % from the parts and issue 22's after calibrating, on the 37 held-out rows (at the score: A11S
    7.8, A11L 2.6, B11S 3.3, B11L 2.7 %)."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.parametrize("name", ["parts_spin", "parts_lat"])
def test_below_the_calculator_on_every_table_from_the_parts(scored, name):
    """Issue 21's second target from the parts: every table below the calculator (the closest, A11S's unshaped 42.8
    against 90.3 % at its score)."""
    assert tables_not_below_the_calculator(scored[name]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(
    strict=True, reason="19.7 % at its score (median 3.3 %): the window rows' worst, as on the ninth machine's build "
                        "(16.7 %)"))])
def test_window6_limited_rows_within_target_from_the_parts(scored, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter, from README's step 0 file (A11S):
    median 5 %, none above 15 %."""
    assert within_window_target(_errors(scored["parts_spin"], window_limited), check)


@pytest.mark.xfail(strict=True, reason="+13.4 % at the median of three (+13.7, +12.0, +13.4 %): the bare command "
                   "predicts ideal hosts on the committed delay line, and this build ran 677-687 Mbit/s against 769.7")
def test_the_smallest_example_within_ten_percent():
    """README's smallest example as typed, against the prediction each run printed beside it: issue 22's 10 %, at the
    median of three."""
    assert smallest_example_error(HERE) <= SMALLEST_TARGET


@pytest.fixture(scope="module")
def rule172():
    """Rule 172's sixteen rows under each file: ``lab/cpu9``'s outcomes and ``lab/rr2``'s relative errors."""
    files = {"spin": "fit_spin.toml", "lat": "fit_lat.toml", "parts_spin": "parts_spin.toml"}
    cpu9 = scored_outcomes(HERE, files, {name: ("cpu9",) for name in files})
    rr2 = rr_errors(HERE, files, "rr2")
    assert all(len(v) == 10 for v in cpu9.values()) and all(len(v) == 6 for v in rr2.values())
    return cpu9, rr2


@pytest.mark.slow
def test_step_2_from_the_short_idles_keeps_the_classroom_steps_by_the_rule(rule172):
    """Rule 172, rule 162's criterion asked of a second VM: B11S against B11L on 16 rows measured after both fits,
    10.6 against 30.9 % (at least 3 points better; ``lab/rr2`` -9..-18 % against +228..+904 %), and ``lab/cpu9``'s ten
    6.0 against 5.4 % (not more than 2 worse), so README's steps keep ``machine detect --probes --spin``."""
    cpu9, rr2 = rule172
    g16 = {n: statistics.median([abs(e) for e in rr2[n]] + _errors(cpu9[n], lambda p: True)) for n in ("spin", "lat")}
    assert g16["spin"] <= g16["lat"] - 0.03
    assert median_on(cpu9["spin"], ("cpu9",)) <= median_on(cpu9["lat"], ("cpu9",)) + 0.02


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "spin", pytest.param("parts_spin", marks=pytest.mark.xfail(strict=True, reason=(
        "17.8 % at the score: the parts with the short idles' latency run the unshaped rows fast, as on rule 171's "
        "cpu3 and unshaped rows (validation/README.md, 'What step 2 from the short idles gave on the eleventh "
        "machine')")))])
def test_the_classroom_files_within_target_on_cpu9(rule172, name):
    """Issue 22's 15 % after calibrating (B11S, 6.0 % at the score) and issue 21's from the parts (A11S), on the ten
    CPU-bound rows of ``lab/cpu9`` measured after the fits."""
    assert median_on(rule172[0][name], ("cpu9",)) <= CPU_TARGET


LOSSY = HERE / "lossy"
LOSSY_MISSES = {
    name: (f"{err} at the score: the kernel timed out {n} times in the median pass, {k} of them first of their "
           "series in disorder, as on the EPYC's path of the same scenario; tcpsim takes fewer of those timeouts or "
           "moves more between them (validation/README.md, 'What predicting the lossy paths for the machine they "
           "ran on gave')")
    for name, err, n, k in (("a", "+22.3 %", 15, 8), ("c", "+22.4 %", 21, 6), ("d", "+24.4 %", 40, 37))}


@pytest.fixture(scope="module")
def lossy():
    """Rule 173's eight lossy paths: each path's |error| on the ideal host (I) and on ``--platform detect``'s file (D),
    seed 0, as ``tcpsim lab`` predicts them (``lossy/score.py``)."""
    sp = load_script("score_rule173", LOSSY / "score.py")
    errors = {}
    for name in sp.PATHS:
        measured = json.loads((LOSSY / f"{name}.json").read_text())["measured"]["goodput_bps"]
        errors[name] = {h: abs(sp.predict(name, h, 0)[0] / measured - 1) for h in ("I", "D")}
    return errors


@pytest.mark.slow
def test_the_detected_host_did_not_earn_the_lossy_default_by_the_rule(lossy):
    """Rule 173: ``--platform detect`` came 7.4 -> 3.9 % over the eight paths (max 67.1 -> 24.4 %), not the 5 points
    below the ideal host its criterion asks, though no path was worse; ``tcpsim lab`` keeps the ideal host."""
    g = {h: statistics.median(e[h] for e in lossy.values()) for h in ("I", "D")}
    assert g["D"] > g["I"] - 0.05
    assert all(e["D"] <= e["I"] + 0.05 for e in lossy.values())


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=LOSSY_MISSES[n]))
                                  if n in LOSSY_MISSES else n for n in "abcdefgh"])
def test_a_lossy_path_on_the_detected_host_within_15_percent(lossy, name):
    """Issue 22's 15 %, as ``test_lab_no_sack.py`` holds the EPYC's paths, on the file ``tcpsim lab --platform
    detect`` wrote on this machine."""
    assert lossy[name]["D"] <= 0.15


@pytest.mark.slow
@pytest.mark.parametrize("name", ["calibrated_spin", "parts_spin"])
def test_the_classroom_files_on_a_10_gbit_what_if_within_target(name):
    """Rule 174: ``lab/cpu10g``'s eight rows on a shaped 10 Gbit/s link, measured after the files: issue 22's 15 %
    after calibrating (B11S) and issue 21's from the parts (A11S), on all eight (0.3 % each at the score: five ran at
    the link's rate) and on the three the CPU limited, measured more than 3 % below the goodput the ``tbf`` lets through
    at MTU 1500 (9.56 Gbit/s; 12.0 and 5.4 %)."""
    outcomes = scored_outcomes(HERE, {name: FILES[name]}, {name: ("cpu10g",)})[name]
    assert len(outcomes) == 8
    assert median_on(outcomes, ("cpu10g",)) <= CPU_TARGET
    cpu_bound = _errors(outcomes, lambda p: p.value_si < 0.97 * 9.564e9)
    assert len(cpu_bound) == 3 and statistics.median(cpu_bound) <= CPU_TARGET
