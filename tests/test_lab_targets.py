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
from tcpsim.calibration.targets import SEED_MEDIAN_TABLES, TABLE_TARGETS
from tcpsim.calibration.validate import evaluate, seed_median_errors

WINDOW_TARGET, WINDOW_MAX, CPU_TARGET = 0.05, 0.15, 0.15
HOLDOUT_TARGET = TABLE_TARGETS["holdout"]

KNOWN_MISSES = {
    "window-limited max": ("22.8 % at seed 0 since a wake-up's latency is drawn from its measured spread and the send "
                           "buffer counts truesize (28.8 % before): the four MTU-9000 rows with 32 KiB buffers are "
                           "15-23 % low; the kernel's window on them is three jumbo segments in some runs and four in "
                           "others (a write's tail queued alone once raises rcv_ssthresh past four segments; 26 runs "
                           "of 2026-11-29, validation/README.md, 'The jumbo 32 KiB window rows are two rows in the "
                           "kernel'), the sweep's medians fell on four, tcpsim mostly stays at three"),
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


WINDOW4_MISS = ("lab/window4 (small buffers, fixed before it was measured): 48.7 % at seed 0 on the 3.5 ms, MTU 9000, "
                "28 KiB row (+22 % at 1.2 ms), where the kernel ran 40.5 Mbit/s, half its 36 KiB row's; the median is "
                "within 5 % since a wake-up's latency is drawn from its measured spread and the send buffer counts "
                "truesize (validation/README.md, 'lab/window4 measured, and what it decided', 'What lab/window6 "
                "decided')")
WINDOW5_MISS = ("lab/window5 (small buffers, fixed before it was measured): 8.6 % median, 71.5 % max at seed 0 since a "
                "wake-up's latency is drawn from its measured spread and the send buffer counts truesize (6.6 / 71.0 % "
                "before): +71.5 % on the 5 ms, 18 KiB row (the kernel 16.1 Mbit/s, below its 14 KiB row), +18-19 % on "
                "the 1.8 ms rows of 14 KiB (MTU 1500) and 44 KiB (MTU 9000); its five-seed median was 5.6 % for both "
                "models at the rule's score (validation/README.md, 'lab/window5 measured, and what it decided', 'What "
                "lab/window6 decided')")
_WINDOW_MISSES = {("window4", "max"): WINDOW4_MISS, ("window5", "median"): WINDOW5_MISS,
                  ("window5", "max"): WINDOW5_MISS}
_WINDOW_TABLE_CHECKS = [(t, n, m, c) for t, n, m in (("window2", 24, 18), ("window3", 18, 12), ("window4", 21, 20),
                                                     ("window5", 21, 19), ("window6", 21, 19), ("window8", 21, 16))
                        for c in ("median", "max", "table")]


@pytest.mark.slow
@pytest.mark.parametrize("table,rows,limited_rows,check", [
    pytest.param(*args, marks=pytest.mark.xfail(strict=True, reason=_WINDOW_MISSES[args[0], args[3]]))
    if (args[0], args[3]) in _WINDOW_MISSES else args for args in _WINDOW_TABLE_CHECKS])
def test_held_out_window_tables_within_target(lab, table, rows, limited_rows, check):
    """lab/window2 (24 rows, measured on 2026-11-29), lab/window3 (18, on 2026-11-30), lab/window4, lab/window5 and
    lab/window6 (21 each, the same day), lab/window8 (21, 2026-12-02: another build, the Intel Xeon VM, pinned by the
    default placement and scored on its own delay line), at round trips and buffers no earlier table has, each fixed
    with these targets before it was measured and scored once held out (validation/README.md, "A second window table",
    "A third window table and a third CPU-bound table", "A fourth window table decides ...", "A fifth window table
    ...", "A wake-up's latency varies as measured ...", "A window table of the seventh build joins the lab source"):
    issue 22's thresholds on the rows measured below 80 % of the rate, and the holdout tables' on the whole."""
    every = _errors(lab, lambda p: p.table_id == table)
    limited = _errors(lab, lambda p: p.table_id == table and p.value_si < 0.8 * float(p.get("rate_bps")))
    assert len(every) == rows and len(limited) == limited_rows
    if check == "median":
        assert statistics.median(limited) <= WINDOW_TARGET
    elif check == "max":
        assert max(limited) <= WINDOW_MAX
    else:
        assert statistics.median(every) <= HOLDOUT_TARGET


@pytest.mark.slow
def test_third_cpu_bound_table_within_target(lab):
    """lab/cpu3: 7 CPU-bound rows, pinned, fixed before they were measured and scored once held out: issue 22's
    CPU-bound 15 % on its median (within the holdout tables' 20 %); 5.4 % at its score, a strict xfail from
    2026-11-30 (89.5-92.7 %) until lab_vm dropped its wake-up stall (10.9 %;
    validation/README.md, "What a streaming process's wake-ups gave")."""
    errors = _errors(lab, lambda p: p.table_id == "cpu3")
    assert len(errors) == 7 and statistics.median(errors) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.parametrize("table,rows", [("messages2", 6), ("tengig2", 4)])
def test_second_cost_tables_within_target(lab, table, rows):
    """lab/messages2 and lab/tengig2, fixed with these targets before they were measured and scored once held out
    (validation/README.md, "Second tables of small messages and of 10 Gbit/s"): issue 22's 15 % median, within the
    holdout tables' 20 %. Most of their rows run at the line; the two 100-byte message rows a CPU limits missed at
    the score (README)."""
    errors = _errors(lab, lambda p: p.table_id == table)
    assert len(errors) == rows
    assert statistics.median(errors) <= min(CPU_TARGET, HOLDOUT_TARGET)


@pytest.mark.slow
@pytest.mark.parametrize("target", [CPU_TARGET, HOLDOUT_TARGET], ids=["issue 22's 15 %", "holdout 20 %"])
def test_third_message_table_within_target(lab, target):
    """lab/messages3: five rows fixed with lab_vm's untraced read cost, measured before that rule's build was scored
    and scored once on it, held out (validation/README.md, "lab_vm's read cost measured without tracepoints")."""
    errors = _errors(lab, lambda p: p.table_id == "messages3")
    assert len(errors) == 5
    assert statistics.median(errors) <= target


@pytest.mark.slow
@pytest.mark.parametrize("target", [CPU_TARGET, HOLDOUT_TARGET], ids=["issue 22's 15 %", "holdout 20 %"])
def test_cpu_bound_held_out_table_within_target(lab, target):
    """lab/cpu2: nine rows a CPU limits by construction, fixed with these targets before they were measured and scored
    once held out (validation/README.md, "A held-out table of CPU-bound rows"); missed from the placement of work on a
    veth (31.6 %) until Linux's autotuned send buffer kept one stream's writer from blocking (8.8 %, 11.3 % with the
    two defects it exposed mended); missed again from 2026-11-30 (25.1-57.0 %) until lab_vm dropped its wake-up stall
    (14.5 %)."""
    errors = _errors(lab, lambda p: p.table_id == "cpu2")
    assert len(errors) == 9
    assert statistics.median(errors) <= target


@pytest.mark.slow
@pytest.mark.parametrize("table", [pytest.param(t, marks=_miss(t)) for t in ("messages_nodelay", "messages_nagle",
                                                                             "tengig")])
def test_cpu_bound_rows_within_target_after_calibration(lab, table):
    errors = _errors(lab, lambda p: p.table_id == table)
    assert errors and statistics.median(errors) <= CPU_TARGET


CALIBRATION_MISSES: dict[str, str] = {}
"""lab/writes missed (19.5-28.4 %) from 2026-11-30 until lab_vm dropped its wake-up stall (6.0 %; validation/README.md,
"What a streaming process's wake-ups gave")."""


@pytest.mark.slow
@pytest.mark.parametrize("table", [pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=CALIBRATION_MISSES[t]))
                                   if t in CALIBRATION_MISSES else t for t in ("writes", "messages_nodelay")])
def test_calibration_tables_within_target(lab, table):
    """The tables lab_vm's costs are fitted on, against every calibration table's target (issue 21: 10 %)."""
    errors = _errors(lab, lambda p: p.table_id == table)
    assert errors and statistics.median(errors) <= TABLE_TARGETS["calibration"]


HOLDOUT_TABLES = sorted({p.table_id for p in load_points() if p.source_id == "lab" and p.role == "holdout"})


LOSS_SEED0 = ("17.7 % on seed 0 since limited transmit's loan ends when recovery begins (19.1 % since the "
              "out-of-order queue was charged to the socket's memory, 16.2 % since lab_vm "
              "dropped its wake-up stall, 17.8 % since Linux 6.16's receive-buffer "
              "growth, 17.4 % when lab_vm took its kernel's release, 6.18.44; 19.8 % under 6.12's, since a tbf "
              "charges an skb's bytes; 20.9 % before that, 20.1 % before Linux's srtt was taken from the oldest "
              "segment an ACK covers, 15.8 % before HyStart's ACK train was timed as Linux 5.7's): its 4 ms rows -20 "
              "and -17 %, its 16 ms rows +19, -51 and -38 %; 3-s runs with a few dozen losses at most, each row one "
              "draw of its lottery (validation/README.md, 'What the read loop gave', 'What HyStart's ACK train as "
              "Linux 5.7 on times it gave', 'What a tbf's charge gave', 'What lab_vm's own release gave', 'What "
              "Linux 6.16's receive-buffer growth gave', 'What a streaming process's wake-ups gave', 'What the "
              "out-of-order queue's memory gave', 'What ending limited transmit's loan gave')")

HOLDOUT_MISSES = {
    "unshaped": ("20.04 % since lab_vm dropped its wake-up stall (34.3 % with it; 24.1 % before a bare veth's round "
                 "trip became the hosts' work): the MTU-9000 rows -21 to -30 % and the two-stream MTU-1500 row -19 %, "
                 "bound by the sending CPU, which carries each frame's receive work and its ACK inside the sending "
                 "call; lab_vm gives each side one CPU where the unpinned kernel spreads several streams over both "
                 "vCPUs (validation/README.md, 'What the veth's round trip as the hosts' work gave', 'What a streaming "
                 "process's wake-ups gave')"),
    "cpu4": ("30.0 %, every row high (+6 to +123 %): measured on 2026-12-01 on a build of the EPYC VM (kernel "
             "6.18.44-fc-v1045) whose processes spend 1.46 times lab_vm's write and 1.20 times its read and copy "
             "memory 1.20 times slower, where lab_vm's costs were fitted on the build of the lab tables (-v657); "
             "validation/README.md, 'What the EPYC's own gaps gave'"),
}
"""lab/loss missed the holdout target (20 %) at 20.1-20.9 % on seed 0 until a tbf charged an skb's bytes (19.8 %)."""


@pytest.mark.slow
@pytest.mark.parametrize("table", [pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=HOLDOUT_MISSES[t]))
                                   if t in HOLDOUT_MISSES else t for t in HOLDOUT_TABLES])
def test_every_held_out_table_within_the_holdout_target(lab, table):
    """Every held-out lab table against the holdout tables' target (20 %), on validate's seed, as REPORT.md scores
    it."""
    errors = _errors(lab, lambda p: p.table_id == table)
    assert errors and statistics.median(errors) <= HOLDOUT_TARGET


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=HOLDOUT_MISSES["cpu4"])
def test_cpu_bound_table_of_the_epycs_other_build_within_target(lab):
    """lab/cpu4: eleven rows a CPU limits, fixed before they were measured and scored once held out
    (validation/README.md, "The EPYC's own gaps, measured on its machine"), against issue 22's 15 % after
    calibrating."""
    errors = _errors(lab, lambda p: p.table_id == "cpu4")
    assert len(errors) == 11
    assert statistics.median(errors) <= CPU_TARGET


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
    "median": LOSS_SEED0,
    "max": "51.2 %: the 0.1 %, 16 ms row on seed 0 (37.4 Mbit/s predicted, 76.6 measured; 49.0 % before limited "
           "transmit's loan ended when recovery begins, 49.7 % before the "
           "out-of-order queue was charged to the socket's memory, 53.7 % with lab_vm's wake-up "
           "stall, 43.2 % under 6.12's "
           "rules, 54.1 % before Linux's srtt was taken from the oldest segment an ACK covers, 47.0 % before the "
           "wake-up spread), a 3-s run with a handful of losses, a lottery on both sides (the kernel's twelve runs "
           "26-88 Mbit/s)",
}


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=LOSS_MISSES[c]))
                                   if c in LOSS_MISSES else c for c in ("median", "max")])
def test_lossy_rows_within_target(lab, check):
    errors = _errors(lab, lambda p: p.table_id == "loss")
    assert len(errors) == 8  # the rows the rule fixed
    assert (statistics.median(errors) <= LOSS_TARGET) if check == "median" else (max(errors) <= LOSS_MAX)


LOSS2_MISSES = {
    "max": "31.5 % since limited transmit's loan ends when recovery begins (30.3 % since the out-of-order queue was "
           "charged to the socket's memory, 29.3 % before; validation/README.md, 'What the out-of-order queue's memory "
           "gave', 'What ending limited transmit's loan gave'): its 0.5 ms, 3 % row, 53.7 Mbit/s predicted against "
           "40.9 measured, a 6-s run whose losses are one draw of its lottery",
}


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=LOSS2_MISSES[c]))
                                   if c in LOSS2_MISSES else c for c in ("median", "max")])
def test_second_lossy_table_within_target(lab, check):
    """lab/loss2: eight lossy rows fixed and measured after the loss rules of 2026-11-29, scored once held out (9.2 %),
    seen since RACK-TLP (15.4 %), 11.1 % with GRO's one skb an aggregate, 10.2 % with SACK compression, 7.1 % (max
    14.2 %) with the measured wake-up latency; its max a strict xfail from 2026-11-30 (27.7-43.3 %, its 0.5 ms, 3 %
    row) until Linux 6.16's receive-buffer growth (10.6 %; validation/README.md, "What Linux 6.16's receive-buffer
    growth gave")."""
    errors = _errors(lab, lambda p: p.table_id == "loss2")
    assert len(errors) == 8  # the rows its rule fixed
    assert (statistics.median(errors) <= LOSS_TARGET) if check == "median" else (max(errors) <= LOSS_MAX)


SEED_MEDIAN_MISSES: dict[tuple[str, str], str] = {}
"""Misses of the tables scored by the five-seed estimator. lab/loss3's max missed at its one held-out score (158.2 %:
dense losses on short paths); with the wake-up latency lab/loss4 chose it is 21.5 %. lab/loss4's max missed from a
Linux ACK's order at its end (33.0 %) until lab_vm's read cost was measured without tracepoints (19.3 %), and again
with Linux's 4.16+ receive-buffer growth (40.0 %) until a receive call owned its socket only while it copies
(18.8 %), and missed again (36.3 %) from a wake-up's measured latency spread until Linux's srtt was taken from the
oldest segment an ACK covers (24.3 %; its median 6.9 -> 12.3 %), and once more (31.7 %) after a tbf charged an skb's
bytes, until Linux's retransmission timeout was srtt plus a variance never below the minimum (21.5 %). lab/loss3's max
missed at 35.5 % (its 0.3 ms, 2 % row, dense losses on the shortest path) from lab_vm's dropped wake-up stall until
the out-of-order queue was charged to the socket's memory (28.3 %)."""


@pytest.fixture(scope="module")
def seed_median_abs_errors():
    """|error| of each row of the tables scored by the five-seed estimator, by table, computed once for both checks."""
    out = {}
    with ProcessPoolExecutor(2) as ex:
        for table in SEED_MEDIAN_TABLES:
            points = [p for p in load_points() if f"{p.source_id}/{p.table_id}" == table]
            assert len(points) == 9  # the rows their rules fixed
            out[table] = [abs(e) for e in seed_median_errors(points, ex)]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("table,check", [
    pytest.param(t, c, marks=pytest.mark.xfail(strict=True, reason=SEED_MEDIAN_MISSES[(t, c)]))
    if (t, c) in SEED_MEDIAN_MISSES else (t, c) for t in SEED_MEDIAN_TABLES for c in ("median", "max")])
def test_lossy_tables_within_target_over_five_seeds(table, check, seed_median_abs_errors):
    """lab/loss3 and lab/loss4: nine lossy rows each, fixed and measured after the loss rules of 2026-11-29, scored by
    the median of each row's predictions over seeds 0-4 (the estimator fixed before lab/loss3 was measured)."""
    errors = seed_median_abs_errors[table]
    median_target, max_target = SEED_MEDIAN_TABLES[table]
    assert (statistics.median(errors) <= median_target) if check == "median" else (max(errors) <= max_target)


@pytest.mark.slow
def test_the_shipped_cautions_are_this_models_on_the_lab(lab):
    """``tcpsim predict --platform lab_vm`` cautions from tcpsim/data/regimes.json: the lab's regimes in it must be
    this model's."""
    from tcpsim.confidence import stale

    lines = stale([o.to_json() for o in lab])
    assert not lines, ("tcpsim/data/regimes.json is stale: regenerate it (python -m tcpsim.confidence, see its "
                       "docstring):\n" + "\n".join(lines[:10]))
