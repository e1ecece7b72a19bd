"""tcpsim lab without the real kernel: iperf3's JSON, the scenario, the refusals before a run, the delay line's
constants and what a table row carries.

The runs on the real kernel are tests/test_lab_kernel.py, the traces and probes tests/test_lab_traces.py, the check
that no namespace is left behind tests/test_lab_zz_leftovers.py; the fit to lab runs is tests/test_lab_fit.py, the
prediction beside a run tests/test_lab_prediction.py.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tcpsim.errors import ConfigError
from tcpsim.lab.iperf3 import parse_iperf3, read_iperf3
from tcpsim.api import build_scenario
from tcpsim.lab.scenario import LabScenario, lab_scenario
from tcpsim.units import UNSHAPED_RATE_BPS


FIXTURE = Path(__file__).parent / "data" / "iperf3_unshaped.json"


# ---------------------------------------------------------------- iperf3 JSON

def test_iperf3_runs_at_least_the_duration_asked_in_whole_seconds():
    """iperf3 reads -t with atoi: "0.5" would be 0, a run without end."""
    from tcpsim.lab.iperf3 import client_args

    def t(duration_s):
        args = client_args("10.0.0.1", 5201, duration_s, sockbuf=None, write_bytes=1024, nodelay=False,
                           n_streams=1, interval_s=0.1)
        return args[args.index("-t") + 1]

    assert (t(0.5), t(2.0), t(2.5)) == ("1", "2", "3")


def test_a_pacing_cap_reaches_the_tools_and_the_prediction():
    """--max-pacing-rate is iperf3's --fq-rate in bits/s (SO_MAX_PACING_RATE of it over 8) and the prediction's."""
    from tcpsim.lab.iperf3 import client_args
    from tcpsim.lab.scenario import lab_scenario

    args = client_args("10.0.0.1", 5201, 1.0, sockbuf=None, write_bytes=1024, nodelay=False, n_streams=1,
                       interval_s=0.1, max_pacing_rate_bps=3e8)
    assert args[args.index("--fq-rate") + 1] == "300000000"
    sc = lab_scenario(rate="1gbit", rtt="1ms", max_pacing_rate="300mbit")
    assert sc.max_pacing_rate_bps == 3e8 and sc.predict_kwargs()["max_pacing_rate"] == 3e8
    assert "max_pacing_rate" not in lab_scenario().predict_kwargs()
    with pytest.raises(ConfigError, match="max_pacing_rate"):
        lab_scenario(max_pacing_rate="40gbit")  # past the option's 32-bit bytes per second


def test_loss_reaches_the_delay_line_and_the_prediction():
    """--loss is drawn by the relay, so it needs an added delay; the prediction's link loses the same."""
    from tcpsim.lab.scenario import lab_scenario

    sc = lab_scenario(rate="1gbit", rtt="4ms", loss="0.1%")
    assert sc.loss_frac == pytest.approx(1e-3) and sc.predict_kwargs()["loss"] == pytest.approx(1e-3)
    assert build_scenario(**sc.predict_kwargs()).link.loss_frac == pytest.approx(1e-3)
    assert "loss" not in lab_scenario(rtt="4ms").predict_kwargs()
    with pytest.raises(ConfigError, match="loss.*--rtt"):
        lab_scenario(loss="1%")
    with pytest.raises(ConfigError, match="loss"):
        lab_scenario(rtt="1ms", loss="60%")


def test_sack_off_reaches_the_testbed_and_the_prediction():
    """--sack off: the scenario says so (and reads back from its JSON), and the prediction's hosts offer no SACK."""
    from tcpsim.lab.scenario import LabScenario, lab_scenario

    sc = lab_scenario(rtt="2ms", sack="off")
    assert sc.sack is False and sc.predict_kwargs()["sack"] == "off"
    built = build_scenario(**sc.predict_kwargs(), os="linux")
    assert not built.sender.tcp.sack and not built.receiver.tcp.sack
    assert "sack" not in lab_scenario().predict_kwargs() and LabScenario(**sc.to_dict()) == sc
    assert LabScenario(**{k: v for k, v in sc.to_dict().items() if k != "sack"}).sack  # a run saved before --sack
    with pytest.raises(ConfigError, match="sack"):
        lab_scenario(sack="maybe")


def test_the_tcp_counters_parse_from_proc_net_netstat_and_name_the_causes():
    from tcpsim.lab.measure import retransmit_note
    from tcpsim.lab.testbed import parse_netstat

    text = ("TcpExt: SyncookiesSent TCPLossProbes TCPFastRetrans TCPDSACKRecv\nTcpExt: 0 3 7 2\n"
            "IpExt: InNoRoutes\nIpExt: 0\n")
    counters = parse_netstat(text)
    assert counters == {"SyncookiesSent": 0, "TCPLossProbes": 3, "TCPFastRetrans": 7, "TCPDSACKRecv": 2}
    assert parse_netstat("TcpExt: A B\nTcpExt: 1\n") == {} and parse_netstat("") == {}
    note = retransmit_note(10, counters)
    assert "7 in fast recovery" in note and "3 loss probes" in note and "0 timeouts" in note and "2 as dup" in note
    assert "queued" not in note
    note = retransmit_note(10, counters, {"TCPOFOQueue": 12, "TCPOFODrop": 2})
    assert "queued 12 segments out of order and dropped 2 for want of buffer" in note
    assert "first of a series" not in note
    note = retransmit_note(10, {"TCPTimeouts": 5, "TCPRenoFailures": 3, "TCPLossFailures": 1})
    assert "5 timeouts (0 undone as spurious; first of a series: 3 in disorder, 1 in the loss state)" in note


def test_a_table_row_says_why_its_run_retransmitted():
    from tcpsim.lab.dataset import Row, csv_row

    measured = {"tool": "iperf3", "duration_s": 3.0, "retransmits": 12, "goodput_bps": 4e8, "rtt_min_s": 4e-4,
                "rtt_mean_s": 5e-4, "delay_line_drops": 2,
                "retransmit_causes": {"TCPFastRetrans": 10, "TCPLossProbes": 2, "TCPTimeouts": 0, "TCPDSACKRecv": 1,
                                      "TCPSACKReorder": 3}}
    run = {"measured": measured, "delay_line": "relay", "kernel": "6.18", "load_avg": (0.5, 0.5, 0.5)}
    note = csv_row(Row("window6", LabScenario(rate_bps=1e9, rtt_s=3.5e-4)), run)["note"]
    assert "relay (which dropped 2 packets) (10 fast, 2 loss probes, 0 timeouts; 1 D-SACKed, 3 reorderings seen)" \
        in note
    measured["receiver_counters"] = {"TCPOFOQueue": 9, "TCPOFODrop": 4, "TCPRcvQDrop": 1}
    assert "3 reorderings seen, the receiver dropped 5)" in csv_row(Row("window6", LabScenario()), run)["note"]


def test_iperf3_fixture_parses_to_si_units():
    run = read_iperf3(FIXTURE)
    assert run.goodput_bps == pytest.approx(12658198743.7232)
    assert run.n_streams == 1 and run.write_bytes == 131072 and run.sockbuf_bytes == 65536
    assert run.duration_s == pytest.approx(3.000135)
    assert run.series[0]["cwnd_bytes"] > 0 and 0 < run.series[0]["rtt_s"] < 0.01
    assert not run.reverse


def test_iperf3_errors_name_the_file_and_what_is_wanted(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server"}')
    with pytest.raises(ConfigError, match="unable to connect"):
        read_iperf3(bad)
    bad.write_text("not json")
    with pytest.raises(ConfigError, match="iperf3 -J"):
        read_iperf3(bad)
    with pytest.raises(ConfigError, match="'start' and 'end'"):
        parse_iperf3({"x": 1})
    udp = json.loads(FIXTURE.read_text())
    udp["start"]["test_start"]["protocol"] = "UDP"
    with pytest.raises(ConfigError, match="TCP"):
        parse_iperf3(udp)


# ---------------------------------------------------------------- scenario

def test_lab_scenario_from_human_units():
    sc = lab_scenario(rate="1gbit", rtt="1ms", sockbuf="64k", message="60", nodelay=True, streams=2)
    assert (sc.rate_bps, sc.rtt_s, sc.sndbuf_bytes, sc.rcvbuf_bytes) == (1e9, 1e-3, 65536, 65536)
    assert sc.write_bytes == 60 and sc.nodelay and sc.n_streams == 2
    kw = sc.predict_kwargs()
    assert kw["rate"] == 1e9 and kw["rtt"] == 1e-3 and kw["sndbuf"] == 65536
    assert lab_scenario(rate="0").rate_bps == 0.0
    # one meaning of "unshaped": the lab's prediction and tcpsim predict --rate 0 give the model the same link
    assert lab_scenario(rate="unshaped").predict_kwargs()["rate"] == UNSHAPED_RATE_BPS
    assert build_scenario(**lab_scenario(rate=0).predict_kwargs()).link.rate_bps == build_scenario(rate=0).link.rate_bps


@pytest.mark.parametrize("kw, field", [(dict(duration_s=600), "duration"), (dict(n_streams=0), "streams"),
                                       (dict(rtt_s=5.0), "rtt"), (dict(rate_bps=5.0), "rate"),
                                       (dict(mtu_bytes=100), "mtu")])
def test_lab_scenario_bounds_every_run(kw, field):
    with pytest.raises(ConfigError, match=field):
        LabScenario(**kw)


def test_without_root_or_tools_lab_exits_2_with_one_line(monkeypatch, capsys):
    from tcpsim.cli import main

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["lab", "--rate", "1gbit"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "root" in err[0]
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "tc" else "/usr/bin/" + name)
    assert main(["lab"]) == 2
    assert "'tc'" in capsys.readouterr().err


@pytest.mark.parametrize("flag, path, said", [("--save", "/nonexistent/run.json", "existing folder"),
                                              ("--plot", "/nonexistent/run.png", "existing folder"),
                                              ("--save", "{tmp}", "not a folder")])
def test_an_output_lab_cannot_write_is_refused_before_the_run(monkeypatch, capsys, tmp_path, flag, path, said):
    """Not after a run of seconds (it was a traceback once the run had ended): checked before anything else, so the
    same line comes with or without root."""
    from tcpsim.cli import main

    monkeypatch.setattr("tcpsim.lab.measure.run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rate", "1gbit", flag, path.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{flag[2:]}=" in err[0] and said in err[0], err


VALIDATION = Path(__file__).resolve().parents[1] / "validation"
UNFITTABLE_PROBE = VALIDATION / "build_2026-12-02" / "pathprobe.json"  # trains at MTU 1500 only


@pytest.mark.parametrize("flags, field", [(["--platform", "nosuch"], "platform"), (["--os", "linux-9.9"], "os"),
                                          (["--path-probe", "/nonexistent/probe.json"], "path_probe"),
                                          (["--path-probe", str(FIXTURE)], "path_probe"),
                                          (["--path-probe", str(UNFITTABLE_PROBE)], "path_probe")])
def test_a_host_lab_cannot_predict_is_refused_before_the_run(monkeypatch, capsys, flags, field):
    from tcpsim.cli import main

    monkeypatch.setattr("tcpsim.lab.testbed.missing_requirement", lambda: None)
    monkeypatch.setattr("tcpsim.lab.measure.run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rate", "1gbit", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{field}=" in err[0], err


@pytest.mark.parametrize("flags, field, said", [
    (["--response", "100"], "response", "without --rr"), (["--rr", "100", "--response", "0"], "response", "1 byte"),
    (["--rr", "100", "--message", "10"], "message", "left out with --rr"), (["--pin", "0,4095"], "pin", "on this machine"),
    (["--cc", "bbr"], "cc", "reno, cubic"), (["--plot", "run.txt"], "plot", ".png, .pdf or .svg"),
    (["--rtt", "1ms", "--relay-cpu", "4095"], "relay_cpu", "on this machine")])
def test_a_scenario_lab_cannot_run_as_asked_is_refused_before_the_run(monkeypatch, capsys, tmp_path, flags, field,
                                                                       said):
    """Flags that once got as far as creating the namespaces: a reply without a request, a request with a message,
    a CPU the machine lacks, a congestion control tcpsim would not predict, a figure type nothing writes."""
    from tcpsim.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tcpsim.lab.testbed.missing_requirement", lambda: None)
    monkeypatch.setattr("tcpsim.lab.measure.run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rate", "1gbit", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{field}=" in err[0] and said in err[0], err


def test_an_auto_path_probe_runs_once_per_build_and_placement(tmp_path, monkeypatch):
    """``--path-probe auto`` probes a build the first time and reads its cache afterwards; the cache is per kernel
    release and relay placement, and a probe the fit refuses is one line and is not cached."""
    from tcpsim.lab import pathprobe
    from tcpsim.lab.scenario import RELAY

    sets = [s for name in ("lab_path_probe_2026-11-29.json", "lab_path_probe_sizes_2026-11-29.json")
            for s in json.loads((VALIDATION / name).read_text())]
    calls = []
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(pathprobe, "fit_probe", lambda relay_cpu: calls.append(relay_cpu) or sets)
    first, path, probed = pathprobe.auto_relay_path(0)
    assert probed and calls == [0] and path == pathprobe.cached_probe_file(0)
    assert path.startswith(str(tmp_path / "tcpsim")) and os.uname().release in path and path.endswith("cpu0.json")
    again, _, probed = pathprobe.auto_relay_path(0)
    assert not probed and calls == [0] and again == first
    assert first.fixed_s == pytest.approx(RELAY.fixed_s, rel=0.01)
    pathprobe.auto_relay_path(None)
    assert calls == [0, None] and pathprobe.cached_probe_file(None).endswith("relay-any.json")
    monkeypatch.setattr(pathprobe, "fit_probe", lambda relay_cpu: [s for s in sets if s["rtt_s"] == 0])
    with pytest.raises(ConfigError, match="^path_probe='auto': must be a probe of this build that gives"):
        pathprobe.auto_relay_path(1)
    assert not os.path.exists(pathprobe.cached_probe_file(1))


def test_the_committed_path_probes_give_the_committed_relay_constants(tmp_path):
    """``tcpsim lab --path-probe`` reads the JSON the probe prints; the lab tables' build's two probes, concatenated,
    give back the constants tcpsim ships (fitted from them), so a machine's own probe is read the same way."""
    from tcpsim.lab.pathprobe import read_relay_path
    from tcpsim.lab.scenario import RELAY

    sets = [s for name in ("lab_path_probe_2026-11-29.json", "lab_path_probe_sizes_2026-11-29.json")
            for s in json.loads((VALIDATION / name).read_text())]
    (tmp_path / "probe.json").write_text(json.dumps(sets))
    relay = read_relay_path(str(tmp_path / "probe.json"))
    for name in ("fixed_s", "fraction", "packet_s", "byte_s", "latency_byte_s"):
        assert getattr(relay, name) == pytest.approx(getattr(RELAY, name), rel=0.01), name
    # a probe whose plain least squares would give a negative constant gets it at zero, the others refitted
    (tmp_path / "noisy.json").write_text(json.dumps([dict(s, median_s=s["median_s"] - 0.002 * s["rtt_s"])
                                                     for s in sets]))
    noisy = read_relay_path(str(tmp_path / "noisy.json"))
    assert noisy.fraction == 0.0 and min(getattr(noisy, n) for n in ("fixed_s", "packet_s", "byte_s")) >= 0


def test_a_slower_delay_line_predicts_a_window_limited_run_slower():
    """The relay's latency is on the path the prediction simulates: a build whose relay adds more predicts less."""
    from tcpsim.lab.predict import predict_lab
    from tcpsim.lab.scenario import RELAY

    sc = LabScenario(rate_bps=1e9, rtt_s=0.7e-3, sndbuf_bytes=20480, rcvbuf_bytes=20480, duration_s=1.0)
    sysctls = {"net.ipv4.tcp_rmem": "4096 131072 6291456", "net.ipv4.tcp_wmem": "4096 16384 4194304"}
    fast, slow = (predict_lab(sc, sysctls, delay_line="relay", tool="iperf3", relay=r).goodput_bps
                  for r in (RELAY, replace(RELAY, fixed_s=RELAY.fixed_s + 150e-6)))
    assert slow < 0.9 * fast


def _rr_run(tps: float, rr: int = 64, response: int | None = None) -> dict:
    both = rr + (response or rr)
    return {"scenario": {"rate_bps": 0.0, "rr_bytes": rr, "response_bytes": response},
            "measured": {"tool": "builtin", "duration_s": 3.0, "retransmits": 0, "goodput_bps": tps * both * 8,
                         "transactions_per_s": tps, "rtt_min_s": 1e-5, "rtt_mean_s": 2e-5},
            "delay_line": "none", "kernel": "6.18", "load_avg": (0.5, 0.5, 0.5), "row": f"--rr {rr}", "kind": "rr"}


def test_a_request_response_run_becomes_a_transactions_row_and_is_simulated_as_one():
    """A ``tcpsim lab --rr`` run is a table row of transactions a second (netperf's TCP_RR figure), its request in
    ``message_bytes`` and a reply of another size in ``response_bytes``; ``tcpsim validate`` simulates that row as
    the same request/response workload and scores its transactions."""
    from tcpsim.calibration.mapping import platforms_for_point, predicted_value, scenario_for
    from tcpsim.calibration.tables import Point
    from tcpsim.lab.dataset import Row, csv_row, median_runs

    passes = [[_rr_run(9000.0, 64, 1024)], [_rr_run(12000.0, 64, 1024)], [_rr_run(10500.0, 64, 1024)]]
    run = median_runs(passes)[0]
    assert run["passes_transactions_per_s"] == [9000.0, 12000.0, 10500.0]
    row = Row("rr", LabScenario(**run["scenario"]))
    fields = csv_row(row, run)
    assert (fields["metric"], fields["value"], fields["unit"]) == ("transactions", "10500.0", "1/s")
    assert (fields["message_bytes"], fields["write_bytes"], fields["response_bytes"]) == ("64", "64", "1024")
    assert fields["row"] == "rr: unshaped, rtt 0ms, mtu 1500, buf auto, request 64, response 1024, 1 stream(s)"
    assert fields["note"].endswith("the median of 3 passes (9000, 12000, 10500 transactions/s)")
    assert fields["role"] == "holdout"
    point = Point(source_id="lab", table_id="rr", source="tcpsim lab", table="t", row=fields["row"],
                  metric="transactions", value=10500.0, unit="1/s", value_si=10500.0, role="holdout", flags=(),
                  note="", fields=fields)
    sc = scenario_for(point, platforms_for_point(point, None))
    assert (sc.workload.kind, sc.workload.write_bytes, sc.workload.response_bytes) == ("rr", 64, 1024)
    from tcpsim.api import simulate

    result = simulate(replace(sc, budget=replace(sc.budget, max_sim_time_s=0.05)))
    assert predicted_value(point, sc, result) == result.transactions_per_s > 0
    symmetric = csv_row(Row("rr", LabScenario(rate_bps=0.0, rr_bytes=64)), _rr_run(10500.0))
    assert symmetric["response_bytes"] == "" and "request 64, response 64" in symmetric["row"]


def test_a_table_row_carries_its_build_s_delay_line_and_is_scored_on_it():
    """A sweep given its build's path probe writes the constants each relay row was predicted on into its
    ``relay_path`` cell; ``tcpsim validate`` builds that row's path from them, and from the committed ones without."""
    from dataclasses import asdict

    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import Point
    from tcpsim.lab.dataset import Row, csv_row
    from tcpsim.lab.scenario import RELAY, RelayPath, path_rtt_s

    probed = replace(RELAY, fixed_s=41.5e-6, fraction=0.0114, packet_s=3.9e-6)
    measured = {"tool": "iperf3", "duration_s": 3.0, "retransmits": 0, "goodput_bps": 4e8, "rtt_min_s": 4e-4,
                "rtt_mean_s": 5e-4}
    run = {"measured": measured, "delay_line": "relay", "kernel": "6.18", "load_avg": (0.5, 0.5, 0.5),
           "predicted": {"relay_path": {"path_probe": "probe.json", **asdict(probed)}}}
    row = Row("window", LabScenario(rate_bps=1e9, rtt_s=1e-3, sndbuf_bytes=65536, rcvbuf_bytes=65536))
    cell = csv_row(row, run)["relay_path"]
    assert RelayPath.from_text(cell) == probed
    assert csv_row(row, {**run, "delay_line": "netem"})["relay_path"] == ""
    assert csv_row(row, {**run, "predicted": {}})["relay_path"] == ""

    def link(fields):
        point = Point(source_id="lab", table_id="window", source="tcpsim lab", table="t", row="r",
                      metric="throughput", value=400.0, unit="Mbps", value_si=4e8, role="holdout", flags=(), note="",
                      fields={**csv_row(row, run), **fields})
        return scenario_for(point, platforms_for_point(point, None)).link

    assert link({}).one_way_delay_s == pytest.approx(path_rtt_s(1e-3, "relay", probed) / 2)
    assert link({}).relay_packet_s == probed.packet_s
    assert link({"relay_path": ""}).one_way_delay_s == pytest.approx(path_rtt_s(1e-3, "relay") / 2)
    with pytest.raises(ConfigError, match="relay_path='fixed_s=1': must be the delay line's five constants"):
        link({"relay_path": "fixed_s=1"})


def test_a_sweep_whose_runs_file_cannot_be_written_is_refused_before_it_runs(tmp_path, capsys):
    from tcpsim.lab import dataset

    assert dataset.main([str(tmp_path / "out"), "--kind", "window2", "--runs", str(tmp_path / "no" / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("runs=") and "existing folder" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_calibrate_fits_a_lab_run_on_the_delay_line_it_was_predicted_on(tmp_path):
    from dataclasses import asdict

    from tcpsim.calibration.own_runs import lab_cases
    from tcpsim.lab.scenario import RELAY

    probed = replace(RELAY, fixed_s=41.5e-6)
    run = {"scenario": LabScenario(rate_bps=1e9, rtt_s=1e-3).to_dict(), "delay_line": "relay",
           "measured": {"goodput_bps": 5e8, "tool": "iperf3", "duration_s": 3.0},
           "predicted": {"relay_path": {"path_probe": "probe.json", **asdict(probed)}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps([run, {**run, "predicted": {}}]))
    assert [c.relay for c in lab_cases([str(path)])] == [probed, None]


@pytest.mark.parametrize("text", ["", "x", "fixed_s=1e-5", "fixed_s=-1e-5 fraction=0 packet_s=0 byte_s=0 "
                                  "latency_byte_s=0", "fixed_s=nan fraction=0 packet_s=0 byte_s=0 latency_byte_s=0",
                                  "fixed_s=0 fraction=0 packet_s=0 byte_s=0 latency_byte_s=0 extra=1"])
def test_a_relay_path_cell_that_is_not_five_constants_is_one_line(text):
    from tcpsim.lab.scenario import RelayPath

    with pytest.raises(ConfigError, match="^relay_path=.*must be the delay line's five constants"):
        RelayPath.from_text(text)


@pytest.mark.parametrize("value, said", [("0", "1..9"), ("10", "1..9"), ("two", "whole number"),
                                         ("1.5", "whole number")])
def test_passes_out_of_range_are_refused_before_the_run(monkeypatch, capsys, value, said):
    from tcpsim.cli import main

    monkeypatch.setattr("tcpsim.lab.measure.run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rate", "1gbit", "--passes", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"passes='{value}'" in err[0] and said in err[0], err


@pytest.mark.parametrize("value, said", [("0", "1..9"), ("10", "1..9"), ("three", "whole number")])
def test_seeds_out_of_range_are_refused_before_the_run(monkeypatch, capsys, value, said):
    from tcpsim.cli import main

    monkeypatch.setattr("tcpsim.lab.measure.run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rate", "1gbit", "--seeds", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"seeds='{value}'" in err[0] and said in err[0], err


def test_several_seeds_show_the_prediction_of_median_goodput():
    """``--seeds N``: a lossy path predicted at seeds 0..N-1; the prediction shown is the seed of median goodput as the
    tool counts it (the lower middle of an even count), and a line gives every seed's."""
    from tcpsim.lab.cli import _seeds_line, median_seed
    from tcpsim.lab.predict import predict_lab, tool_goodput_bps
    from tcpsim.lab.scenario import lab_scenario

    sc = lab_scenario(rate="100mbit", rtt="2ms", loss="1%", sockbuf="64k", duration="1s")
    results = [predict_lab(sc, {}, seed=k, tool="iperf3") for k in range(3)]
    seed, goodput = median_seed(sc, results, 1.0)
    assert goodput == [tool_goodput_bps(sc, r, 1.0) for r in results] and len(set(goodput)) == 3
    assert goodput[seed] == sorted(goodput)[1]
    assert median_seed(sc, results[:2], 1.0)[0] == min(range(2), key=goodput.__getitem__)
    line = _seeds_line({"predicted": {"seeds_goodput_bps": goodput, "seed": seed}})
    assert line.startswith("seeds") and f"seed {seed})" in line and line.count(",") >= 2
    assert _seeds_line({"predicted": {"goodput_bps": 1.0}}) == ""


def test_several_passes_show_the_median_run_and_say_when_they_are_two_states():
    """``--passes N``: the run of median goodput (the lower middle of an even count), as the sweep's rows are chosen,
    and a line of every pass's goodput that calls a spread of 1.5-fold or more two states."""
    from types import SimpleNamespace

    from tcpsim.lab.cli import _passes_line, median_pass

    runs = [SimpleNamespace(measured=SimpleNamespace(goodput_bps=g)) for g in (5.2e9, 3.1e9, 4.0e9, 3.2e9)]
    assert median_pass(runs).measured.goodput_bps == 3.2e9 and median_pass(runs[:3]).measured.goodput_bps == 4.0e9
    line = _passes_line({"passes_goodput_bps": [5.2e9, 3.1e9, 4.0e9]})
    assert "5,200.0" in line and "3,100.0" in line and "1.7-fold: two states" in line
    assert "two states" not in _passes_line({"passes_goodput_bps": [4.1e9, 4.0e9]})
    assert _passes_line({"passes_goodput_bps": [4.1e9]}) == _passes_line({}) == ""


def test_units_far_from_the_prediction_at_the_line_are_called_the_run_s_own():
    from tcpsim.lab.cli import units_note

    at_line = units_note(1e9, 950e6, 51_000, 1_850)  # lab/cpu5's 700-byte no-delay row: 2.3 KB against 64 KB
    assert "28 times apart" in at_line and "the run's own" in at_line
    assert units_note(1e9, 950e6, 5_000, 1_850) == ""  # within three times
    assert units_note(1e9, 600e6, 51_000, 1_850) == ""  # under the line: something sets the size there
    assert units_note(0.0, 20e9, 51_000, 1_850) == units_note(1e9, 950e6, 51_000, None) == ""


def test_a_lossy_path_on_an_ideal_host_says_to_name_the_host():
    from tcpsim.lab.cli import lossy_ideal_note

    assert lossy_ideal_note(0.0) == []
    (note,) = lossy_ideal_note(0.001)
    assert "--platform lab_vm" in note and "rule 169" in note
