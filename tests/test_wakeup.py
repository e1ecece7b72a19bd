"""A blocked application that wakes late (``CpuCost.wake_latency_s``) and the probe that measures it."""

import json
from dataclasses import replace

import pytest

from tcpsim.api import build_scenario, simulate
from tcpsim.errors import ConfigError
from tcpsim.lab import wakeprobe
from tcpsim.os_versions import os_version
from tcpsim.platform import CpuCost, Platform
from tcpsim.profiles import load_platform, save_platform

TABLE = ((1e-4, 20e-6), (1e-3, 60e-6))
COSTS = CpuCost(per_syscall_s=1e-6, per_packet_tx_s=2e-6, per_packet_rx_s=2e-6)


def test_the_latency_rises_from_zero_between_points_and_stays_flat_after_the_last():
    cpu = CpuCost(wake_latency_s=TABLE)
    assert cpu.wake_latency_after_s(0.0) == 0.0
    assert cpu.wake_latency_after_s(5e-5) == pytest.approx(10e-6)
    assert cpu.wake_latency_after_s(5.5e-4) == pytest.approx(40e-6)
    assert cpu.wake_latency_after_s(1.0) == pytest.approx(60e-6)
    assert CpuCost().wake_latency_after_s(1.0) == 0.0
    assert not CpuCost(wake_latency_s=TABLE).is_free


@pytest.mark.parametrize("bad", [((1e-3, 1e-5), (1e-4, 1e-5)), ((1e-4, -1e-6),), ((0.0, 1e-6),), ((1e-4,),),
                                 (("x", 1e-6),), ((1e-4, 1e-5), (1e-4, 2e-5))])
def test_a_bad_table_is_one_error_naming_the_field(bad):
    with pytest.raises(ConfigError, match="wake_latency_s"):
        CpuCost(wake_latency_s=bad)


def test_a_profile_with_a_table_reads_back_equal(tmp_path):
    platform = Platform(cpu=replace(COSTS, wake_latency_s=TABLE))
    assert load_platform(save_platform(platform, tmp_path / "m.toml")) == platform


def test_a_profile_with_a_malformed_table_names_its_file_and_field(tmp_path):
    good = save_platform(Platform(cpu=replace(COSTS, wake_latency_s=TABLE)), tmp_path / "m.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(good.replace("[0.0001, 2e-05]", '[0.0001, "soon"]'))
    with pytest.raises(ConfigError) as err:
        load_platform(bad)
    assert "bad.toml" in str(err.value) and "cpu.wake_latency_s" in str(err.value)
    assert "\n" not in str(err.value)


def _goodput(platform, **kw):
    sc = build_scenario(platform=platform, rate="1gbit", rtt="1ms", write="128k", **kw)
    return simulate(sc).goodput_bps


def test_each_side_of_a_request_response_wakes_late_once_a_transaction():
    """Client and server each block in ``recv`` for a round trip's part and run 100 us late: a transaction
    takes 200 us longer, no more and no less."""
    linux = os_version("linux-6.8")
    times = [1 / simulate(build_scenario(platform=Platform(cpu=replace(COSTS, wake_latency_s=table), os=linux),
                                         rate="1gbit", rtt="1ms", rr="100", response="100")).transactions_per_s
             for table in ((), ((1e-5, 100e-6),))]
    assert times[1] - times[0] == pytest.approx(200e-6, rel=0.05)


def test_a_writer_that_wakes_late_slows_a_send_buffer_limited_transfer():
    """A writer blocked on a full send buffer refills it 100 us after the ACK frees a third of it: the
    buffer-limited transfer loses about that much of every round trip, not more."""
    linux = os_version("linux-6.8")
    on_time = Platform(cpu=COSTS, os=linux)
    late = Platform(cpu=replace(COSTS, wake_latency_s=((1e-5, 100e-6),)), os=linux)
    fast, slow = _goodput(on_time, sndbuf="16k", rcvbuf="1m"), _goodput(late, sndbuf="16k", rcvbuf="1m")
    assert slow < 0.97 * fast
    assert slow > fast * 1e-3 / (1e-3 + 2 * 100e-6) * 0.9


def test_a_host_whose_table_is_empty_runs_as_before():
    linux = os_version("linux-6.8")
    assert _goodput(Platform(cpu=COSTS, os=linux), sockbuf="32k") == \
        _goodput(Platform(cpu=replace(COSTS, wake_latency_s=()), os=linux), sockbuf="32k")


def test_the_probe_times_wake_ups_within_its_bounds():
    s = wakeprobe.probe_wake(2e-4, count=20)
    assert 1 <= s["n"] <= 20
    assert 0 < s["p10_s"] <= s["median_s"] <= s["p90_s"] < 0.1
    table = wakeprobe.wake_table([dict(s, cpus=[0, 1]), dict(s, cpus=[0, 1], median_s=3 * s["median_s"]),
                                  dict(s, cpus=[0, 0], gap_s=1e-3)])
    assert table == [[2e-4, 2 * s["median_s"]]]
    CpuCost(wake_latency_s=table)


def test_the_probe_command_prints_json_and_refuses_a_bad_gap(capsys):
    assert wakeprobe.main(["--gap", "0.1ms", "--count", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["sets"]) == 1 and out["sets"][0]["n"] >= 1
    assert wakeprobe.main(["--gap", "1s"]) == 2
    assert "gap" in capsys.readouterr().err
