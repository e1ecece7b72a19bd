"""tcpsim lab against the real kernel: runs between two network namespaces, the delay line, pacing, placement,
passes, and the namespaces' removal on every exit.

Only as root with ``ip``, ``tc`` and network namespaces (each run a few seconds); elsewhere skipped with the reason
(tests/lab_env.py).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tcpsim.errors import ConfigError
from tcpsim.lab.scenario import LabScenario, lab_scenario

from lab_env import needs_lab

VALIDATION = Path(__file__).resolve().parents[1] / "validation"


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
def test_sack_off_is_off_in_both_namespaces_and_in_the_prediction():
    """--sack off: the run records net.ipv4.tcp_sack = 0, the receiver SACKs nothing it queues out of order (no
    TCPSACKReorder, no DSACK), and tcpsim predicts the same scenario without SACK."""
    from tcpsim.lab.measure import run_lab
    from tcpsim.lab.predict import lab_simulation, host_platform

    sc = lab_scenario(rate="100mbit", rtt="2ms", sockbuf="64k", loss=0.01, duration="1s", sack="off")
    run = run_lab(sc, tool="builtin")
    assert run.sysctls["net.ipv4.tcp_sack"] == "0"
    m = run.measured
    assert m.retransmits > 0 and m.retransmit_causes["TCPSACKReorder"] == 0 == m.retransmit_causes["TCPDSACKRecv"]
    built = lab_simulation(sc, host_platform(run.sysctls, delay_line=run.delay_line), run.delay_line)
    assert not built.sender.tcp.sack and not built.receiver.tcp.sack


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

    # 16 KiB buffers keep the window below the path's 25 KB product, so no queue stands on top of the delay
    run = run_lab(LabScenario(rate_bps=100e6, rtt_s=2e-3, sndbuf_bytes=16384, rcvbuf_bytes=16384, duration_s=1.0),
                  tool="builtin")
    assert run.delay_line in ("netem", "relay")
    # the relay sends a packet early by its loop's mean wake-up lateness, at most half the delay each way, so
    # that the mean delay is the one asked for: single packets may come up to half the round trip early
    assert 1.8e-3 <= run.measured.rtt_mean_s <= 4e-3
    assert 1.0e-3 <= run.measured.rtt_min_s <= run.measured.rtt_mean_s


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
def test_seeds_predict_that_many_times_and_show_the_median():
    from tcpsim.lab.testbed import list_namespaces

    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--rate", "100mbit", "--rtt", "2ms", "--loss", "1%",
                           "--sockbuf", "64k", "--duration", "1s", "--seeds", "3", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)["predicted"]
    seeds = p["seeds_goodput_bps"]
    assert len(seeds) == 3 and p["goodput_bps"] == sorted(seeds)[1] == seeds[p["seed"]]
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


@needs_lab
def test_a_capture_holds_the_run_s_frames_both_ways(tmp_path):
    """``tcpsim lab --pcap`` writes a nanosecond libpcap file of the sender's interface: data out and ACKs in,
    headers only, and says how many frames it holds."""
    import struct

    path = tmp_path / "run.pcap"
    d, _ = _shaped_relay_run("--pcap", str(path))
    blob = path.read_bytes()
    magic, _vmaj, _vmin, _tz, _sig, snaplen, link = struct.unpack("<IHHiIII", blob[:24])
    assert (magic, snaplen, link) == (0xA1B23C4D, 128, 1)
    pos, sizes = 24, []
    while pos + 16 <= len(blob):
        _s, _ns, kept, size = struct.unpack("<IIII", blob[pos:pos + 16])
        assert kept <= 128 and kept <= size
        sizes.append(size)
        pos += 16 + kept
    assert pos == len(blob) and len(sizes) > 50
    assert max(sizes) > 1000 and min(sizes) < 100  # data frames out, bare ACKs in
    note = next(n for n in d["notes"] if n.startswith("capture:"))
    assert note.startswith(f"capture: {len(sizes)} frames")


def test_each_pass_captures_to_its_own_file():
    from tcpsim.lab.cli import pass_pcap

    assert pass_pcap(None, 0, 3) is None and pass_pcap("a/run.pcap", 0, 1) == "a/run.pcap"
    assert [pass_pcap("a/run.pcap", k, 3) for k in range(3)] == ["a/run-pass1.pcap", "a/run-pass2.pcap",
                                                                  "a/run-pass3.pcap"]


def test_a_capture_refuses_an_unbounded_run(capsys):
    from tcpsim.lab.capture import main

    assert main(["--dev", "lo", "--out", os.devnull, "--seconds", "0"]) == 2
    assert main(["--dev", "lo", "--out", os.devnull, "--seconds", "5", "--max-frames", "0"]) == 2
    assert "--seconds in (0, 600]" in capsys.readouterr().err


def test_tcpsim_lab_refuses_a_capture_it_cannot_write(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tcpsim", "lab", "--pcap", str(tmp_path / "no" / "such" / "x.pcap")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "pcap" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
