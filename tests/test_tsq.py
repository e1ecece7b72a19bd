"""TCP small queues (``tcp_small_queue_check``) for a versioned Linux sender: the bytes in the host's transmit
path are capped, so the queue, not the goodput, changes; defaults by version (validation/README.md, lab section)."""

from dataclasses import replace

import pytest

from tcpsim.api import build_scenario, simulate
from tcpsim.os_versions import os_version, tsq_default_bytes
from tcpsim.platform import Platform
from tcpsim.tuning import apply_tuning, parse_tuning


@pytest.mark.parametrize("name, limit", [("linux-2.6", 0), ("linux-3.10", 131072), ("linux-4.19", 262144),
                                         ("linux-5.15", 1 << 20), ("linux-6.1", 1 << 20), ("linux-6.12", 1 << 20)])
def test_tcp_limit_output_bytes_by_version(name, limit):
    assert os_version(name).limit_output_bytes == limit


def test_the_lab_kernel_s_default_is_what_it_reported():
    assert tsq_default_bytes((6, 18)) == 4194304  # the sweep header's net.ipv4.tcp_limit_output_bytes


def _run(os_):
    # a slow line under a large window: without TSQ the sender's own queue holds most of the window
    return simulate(build_scenario(platform=Platform(os=os_), rate="10mbit", rtt="10ms", sockbuf="1M"))


def test_tsq_keeps_the_host_queue_short_and_the_goodput():
    on, off = _run(os_version("linux-6.12")), _run(replace(os_version("linux-6.12"), limit_output_bytes=0))
    assert on.limited_by == off.limited_by == "line"
    assert on.goodput_bps == pytest.approx(off.goodput_bps, rel=0.01)
    # two MSS-sized skbs (pacing rate >> 10 is about 1.4 KB here) in the host: 10 ms + at most about 3.5 ms
    assert on.rtt_s < 0.016 < 0.03 < off.rtt_s, (on.rtt_s, off.rtt_s)


def test_a_kernel_before_tsq_queues_the_window_and_the_sysctl_sets_the_cap():
    old = _run(os_version("linux-2.6"))
    assert old.rtt_s > 0.03
    p = replace(Platform(), os=os_version("linux-6.12"))
    tuned = apply_tuning(p, parse_tuning("net.ipv4.tcp_limit_output_bytes = 0\n")).platform
    assert tuned.os.limit_output_bytes == 0
    assert _run(tuned.os).rtt_s > 0.03


def test_the_lab_prediction_takes_the_measured_kernel_s_cap():
    from tcpsim.lab.predict import host_platform

    assert host_platform({"net.ipv4.tcp_limit_output_bytes": "4194304"}).os.limit_output_bytes == 4194304
