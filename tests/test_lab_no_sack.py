"""Linux recovering a flow without SACK, against the real kernel's runs of rule 167 (validation/README.md, "Linux
recovers a flow without SACK as tcp_input.c does"): four lossy paths measured with ``tcpsim lab --sack off``
(``validation/rule167_2026-12-03``), each predicted within issue 22's 15 %. Before the rule tcpsim was 21-38 % low
on every one of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

RUNS = Path(__file__).resolve().parents[1] / "validation" / "rule167_2026-12-03"


@pytest.mark.parametrize("name", ["path1", "path2", "path3", "path4"])
def test_a_lossy_run_without_sack_is_predicted_within_15_percent(name):
    d = json.loads((RUNS / f"{name}.json").read_text())
    m, sc = d["measured"], LabScenario(**d["scenario"])
    assert sc.sack is False and d["sysctls"]["net.ipv4.tcp_sack"] == "0"
    result = predict_lab(sc, d["sysctls"], os_name=d["predicted"]["os"], delay_line=d["delay_line"], tool=m["tool"],
                         tool_version=m.get("tool_version") or "")
    assert not result.inputs["sack"]
    assert tool_goodput_bps(sc, result, m["duration_s"]) == pytest.approx(m["goodput_bps"], rel=0.15)
