"""A sixth machine, against the issues' targets: a Zen 2 EPYC guest (family 23 model 49, 2026-12-02), never seen.

Its tables (``validation/zen2_2026-12-02``: the 46 rows without a delay line in three pinned passes, each row its
median run, ``window6`` and ``window`` once each placed by ``tcpsim lab``'s default, README's smallest example six
times, two path probes) were measured by a rule written before anything ran on it (validation/README.md, "A sixth
machine: a Zen 2 EPYC never seen, and the path probe as the default") and scored once: the file ``tcpsim machine
detect --probes`` wrote (A6, nothing fitted), the one README's classroom step 2 fitted on its twelve calibration runs
(B6, ``fit.toml``), and the window-limited runs as ``tcpsim lab --platform lab_vm`` predicts them, on the committed
delay line and on the build's two probes. A known miss is a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import (SMALLEST_TARGET, check_rtt0_tables, errors as _errors, instrument_scores,
                            median_on, scored_outcomes, smallest_example_error, tables_not_below_the_calculator,
                            window_limited, within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "zen2_2026-12-02"
FILES = {"parts": "parts.toml", "calibrated": "fit.toml"}
CPU_TARGET = 0.15

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES)


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    check_rtt0_tables(scored, FILES)


_PARTS = ("from its parts the CPU tables lean slow (signed medians cpu2 -16 %, messages3 -17 %, messages_nodelay -21 %, "
          "writes -14 %) and the unshaped rows fast (+25 %): the catalog's zen2 factor is a guess from vendor IPC "
          "figures; calibrating moved only the segment sent, 1.08 -> 0.54 us (validation/README.md, 'What the sixth "
          "machine gave')")


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param("parts", marks=pytest.mark.xfail(strict=True, reason="15.1 % at its "
                                                                                  "score: " + _PARTS)), "calibrated"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % after calibrating (B6 11.4 % at its score) and issue 21's 15 % for a machine left out, predicted
    from its parts, on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="messages2 6.6 % against the calculator's 5.3 %: three of its six rows run "
                   "at line rate, the calculator's own answer, and the parts are 12-38 % slow on the other three; "
                   + _PARTS)
def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["parts"]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", "max"])
def test_window6_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter (the parts file): median 5 % (4.1 % at its
    score), none above 15 % (9 %)."""
    assert within_window_target(_errors(scored["parts"], window_limited), check)


@pytest.fixture(scope="module")
def window_scores():
    """The window-limited runs of ``window6`` and ``window`` under ``lab_vm``, on the committed ``RELAY`` and on this
    build's two probes (P1 as ``--path-probe auto`` cached it, P2 taken again)."""
    probes = {"RELAY": "RELAY", "P1": "zen2_2026-12-02/pathprobe_auto.json", "P2": "zen2_2026-12-02/pathprobe2.json"}
    out = {}
    for name, probe in probes.items():
        tables = instrument_scores(HERE, {"window6": probe, "window": probe}).values()  # window6_*.json, window_*.json
        out[name] = {"runs": [r for t in tables for r in t["runs"]], "errors": [e for t in tables for e in t["errors"]]}
    return out


@pytest.mark.slow
def test_the_path_probe_does_not_become_the_default(window_scores):
    """The rule's decision, kept: ``--path-probe auto`` would have become the default had both probes beaten the
    committed constants by half a point of median with no more runs above 15 %; both were worse (7.4 % against 3.6)."""
    base = window_scores["RELAY"]["errors"]
    assert len(window_scores["RELAY"]["runs"]) == 71 and len(base) == 45
    assert all(r["measured"]["retransmits"] == 0 for r in window_scores["RELAY"]["runs"])
    wins = [statistics.median(window_scores[p]["errors"]) <= statistics.median(base) - 0.005
            and sum(e > 0.15 for e in window_scores[p]["errors"]) <= sum(e > 0.15 for e in base) for p in ("P1", "P2")]
    assert not all(wins)


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(strict=True, reason=(
    "23.6 % at its score: the MTU 9000, 32 KiB rows of window at 0.5, 1 and 2 ms (-23.6, -20.9, -19.5 %), the "
    "kernel's window four jumbo segments where the model's is three, and at 4 ms (+16.5 %), as on the sixth build "
    "and not the seventh (validation/README.md, 'What the sixth machine gave')")))])
def test_window_limited_runs_within_target_on_the_committed_delay_line(window_scores, check):
    """Issue 22's window-limited target on the 45 window-limited runs of ``window6`` and ``window``, as a user gets them
    without a probe: median 5 % (3.6 % at its score), none above 15 %."""
    assert within_window_target(window_scores["RELAY"]["errors"], check)


@pytest.mark.parametrize("name", ["u", "a"])
def test_the_smallest_example_within_ten_percent(name):
    """README's smallest example, as typed (u) and with ``--path-probe auto`` (a), against the prediction each run
    printed beside it: issue 22's 10 %, at the median of three (+2.2 % and -6.3 % at its score)."""
    assert smallest_example_error(HERE, name) <= SMALLEST_TARGET
