"""A tenth machine, against the issues' targets: an AMD EPYC guest of a core never measured before (Zen 4, family 25
model 17, 2.6 GHz) on the eighth machine's kernel build ``-v1098`` (2026-12-02).

Its tables (``validation/zen4_2026-12-02/iperf3``: the 46 rows in three pinned passes, each row its median run,
``window6`` once placed by ``tcpsim lab``'s default, README's smallest example three times, every run iperf3's) were
measured by a rule written before they ran (validation/README.md, "The tenth machine again, measured with iperf3":
the first measurement, by rule 154, found no iperf3 and measured the built-in generator) and scored once: the file
``tcpsim machine detect --probes`` wrote (A10L, with the wake-up latency), the same without the latency (A10), and
README's classroom step 2 from each (B10L, B10). A known miss is a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import (HELD_OUT, SMALLEST_TARGET, check_rtt0_tables, errors as _errors, median_on, rr_errors,
                            scored_outcomes,
                            smallest_example_error, tables_not_below_the_calculator, window_limited,
                            within_window_target)

HERE = Path(__file__).resolve().parent.parent / "validation" / "zen4_2026-12-02" / "iperf3"
FILES = {"parts_lat": "parts_lat.toml", "parts": "parts.toml", "calibrated_lat": "fit_lat.toml",
         "calibrated": "fit.toml"}
CPU_TARGET = 0.15
PARTS_FAST = ("from its parts every CPU table is fast (signed median +66 % with the latency, +47 % without, at the "
              "score): step 2 doubled the cost of a segment, and the catalog's zen4 factor is a vendor-IPC guess")

pytestmark = pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")


RTT0 = HELD_OUT + ("writes", "messages_nodelay", "window6")
"""The 67 rows of rule 155 (``lab/cpu4`` and ``cpu5`` in the same folder are rule 156's)."""


@pytest.fixture(scope="module")
def scored():
    return scored_outcomes(HERE, FILES, {name: RTT0 for name in FILES})


@pytest.mark.slow
def test_the_tables_are_the_measured_ones(scored):
    check_rtt0_tables(scored, FILES)


@pytest.mark.slow
def test_the_latency_stays_in_the_default_by_the_rule(scored):
    """Rule 154's criterion, taken on iperf3's rows: the latency leaves detect's default only if it costs more than a
    point both ways. From the parts it cost 18.6 points (65.9 against 47.3 %); calibrated it helped (14.7 against
    16.1 %), so ``machine detect --probes`` still writes it."""
    assert median_on(scored["calibrated_lat"]) < median_on(scored["calibrated"]) + 0.01


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param("parts_lat", marks=pytest.mark.xfail(strict=True, reason="65.9 % at the score: " + PARTS_FAST)),
    pytest.param("parts", marks=pytest.mark.xfail(strict=True, reason="47.3 % at the score: " + PARTS_FAST)),
    "calibrated_lat",
    pytest.param("calibrated", marks=pytest.mark.xfail(strict=True, reason="16.1 % at the score (B10L, what detect's "
                                                       "default gives step 2, 14.7 %): cpu2 17.2, cpu3 18.5, "
                                                       "messages3 18.6 %"))])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 21's 15 % from the parts and issue 22's after calibrating, on the 37 held-out rows."""
    assert median_on(scored[name]) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="cpu3 (91.0 against 68.2 %) and unshaped (126.0 against 79.7 %) at the score: "
                   + PARTS_FAST)
def test_below_the_calculator_on_every_table_from_the_parts(scored):
    """Issue 21's second target from what detect writes (A10L)."""
    assert tables_not_below_the_calculator(scored["parts_lat"]) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", ["median", "max"])
def test_window6_limited_rows_within_target_from_the_parts(scored, check):
    """Issue 22's window-limited rows of ``window6`` with no fitted parameter, from what detect writes (A10L): median 5
    %, none above 15 % (3.0 and 12.4 % at the score; without the latency 8.7 and 16.6 %)."""
    assert within_window_target(_errors(scored["parts_lat"], window_limited), check)


def test_the_smallest_example_within_ten_percent():
    """README's smallest example as typed, against the prediction each run printed beside it: issue 22's 10 %, at the
    median of three (+7.9, +9.0, +9.9 % at the score)."""
    assert smallest_example_error(HERE) <= SMALLEST_TARGET


@pytest.mark.slow
def test_the_pace_probes_clock_did_not_earn_an_option_by_the_rule():
    """Rule 156: the probe's clock (``python -m tcpsim.machine.paceprobe``, 0.25 of the nominal one) against the parts
    (A10L) on ``lab/cpu4`` and ``cpu5``, 20 rows measured after it: 44.8 against 25.4 % at the score, not 5 points
    better, so ``machine detect --probes`` has no ``--pace``. The probe's predicted work a segment jumps from 5 to 16
    us near the clock it found: a search in a bistable model lands on the step."""
    tables = ("cpu4", "cpu5")
    both = scored_outcomes(HERE, {"pace": "parts_pace.toml", "parts_lat": "parts_lat.toml"},
                           {"pace": tables, "parts_lat": tables})
    assert all(len(v) == 20 for v in both.values())
    assert median_on(both["pace"], tables) > median_on(both["parts_lat"], tables) - 0.05


@pytest.mark.slow
def test_the_request_response_probes_clock_did_not_earn_an_option_by_the_rule():
    """Rule 160: the request/response probe's clock (``paceprobe --rr``, the kernel's time alone; 0.100 of the nominal
    one, the bottom of its range) against the parts (A10L) on ``lab/cpu6`` and ``cpu7``, 20 rows measured after it:
    69.2 against 61.9 % at the score, not 5 points better, so ``machine detect --probes`` has no ``--pace``. The
    kernel's transactions paid sleeps and cross-vCPU wake-ups that the bulk rows do not."""
    tables = ("cpu6", "cpu7")
    files = {"rr": "parts_rr.toml", "parts_lat": "parts_lat.toml"}
    both = scored_outcomes(HERE, files, {name: tables for name in files})
    assert all(len(v) == 20 for v in both.values())
    assert median_on(both["rr"], tables) > median_on(both["parts_lat"], tables) - 0.05


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="cpu7 21.8 % at the score (cpu6 14.3 %): the calibrated file's 20 rows 16.1 %, "
                                       "its unshaped rows -31..+55 % (validation/README.md, 'What the "
                                       "request/response probe gave')")
def test_the_calibrated_file_on_the_tables_measured_after_rule_156_within_target():
    """Issue 22's 15 % after calibrating (B10L, step 2's file), on the 20 rows of ``lab/cpu6`` and ``cpu7``."""
    tables = ("cpu6", "cpu7")
    scored = scored_outcomes(HERE, {"calibrated_lat": "fit_lat.toml"}, {"calibrated_lat": tables})
    assert median_on(scored["calibrated_lat"], tables) <= CPU_TARGET


def _rr_errors(files: dict[str, str], table: str = "rr") -> dict[str, list[float]]:
    """This machine's request/response rows (``lab/rr``, rule 161; ``rr2``, rule 162; ``rr3``, rule 163)."""
    return rr_errors(HERE, files, table)


@pytest.mark.slow
def test_the_short_idles_latency_did_not_earn_detects_default_by_the_rule():
    """Rule 161: with the spinning probe's latency (A10S) the 16 held-out rows came 176.6 -> 32.2 % (at least 3 points
    better, its first condition), but ``lab/cpu8``'s ten 53.2 -> 61.9 % (more than 2 points worse, its second), so
    ``machine detect --probes`` keeps the sleeping probe's gaps. The request/response rows are where the short idles
    decide: each transaction is two wake-ups after idles of tens of microseconds."""
    files = {"spin": "parts_spin.toml", "parts_lat": "parts_lat.toml"}
    cpu8 = scored_outcomes(HERE, files, {name: ("cpu8",) for name in files})
    rr = _rr_errors(files)
    assert all(len(v) == 10 for v in cpu8.values()) and all(len(v) == 6 for v in rr.values())
    g16 = {n: statistics.median([abs(e) for e in rr[n]] + _errors(cpu8[n], lambda p: True)) for n in files}
    assert g16["spin"] <= g16["parts_lat"] - 0.03
    assert median_on(cpu8["spin"], ("cpu8",)) > median_on(cpu8["parts_lat"], ("cpu8",)) + 0.02
    assert min(rr["parts_lat"]) > 2.0 and max(abs(e) for e in rr["spin"]) < 0.6


@pytest.mark.slow
def test_step_2_from_the_short_idles_earned_the_classroom_steps_by_the_rule():
    """Rule 162: README's step 2 from A10S (B10S, ``fit_spin.toml``) against step 2 from A10L (B10L) on 16 rows
    measured after the fit: 17.3 against 29.6 % (at least 3 points better), and ``lab/cpu9``'s ten 6.4 against 15.0 %
    (not more than 2 worse), so the classroom steps run ``machine detect --probes --spin``."""
    files = {"spin": "fit_spin.toml", "lat": "fit_lat.toml"}
    cpu9 = scored_outcomes(HERE, files, {name: ("cpu9",) for name in files})
    rr2 = _rr_errors(files, "rr2")
    assert all(len(v) == 10 for v in cpu9.values()) and all(len(v) == 6 for v in rr2.values())
    g16 = {n: statistics.median([abs(e) for e in rr2[n]] + _errors(cpu9[n], lambda p: True)) for n in files}
    assert g16["spin"] <= g16["lat"] - 0.03
    assert median_on(cpu9["spin"], ("cpu9",)) <= median_on(cpu9["lat"], ("cpu9",)) + 0.02


@pytest.mark.slow
def test_the_file_the_classroom_steps_now_fit_within_target_on_cpu9():
    """Issue 22's 15 % after calibrating, on the ten CPU-bound rows measured after rule 162's fit (6.4 % at the
    score)."""
    scored = scored_outcomes(HERE, {"spin": "fit_spin.toml"}, {"spin": ("cpu9",)})
    assert median_on(scored["spin"], ("cpu9",)) <= CPU_TARGET


@pytest.mark.slow
def test_request_response_runs_among_the_calibration_runs_did_not_earn_step_2_by_the_rule():
    """Rule 163: step 2 from A10S with two request/response runs among its 14 (B10R, ``fit_rr.toml``) against rule
    162's file (B10S) on 16 rows measured after it: 13.5 against 13.1 %, not 3 points better. A transaction's time is
    its wake-ups' and calls', which the file measured, so the fit's per-segment costs barely move."""
    files = {"rr": "fit_rr.toml", "spin": "fit_spin.toml"}
    cpu10 = scored_outcomes(HERE, files, {name: ("cpu10",) for name in files})
    rr3 = _rr_errors(files, "rr3")
    assert all(len(v) == 10 for v in cpu10.values()) and all(len(v) == 6 for v in rr3.values())
    g16 = {n: statistics.median([abs(e) for e in rr3[n]] + _errors(cpu10[n], lambda p: True)) for n in files}
    assert g16["rr"] > g16["spin"] - 0.03


@pytest.mark.slow
def test_the_classroom_file_predicts_request_response_rows_measured_after_it():
    """Rule 162's file (B10S) on ``lab/rr3``'s six rows, measured after rule 163's fit: 9.8 % at the score, where step 2
    from detect's default latency (B10L) is 277 % fast. Issue 22's 15 % for small-message rows after calibrating, taken
    for request/response, which has no target of its own."""
    rr3 = _rr_errors({"spin": "fit_spin.toml", "lat": "fit_lat.toml"}, "rr3")
    assert statistics.median(abs(e) for e in rr3["spin"]) <= CPU_TARGET
    assert min(rr3["lat"]) > 1.0


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="17.5 % at the score: the unshaped 4.5, 22 and 36 KiB rows +25..+58 % "
                                       "(validation/README.md, 'What request/response runs among the calibration "
                                       "runs gave')")
def test_the_classroom_file_within_target_on_cpu10():
    """Issue 22's 15 % after calibrating, on ``lab/cpu10``'s ten rows (rule 162's file)."""
    scored = scored_outcomes(HERE, {"spin": "fit_spin.toml"}, {"spin": ("cpu10",)})
    assert median_on(scored["spin"], ("cpu10",)) <= CPU_TARGET


@pytest.mark.slow
@pytest.mark.parametrize("table", ["rr", "rr2", "rr3"])
def test_validate_scores_the_request_response_tables_as_the_rules_scored_them(table):
    """``data/lab/rr*.csv`` are the median runs of each table's three passes (``python -m tcpsim.lab.dataset data/lab
    --median-of rr_passes.json``), so ``tcpsim validate --data data --platform lab_vm=fit_spin.toml`` scores them on
    transactions a second. Its prediction of each row is the lab's (``score_rule161.py``'s, ``tcpsim lab``'s) within 3
    % (rule 164's first check): validate takes ``lab_vm``'s buffer sysctls and its own stop rule, where the lab
    predicts a run on its own sysctls."""
    import json

    from tcpsim.lab.dataset import median_runs

    runs = median_runs(json.loads((HERE / f"{table}_passes.json").read_text()))
    outcomes = scored_outcomes(HERE, {"spin": "fit_spin.toml"}, {"spin": (table,)})["spin"]
    assert [o.point.value_si for o in outcomes] == [round(r["measured"]["transactions_per_s"], 1) for r in runs]
    assert all(o.point.metric == "transactions" for o in outcomes)
    lab = _rr_errors({"spin": "fit_spin.toml"}, table)["spin"]
    for o, r, e in zip(outcomes, runs, lab):
        assert o.predicted == pytest.approx((1 + e) * r["measured"]["transactions_per_s"], rel=0.03), o.point.row


@pytest.mark.slow
def test_validate_predicts_the_goodput_rows_as_the_lab_does():
    """Rule 164's first check on ``lab/cpu9``'s ten rows under B10S: validate's prediction of each row is what ``tcpsim
    lab`` predicted beside the run (its own path, sysctls and tool) within 3 %. Before rule 164 the two unshaped
    MTU-9000 rows came 5.4 and 11.4 % lower in validate, which paged their receive skbs as the TUN's."""
    import json

    from tcpsim.lab.predict import predict_lab, tool_goodput_bps
    from tcpsim.lab.scenario import LabScenario
    from tcpsim.machine.detect import linux_version_part

    runs = json.loads((HERE / "cpu9_median.json").read_text())
    outcomes = scored_outcomes(HERE, {"spin": "fit_spin.toml"}, {"spin": ("cpu9",)})["spin"]
    assert [round(o.point.value_si / 1e6, 2) for o in outcomes] == [round(r["measured"]["goodput_bps"] / 1e6, 2)
                                                                   for r in runs]
    for o, run in zip(outcomes, runs):
        d, m = run["scenario"], run["measured"]
        sc = LabScenario(**{**d, "pin_cpus": tuple(d["pin_cpus"]) if d.get("pin_cpus") else None})
        lab = predict_lab(sc, run["sysctls"], platform=str(HERE / "fit_spin.toml"),
                          os_name=linux_version_part(run["kernel"])[0], delay_line=run["delay_line"], tool=m["tool"],
                          tool_version=m.get("tool_version") or "")
        assert o.predicted == pytest.approx(tool_goodput_bps(sc, lab, m.get("duration_s")), rel=0.03), o.point.row
