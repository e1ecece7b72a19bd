"""Linux recovering a flow without SACK, against the real kernel's runs of rules 167-169 (validation/README.md,
"Linux recovers a flow without SACK as tcp_input.c does"): ten lossy paths measured with ``tcpsim lab --sack off``,
each to be predicted within issue 22's 15 %. Paths 1-4 decided rule 167 (before it tcpsim was 21-38 % low on each);
paths 5-7 were measured after it, for rule 168, which was not adopted; paths 8-10 after rule 169, which scores every
path on ``lab_vm``, the host ``tcpsim validate`` scores the lab tables on: its reader wakes tens of microseconds late
and takes a burst's skbs in one read, with one ACK, as the kernel's did, where an ideal host's acknowledges each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

VALIDATION = Path(__file__).resolve().parents[1] / "validation"
RUNS = {**{f"path{i}": "rule167_2026-12-03" for i in range(1, 5)},
        **{f"path{i}": "rule168_2026-12-03" for i in (5, 6, 7)},
        **{f"path{i}": "rule169_2026-12-03" for i in (8, 9, 10)}}
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
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MISSES[n]))
                                  if n in MISSES else n for n in RUNS])
def test_a_lossy_run_without_sack_is_predicted_within_15_percent(name):
    d = json.loads((VALIDATION / RUNS[name] / f"{name}.json").read_text())
    m, sc = d["measured"], LabScenario(**d["scenario"])
    assert sc.sack is False and d["sysctls"]["net.ipv4.tcp_sack"] == "0"
    result = predict_lab(sc, d["sysctls"], platform="lab_vm", delay_line=d["delay_line"], tool=m["tool"],
                         tool_version=m.get("tool_version") or "")
    assert not result.inputs["sack"]
    assert tool_goodput_bps(sc, result, m["duration_s"]) == pytest.approx(m["goodput_bps"], rel=0.15)
