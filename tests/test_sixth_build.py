"""A sixth build of the lab's EPYC VM (2026-12-02): its window rows, the retransmissions' causes, its own delay line.

Its tables (``validation/build_2026-12-02/data``: ``window6``, ``window4`` and ``window5``, once each, unpinned;
``cpu_runs/``: ``window2`` and ``window3`` four times each, the relay unpinned and on CPU 0 in turn; ``cpu_runs2/``:
four more, the relay on CPU 0 with the tools unpinned and pinned in turn) and path probes were measured by rules
written before they were run (validation/README.md, "The window rows' retransmissions, by cause, on a sixth build",
"The delay line measured on its own build", "A relay on one CPU", "The tools pinned beside the relay") and scored
once under ``lab_vm`` as committed: a window-limited row has no fitted parameter, so this is the protocol and the
lab path alone, the path's delay line either the committed one (C) or this build's from its probe (P, ``tcpsim lab
--path-probe``). A known miss is a strict xfail.
"""

import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from machine_scores import errors as _errors, instrument_scores, score_relay, window_limited, within_window_target
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms

HERE = Path(__file__).resolve().parent.parent / "validation" / "build_2026-12-02"

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


def _checks(median_miss: str = "", max_miss: str = "") -> list:
    """Issue 22's two window-limited checks, each a strict xfail where a miss is named."""
    return [pytest.param(check, marks=pytest.mark.xfail(strict=True, reason=miss)) if miss else check
            for check, miss in (("median", median_miss), ("max", max_miss))]


@pytest.fixture(scope="module")
def scored():
    points = [p for p in load_points(HERE / "data") if p.source_id == "lab" and p.table_id == "window6"]
    with ProcessPoolExecutor(2) as ex:
        return [o for o in evaluate(points, ex, given_platforms(["lab_vm=lab_vm"], points)) if o.error is not None]


def _runs():
    return json.loads((HERE / "window6_runs.json").read_text())


def test_every_retransmission_has_a_counted_cause():
    """The sender's counters account for each retransmitted segment (fast recovery, the loss state or a loss probe),
    and the relay's devices were read before and after every run."""
    runs = _runs()
    assert len(runs) == 21
    for run in runs:
        m, causes = run["measured"], run["measured"]["retransmit_causes"]
        assert isinstance(m["delay_line_drops"], int) and m["delay_line_drops"] >= 0
        sent_again = causes["TCPFastRetrans"] + causes["TCPSlowStartRetrans"] + causes["TCPLossProbes"]
        assert sent_again >= m["retransmits"], run["row"]


_WHY = ("the user-space relay on this build adds a median 34-182 us to a round trip where the committed RELAY_* "
        "constants (fitted on the lab tables' build) give 23-66 us, so 15 of the 19 rows are predicted too fast; and "
        "four rows retransmitted 27 segments in fast recovery (5 D-SACKed) with no drop at the relay's devices, a "
        "path the model keeps lossless and in order (validation/README.md, 'What the counters gave')")


@pytest.mark.slow
@pytest.mark.parametrize("check", _checks("7.8 % at its score: " + _WHY, "21.6 % at its score: " + _WHY))
def test_window_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows with no fitted parameter: median 5 %, none above 15 %."""
    errors = _errors(scored, window_limited)
    assert len(errors) == 19
    assert within_window_target(errors, check)


@pytest.fixture(scope="module")
def relay_errors():
    """|error| of ``window4`` and ``window5``'s window-limited rows (42) under C and P, as ``tcpsim lab --platform
    lab_vm [--path-probe pathprobe_fit2.json]`` predicts each beside its run."""
    from dataclasses import asdict

    from tcpsim.lab.pathprobe import read_relay_path
    from tcpsim.lab.scenario import RELAY

    sr = score_relay()
    runs = [r for t in sr.JUDGED for r in json.loads((HERE / f"{t}_runs.json").read_text())
            if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
    relays = {"C": asdict(RELAY), "P": asdict(read_relay_path(str(HERE / "pathprobe_fit2.json")))}
    with ProcessPoolExecutor(2) as ex:
        return {n: [abs(p / r["measured"]["goodput_bps"] - 1)
                    for p, r in zip(ex.map(sr.predicted_bps, runs, [relay] * len(runs)), runs)]
                for n, relay in relays.items()}


@pytest.mark.slow
def test_this_build_s_own_delay_line_predicts_its_window_rows_better(relay_errors):
    """The rule's criterion, kept: P's median lower than C's by more than a point (10.8 against 12.2 % at its
    score), its max not higher by more than two (94.5 against 105.4 %)."""
    assert len(relay_errors["C"]) == len(relay_errors["P"]) == 42
    c, p = relay_errors["C"], relay_errors["P"]
    assert statistics.median(p) < statistics.median(c) - 0.01 and max(p) <= max(c) + 0.02


_WHY_P = ("even on its own delay line the model is 10.2 % too fast at the signed median; the worst rows are MTU-9000 "
          "rows at 0.45 ms that retransmitted (3 and 14 segments: +94.5 and +49.7 %) and the jumbo 28 KiB rows at "
          "0.6-3.5 ms (+20-33 %, the window of three jumbo segments or four, validation/README.md 'The jumbo 32 KiB "
          "window rows are two rows in the kernel'); 'What this build's delay line gave'")


@pytest.mark.slow
@pytest.mark.parametrize("check", _checks("10.8 % at its score: " + _WHY_P, "94.5 % at its score: " + _WHY_P))
def test_window4_and_window5_within_target_on_this_build_s_delay_line(relay_errors, check):
    """Issue 22's window-limited rows with no fitted parameter, on the path as this build's probe measured it."""
    assert within_window_target(relay_errors["P"], check)


@pytest.fixture(scope="module")
def cpu_scores():
    """``window2`` and ``window3`` measured four times each (U, R, U, R): the relay unpinned, then on CPU 0."""
    return instrument_scores(HERE / "cpu_runs", {"U": "pathprobe_fit2.json", "R": "pathprobe_relay0.json"})


def _reordered(runs) -> int:
    return sum(1 for r in runs if r["measured"]["receiver_counters"]["TCPOFOQueue"])


@pytest.mark.slow
def test_a_relay_on_one_cpu_reorders_less_and_predicts_its_window_rows_as_well(cpu_scores):
    """The rule "A relay on one CPU", kept: U reordered in at least 4 runs and R in at most half as many (15 and 7 at
    its score), R's window-limited median not above U's by more than a point (2.4 against 6.0 %)."""
    u, r = cpu_scores["U"], cpu_scores["R"]
    assert len(u["runs"]) == len(r["runs"]) == 84
    assert all(run["scenario"]["relay_cpu"] == 0 for run in r["runs"])
    assert all(run["scenario"].get("relay_cpu") is None for run in u["runs"])
    assert _reordered(u["runs"]) >= 4 and _reordered(r["runs"]) <= _reordered(u["runs"]) / 2
    assert statistics.median(r["errors"]) <= statistics.median(u["errors"]) + 0.01


@pytest.mark.slow
@pytest.mark.parametrize("check", _checks(max_miss=(
    "51.9 % at its score: a 0.3 ms, 24 KiB run at 442 Mbit/s with no retransmission or reordering, where the row's "
    "other run on the pinned relay ran 617.6 (+8.7 %): the same row a third slower from one run to the next "
    "(validation/README.md, 'What a relay on one CPU gave')")))
def test_window_runs_on_a_pinned_relay_within_target(cpu_scores, check):
    """Issue 22's window-limited target on this build's runs of ``window2`` and ``window3`` through a relay on one CPU,
    predicted on that relay's own probe: median 5 % (2.4 % at its score), none above 15 %."""
    assert within_window_target(cpu_scores["R"]["errors"], check)


@pytest.fixture(scope="module")
def pinned_scores():
    """``window2`` and ``window3`` four more times each (R, T, R, T): the relay on CPU 0, then the tools pinned beside
    it (``--pin 0,1``), both on the pinned relay's probe."""
    return instrument_scores(HERE / "cpu_runs2", {"R": "pathprobe_relay0.json", "T": "pathprobe_relay0.json"})


@pytest.mark.slow
def test_the_tools_pinned_beside_the_relay_leave_nothing_out_of_order(pinned_scores):
    """The rule "The tools pinned beside the relay", kept: R reordered in at least 4 runs and T in at most half as many
    (8 and 0 at its score), T's window-limited median not above R's by more than a point (2.7 against 3.2 %)."""
    r, t = pinned_scores["R"], pinned_scores["T"]
    assert len(r["runs"]) == len(t["runs"]) == 84
    assert all(run["scenario"]["pin_cpus"] == [0, 1] and run["scenario"]["relay_cpu"] == 0 for run in t["runs"])
    assert _reordered(r["runs"]) >= 4 and _reordered(t["runs"]) <= _reordered(r["runs"]) / 2
    assert statistics.median(t["errors"]) <= statistics.median(r["errors"]) + 0.01


@pytest.mark.slow
@pytest.mark.parametrize("check", _checks())
def test_window_runs_with_the_tools_and_the_relay_pinned_within_target(pinned_scores, check):
    """Issue 22's window-limited target on this build's runs of ``window2`` and ``window3`` with the tools and the relay
    pinned, on the relay's own probe: median 5 %, none above 15 % (2.7 and 12.3 % at its score; seen rows, a chosen
    instrument: validation/README.md, 'What pinning the tools beside the relay gave')."""
    assert within_window_target(pinned_scores["T"]["errors"], check)


@pytest.fixture(scope="module")
def largest_scores():
    return instrument_scores(HERE / "cpu_runs3", {"T": "pathprobe_relay0.json"})["T"]


@pytest.mark.slow
@pytest.mark.parametrize("check", _checks(max_miss=(
    "24.6 % at its score: 8 of 28 window-limited runs above 15 %: the MTU-9000 32 KiB rows -19..-24 % (the kernel's "
    "window of three jumbo segments or four), MTU-1500 16-32 KiB rows at 0.2-0.5 ms +17..+25 %, the 4 ms rows of 32 "
    "and 64 KiB -22 and -17 %; none reordered (validation/README.md, 'What the pinned lab gave on its largest window "
    "table')")))
def test_the_pinned_lab_on_its_largest_window_table_within_target(largest_scores, check):
    """``window`` (50 rows, once) with the tools and the relay pinned, on the relay's own probe, a table the instrument
    was not chosen on: issue 22's median 5 % (3.7 % at its score), none above 15 %."""
    scores = largest_scores
    assert len(scores["runs"]) == 50 and _reordered(scores["runs"]) == 0 and len(scores["errors"]) == 28
    assert within_window_target(scores["errors"], check)
