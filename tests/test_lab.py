"""tcpsim lab against the real kernel: its scenario, iperf3's JSON, the runs, the delay line and the probes.

The real-kernel tests run only as root with ``ip``, ``tc`` and network namespaces (each a few seconds);
elsewhere they are skipped with the reason. The last test checks that no namespace of this session is
left behind, whatever happened before it. The fit to lab runs is tests/test_lab_fit.py, the prediction
beside a run tests/test_lab_prediction.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tcpsim.errors import ConfigError
from tcpsim.lab.iperf3 import parse_iperf3, read_iperf3
from tcpsim.api import build_scenario
from tcpsim.lab.scenario import LabScenario, lab_scenario
from tcpsim.lab.schedtrace import tracefs_has
from tcpsim.units import UNSHAPED_RATE_BPS

FIXTURE = Path(__file__).parent / "data" / "iperf3_unshaped.json"


def _lab_missing() -> str | None:
    from tcpsim.lab.testbed import missing_requirement

    why = missing_requirement()
    if why:
        return why
    probe = f"tcpsim-{os.getpid()}-probe"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return "ip netns add fails here (no network namespaces in this container)"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


LAB_MISSING = _lab_missing()
needs_lab = pytest.mark.skipif(LAB_MISSING is not None, reason=f"real-kernel lab runs: {LAB_MISSING}")
BEFORE = set() if LAB_MISSING else set(__import__("tcpsim.lab.testbed", fromlist=["x"]).list_namespaces())


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


# ---------------------------------------------------------------- the real kernel

@needs_lab
def test_builtin_generator_measures_an_unshaped_veth():
    from tcpsim.lab.measure import run_lab

    run = run_lab(LabScenario(rate_bps=0.0, sndbuf_bytes=262144, rcvbuf_bytes=262144, duration_s=1.0),
                  tool="builtin")
    m = run.measured
    assert m.tool == "builtin" and m.goodput_bps > 10e6
    assert m.series and all("cwnd_bytes" in r for r in m.series)
    assert m.data_segments_per_s and m.data_segments_per_s > 0
    assert "net.ipv4.tcp_rmem" in run.sysctls and run.kernel
    assert m.delay_line_drops is None  # no delay line, nothing of it to count


@needs_lab
@pytest.mark.skipif(shutil.which("taskset") is None, reason="--pin runs the tools under taskset (util-linux)")
def test_a_pinned_tool_runs_on_its_cpu_alone():
    from tcpsim.lab.testbed import Testbed

    with Testbed(0.0, 0.0, 1500) as tb:
        proc = tb.spawn(tb.ns_a, [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"], "probe",
                        cpu=0, stdout=subprocess.PIPE)
        assert proc.communicate(timeout=30)[0].strip() == "[0]"


@needs_lab
@pytest.mark.parametrize("tool", ["builtin", "iperf3"])
def test_the_kernel_paces_a_capped_socket_to_its_cap(tool):
    """SO_MAX_PACING_RATE on the real kernel (4.13 on, TCP's own pacing): a 1 s run at 150 Mbit/s on a 1 Gbit/s
    veth, within 10 % of the cap, as tcpsim predicts it."""
    if tool == "iperf3" and shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed")
    from tcpsim.lab.measure import run_lab
    from tcpsim.lab.predict import predict_lab

    sc = LabScenario(rate_bps=1e9, sndbuf_bytes=1 << 20, rcvbuf_bytes=1 << 20, duration_s=1.0,
                     max_pacing_rate_bps=150e6)
    run = run_lab(sc, tool=tool)
    assert run.measured.goodput_bps == pytest.approx(150e6, rel=0.10)
    predicted = predict_lab(sc, run.sysctls, delay_line=run.delay_line, tool=tool)
    assert predicted.goodput_bps == pytest.approx(150e6, rel=0.02) and predicted.limited_by == "pacing"


@needs_lab
def test_the_delay_line_loses_frames_and_the_kernel_retransmits_them():
    """--loss on the real kernel: the sender retransmits about the frames the relay dropped (1 s at 2 %, 10 ms;
    not a row of lab/loss), and goodput falls far below the unlossy path's, as tcpsim predicts it does."""
    from tcpsim.lab.measure import run_lab
    from tcpsim.lab.predict import predict_lab

    sc = LabScenario(rate_bps=200e6, rtt_s=10e-3, duration_s=1.0, loss_frac=0.02)
    run = run_lab(sc, tool="builtin")
    assert run.delay_line == "relay" and any("probability 0.02" in n for n in run.notes)
    m = run.measured
    sent = m.goodput_bps * m.duration_s / 8 / 1448
    assert 0.005 * sent < m.retransmits < 0.08 * sent
    assert m.goodput_bps < 100e6
    # the relay's devices count only what they could not pass on, not the frames the scenario asked it to lose
    assert isinstance(m.delay_line_drops, int) and 0 <= m.delay_line_drops < m.retransmits
    assert any("delay line dropped" in n for n in run.notes) == (m.delay_line_drops > 0)
    # the scenario's losses are recovered in fast recovery, and the run says so
    assert m.retransmit_causes["TCPFastRetrans"] > 0 and any("in fast recovery" in n for n in run.notes)
    # frames lost on the path leave holes the receiver queues data behind
    assert m.receiver_counters["TCPOFOQueue"] > 0
    predicted = predict_lab(sc, run.sysctls, delay_line=run.delay_line, tool="builtin")
    assert predicted.goodput_bps < 100e6 and predicted.retransmits > 0


@needs_lab
def test_the_namespaces_never_default_to_a_congestion_control_that_paces():
    """iperf3 sets TCP_CONGESTION after connect: a socket established under BBR keeps SK_PACING_NEEDED when it
    switches to cubic (tcp_reinit_congestion_control leaves sk_pacing_status), so a "cubic" run would be paced.
    The namespaces default to the requested algorithm, or to reno where the host does not allow it."""
    from tcpsim.lab.testbed import Testbed

    with Testbed(0.0, 0.0, 1500, cc="cubic") as tb:
        for ns in (tb.ns_a, tb.ns_b):
            assert tb.sysctls(["net.ipv4.tcp_congestion_control"], ns)["net.ipv4.tcp_congestion_control"] in (
                "cubic", "reno")


def test_pin_names_the_sending_and_the_receiving_cpu():
    assert lab_scenario(rate=0, pin="0,1").pin_cpus == (0, 1)
    assert LabScenario(**{**LabScenario(pin_cpus=(1, 0)).to_dict(), "pin_cpus": [1, 0]}).pin_cpus == (1, 0)  # JSON
    assert lab_scenario(rate=0).pin_cpus is None
    for bad in ("0", "a,b", "0,1,2", "-1,0"):
        with pytest.raises(ConfigError, match="pin"):
            lab_scenario(rate=0, pin=bad)
    with pytest.raises(ConfigError, match="pin"):
        LabScenario(pin_cpus=(0, True))


def test_a_shaped_lab_path_is_the_testbed_s_token_bucket():
    """The lab shapes with ``tbf`` and a bucket of 1 ms of the rate (at least 64 KiB): a shaped prediction,
    ``tcpsim lab``'s and validate's, has that bucket; an unshaped one has none."""
    from tcpsim.calibration.tables import load_points
    from tcpsim.calibration.validate import platforms_for_point, scenario_for
    from tcpsim.lab.predict import lab_simulation
    from tcpsim.lab.scenario import tbf_burst_bytes

    assert tbf_burst_bytes(1e9, 1500) == 125000 and tbf_burst_bytes(100e6, 9000) == 65536
    assert lab_simulation(lab_scenario(rate="1gbit", mtu=9000), "lab_vm", "none").link.burst_bytes == 125000
    assert lab_simulation(lab_scenario(rate=0), "lab_vm", "none").link.burst_bytes == 0
    for point in load_points():
        if point.source_id == "lab":
            link = scenario_for(point, platforms_for_point(point, None)).link
            rate = float(point.get("rate_bps"))
            assert link.burst_bytes == (tbf_burst_bytes(rate, link.mtu_bytes) if rate else 0), point.row


def test_the_delay_line_s_constants_are_the_path_probe_s_fit():
    """A run through the user-space relay is predicted on the nominal RTT plus what the relay adds and through
    its relay stage, whose five constants are the least-squares fit of the committed path probe of the unpaced
    sweep's day (validation/lab_path_probe*_2026-11-29.json); netem and the bare veth add nothing."""
    from tcpsim.calibration.tables import load_points
    from tcpsim.calibration.validate import platforms_for_point, scenario_for
    from tcpsim.lab import scenario as lab
    from tcpsim.lab.pathprobe import ip_packets, relay_fit
    from tcpsim.lab.predict import lab_simulation

    assert ip_packets(56, 1500) == [84] and ip_packets(16000, 9000) == [8996, 7052]
    assert sum(p - 20 for p in ip_packets(8000, 1500)) == 8008 and len(ip_packets(8000, 1500)) == 6
    here = Path(__file__).parents[1] / "validation"
    sets = [s for f in ("lab_path_probe_2026-11-29.json", "lab_path_probe_sizes_2026-11-29.json")
            for s in json.loads((here / f).read_text())]
    fit = relay_fit(sets)
    assert fit["fixed_s"] == pytest.approx(lab.RELAY_EXCESS_FIXED_S, abs=0.1e-6)
    assert fit["fraction"] == pytest.approx(lab.RELAY_EXCESS_FRACTION, abs=1e-4)
    assert fit["packet_s"] == pytest.approx(lab.RELAY_PACKET_S, abs=0.01e-6)
    assert fit["byte_s"] == pytest.approx(lab.RELAY_BYTE_S, abs=0.001e-9)
    assert fit["latency_byte_s"] == pytest.approx(lab.RELAY_LATENCY_BYTE_S, abs=0.001e-9)
    assert lab.path_rtt_s(1e-3, "relay") == pytest.approx(1e-3 + fit["fixed_s"] + fit["fraction"] * 1e-3, abs=1e-7)
    assert lab.path_rtt_s(1e-3, "netem") == lab.path_rtt_s(1e-3, "none") == 1e-3
    sc = lab_scenario(rate="1gbit", rtt="2ms")
    assert sc.predict_kwargs(delay_line="relay")["rtt"] == lab.path_rtt_s(2e-3, "relay")
    assert sc.predict_kwargs(delay_line="netem")["rtt"] == 2e-3
    assert lab_simulation(sc, "lab_vm", "relay").link.relay_packet_s == lab.RELAY_PACKET_S
    assert lab_simulation(sc, "lab_vm", "netem").link.relay_packet_s == 0.0
    relayed = [p for p in load_points() if p.source_id == "lab" and p.get("delay_line") == "relay"]
    assert relayed and all(float(p.get("rtt_s")) > 0 for p in relayed)
    for point in relayed:
        link = scenario_for(point, platforms_for_point(point, None)).link
        # a table of another build is on its own delay line (its relay_path), the sweep's own on the committed one
        relay = lab.RelayPath.from_text(point.get("relay_path")) if point.get("relay_path") else lab.RELAY
        assert link.one_way_delay_s == pytest.approx(lab.path_rtt_s(float(point.get("rtt_s")), "relay", relay) / 2)
        assert (link.relay_packet_s, link.relay_byte_s, link.relay_latency_byte_s) == \
            (relay.packet_s, relay.byte_s, relay.latency_byte_s)
    assert sum(p.get("relay_path") is None for p in relayed) > 200


def test_the_relay_serves_one_packet_at_a_time_for_both_directions():
    """An aggregate pays the relay's per-packet time once and its bytes; an ACK the other way waits behind
    it; the last frame of the aggregate comes out after its whole packet's latency."""
    from tcpsim.components.resources import LinkDirection, Server

    relay = Server("relay")
    fwd, rev = (LinkDirection(1e13, 0.0, None, relay=relay, relay_packet_s=10e-6, relay_byte_s=1e-9,
                              relay_latency_byte_s=2e-9) for _ in range(2))
    outs = [fwd.send(0.0, 0.0, 1e-12, 1000, 0, 948, cont=i > 0) for i in range(3)]
    assert relay.free_at == pytest.approx(10e-6 + 3000e-9)
    assert outs[-1] == pytest.approx(10e-6 + 3000e-9 + 3000 * 2e-9, abs=1e-9)
    ack = rev.send(0.0, 0.0, 1e-12, 66)
    assert ack == pytest.approx(relay.free_at + 66 * 2e-9, abs=1e-9) and ack > 10e-6 + 3000e-9


def test_a_relay_stage_out_of_range_is_one_line():
    from tcpsim.config import Link

    with pytest.raises(ConfigError, match="relay_byte_s"):
        Link(relay_byte_s=1.0)


@needs_lab
def test_window_probe_reads_the_kernel_s_clamp_and_ratio():
    """The kernel's window clamp is SO_RCVBUF's doubled buffer times the ratio it measured (6.11+), and
    the window the sender sees stays within it."""
    from tcpsim.lab.winprobe import probe_window

    p = probe_window(1e9, 0.0, 1500, 16384, duration_s=0.8)
    assert p["congestion_control"] == "cubic"  # the sweep's, whatever the namespaces default to
    assert p["sk_rcvbuf"] == 32768 and 1 <= p["scaling_ratio"] <= 255
    assert p["clamp"] == 32768 * int(p["scaling_ratio"]) // 256
    assert 0 < p["snd_wnd"] <= p["clamp"]


@needs_lab
def test_the_delay_line_adds_the_round_trip_asked_for():
    from tcpsim.lab.measure import run_lab

    run = run_lab(LabScenario(rate_bps=100e6, rtt_s=2e-3, sndbuf_bytes=65536, rcvbuf_bytes=65536, duration_s=1.0),
                  tool="builtin")
    assert run.delay_line in ("netem", "relay")
    # the relay sends early by its mean wake-up lateness, so single packets may come a little early
    assert 1.5e-3 <= run.measured.rtt_min_s <= 10e-3


def test_the_relay_s_cpu_is_a_cpu_and_needs_a_relay():
    from tcpsim.lab.testbed import checked_relay_cpu

    assert lab_scenario(rtt="1ms", relay_cpu="1").relay_cpu == 1 and lab_scenario(rtt="1ms").relay_cpu is None
    for kw, said in ((dict(relay_cpu="1"), "without an added delay"), (dict(rtt="1ms", relay_cpu="x"), "whole"),
                     (dict(rtt="1ms", relay_cpu="-1"), "relay_cpu")):
        with pytest.raises(ConfigError, match=said):
            lab_scenario(**kw)
    with pytest.raises(ConfigError, match="relay_cpu=4095: must be a CPU 0.."):
        checked_relay_cpu(lab_scenario(rtt="1ms", relay_cpu="4095").relay_cpu)


def test_none_leaves_a_placement_to_the_scheduler():
    sc = lab_scenario(rtt="1ms", pin="none", relay_cpu="None")
    assert sc.pin_cpus is None and sc.relay_cpu is None
    assert lab_scenario(rtt="1ms", pin="0,1", relay_cpu="0").pin_cpus == (0, 1)


@pytest.mark.parametrize("cpus, taskset, netem, delay_line, placed", [
    (2, True, False, "auto", True),     # the relay, two CPUs: pinned
    (64, True, False, "relay", True),
    (1, True, False, "auto", False),    # one CPU: nothing to pin apart
    (2, False, False, "auto", False),   # no taskset
    (2, True, True, "auto", False),     # netem: no relay runs
    (2, True, True, "relay", True),     # the relay asked for
    (2, True, False, "netem", False),
])
def test_the_default_placement_pins_a_run_through_the_relay(monkeypatch, cpus, taskset, netem, delay_line, placed):
    from tcpsim.lab import measure

    monkeypatch.setattr(measure.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(measure.shutil, "which", lambda name: "/usr/bin/taskset" if taskset else None)
    monkeypatch.setattr(measure, "has_netem", lambda: netem)
    sc = measure.default_placement(lab_scenario(rtt="1ms"), delay_line)
    assert (sc.pin_cpus, sc.relay_cpu) == (((0, 1), 0) if placed else (None, None))


def test_the_default_placement_keeps_a_named_one_and_a_run_without_a_relay(monkeypatch):
    from tcpsim.lab import measure

    monkeypatch.setattr(measure.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(measure.shutil, "which", lambda name: "/usr/bin/taskset")
    monkeypatch.setattr(measure, "has_netem", lambda: False)
    for sc in (lab_scenario(rtt="1ms", pin="1,1"), lab_scenario(rtt="1ms", relay_cpu="2"), lab_scenario(),
               lab_scenario(rate="0")):
        assert measure.default_placement(sc) == sc
    # a lossy run goes through the relay even where the kernel has netem
    monkeypatch.setattr(measure, "has_netem", lambda: True)
    assert measure.default_placement(lab_scenario(rtt="1ms", loss="1%")).relay_cpu == 0


@needs_lab
def test_the_relay_runs_on_the_cpu_it_is_given():
    from tcpsim.lab.measure import run_lab

    run = run_lab(LabScenario(rate_bps=100e6, rtt_s=1e-3, sndbuf_bytes=65536, rcvbuf_bytes=65536, duration_s=1.0,
                              relay_cpu=0), tool="builtin")
    assert run.delay_line != "relay" or "the delay line ran on CPU 0 alone" in run.notes
    assert run.measured.goodput_bps > 10e6 and run.scenario.to_dict()["relay_cpu"] == 0


def _shaped_relay_run(*extra: str, env=None) -> tuple[dict, str]:
    """``tcpsim lab --json`` of a 1-s, 200 Mbit/s, 1 ms, 64 KiB run with ``extra`` flags: its object and stderr."""
    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--rate", "200mbit", "--rtt", "1ms", "--duration",
                           "1s", "--sockbuf", "64k", *extra, "--json"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@needs_lab
def test_tcpsim_lab_places_a_run_through_the_relay_by_default():
    from tcpsim.lab.measure import can_pin

    d, _ = _shaped_relay_run()
    placed = d["delay_line"] == "relay" and can_pin()
    assert (d["scenario"]["relay_cpu"], d["scenario"]["pin_cpus"]) == ((0, [0, 1]) if placed else (None, None))
    assert ("the delay line ran on CPU 0 alone" in d["notes"]) == placed


@needs_lab
def test_tcpsim_lab_path_probe_auto_reads_the_build_s_cached_probe(tmp_path):
    """A build probed before is not probed again: the run is predicted on its cached probe, which it names."""
    from tcpsim.lab.measure import DEFAULT_RELAY_CPU, can_pin

    placed = f"cpu{DEFAULT_RELAY_CPU}" if can_pin() else "any"
    cache = tmp_path / "tcpsim" / f"pathprobe-{os.uname().release}-relay-{placed}.json"
    cache.parent.mkdir()
    sets = [s for name in ("lab_path_probe_2026-11-29.json", "lab_path_probe_sizes_2026-11-29.json")
            for s in json.loads((VALIDATION / name).read_text())]
    cache.write_text(json.dumps(sets))
    d, stderr = _shaped_relay_run("--path-probe", "auto", env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    if d["delay_line"] == "relay":
        assert d["predicted"]["relay_path"]["path_probe"] == str(cache) and "probing" not in stderr
    else:  # netem: no relay, nothing to probe
        assert "relay_path" not in d["predicted"]


@needs_lab
def test_the_path_probe_times_the_delay_line_and_leaves_nothing_behind():
    from tcpsim.lab.pathprobe import probe_path

    bare, relayed = probe_path(0.0, 1500, count=60), probe_path(1e-3, 1500, count=60)
    assert bare["delay_line"] == "none" and bare["n"] >= 30 and bare["median_s"] < 1e-3
    assert relayed["n"] >= 30 and relayed["median_s"] > 0.8e-3 + bare["median_s"]


@needs_lab
def test_shaped_run_stays_under_its_rate_and_reports_json(tmp_path):
    save = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--rate", "200mbit", "--duration", "1s",
                           "--sockbuf", "256k", "--json", "--save", str(save)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert set(d) >= {"scenario", "kernel", "sysctls", "measured", "predicted", "cautions"}
    assert d["cautions"] == []  # not pinned: no measured side to set against the predicted one
    assert d["measured"]["limited_by"] is None
    assert 20e6 < d["measured"]["goodput_bps"] <= 200e6 * 1.02
    assert d["predicted"]["goodput_bps"] > 0
    if d["measured"]["tool"] == "iperf3":  # the prediction's reader asks for iperf3's block, as iperf3 did
        assert d["predicted"]["read_bytes"] == d["scenario"]["write_bytes"]
        assert d["measured"]["tool_version"].startswith("iperf 3.")  # its streams' threads follow the version
    assert json.loads(save.read_text())["measured"] == d["measured"]


@needs_lab
@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="--platform detect reads /proc/cpuinfo (Linux)")
def test_detect_predicts_for_this_machine_from_its_parts_and_keeps_the_file():
    """``--platform detect``: the host of the prediction is this machine as ``machine detect --probes`` describes it,
    measured before the run, and the file goes into the JSON, so a saved run says what predicted it."""
    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--rate", "0", "--write", "16k", "--duration", "1s",
                           "--platform", "detect", "--json"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)["predicted"]
    assert p["platform"] == "detect" and p["goodput_bps"] > 0
    assert "tcpsim machine detect" in p["machine_file"] and "[fixed.cpu]" in p["machine_file"]
    assert not list(Path(tempfile.gettempdir()).glob("tcpsim-lab-*"))  # the file's folder is gone


@needs_lab
def test_passes_run_the_kernel_that_many_times_and_keep_the_median():
    from tcpsim.lab.testbed import list_namespaces

    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--rate", "0", "--write", "16k", "--duration",
                           "0.5s", "--passes", "3", "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    passes = d["passes_goodput_bps"]
    assert len(passes) == 3 and d["measured"]["goodput_bps"] == sorted(passes)[1]
    assert not [n for n in list_namespaces() if n.startswith(f"tcpsim-{proc.pid}-")]


@needs_lab
def test_sigterm_mid_run_removes_the_namespaces():
    from tcpsim.lab.testbed import list_namespaces

    proc = subprocess.Popen([sys.executable, "-m", "tcpsim", "lab", "--rate", "100mbit", "--duration", "20s",
                             "--tool", "builtin"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    mine = f"tcpsim-{proc.pid}-"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(n.startswith(mine) for n in list_namespaces()):
            time.sleep(0.2)
        assert any(n.startswith(mine) for n in list_namespaces()), "the run never set up its namespaces"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode != 0
    assert not [n for n in list_namespaces() if n.startswith(mine)]


@needs_lab
def test_cleanup_removes_only_namespaces_of_dead_runs():
    from tcpsim.cli import main
    from tcpsim.lab.testbed import list_namespaces

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale, live = f"tcpsim-{dead.pid}-test-a", f"tcpsim-{os.getpid()}-test-a"
    for name in (stale, live):
        subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        assert main(["lab", "--cleanup"]) == 0
        left = list_namespaces()
        assert stale not in left and live in left
    finally:
        for name in (stale, live):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


def _traces_iperf3(event: str):
    """A real-kernel test that traces iperf3's processes: root and namespaces, tracefs with ``event``, iperf3."""
    marks = (needs_lab,
             pytest.mark.skipif(not tracefs_has(f"events/{event}"), reason=f"no tracefs with the {event} event here"),
             pytest.mark.skipif(shutil.which("iperf3") is None,
                                reason="iperf3 is not installed: the trace follows iperf3's processes"))

    def mark(test):
        for m in marks:
            test = m(test)
        return test
    return mark


def test_a_wake_up_whose_switch_in_is_not_traced_ends_at_the_process_s_own_next_event():
    """Linux 6.18 here traces a reader's switch-out to the idle task and its ``sched_waking``, but not the idle task's
    switch back to it: such a wake-up ends at the first event in the process's own context (its ``select``'s
    ``sys_exit``) less the return path the traced switch-ins show (validation/README.md, "A wake-up ends when the
    process is switched in")."""
    from tcpsim.lab.schedtrace import parse_trace, parse_wakes

    untraced = """\
          iperf3-19157   [001] d..2. 100.000000: sched_switch: prev_comm=iperf3 prev_pid=19157 prev_prio=120 \
prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-19158   [000] d.s5. 100.000050: sched_waking: comm=iperf3 pid=19157 prio=120 target_cpu=001
          iperf3-19158   [000] ..... 100.000055: sys_exit: NR 1 = 262144
          iperf3-19157   [001] ..... 100.000063: sys_exit: NR 270 = 1
          iperf3-19157   [001] ..... 100.000070: sys_exit: NR 0 = 195480""".splitlines()
    assert parse_wakes(untraced) == [(pytest.approx(50e-6), pytest.approx(13e-6))]  # no return path to take off
    switched = untraced[:2] + ["          <idle>-0       [001] d..2. 100.000060: sched_switch: prev_comm=swapper/1 "
                               "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=19157 "
                               "next_prio=120"] + untraced[2:]
    trace = parse_trace(switched)
    assert trace.switched == [(pytest.approx(50e-6), pytest.approx(10e-6))] and not trace.own
    assert trace.return_path_s == [pytest.approx(3e-6)]  # the switch-in to its select's sys_exit
    assert parse_wakes(untraced[1:]) == []  # its block not seen: left out
    both = parse_trace(untraced)
    both.extend(trace)
    assert both.wakes() == [(pytest.approx(50e-6), pytest.approx(10e-6)), (pytest.approx(50e-6), pytest.approx(10e-6))]


@_traces_iperf3("sched/sched_waking")
def test_the_scheduler_trace_times_iperf3s_wake_ups_in_a_short_run(capsys):
    from tcpsim.lab import schedtrace

    assert schedtrace.main(["--rtt", "1ms", "--mtu", "1500", "--duration", "0.5s"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"][0]["wakes"] > 10
    assert all(0 < late < 0.05 for _, late in out["wake_latency_s"])
    assert Path("/sys/kernel/tracing/events/sched/sched_switch/enable").read_text().strip() == "0"


@_traces_iperf3("sched/sched_waking")
def test_the_scheduler_trace_runs_a_scenario_of_lab_arguments(capsys):
    """``--scenario``: any tcpsim lab run (here 60-byte messages with TCP_NODELAY), its wake-ups a second beside its
    goodput; a scenario tcpsim lab refuses is one line and exit 2."""
    from tcpsim.lab import schedtrace

    assert schedtrace.main(["--scenario", "--rate 1gbit --rtt 0 --message 60 --nodelay", "--duration", "0.5s"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    # how often iperf3's processes complete a sleep here varies from run to run (tens to thousands a second)
    assert run["scenario"].endswith("--nodelay") and run["goodput_bps"] > 0
    assert run["wakes_per_s"] == pytest.approx(run["wakes"] / 0.5)
    assert sum(b["n"] for b in run["buckets"]) == run["wakes"]
    assert schedtrace.main(["--scenario", "--rate -3", "--duration", "0.5s"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


@_traces_iperf3("tcp/tcp_probe")
def test_the_receive_trace_says_where_each_segment_was_processed(capsys):
    from tcpsim.lab import rxtrace

    assert rxtrace.main(["--scenario", "--rate 0 --write 16k", "--window", "0.1s"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    data = [r for r in run["rates"] if r["event"] == "tcp_probe" and r["kind"] == "data"]
    assert run["goodput_bps"] > 0 and sum(r["per_s"] for r in data) > 1000
    assert {r["context"] for r in run["rates"]} >= {"softirq", "writer", "reader"}
    assert {t["process"] for t in run["tools_cpu"]} == {"writer", "reader"}
    assert all(0 <= t["user_s_per_s"] + t["system_s_per_s"] <= 1.5 for t in run["tools_cpu"])
    assert Path("/sys/kernel/tracing/events/tcp/tcp_probe/enable").read_text().strip() == "0"


@needs_lab
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the reader is iperf3's")
def test_the_untraced_sample_times_a_saturated_reader_s_read(capsys):
    """``rxtrace --untraced``: no tracepoint on, the processes named from their command lines, and on a run of small
    messages the reader's CPU time per read, how lab_vm's ``per_syscall_rx_s`` is measured: a microsecond or two here,
    between the loopback probe's system time alone and ten times it."""
    from tcpsim.lab import rxtrace

    assert rxtrace.main(["--untraced", "--scenario", "--rate 1gbit --message 40", "--window", "0.2s"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["runs"][0]
    assert out["traced"] is False and run["rates"] == [] and run["goodput_bps"] > 0
    assert {t["process"] for t in run["tools_cpu"]} == {"writer", "reader"}
    assert 0.2e-6 < run["reader_per_read_s"] < 20e-6
    # /proc/PID/io counts each tool's calls: 40-byte messages at most a gigabit, so no more writes than that allows
    by_role = {t["process"]: t for t in run["tools_cpu"]}
    assert 0 < by_role["writer"]["writes_per_s"] <= 1.2 * 1e9 / 8 / 40 and by_role["reader"]["reads_per_s"] > 0
    assert all(0.1e-6 < t["cpu_s_per_call"] < 50e-6 for t in run["tools_cpu"])
    assert rxtrace.main(["--untraced", "--scenario", "--rate 1gbit", "--window", "1s", "--duration", "2s"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


@needs_lab
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the trace streams with iperf3")
def test_the_receiver_s_packet_trace_reads_a_short_run(capsys):
    """``python -m tcpsim.lab.skbtrace``: a packet socket in the receiver's namespace sees the skbs and the ACKs;
    the window it offers is within the buffer's (a 32 KiB SO_RCVBUF holds at most 64 KiB)."""
    from tcpsim.lab import skbtrace

    assert skbtrace.main(["--rtt", "1ms", "--sockbuf", "32k", "--duration", "1s"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["data_skbs"] > 100 and out["acks"] > 100 and out["goodput_bps"] > 0
    assert 0 < max(w["bytes"] for w in out["windows_offered"]) <= 65536

def test_the_call_probe_reads_syscall_pairs_and_phases():
    """``tcpsim.lab.callprobe``: enter/exit pairs of one process become durations, and each phase's call is the
    one it made most (a stray call in a phase is left out)."""
    from tcpsim.lab.callprobe import _by_phase, parse_syscalls

    lines = []
    t = 100.0
    for nr, d, n in ((44, 1.2e-6, 4), (1, 9e-6, 1), (45, 0.9e-6, 4), (110, 0.4e-6, 4), (1, 1.5e-6, 4)):
        for _ in range(n):
            lines += [f" python-7 [000] ..... {t:.7f}: sys_enter: NR {nr} (3, 0, 0)",
                      f" python-7 [000] ..... {t + d:.7f}: sys_exit: NR {nr} = -11"]
            t += 1e-5
    calls = parse_syscalls(["# tracer: nop", *lines])
    assert len(calls) == 17 and calls[0][0] == 44 and calls[0][1] == pytest.approx(1.2e-6, abs=1e-9)
    means = _by_phase(calls, 4)
    # the queued writes' phase is write(2) (NR 1), which also made the stray call of the first phase
    assert means == pytest.approx({"send": 1.2e-6, "recv": 0.9e-6, "getppid": 0.4e-6, "queue": 1.5e-6}, abs=1e-9)


def test_the_call_probe_times_a_send_that_moves_nothing():
    """On loopback only, bounded: an EAGAIN send costs something, and more than the probe's own loop."""
    from tcpsim.lab.callprobe import can_trace, probe_calls

    got = probe_calls(calls=300, passes=1, method="python")
    assert got["method"] == "python" and got["send_s"] > 0 and got["recv_s"] > 0 and got["queue_send_s"] > 0
    if not can_trace():
        pytest.skip("the kernel-timestamp path needs root and tracefs with raw_syscalls events")
    got = probe_calls(calls=300, passes=1, method="tracefs")
    assert 0 < got["send_s"] < 1e-3 and 0 < got["queue_send_s"] < 1e-3 and got["passes"][0]["overhead_s"] > 0
    event = Path("/sys/kernel/tracing/events/raw_syscalls/sys_enter")
    assert (event / "enable").read_text().strip() == "0" and (event / "filter").read_text().strip() == "none"


def test_tracefs_is_mounted_only_at_its_usual_place(tmp_path, monkeypatch):
    """The trace tools look for their events in tracefs, mounting it (root) only at /sys/kernel/tracing, never
    elsewhere."""
    from tcpsim.lab import schedtrace

    calls = []
    monkeypatch.setattr(schedtrace, "TRACEFS", tmp_path)
    monkeypatch.setattr(schedtrace.subprocess, "run", lambda *a, **k: calls.append(a))
    assert not schedtrace.tracefs_has("events/sched/sched_waking") and calls == []
    (tmp_path / "events/sched/sched_waking").mkdir(parents=True)
    assert schedtrace.tracefs_has("events/sched/sched_waking") and calls == []


def test_one_trace_at_a_time_holds_tracefs(tmp_path, monkeypatch):
    """tracefs has one set of events and one buffer per machine: a second ``traced`` waits for the first (its
    lock), and says so in one line when the wait runs out; the first's exit frees it."""
    from tcpsim.lab import schedtrace

    for event in schedtrace.EVENTS:
        (tmp_path / "events" / event).mkdir(parents=True)
    monkeypatch.setattr(schedtrace, "TRACEFS", tmp_path)
    monkeypatch.setattr(schedtrace, "LOCK_PATH", tmp_path / "tracefs.lock")
    with schedtrace.traced():
        assert (tmp_path / "tracing_on").read_text() == "1"
        with pytest.raises(schedtrace.TracefsBusy, match="in use by another trace"):
            with schedtrace.traced(lock_wait_s=0.1):
                pass
        assert (tmp_path / "tracing_on").read_text() == "1"  # the refused one touched nothing
    assert (tmp_path / "tracing_on").read_text() == "0"
    with schedtrace.traced(lock_wait_s=0.1):
        pass


PERF_SCRIPT = """\
iperf3 [000]
\tffffffff81000001 tcp_rcv_established+0x10
\tffffffff81000002 tcp_v4_do_rcv+0x20
\tffffffff81000003 tcp_v4_rcv+0x30
\tffffffff81000004 ip_local_deliver+0x40
iperf3 [000]
\tffffffff81000005 ip_rcv_core+0x10
\tffffffff81000006 __netif_receive_skb_one_core+0x20
iperf3 [001]
\tffffffff81000007 tcp_rcv_established+0x10
\tffffffff81000008 tcp_v4_do_rcv+0x20
\tffffffff81000009 __release_sock+0x30
\tffffffff8100000a tcp_recvmsg+0x40
iperf3 [001]
\tffffffff8100000b do_select+0x10
python [001]
\tffffffff8100000c ip_rcv_core+0x10
iperf3 [000]
\tffffffff8100000d veth_xmit+0x10
\tffffffff8100000e tcp_v4_rcv+0x10
"""


def test_perf_parts_gives_each_sample_to_its_innermost_part():
    """``python -m tcpsim.lab.perfparts``: TCP's part by where it ran (the softirq, under ``tcp_v4_rcv``, or the
    owner's backlog, under ``__release_sock``), the part before TCP, a transmit inside a receive counted as the
    transmit, the measuring side's samples left out; and ``rx_tcp_frac`` one minus the median part before TCP."""
    from tcpsim.lab.perfparts import parts, rx_tcp_frac

    out = parts(PERF_SCRIPT)
    assert out["samples"] == 5  # python's sample is the measuring side's
    assert out["cpu0"] == {"receive, TCP, in the softirq": 0.3333, "receive, before TCP": 0.3333, "transmit": 0.3333}
    assert out["cpu1"] == {"receive, TCP, from the owner's backlog": 0.5, "select (iperf3's loop)": 0.5}
    assert out["receive_before_tcp_frac"] == pytest.approx(1 / 3, abs=1e-3)
    assert out["tcp_part_from_backlog_frac"] == 0.5
    assert rx_tcp_frac([{"receive_before_tcp_frac": f} for f in (0.388, 0.499, 0.631, 0.492, 0.435, 0.453)]) == 0.53


def test_perf_parts_without_perf_or_root_is_one_line(monkeypatch, capsys):
    from tcpsim.lab import perfparts

    monkeypatch.setattr(perfparts.shutil, "which", lambda name: None)
    assert perfparts.main(["--scenario", "--rate 0 --write 16k"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["python -m tcpsim.lab.perfparts: needs root (tcpsim lab makes namespaces) and perf on the PATH"]
    assert perfparts.main(["--scenario", "--rate 0"] * 13) == 2
    assert capsys.readouterr().err.strip().endswith("13 given, at most 12")


@needs_lab
@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed: the probe samples with perf record")
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the probe's samples are iperf3's")
@pytest.mark.skipif(shutil.which("taskset") is None, reason="--pin runs the tools under taskset (util-linux)")
def test_perf_parts_measures_a_real_run(capsys):
    """One short unshaped run: the receive work is found, and the share printed is a fraction a machine file takes."""
    from tcpsim.lab import perfparts

    assert perfparts.main(["--scenario", "--rate 0 --write 16k", "--window", "0.3s"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"^rx_tcp_frac = (\d\.\d\d)", out, re.M)
    assert m and 0.0 < float(m[1]) < 1.0, out


def test_zz_no_namespace_of_this_session_is_left_behind():
    """Runs last in this file: every tcpsim-* namespace created since the session began is gone."""
    if LAB_MISSING:
        pytest.skip(f"no namespaces made here: {LAB_MISSING}")
    from tcpsim.lab.testbed import NS_PREFIX, list_namespaces

    def owner_alive(name: str) -> bool:
        try:
            pid = int(name[len(NS_PREFIX):].split("-")[0])
            os.kill(pid, 0)
            return pid != os.getpid()
        except (ValueError, ProcessLookupError):
            return False

    left = [n for n in set(list_namespaces()) - BEFORE if n.startswith(NS_PREFIX) and not owner_alive(n)]
    assert not left, f"namespaces left behind: {left}"
