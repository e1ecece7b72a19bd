"""The validation against the stated targets (issue 21), never against the model's own past figures.

Targets (``tcpsim/calibration/targets.py``): each calibration table's median |error| within 10 % and all
calibration points' median within 5 % (in sample); each holdout table within 20 %; tcpsim below the BDP
calculator on every throughput table. A known miss is a strict xfail naming the table and why (the
validation README's "Misses"), so that a fix shows up as an XPASS and the mark has to go. Runs every
point of the five documents once (about a minute on two cores with the compiled hot path).
"""

import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tcpsim.calibration.tables import UNSCORED_FLAGS, load_points
from tcpsim.calibration.targets import CROSS_SOURCE_TARGET, POOLED_CALIBRATION_TARGET, SOURCES, TABLE_TARGETS
from tcpsim.calibration.validate import evaluate, table_summary

KNOWN_MISSES = {
    "pooled calibration": "6.8 % over the 138 calibration points: each platform was fitted alone to a robust "
                          "(soft-L1) objective, the 10 GbE Tables 4 and 5 and Sun TABLE 1 and 3 sit at 6.6-8.3 % "
                          "and Sun TABLE 4 at 15.4 %; the joint fit over all sources reaches 5.9 % in sample "
                          "(validate --cross --joint) but is not written into the profiles",
    "sunfire/table4": "15.4 %: with one CPU on the sending server only (the source's set-up; before, both ends "
                      "ran one), the copy share of 1460-byte messages is 43 % high (10.0 against 7, beyond the "
                      "source's whole-percent printing) and of 100-250-byte ones 12-23 % low (within it, or 0.2 "
                      "points off; README, Misses); the Sun values were fitted under the old mapping (README, "
                      "Decisions)",
    "tru64/table3": "20.9 %: the MTU-1500 calibration tables leave the DEGPA's coalescing delay, on which the "
                    "jumbo-frame rows turn, unconstrained (README, Misses)",
    "vbox/text": "49 %: the VirtualBox VM path's latency is unknown; the note gives no ping (README, Misses)",
    "gignic/text": "157 %: the first test's unstated default settings limited it; with the stated ones the "
                   "model predicts line rate (README, Misses)",
}


def _points():
    """Every point of the five documents (the lab sweep has its own targets and tests)."""
    return [p for p in load_points() if p.source_id in SOURCES]


def _tables(role):
    """``source/table`` keys with at least one point of ``role`` that can be scored."""
    keys = {f"{p.source_id}/{p.table_id}" for p in _points()
            if p.role == role and not UNSCORED_FLAGS & set(p.flags)}
    return [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[k])) if k in KNOWN_MISSES
            else k for k in sorted(keys)]


@pytest.fixture(scope="module")
def summary():
    with ProcessPoolExecutor(2) as ex:
        outcomes = evaluate(_points(), ex)
    return {f"{r.source_id}/{r.table_id}": r for r in table_summary(outcomes)}, outcomes


@pytest.mark.slow
@pytest.mark.parametrize("key", _tables("calibration"))
def test_calibration_table_within_target(summary, key):
    rows, _ = summary
    assert rows[key].median_error <= TABLE_TARGETS["calibration"], key


@pytest.mark.slow
@pytest.mark.parametrize("key", _tables("holdout"))
def test_holdout_table_within_target(summary, key):
    rows, _ = summary
    assert rows[key].median_error <= TABLE_TARGETS["holdout"], key


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=KNOWN_MISSES["pooled calibration"])
def test_calibration_points_median_within_target(summary):
    _, outcomes = summary
    errs = [abs(o.error) for o in outcomes if o.scored and o.point.role == "calibration"]
    assert statistics.median(errs) <= POOLED_CALIBRATION_TARGET


@pytest.mark.slow
def test_a_number_printed_twice_is_scored_once(summary):
    _, outcomes = summary
    dups = [o for o in outcomes if "duplicate" in o.point.flags]
    assert dups and not any(o.scored for o in dups)
    scored = {(o.point.source_id, o.point.get("platform_sender"), o.point.get("platform_receiver"), o.point.metric, o.point.value, o.point.get("mtu_bytes"), o.point.get("n_streams"),
               o.point.get("sockbuf_bytes"), o.point.get("write_bytes"), o.point.get("message_bytes"),
               o.point.get("tuning"), o.point.get("delack"), o.point.get("direction"), o.point.get("n_cpus"))
              for o in outcomes if o.scored}
    assert len(scored) == sum(o.scored for o in outcomes), "two scored points with the same conditions and value"


@pytest.mark.slow
def test_tcpsim_beats_the_bdp_calculator_on_every_throughput_table(summary):
    rows, _ = summary
    for key, r in rows.items():
        if r.naive_median_error is not None and r.median_error is not None and r.n_scored >= 3:
            assert r.median_error < r.naive_median_error, key


@pytest.mark.slow
def test_the_shipped_cautions_are_this_models(summary):
    """``tcpsim predict`` and ``plan`` caution from tcpsim/data/regimes.json: it must be this model's validation."""
    from tcpsim.confidence import stale

    _, outcomes = summary
    lines = stale([o.to_json() for o in outcomes])
    assert not lines, ("tcpsim/data/regimes.json is stale: regenerate it (python -m tcpsim.confidence, see its "
                       "docstring):\n" + "\n".join(lines[:10]))


@pytest.mark.slow
def test_every_run_ended_on_purpose(summary):
    _, outcomes = summary
    for o in outcomes:
        assert o.termination in (None, "converged", "time_budget"), o.point.key


@pytest.mark.slow
def test_every_rate_carries_its_interval_and_converged_ones_meet_the_tolerance(summary):
    from tcpsim.calibration.mapping import CALIBRATION_BUDGET

    _, outcomes = summary
    rates = [o for o in outcomes if o.scored and o.point.metric in ("throughput", "packet_rate", "transactions")
             and o.termination in ("converged", "time_budget")]
    assert rates
    for o in rates:
        assert o.sim_halfwidth is not None and o.sim_halfwidth >= 0, o.point.key
        if o.termination == "converged":
            assert o.sim_halfwidth <= CALIBRATION_BUDGET.rel_tol * 1.05, o.point.key


# Cross-validation (leave one source out). A pass fits the shared parameters three times over the other
# sources' tables (26 minutes on two shared cores, compiled, at ten evaluations per fold), too long for the
# default suite, so these tests read the record `tcpsim validate --cross --report` writes,
# validation/cross_summary.json, after checking that it was computed from these measured points and this
# joint model (its fingerprint). What the fingerprint cannot see is a change of the simulator itself:
# after one, re-run the pass.
CROSS_RECORD = Path(__file__).resolve().parents[1] / "validation" / "cross_summary.json"

CROSS_MISSES = {
    "tru64": "23.8 %: left out, the ES40's Tru64/Tigon II row is borrowed, the geometric mean of the Linux/ixgb "
             "and Solaris/ce rows (13,700 reference cycles to receive a segment against its fitted 3,000; 9,100 "
             "to send one against 16,200), and its coalescing delay is the Tigon II default (100 us against "
             "63 us fitted)",
    "sunfire": "49.7 %: left out, the Sun Fire's Solaris/ce row is borrowed from the Linux and Tru64 rows "
               "(5,500 reference cycles to receive a segment against its fitted 18,100), its system call and "
               "socket hand-off a borrowed 3,900 cycles (5,500 and 9,200 fitted) and its copy residual 1 "
               "(0.59 fitted)",
    "tengbe": "48.5 %: left out, the Linux/ixgb row is borrowed from Tru64 and Solaris (7,400 and 2,100 "
              "reference cycles to receive a segment and send an ACK against 10,400 and 7,800 fitted), both "
              "coalescing delays are the ixgb default (74 us against 187-229 us fitted) and the SE7501's copy "
              "its memory's STREAM figure (its fitted send-side copy is 2.8 times that)",
    "vbox": "48.8 %: no machine of the VirtualBox note is in the joint model; cross-validated = in-sample, which "
            "misses for the VM path's unknown latency",
    "gignic": "157 %: no machine of the article is in the joint model; cross-validated = in-sample, which "
              "misses for the first test's unstated settings",
}


@pytest.fixture(scope="module")
def cross_record():
    return json.loads(CROSS_RECORD.read_text())


def test_the_cross_validation_record_is_current(cross_record):
    from tcpsim.calibration.cross import fingerprint
    from tcpsim.calibration.shared import joint_model

    assert cross_record["fingerprint"] == fingerprint(load_points(), joint_model()), \
        "validation/cross_summary.json is stale: re-run `tcpsim validate --cross --report`"


def test_the_shipped_cross_validation_figures_are_the_records(cross_record):
    """``tcpsim predict`` quotes them for a machine of uncalibrated parts (tcpsim.confidence.host_cautions)."""
    from tcpsim.confidence import _cross, _data

    assert _data()["cross_validation"] == _cross(cross_record)
    # vbox and gignic: nothing of theirs was fitted, so nothing was left out
    assert set(_cross(cross_record)) == {"tru64", "sunfire", "tengbe", "lab"}


@pytest.mark.parametrize("source", [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=CROSS_MISSES[s]))
                                    if s in CROSS_MISSES else s for s in SOURCES + ("lab",)])
def test_each_source_cross_validated_within_target(cross_record, source):
    """The lab too: its fold is lab_vm without what was calibrated on the sweep (validation/README.md, "The lab left
    out")."""
    assert cross_record["sources"][source]["cross"] <= CROSS_SOURCE_TARGET


LAB_CROSS_MISSES = {
    "lab/cpu2": "85 % against the calculator's 82 % (14.5 % in sample): left out, lab_vm takes the catalog's Linux "
                "cycles, cheaper per packet than its fitted ones, so its unshaped rows run +20..+172 % and its 40-byte "
                "no-delay row +119 % (validation/README.md, 'The lab left out', 'What a streaming process's wake-ups "
                "gave')",
    "lab/writes": "112 % against the calculator's 81 % (6.0 % in sample): left out, lab_vm takes the catalog's Linux "
                  "cycles (0.59 us to send a segment, 0.73 us to receive one, 0.054 ns a byte, against the fitted "
                  "2.16, 0.68 and 0.032), so its 1-16 KiB rows run +112..+174 % (validation/README.md, 'What the "
                  "calibration rows measured with the tools pinned gave', 'What a streaming process's wake-ups gave')",
    "lab/cpu3": "93 % against the calculator's 77 % (10.9 % in sample): left out, the catalog's cheaper cycles run its "
                "3 and 12 KiB rows +122..+161 % and its 300-byte no-delay row +93 % (validation/README.md, 'What "
                "lab/window3 and lab/cpu3 gave', 'What a streaming process's wake-ups gave')",
    "lab/cpu4": "91 % against the calculator's 76 % (30.0 % in sample): left out, lab_vm takes the catalog's zen5 "
                "cycles, and the table was measured on a build of the EPYC VM that ran the lab's rows at 0.75 of the "
                "lab tables' goodput, so every row is high; from this build's own parts 111.8 % (validation/README.md, "
                "'What the EPYC's own gaps gave')",
}
"""lab/messages_nagle missed here (11.7 % against the calculator's 5.3 %) until lab_vm's read cost was measured without
tracepoints (1.5 %); lab/messages_nodelay (13.1 % against 8.9 %) until it was measured with the tools pinned (49.7 %
against 100.3 %: pinned, its 200-byte row runs 338 Mbit/s, not the unpinned 884, and the calculator 100 % high)."""


@pytest.mark.parametrize("table", [pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=LAB_CROSS_MISSES[t]))
                                   if t in LAB_CROSS_MISSES else t
                                   for t in sorted(k for k in json.loads(CROSS_RECORD.read_text())["tables"]
                                                   if k.startswith("lab/"))])
def test_the_lab_left_out_below_the_calculator(cross_record, table):
    row = cross_record["tables"][table]
    assert row["cross"] < row["bdp"]


def test_cross_validated_below_the_calculator_on_every_table(cross_record):
    worse = {k: (t["cross"], t["bdp"]) for k, t in cross_record["tables"].items()
             if k.split("/")[0] in SOURCES and t["bdp"] is not None and t["cross"] is not None
             and t["cross"] >= t["bdp"]}
    assert not worse
    assert sum(t["bdp"] is not None for t in cross_record["tables"].values()) >= 10


# The joint fit in sample (`validate --cross --joint`): the shared parameters fitted to every source's
# calibration tables at once, scored on the same record. Its targets are the in-sample ones.
JOINT_MISSES = {
    "pooled": "5.9 % over the 138 calibration points: ten evaluations from the per-platform calibration moved "
              "the shared parameters by at most 5 % (objective 1.480 -> 1.453), and the fit run to its end (xtol, "
              "18 evaluations) scores 5.87 %, so it is not the budget; Sun TABLE 1 and 3 sit at 7.8 and 8.3 %, "
              "Sun TABLE 4 at 14.4 %",
    "sunfire/table4": "14.4 %: with one CPU on the sending server only, the predicted copy share grows with the "
                      "message faster than the measured one (the per-platform calibration's miss, 15.4 %)",
}


def _joint_calibration_tables():
    record = json.loads(CROSS_RECORD.read_text())
    keys = [k for k, t in record["tables"].items() if t["role"] == "calibration" and k.split("/")[0] in SOURCES]
    return [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=JOINT_MISSES[k])) if k in JOINT_MISSES
            else k for k in sorted(keys)]


@pytest.mark.xfail(strict=True, reason=JOINT_MISSES["pooled"])
def test_joint_fit_in_sample_pooled_within_target(cross_record):
    assert cross_record["joint_in_sample"]["calibration_median"] <= POOLED_CALIBRATION_TARGET


@pytest.mark.parametrize("key", _joint_calibration_tables())
def test_joint_fit_in_sample_each_calibration_table_within_target(cross_record, key):
    assert cross_record["joint_in_sample"]["tables"][key] <= TABLE_TARGETS["calibration"]


def test_validate_scores_a_users_machine_in_place_of_the_profile_its_rows_name(tmp_path, capsys):
    """``tcpsim validate --data DIR --platform ID=FILE``: a class scores its own fitted machine on its own held-out
    runs; the rows' profile is replaced, nothing else about them."""
    from tcpsim.calibration.tables import find_data_dir
    from tcpsim.calibration.validate import main

    data = tmp_path / "data" / "tru64"
    data.mkdir(parents=True)
    (data / "table2.csv").write_text((find_data_dir() / "tru64" / "table2.csv").read_text())

    def predictions(*extra):
        out = tmp_path / f"p{len(extra)}.json"
        assert main(["--data", str(tmp_path / "data"), "--workers", "1", "--json", str(out), *extra]) == 0
        return [p["predicted"] for p in json.loads(out.read_text())]

    own = predictions()
    assert predictions("--platform", "es40_tru64=es40_tru64") == own
    assert predictions("--platform", "es40_tru64=rx2600_ixgb", "--source", "tru64") != own
    capsys.readouterr()
