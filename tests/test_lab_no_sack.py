"""Linux recovering a flow without SACK, against the real kernel's runs of rules 167-170 (validation/README.md,
"Linux recovers a flow without SACK as tcp_input.c does"): twelve lossy paths measured with ``tcpsim lab --sack off``,
each to be predicted within issue 22's 15 %. Paths 1-4 decided rule 167 (before it tcpsim was 21-38 % low on each);
paths 5-7 were measured after it, for rule 168, which was not adopted; paths 8-10 after rule 169, which scores every
path on ``lab_vm``, the host ``tcpsim validate`` scores the lab tables on: its reader wakes tens of microseconds late
and takes a burst's skbs in one read, with one ACK, as the kernel's did, where an ideal host's acknowledges each.
Paths 12 and 14 were measured for rule 170 (not adopted) and are held-out checks of rule 169; two paths with SACK on
(11 and 13) are held to the same bound beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

VALIDATION = Path(__file__).resolve().parents[1] / "validation"
RUNS = {**{f"path{i}": "rule167_2026-12-03" for i in range(1, 5)},
        **{f"path{i}": "rule168_2026-12-03" for i in (5, 6, 7)},
        **{f"path{i}": "rule169_2026-12-03" for i in (8, 9, 10)},
        **{f"path{i}": "rule170_2026-12-03" for i in (12, 14)}}
SACK_RUNS = {"path11": "rule169_2026-12-03", "path13": "rule170_2026-12-03"}
_DISORDER = ("duplicate ACKs came, too few to begin a recovery, and the sender waited for its timer; not yet traced "
             "(validation/README.md, 'What scoring the lossy paths on lab_vm gave')")
MISSES = {
    "path6": "path 6 (1 Gbit/s, 1 ms, autotuned, 0.1 %): +23.1 % on lab_vm (+56.4 % on an ideal host): the kernel "
             "timed out 17 times in 10 s, most often when the delay line lost the one ACK of a round trip, which "
             "tcpsim's receiver now sends as rarely, else when " + _DISORDER,
    "path8": "path 8 (1 Gbit/s, 2 ms, autotuned, 0.05 %): +18.4 % on lab_vm, with no timeout in the kernel's run: "
             "not yet traced",
    "path9": "path 9 (500 Mbit/s, 1 ms, autotuned, 0.2 %): +15.7 % on lab_vm: the kernel timed out 16 times in 10 s, "
             "6 first of a series in disorder and 7 in recovery",
    "path10": "path 10 (1 Gbit/s, 0.5 ms, 256 KiB, 0.1 %): +20.7 % on lab_vm: the kernel timed out 40 times in 10 s, "
              "39 of them in disorder with the receiver's window full, and tcpsim 38 times alike; its 205-ms stalls "
              "take 80 % of the run, and tcpsim moves a quarter to two fifths more data between them "
              "(validation/README.md, 'What scoring the lossy paths on lab_vm gave')",
    "path13": "path 13 (1 Gbit/s, 1 ms, autotuned, 0.2 %, SACK on): +53.8 % on lab_vm, measured for rule 170: the "
              "kernel ran 203 Mbit/s with no timeout and windows like tcpsim's (cwnd median 38 against 33 KB), but its "
              "srtt ran 1.78 ms at the median against tcpsim's 1.12; run again 40 minutes later it went 260-308 Mbit/s "
              "with a mean RTT of 1.16-1.3 ms (+2 to +21 %): a slower state of the machine during the batch "
              "(validation/README.md, 'What timing an ACK over a retransmission by its echo gave')",
}


def _predicted_and_measured(runs: dict[str, str], name: str, sack: bool) -> tuple[float, float]:
    d = json.loads((VALIDATION / runs[name] / f"{name}.json").read_text())
    m, sc = d["measured"], LabScenario(**d["scenario"])
    assert sc.sack is sack and d["sysctls"]["net.ipv4.tcp_sack"] == ("1" if sack else "0")
    result = predict_lab(sc, d["sysctls"], platform="lab_vm", delay_line=d["delay_line"], tool=m["tool"],
                         tool_version=m.get("tool_version") or "")
    assert bool(result.inputs["sack"]) is sack
    return tool_goodput_bps(sc, result, m["duration_s"]), m["goodput_bps"]


def _cases(runs: dict[str, str]) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MISSES[n])) if n in MISSES else n
            for n in runs]


@pytest.mark.parametrize("name", _cases(RUNS))
def test_a_lossy_run_without_sack_is_predicted_within_15_percent(name):
    predicted, measured = _predicted_and_measured(RUNS, name, sack=False)
    assert predicted == pytest.approx(measured, rel=0.15)


@pytest.mark.parametrize("name", _cases(SACK_RUNS))
def test_the_same_kind_of_path_with_sack_is_predicted_within_15_percent(name):
    predicted, measured = _predicted_and_measured(SACK_RUNS, name, sack=True)
    assert predicted == pytest.approx(measured, rel=0.15)
