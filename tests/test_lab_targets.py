"""The lab sweep against issue 22's targets (validation/README.md, "The Linux lab sweep").

Window-limited rows (``lab/window`` and ``lab/streams`` rows measured below 80 % of their shaped rate): median
|error| within 5 %, none above 15 %, with no fitted parameter. Small messages (Nagle on and off) and the
10 Gbit/s rows: median within 15 % after ``lab_vm``'s costs were fitted on the calibration tables. A known
miss is a strict xfail naming why, so a fix shows up as an XPASS.
"""

import statistics
from concurrent.futures import ProcessPoolExecutor

import pytest

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.targets import SEED_MEDIAN_TABLES
from tcpsim.calibration.validate import evaluate, seed_median_errors

WINDOW_TARGET, WINDOW_MAX, CPU_TARGET = 0.05, 0.15, 0.15

KNOWN_MISSES = {
    "window-limited max": ("28.7 % (the 28 rows of the unpaced sweep, the delay line measured again the same day): "
                           "the four MTU-9000 rows with 32 KiB buffers are 21-29 % low; the kernel's window on them is "
                           "three jumbo segments in some runs and four in others (a write's tail queued alone once "
                           "raises rcv_ssthresh past four segments; 26 runs of 2026-11-29, validation/README.md, 'The "
                           "jumbo 32 KiB window rows are two rows in the kernel'), the sweep's medians fell on four, "
                           "tcpsim sends only full segments there and stays at three; the 0.5 ms, MTU 1500, 16 KiB "
                           "row, 17 % low: tcpsim's window equals the window probe connection's"),
}


def _miss(key):
    return pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[key]) if key in KNOWN_MISSES else ()


@pytest.fixture(scope="module")
def lab():
    points = [p for p in load_points() if p.source_id == "lab"]
    with ProcessPoolExecutor(2) as ex:
        return evaluate(points, ex)


def _errors(outcomes, keep):
    return [abs(o.error) for o in outcomes if o.error is not None and keep(o.point)]


def _window_limited(p):
    rate = float(p.get("rate_bps") or 0)
    return p.table_id in ("window", "streams") and rate > 0 and p.value_si < 0.8 * rate


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param("median", marks=_miss("window-limited median")),
                                   pytest.param("max", marks=_miss("window-limited max"))])
def test_window_limited_rows_within_target(lab, check):
    errors = _errors(lab, _window_limited)
    assert len(errors) == 28  # rows measured below 80 % of their rate, in the sweep of 2026-11-29
    if check == "median":
        assert statistics.median(errors) <= WINDOW_TARGET
    else:
        assert max(errors) <= WINDOW_MAX


@pytest.mark.slow
@pytest.mark.parametrize("table", [pytest.param(t, marks=_miss(t)) for t in ("messages_nodelay", "messages_nagle",
                                                                             "tengig")])
def test_cpu_bound_rows_within_target_after_calibration(lab, table):
    errors = _errors(lab, lambda p: p.table_id == table)
    assert errors and statistics.median(errors) <= CPU_TARGET


PACING_TARGET, PACING_MAX = 0.05, 0.10
"""The paced rows' targets, written with their rule before they were measured (validation/README.md, "Pacing by the
socket's rate cap")."""


@pytest.mark.slow
def test_paced_rows_within_target(lab):
    errors = _errors(lab, lambda p: p.table_id == "pacing")
    assert len(errors) == 9  # the rows the rule fixed
    assert statistics.median(errors) <= PACING_TARGET and max(errors) <= PACING_MAX


LOSS_TARGET, LOSS_MAX = 0.15, 0.30
"""The random-loss rows' targets, written with their rule before they were measured (validation/README.md, "Random
loss on the lab's path")."""

LOSS_MISSES = {
    "median": "23.1 % (19.6 % at its first score, 2026-11-29, before nine kernel rules of that day and the next: "
              "CUBIC's growth before its first loss, the skb-orphan path, slow start's stretch ACKs, PRR, CUBIC's "
              "update hold and jiffy clock, RACK-TLP, GRO's one skb an aggregate, SACK compression; 15.6 % over "
              "five seeds): tcpsim pauses less often than the kernel when every ACK of a flight is lost, so it is "
              "high where losses are dense on short paths (1 % at 1 ms: +20 %), and validate's one seed is a lottery "
              "on the rare-loss rows (0.1 % at 16 ms: 33.6 Mbit/s on seed 0, 59-91 on the others; the kernel's twelve "
              "runs 26-88)",
    "max": "56.2 %: the 0.1 %, 16 ms row on seed 0 (see the median's reason); over five seeds the worst row is 1 % at "
           "16 ms (-40 %)",
}


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=LOSS_MISSES[c]))
                                   for c in ("median", "max")])
def test_lossy_rows_within_target(lab, check):
    errors = _errors(lab, lambda p: p.table_id == "loss")
    assert len(errors) == 8  # the rows the rule fixed
    assert (statistics.median(errors) <= LOSS_TARGET) if check == "median" else (max(errors) <= LOSS_MAX)


LOSS2_MAX_MISS = ("113.6 %: 3 % loss at 0.5 ms (87.3 Mbit/s predicted, 40.9 measured; five seeds 69-87): the kernel "
                  "spent 2.2 of 3 s in pauses with no ACK, most a flight whose every ACK was lost, then a probe and a "
                  "40-ms delayed ACK; tcpsim's receiver, ACKing more often (its GRO aggregates are smaller under loss "
                  "than the kernel's), loses all of a flight's ACKs less often")


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", pytest.param("max", marks=pytest.mark.xfail(strict=True,
                                                                                         reason=LOSS2_MAX_MISS))])
def test_second_lossy_table_within_target(lab, check):
    """lab/loss2: eight lossy rows fixed and measured after the loss rules of 2026-11-29, scored once held out (9.2 %),
    seen since RACK-TLP (15.4 %), 11.1 % with GRO's one skb an aggregate, 10.2 % with SACK compression."""
    errors = _errors(lab, lambda p: p.table_id == "loss2")
    assert len(errors) == 8  # the rows its rule fixed
    assert (statistics.median(errors) <= LOSS_TARGET) if check == "median" else (max(errors) <= LOSS_MAX)


LOSS3_MISSES: dict[str, str] = {
    "max": "158.2 % over five seeds (held-out score, 2026-11-29): 2 % loss at 0.3 ms, 252.5 Mbit/s predicted on seed 0 "
           "against 90.9; with 0.5 % at 0.3 ms (+68.5 %) and 2 % at 1.5 ms (+45.2 %) the pattern of lab/loss2's worst "
           "row on fresh rows: tcpsim is high where losses are dense against a short round trip",
}
"""lab/loss3's misses at its one held-out score (its rule: validation/README.md, "A third lossy table")."""


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=LOSS3_MISSES[c]))
                                   if c in LOSS3_MISSES else c for c in ("median", "max")])
def test_third_lossy_table_within_target_over_five_seeds(check):
    """lab/loss3: nine lossy rows fixed and measured after the loss rules of 2026-11-29, scored by the median of
    each row's predictions over seeds 0-4 (the estimator its rule fixed before it was measured)."""
    points = [p for p in load_points() if p.source_id == "lab" and p.table_id == "loss3"]
    assert len(points) == 9  # the rows its rule fixed
    with ProcessPoolExecutor(2) as ex:
        errors = [abs(e) for e in seed_median_errors(points, ex)]
    median_target, max_target = SEED_MEDIAN_TABLES["lab/loss3"]
    assert (statistics.median(errors) <= median_target) if check == "median" else (max(errors) <= max_target)


@pytest.mark.slow
def test_the_shipped_cautions_are_this_models_on_the_lab(lab):
    """``tcpsim predict --platform lab_vm`` cautions from tcpsim/data/regimes.json: the lab's regimes in it must be
    this model's."""
    from tcpsim.confidence import stale

    lines = stale([o.to_json() for o in lab])
    assert not lines, ("tcpsim/data/regimes.json is stale: regenerate it (python -m tcpsim.confidence, see its "
                       "docstring):\n" + "\n".join(lines[:10]))
