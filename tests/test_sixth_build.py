"""A sixth build of the lab's EPYC VM (2026-12-02): ``window6``'s rows with the retransmissions' causes counted.

Its table (``validation/build_2026-12-02/data``, ``window6`` once, unpinned) and path probe were measured by a rule
written before they were run (validation/README.md, "The window rows' retransmissions, by cause, on a sixth build")
and scored once under ``lab_vm`` as committed: a window-limited row has no fitted parameter, so this is the protocol
and the lab path alone. A known miss is a strict xfail.
"""

import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from machine_scores import errors as _errors, window_limited
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms

HERE = Path(__file__).resolve().parent.parent / "validation" / "build_2026-12-02"
WINDOW_TARGET, WINDOW_MAX = 0.05, 0.15

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


@pytest.fixture(scope="module")
def scored():
    points = [p for p in load_points(HERE / "data") if p.source_id == "lab"]
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
@pytest.mark.parametrize("check", [
    pytest.param("median", marks=pytest.mark.xfail(strict=True, reason="7.8 % at its score: " + _WHY)),
    pytest.param("max", marks=pytest.mark.xfail(strict=True, reason="21.6 % at its score: " + _WHY))])
def test_window_limited_rows_within_target_with_no_fitted_parameter(scored, check):
    """Issue 22's window-limited rows with no fitted parameter: median 5 %, none above 15 %."""
    errors = _errors(scored, window_limited)
    assert len(errors) == 19
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)
