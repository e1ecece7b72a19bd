"""A seventh build, an Intel Xeon guest (2026-12-02): the pinned lab as ``tcpsim lab``'s default.

``window2`` and ``window3`` four times each (``validation/build_2026-12-02b/runs``: U, T, U, T; U the scheduler's
placement, ``--relay-cpu none --pin none``; T ``--relay-cpu 0 --pin 0,1``), README's smallest example six times
(``smallest/``) and the pinned relay's path probe, measured by a rule written before anything was run on this build
(validation/README.md, "The pinned lab as the default, decided on a seventh build") and scored once under ``lab_vm``
as committed: a window-limited run has no fitted parameter, so this is the protocol and the lab path alone. A known
miss is a strict xfail.
"""

import json
import statistics
from pathlib import Path

import pytest

from machine_scores import instrument_scores, within_window_target

HERE = Path(__file__).resolve().parent.parent / "validation" / "build_2026-12-02b"
SMALLEST_TARGET = 0.10

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


def _reordered(runs) -> int:
    return sum(1 for r in runs if r["measured"]["receiver_counters"]["TCPOFOQueue"])


@pytest.fixture(scope="module")
def scores():
    """U and T on the committed delay line (what a run without a probe is predicted on), T also on its own probe."""
    out = instrument_scores(HERE / "runs", {"U": "RELAY", "T": "RELAY"})
    out["T on its probe"] = instrument_scores(HERE / "runs", {"T": "pathprobe_relay0.json"})["T"]
    return out


def test_each_instrument_ran_as_placed():
    for name, placement in (("u", (None, None)), ("t", ([0, 1], 0))):
        runs = [r for path in sorted((HERE / "runs").glob(f"{name}_*.json")) for r in json.loads(path.read_text())]
        assert len(runs) == 84
        assert {(tuple(r["scenario"]["pin_cpus"] or ()) or None, r["scenario"]["relay_cpu"]) for r in runs} == {
            (tuple(placement[0]) if placement[0] else None, placement[1])}
        assert all(r["delay_line"] == "relay" for r in runs)


@pytest.mark.slow
def test_the_pinned_lab_reorders_no_more_and_predicts_as_well(scores):
    """The rule's criterion, kept: T reordered in no more runs than U, and T's window-limited median on the committed
    delay line is not above U's by more than a point."""
    u, t = scores["U"], scores["T"]
    assert _reordered(t["runs"]) <= _reordered(u["runs"])
    assert statistics.median(t["errors"]) <= statistics.median(u["errors"]) + 0.01


@pytest.mark.slow
@pytest.mark.parametrize("case", ["U", "T", "T on its probe"])
@pytest.mark.parametrize("check", ["median", "max"])
def test_window_runs_within_target(scores, case, check):
    """Issue 22's window-limited target on this build's runs: median 5 %, none above 15 %."""
    errors = scores[case]["errors"]
    assert len(errors) >= 50
    assert within_window_target(errors, check)


@pytest.mark.parametrize("name", ["u", "t"])
def test_the_smallest_example_within_ten_percent(name):
    """README's smallest example, ``tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k``, against the prediction the bare
    command prints beside each run (ideal hosts, the committed delay line): issue 22's 10 %, at the median of three."""
    runs = [json.loads(p.read_text()) for p in sorted((HERE / "smallest").glob(f"{name}_*.json"))]
    assert len(runs) == 3
    errors = [abs(d["predicted"]["goodput_bps"] / d["measured"]["goodput_bps"] - 1) for d in runs]
    assert statistics.median(errors) <= SMALLEST_TARGET


@pytest.fixture(scope="module")
def largest_scores():
    """``window`` (50 rows, once) placed by the default, on this build's pinned probe."""
    return instrument_scores(HERE / "largest", {"T": "pathprobe_relay0.json"})["T"]


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(strict=True, reason=(
    "34.7 % at its score: the 4 ms rows of MTU 1500, 16 and 64 KiB (+34.6, +33.6 %) and MTU 9000, 32 KiB (+15.2 %), "
    "where the kernel ran 0.72-0.74 of the committed table's figures with a minimum RTT of 4.07-4.08 ms: the "
    "handshake's other side of 4.096 ms (README, 'Why two runs of one scenario can differ by a quarter at about 4 "
    "ms'; validation/README.md, 'What the lab's largest window table gave on the seventh build')")))])
def test_the_lab_s_largest_window_table_on_this_build_within_target(largest_scores, check):
    """Issue 22's window-limited target on ``window``'s 28 window-limited runs: median 5 % (4.0 % at its score), none
    above 15 %; nothing reordered."""
    errors = largest_scores["errors"]
    assert len(largest_scores["runs"]) == 50 and len(errors) == 28 and _reordered(largest_scores["runs"]) == 0
    assert within_window_target(errors, check)
