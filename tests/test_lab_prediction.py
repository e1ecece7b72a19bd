"""The prediction tcpsim lab sets beside a run: the lab's path, the machine's placement, what the tool counts,
the text it prints."""

from __future__ import annotations

import os

import pytest

from tcpsim.errors import ConfigError
from tcpsim.lab.scenario import LabScenario, lab_scenario


def test_lab_prediction_is_on_the_lab_s_path_whatever_the_host():
    """``tcpsim lab`` predicts on the path it measures, which carries GSO aggregates whole (as validate's lab_vm)."""
    from tcpsim.lab.predict import host_platform

    assert host_platform({}).nic.gso_whole
    assert host_platform({}, platform="modern_linux").nic.gso_whole
    assert host_platform({}).os.version  # a versioned Linux, the only sender that builds aggregates


def test_on_the_lab_s_path_a_machine_s_nic_is_the_veth(tmp_path, virtio_machine):
    """A machine file names its own network's NIC (machine detect: the default route's virtio-net); the lab's runs
    go over the veth pair, so there the machine is composed with the catalog's veth, as --nic veth composes it
    (validation/README.md, "On the lab's path a machine's interface is the veth it runs over")."""
    from dataclasses import replace

    from tcpsim.lab.predict import host_platform, lab_path_parts, lab_path_platform
    from tcpsim.machine.spec import platform_for
    from tcpsim.profiles import load_platform

    vm = virtio_machine
    own, on_path = load_platform(vm), lab_path_platform(str(vm))
    assert own.nic.coalesce_packets == 1 and not own.nic.gso_whole  # the virtio-net's
    assert lab_path_parts(str(vm)) == {"nic": "veth"} and lab_path_parts("lab_vm") == {}
    assert replace(on_path, name="x") == replace(platform_for(str(vm), nic="veth"), name="x")
    assert on_path.nic == load_platform("lab_vm").nic
    assert host_platform({}, platform=str(vm)).nic == on_path.nic
    assert lab_path_platform("lab_vm") == load_platform("lab_vm")  # already on a veth: unchanged


def test_a_machine_on_the_lab_s_rows_is_placed_as_lab_vm(tmp_path, virtio_machine):
    """validate --platform lab_vm=FILE puts the machine where lab_vm is (one CPU a side; this file's receive skbs
    are lab_vm's own, paged); a lab run with its tools pinned to two CPUs gives each side one of them
    (validation/README.md, "A machine on the lab's path is placed as the lab places it")."""
    from dataclasses import replace

    from tcpsim.lab.predict import as_lab_vm, lab_path_platform, lab_simulation
    from tcpsim.profiles import load_platform

    vm, lab = as_lab_vm(str(virtio_machine)), load_platform("lab_vm")
    assert (vm.cpu.n_cpus, vm.os.rx_skb_page_bytes, vm.nic) == (1, lab.os.rx_skb_page_bytes, lab.nic)
    assert as_lab_vm("lab_vm") == lab
    two = replace(lab_path_platform(str(virtio_machine)), cpu=replace(lab.cpu, n_cpus=2))
    for pins, cpus in ((None, 2), ((0, 1), 1), ((0, 0), 2)):
        sim = lab_simulation(LabScenario(rate_bps=0, write_bytes=4096, pin_cpus=pins), two, "none")
        assert (sim.sender.platform.cpu.n_cpus, sim.receiver.platform.cpu.n_cpus) == (cpus, cpus), pins


def test_validate_pages_a_lab_row_s_receive_skbs_only_through_the_delay_line():
    """A user's machine on validate's lab rows is paged as the TUN delay line pages (4 KiB) on a row that went
    through it, and keeps its own receive skbs on a row without it, as ``tcpsim lab`` and ``calibrate --lab`` place
    a run (validation/README.md, "A user's machine on a lab row without the delay line keeps its own receive skbs");
    ``lab_vm``'s own profile pages both."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import Point
    from tcpsim.calibration.validate import given_platforms
    from tcpsim.lab.predict import host_platform

    def point(line: str, rtt: str) -> Point:
        fields = {"platform_sender": "lab_vm", "platform_receiver": "lab_vm", "mtu_bytes": "9000", "rate_bps": "0",
                  "rtt_s": rtt, "delay_line": line, "tool": "iperf3", "duration_s": "3.0"}
        return Point(source_id="lab", table_id="cpu2", source="tcpsim lab", table="t", row=line, metric="throughput",
                     value=1.0, unit="Mbps", value_si=1e6, role="holdout", flags=(), note="", fields=fields)

    rows = [point("relay", "0.001"), point("none", "0")]
    mine = given_platforms(["lab_vm=modern_linux"], rows)
    assert host_platform({}, "modern_linux", None, "none").os.rx_skb_page_bytes == 0  # its own: unpaged
    for row, paged in zip(rows, (4096, 0)):
        sc = scenario_for(row, platforms_for_point(row, mine))
        assert (sc.sender.platform.os.rx_skb_page_bytes, sc.receiver.platform.os.rx_skb_page_bytes) == (paged, paged)
        lab = scenario_for(row, platforms_for_point(row, None))
        assert lab.receiver.platform.os.rx_skb_page_bytes == 4096


def test_lab_prediction_through_the_delay_line_has_validate_s_receive_path():
    """Through the TUN delay line the predicted host's receive path is lab_vm's (paged skbs), whatever host is
    named; without it there is no TUN, and the output says how that differs from validate's lab_vm."""
    from tcpsim.lab.predict import host_platform, path_note
    from tcpsim.profiles import load_platform

    lab = load_platform("lab_vm")
    for named in (None, "modern_linux"):
        p = host_platform({}, platform=named, delay_line="relay")
        assert (p.nic.gso_whole, p.os.rx_skb_page_bytes, p.os.rx_skb_overhead_bytes) == \
            (lab.nic.gso_whole, lab.os.rx_skb_page_bytes, lab.os.rx_skb_overhead_bytes)
    assert host_platform({}, delay_line="none").os.rx_skb_page_bytes == 0
    assert "no TUN" in path_note("none") and "lab_vm" in path_note("none")
    assert "TUN" in path_note("relay") and "no TUN" not in path_note("relay")


def test_the_prediction_is_what_the_tool_counts_over_its_run():
    """iperf3 counts the bytes read from a cold start over its run: where slow start takes a good part of the
    run (1 Gbit/s, 20 ms, 4 MB buffers, half a second), the tool's figure is the simulated bytes over the
    duration, well below the steady state; a run that converged early adds the steady rate for the rest."""
    from tcpsim.lab.predict import lab_simulation, predict_lab, tool_goodput_bps

    slow = lab_scenario(rate="1gbit", rtt="20ms", sockbuf="4M", duration="0.5s")
    assert lab_simulation(slow, "lab_vm", "none").budget.max_sim_time_s == 0.5
    pinned = lab_simulation(lab_scenario(rate=0, write="4k", pin="0,1"), "lab_vm", "none")  # a name, pinned: one CPU
    assert pinned.sender.platform.cpu.n_cpus == pinned.receiver.platform.cpu.n_cpus == 1
    r = predict_lab(slow, {})
    assert r.sim_time_s == pytest.approx(0.5) and r.delivered_bytes > 0
    assert tool_goodput_bps(slow, r) == pytest.approx(r.delivered_bytes * 8 / 0.5)
    assert tool_goodput_bps(slow, r) < 0.9 * r.goodput_bps
    quick = lab_scenario(rate="1gbit", rtt="0.2ms", sockbuf="64k", duration="3s")
    q = predict_lab(quick, {})
    assert q.converged and q.sim_time_s < 1.0
    assert tool_goodput_bps(quick, q) == pytest.approx(
        (q.delivered_bytes * 8 + q.goodput_bps * (3.0 - q.sim_time_s)) / 3.0)
    assert tool_goodput_bps(quick, q, 2.0) != tool_goodput_bps(quick, q)  # the measured duration, when given


def test_a_run_average_needs_a_positive_duration():
    from tcpsim.lab.predict import predict_lab

    r = predict_lab(lab_scenario(rate="1gbit", rtt="0.2ms", sockbuf="64k"), {})
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="duration_s"):
            r.run_average_bps(bad)


def test_a_lab_row_runs_to_its_duration_and_is_scored_as_its_tool_counts():
    """validate: a lab row may run up to its measured duration (not validate's one second) and is compared
    with what its tool reports; a row of the other sources keeps the one-second budget and the steady state."""
    from dataclasses import replace as _replace

    from tcpsim.calibration.mapping import CALIBRATION_BUDGET, platforms_for_point, scenario_for, tool_duration_s
    from tcpsim.calibration.tables import load_points

    points = load_points()
    lab = [p for p in points if p.source_id == "lab"]
    assert lab and all(tool_duration_s(p) in (2.0, 3.0, 6.0) for p in lab)  # lab/loss2 ran 6 s
    assert scenario_for(lab[0], platforms_for_point(lab[0], None)).budget.max_sim_time_s == tool_duration_s(lab[0])
    other = next(p for p in points if p.source_id == "tengbe")
    assert tool_duration_s(other) is None
    assert scenario_for(other, platforms_for_point(other, None)).budget == CALIBRATION_BUDGET
    for value in ("-3", "0", "3 s", "1e9"):
        bad = _replace(lab[0], fields={**lab[0].fields, "duration_s": value})
        with pytest.raises(ConfigError, match=r"duration_s \(lab/"):
            tool_duration_s(bad)


def test_the_prediction_reads_as_the_measuring_tool_reads():
    """iperf3's receiver asks for its block per read (``-l`` sets it for both ends), the built-in generator
    for 128 KiB; a lab row of the dataset and ``tcpsim lab``'s prediction take the tool's read size."""
    from tcpsim.calibration.tables import load_points
    from tcpsim.calibration.validate import platforms_for_point, scenario_for
    from tcpsim.lab.predict import lab_simulation
    from tcpsim.lab.scenario import GENERATOR_READ_BYTES, tool_read_bytes

    assert tool_read_bytes("iperf3", 1024) == 1024
    assert tool_read_bytes("builtin", 1024) == GENERATOR_READ_BYTES
    assert tool_read_bytes("netperf", 1024) is None
    sc = lab_scenario(rate=0, write="4k")
    assert lab_simulation(sc, "lab_vm", "none", tool="iperf3").workload.read_bytes == 4096
    assert lab_simulation(sc, "lab_vm", "none").workload.read_bytes is None
    rr = lab_scenario(rate=0, rr=100)
    assert lab_simulation(rr, "lab_vm", "none", tool="builtin").workload.read_bytes is None
    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "writes")
    assert point.get("tool") == "iperf3"
    assert scenario_for(point, platforms_for_point(point, None)).workload.read_bytes == point.get_int("write_bytes")


def test_the_text_says_how_many_writes_a_sent_unit_carried():
    """Nagle and autocorking merge small writes behind a qdisc: the interface's units per second beside the
    writes per second say how many (the quiet lab pass: 60-byte writes, about 330 a unit behind tbf); a unit smaller
    than a write says its bytes."""
    from tcpsim.lab.cli import _text

    sc = LabScenario(rate_bps=1e9, write_bytes=60).to_dict()
    m = {"goodput_bps": 162.1e6, "tool": "iperf3", "duration_s": 2.0, "rtt_min_s": 2e-5, "rtt_mean_s": 3e-5,
         "data_segments_per_s": None, "retransmits": 0, "cpu_busy_frac": 0.66, "cpu_tools_s_per_s": 1.1,
         "tx_units_per_s": 1015.5}
    p = {"goodput_bps": 43e6, "steady_goodput_bps": 45e6, "rtt_s": 4e-5, "data_packets_per_s": 3000.0,
         "retransmits": 0, "limited_by": "cpu_sender"}
    text = _text({"scenario": sc, "measured": m, "predicted": p, "kernel": "6.x", "sysctls": {}, "delay_line": "none",
                  "notes": []})
    line = next(x for x in text.splitlines() if x.startswith("sent units"))
    assert "1,016/s" in line and "332.6 writes each" in line
    steady = next(x for x in text.splitlines() if x.strip().startswith("steady state"))
    assert "45.0 Mbit/s" in steady and "whole 2.0 s" in steady
    assert "caution" not in text
    # 128 KiB writes: a unit carries a piece of one, so its bytes are what it says (not "0.0 writes each")
    big = {**sc, "write_bytes": 131072}
    text = _text({"scenario": big, "measured": {**m, "goodput_bps": 62.9e6, "tx_units_per_s": 1638.0}, "predicted": p,
                  "kernel": "6.x", "sysctls": {}, "delay_line": "none", "notes": []})
    line = next(x for x in text.splitlines() if x.startswith("sent units"))
    assert "4,800 bytes each" in line and "writes each" not in line
    # the prediction's skbs and ACKs beside the interface's, where the prediction counted them
    text = _text({"scenario": sc, "measured": {**m, "rx_units_per_s": 2000.0},
                  "predicted": {**p, "data_skbs_per_s": 90.0, "ack_packets_per_s": 80.0},
                  "kernel": "6.x", "sysctls": {}, "delay_line": "none", "notes": []})
    line = next(x for x in text.splitlines() if x.startswith("sent units"))
    assert "1,016/s" in line and "90/s" in line and "332.6 writes each measured" in line
    assert "995.4 writes each predicted" in line  # 43 Mbit/s in 90 units a second of 60-byte writes
    acks = next(x for x in text.splitlines() if x.startswith("ACKs in"))
    assert "2,000/s" in acks and "80/s" in acks
    p["cautions"] = ["modern_linux: its CPU costs were set by hand"]
    text = _text({"scenario": sc, "measured": m, "predicted": p, "kernel": "6.x", "sysctls": {}, "delay_line": "none",
                  "notes": []})
    assert "caution: modern_linux: its CPU costs were set by hand" in text.splitlines()
    # the measured limit beside the predicted one: "-" where the shares do not make it plain, said so when pinned
    limited = [x for x in text.splitlines() if x.startswith("limited by")]
    assert limited and limited[0].split()[2:] == ["-", "cpu_sender"]
    pinned = _text({"scenario": {**sc, "pin_cpus": [0, 1]}, "measured": {**m, "limited_by": "cpu_receiver"},
                    "predicted": p, "kernel": "6.x", "sysctls": {}, "delay_line": "none", "notes": []})
    assert next(x for x in pinned.splitlines() if x.startswith("limited by")).split()[2:] == ["cpu_receiver",
                                                                                            "cpu_sender"]
    pinned = _text({"scenario": {**sc, "pin_cpus": [0, 1]}, "measured": m, "predicted": p, "kernel": "6.x",
                    "sysctls": {}, "delay_line": "none", "notes": []})
    assert "plainly the busy one" in next(x for x in pinned.splitlines() if x.startswith("limited by"))


def test_plot_draws_measured_and_predicted(tmp_path):
    from tcpsim.lab.plot import plot_run

    d = {"scenario": LabScenario().to_dict(), "kernel": "6.x",
         "measured": {"tool": "builtin", "series": [{"t_s": 0.1 * i, "goodput_bps": 5e8, "cwnd_bytes": 9e4,
                                                     "rtt_s": 1e-3, "peer_window_bytes": 1e5} for i in range(1, 6)]},
         "predicted": {"goodput_bps": 6e8, "rtt_s": 1e-3, "streams": [{"cwnd_bytes": 8e4}]}}
    plot_run(d, str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 1000
    with pytest.raises(ConfigError, match="plot"):
        plot_run(d, str(tmp_path / "no" / "such" / "dir.png"))


def test_an_unshaped_run_predicted_on_ideal_hosts_says_so():
    """``tcpsim lab --rate 0`` without ``--platform`` predicts tcpsim's ideal hosts, whose only limit on a bare veth
    is the window (hundreds of Gbit/s): the output's notes say so and name what to give instead."""
    from types import SimpleNamespace

    from tcpsim.lab.cli import to_json
    from tcpsim.lab.scenario import LabScenario

    result = SimpleNamespace(goodput_bps=5.8e11, data_packets_per_s=0.0, data_skbs_per_s=0.0, ack_packets_per_s=0.0,
                             rtt_s=4e-5, limited_by="window", retransmits=0, transactions_per_s=None,
                             cpu_utilization_frac={}, streams=[], cautions=(),
                             run_average_bps=lambda duration_s: 5.7e11)

    def run(rate_bps, goodput_bps=9e8, tools_cpu=0.3):
        return SimpleNamespace(scenario=LabScenario(rate_bps=rate_bps), kernel="6.18", sysctls={}, cpu="test",
                               load_avg=(0.1, 0.1, 0.1), delay_line="none", notes=[],
                               measured=SimpleNamespace(tool="iperf3", duration_s=3.0, to_dict=lambda: {},
                                                        goodput_bps=goodput_bps, cpu_tools_s_per_s=tools_cpu,
                                                        tx_units_per_s=0.0, cpu_shares={}))

    notes = to_json(run(0.0), result, None, "linux")["notes"]
    assert any("ideal hosts" in n and "--platform NAME|FILE" in n for n in notes)
    assert not any("ideal hosts" in n for n in to_json(run(0.0), result, "lab_vm", "linux")["notes"])
    assert not any("ideal hosts" in n for n in to_json(run(1e9), result, None, "linux")["notes"])


def test_a_cpu_bound_run_predicted_on_ideal_hosts_says_the_machine_set_its_rate():
    """``tcpsim lab --rate 1gbit --message 60 --nodelay`` without ``--platform``: 91 Mbit/s measured with the tools
    using 1.4 CPU-s a second, 942 predicted on ideal hosts (+934 %); the notes say why and what to name."""
    from types import SimpleNamespace

    from tcpsim.lab.cli import to_json
    from tcpsim.lab.scenario import LabScenario

    result = SimpleNamespace(goodput_bps=9.42e8, data_packets_per_s=0.0, data_skbs_per_s=0.0, ack_packets_per_s=0.0,
                             rtt_s=4e-5, limited_by="line", retransmits=0, transactions_per_s=None,
                             cpu_utilization_frac={}, streams=[], cautions=(),
                             run_average_bps=lambda duration_s: 9.42e8)

    def notes(goodput_bps, tools_cpu, platform=None):
        run = SimpleNamespace(scenario=LabScenario(rate_bps=1e9), kernel="6.18", sysctls={}, cpu="test",
                              load_avg=(0.1, 0.1, 0.1), delay_line="none", notes=[],
                              measured=SimpleNamespace(tool="iperf3", duration_s=3.0, to_dict=lambda: {},
                                                       goodput_bps=goodput_bps, cpu_tools_s_per_s=tools_cpu,
                                                       tx_units_per_s=0.0, cpu_shares={}))
        return [n for n in to_json(run, result, platform, "linux")["notes"] if "machine's CPU set the rate" in n]

    [note] = notes(9.11e7, 1.40)
    assert "1.40 CPU-s" in note and "10% of the prediction" in note and "--platform detect" in note and "lab_vm" in note
    assert not notes(9.11e7, 1.40, "lab_vm")  # the hosts were named
    assert not notes(9.3e8, 1.40)  # the prediction held
    assert not notes(9.11e7, 0.2)  # the tools were idle: something else held the run


def test_a_cpu_bound_run_the_builtin_generator_measured_says_no_file_carries_the_generator():
    """The tenth machine had no iperf3: the built-in generator measured every row, and from its parts every file was
    88-100 % fast (validation/README.md, "What the tenth machine gave with the built-in generator"). A CPU-bound
    prediction for named hosts says why; iperf3's runs, ideal hosts, and a prediction the window bounds do not."""
    from tcpsim.lab.cli import generator_caution

    [caution] = [c for c in [generator_caution("builtin", "detect", "cpu_sender")] if c]
    assert "built-in Python generator" in caution and "install iperf3" in caution
    assert generator_caution("builtin", "fit.toml", "cpu_receiver")
    assert not generator_caution("iperf3", "detect", "cpu_sender")
    assert not generator_caution("builtin", None, "cpu_sender")  # ideal hosts: the ideal-hosts note speaks
    assert not generator_caution("builtin", "detect", "window")


def test_cpu_shares_split_each_cpus_time_and_the_text_sets_them_beside_the_prediction():
    """``Measured.cpu_shares`` from two /proc/stat readings, and the ``by CPU`` lines of ``tcpsim lab``: with the tools
    pinned, the prediction's sender and receiver CPUs beside the CPUs they ran on."""
    from tcpsim.lab.cli import _cpu_lines, limit_differs
    from tcpsim.lab.measure import cpu_shares

    before = {"cpu0": [0, 0, 0, 100, 0, 0, 0, 0], "cpu1": [0, 0, 0, 100, 0, 0, 0, 0]}
    after = {"cpu0": [10, 0, 60, 100, 0, 0, 30, 0], "cpu1": [5, 5, 50, 140, 0, 0, 0, 0]}
    shares = cpu_shares(before, after)
    assert shares["cpu0"] == pytest.approx({"user": 0.1, "system": 0.6, "softirq": 0.3, "other": 0.0, "idle": 0.0})
    assert shares["cpu1"]["user"] == pytest.approx(0.1) and shares["cpu1"]["idle"] == pytest.approx(0.4)
    lines = _cpu_lines(shares, {"sender": [0.42], "receiver": [1.0]}, [0, 1])
    assert "cpu0 100% (system 60%, softirq 30%), cpu1 60% (system 50%, softirq 0%)" in lines[0]
    assert "the sender's CPU (cpu0) 42%, the receiver's (cpu1) 100%" in lines[1]
    # the kernel's limit is plain (the sender's CPU, 100 against 60 % busy) and not the prediction's: said, not left
    # to read
    wrong = {"limited_by": "cpu_receiver", "cpu_utilization_frac": {"sender": [0.42], "receiver": [1.0]}}
    assert limit_differs(shares, [0, 1], wrong) == (
        "the kernel's limit was the sender's CPU (cpu0 100% busy against 60%), the prediction names the receiver's CPU "
        "(its sender's CPU 42%, receiver's 100%): the limit predicted is not the one measured")
    assert limit_differs(shares, [0, 1], {**wrong, "limited_by": "cpu_sender"}) == ""          # they agree
    assert "names the line rate" in limit_differs(shares, [0, 1], {**wrong, "limited_by": "line"})
    assert limit_differs(shares, None, wrong) == ""                                           # not pinned
    assert limit_differs({}, [0, 1], wrong) == ""                                             # not recorded
    both_busy = {**shares, "cpu1": {**shares["cpu1"], "idle": 0.1}}
    assert limit_differs(both_busy, [0, 1], wrong) == ""                     # 100 and 90 % busy: the shares do not say
    assert len(_cpu_lines(shares, {"sender": [0.42], "receiver": [1.0]}, None)) == 1  # not pinned: no mapping
    assert _cpu_lines({}, {}, None) == []
    # ideal hosts cost nothing: a pinned run predicted without --platform maps no CPU (tcpsim lab pins by default)
    assert len(_cpu_lines(shares, {"sender": [0.0], "receiver": [0.0]}, [0, 1])) == 1


@pytest.mark.parametrize("release,expected", [("6.18.44-fc-v857", "linux-6.18"), ("5.4.0-150-generic", "linux-5.4"),
                                              ("9.1.0", "linux-6.12")])
def test_lab_predicts_with_the_running_kernels_release(monkeypatch, release, expected):
    """``tcpsim lab`` without ``--os`` predicts with the running kernel's own release where tcpsim takes it, else
    tcpsim's newest Linux rules not newer than it (validation/README.md, "lab_vm runs the release its tables were
    measured on")."""
    from tcpsim.lab import cli as lab_cli

    real = os.uname()
    monkeypatch.setattr(lab_cli.os, "uname", lambda: os.uname_result(real[:2] + (release,) + real[3:]))
    assert lab_cli.running_linux() == expected
