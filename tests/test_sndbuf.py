"""Linux's autotuned send buffer (``tcp_sndbuf_expand``, 3.14 on): its size at the handshake and as it grows, as the
lab VM's kernel reported it (validation/README.md, "An autotuned send buffer as Linux sizes it")."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpsim.api import build_scenario
from tcpsim.engine import _Run
from tcpsim.lab.predict import host_platform, lab_simulation
from tcpsim.lab.scenario import lab_scenario
from tcpsim.os_versions import os_version
from tcpsim.platform import Platform
from tcpsim.protocol.linux_sndbuf import expanded_sndbuf_bytes, per_mss_bytes

PROBE = Path(__file__).resolve().parents[1] / "validation" / "lab_sndbuf_probe_2026-11-30.json"


def test_per_mss_is_a_one_segment_skb_s_truesize():
    assert per_mss_bytes(1460, 512) == 2304 and per_mss_bytes(8960, 512) == 16640  # the lab VM's kernel
    assert per_mss_bytes(1460, 640) == 4352  # a distribution kernel's MAX_TCP_HEADER 320
    assert expanded_sndbuf_bytes(3, 2304) == 46080 and expanded_sndbuf_bytes(84, 2304) == 387072


@given(st.integers(88, 65495), st.integers(0, 1 << 12), st.integers(0, 10_000))
def test_per_mss_is_the_next_power_of_two_and_the_buffer_at_least_ten_segments(mss_clamp, head, cwnd):
    per_mss = per_mss_bytes(mss_clamp, head)
    room = per_mss - 256
    assert room & (room - 1) == 0 and mss_clamp + head <= room < 2 * (mss_clamp + head)
    assert expanded_sndbuf_bytes(cwnd, per_mss) == 2 * max(10, cwnd) * per_mss


def _sender(mtu, sockbuf=None, platform=None):
    sc = lab_scenario(rate="0", rtt="0", mtu=mtu, sockbuf=sockbuf, write=131072, duration="1s")
    run = _Run(lab_simulation(sc, platform or host_platform({}, "lab_vm", None, "none"), "none", 0, "iperf3"))
    return run.flows[0][2]


@pytest.mark.skipif(not PROBE.exists(), reason="needs the checkout's validation/ folder")
@pytest.mark.parametrize("mtu", [1500, 9000])
def test_lab_vm_s_send_buffer_at_the_handshake_is_the_kernel_s(mtu):
    measured = {r["mtu_bytes"]: r["start_sk_sndbuf"] for r in json.loads(PROBE.read_text())["runs"]}
    assert _sender(mtu).sndbuf == measured[mtu]


@pytest.mark.parametrize("mtu", [1500, 9000])
def test_predict_s_header_says_the_buffer_the_handshake_made(mtu):
    from tcpsim.report_text import _sndbuf_at_handshake

    sc = build_scenario(platform=Platform(os=os_version("linux-6.12")), rate="1gbit", rtt="1ms", mtu=mtu)
    assert _sndbuf_at_handshake(sc) == _Run(sc).flows[0][2].sndbuf > sc.sender.tcp.sndbuf_bytes


def test_a_set_buffer_is_left_alone_and_an_old_kernel_keeps_three_segments():
    assert _sender(1500, sockbuf="32k").sndbuf == 65536
    old = _Run(build_scenario(platform=Platform(os=os_version("linux-3.10")), rate="1gbit", rtt="1ms")).flows[0][2]
    assert old.sndbuf == 16384 and not old._sndbuf_per_mss


def test_the_buffer_grows_in_whole_segments_of_per_mss():
    sc = build_scenario(platform=Platform(os=os_version("linux-6.12")), rate="1gbit", rtt="10ms", write="128k")
    run = _Run(sc)
    run.run()
    grown = [a.sndbuf for _, _, a, _, _ in run.flows]
    assert all(s == 4194304 or (s % 4352 == 0 and s // 8704 >= 10) for s in grown), grown
    assert max(grown) > expanded_sndbuf_bytes(10, 4352)
