"""Linux recovering a flow without SACK, against the real kernel's runs of rules 167 and 168 (validation/README.md,
"Linux recovers a flow without SACK as tcp_input.c does"): seven lossy paths measured with ``tcpsim lab --sack off``,
each to be predicted within issue 22's 15 %. Paths 1-4 decided rule 167 (before it tcpsim was 21-38 % low on each);
paths 5-7 were measured after it, for rule 168, which was not adopted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

VALIDATION = Path(__file__).resolve().parents[1] / "validation"
RUNS = {**{f"path{i}": "rule167_2026-12-03" for i in range(1, 5)}, **{f"path{i}": "rule168_2026-12-03" for i in (5, 6, 7)}}
_MISS = pytest.mark.xfail(strict=True, reason=(
    "path 6 (1 Gbit/s, 1 ms, autotuned, 0.1 %): tcpsim 486 Mbit/s against the kernel's 311, which timed out 17 times "
    "in 10 s: its receiver sent about one ACK a round trip, and with no tail loss probe without SACK a lost last ACK "
    "waited for the 200-ms timer; tcpsim's receiver sends two to three (validation/README.md, 'What capturing the "
    "gigabit path without SACK showed')"))


@pytest.mark.parametrize("name", [pytest.param(n, marks=_MISS) if n == "path6" else n for n in RUNS])
def test_a_lossy_run_without_sack_is_predicted_within_15_percent(name):
    d = json.loads((VALIDATION / RUNS[name] / f"{name}.json").read_text())
    m, sc = d["measured"], LabScenario(**d["scenario"])
    assert sc.sack is False and d["sysctls"]["net.ipv4.tcp_sack"] == "0"
    result = predict_lab(sc, d["sysctls"], os_name=d["predicted"]["os"], delay_line=d["delay_line"], tool=m["tool"],
                         tool_version=m.get("tool_version") or "")
    assert not result.inputs["sack"]
    assert tool_goodput_bps(sc, result, m["duration_s"]) == pytest.approx(m["goodput_bps"], rel=0.15)
