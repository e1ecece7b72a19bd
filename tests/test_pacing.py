"""Pacing a Linux flow: SO_MAX_PACING_RATE (TCP's own pacing, 4.13 on) and the fq qdisc (3.12 on); a run without
either is the run it was (validation/README.md, "Pacing by the socket's rate cap")."""

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.api import build_scenario, simulate
from tcpsim.ceilings import ceilings
from tcpsim.config import Budget
from tcpsim.errors import ConfigError
from tcpsim.os_versions import os_version
from tcpsim.platform import Platform
from tcpsim.tuning import apply_tuning, parse_tuning

LINUX = dict(os="linux-6.8", rtt="1ms", sockbuf="4M")


@pytest.mark.parametrize("cap_mbps", [100, 300, 700])
def test_a_capped_socket_runs_at_its_cap_and_says_so(cap_mbps):
    r = simulate(build_scenario(max_pacing_rate=f"{cap_mbps}mbit", **LINUX))
    assert r.limited_by == "pacing"
    assert r.goodput_bps == pytest.approx(cap_mbps * 1e6, rel=0.01)
    assert r.ceilings_bps["pacing"] == cap_mbps * 1e6 and "--max-pacing-rate" in r.advice


def test_a_cap_above_the_line_changes_nothing_but_the_pacing():
    free, capped = simulate(build_scenario(**LINUX)), simulate(build_scenario(max_pacing_rate="5gbit", **LINUX))
    assert free.limited_by == capped.limited_by == "line"
    assert capped.goodput_bps == pytest.approx(free.goodput_bps, rel=0.01)


def test_each_stream_has_its_own_cap():
    r = simulate(build_scenario(max_pacing_rate="100mbit", streams=3, **LINUX))
    assert r.goodput_bps == pytest.approx(300e6, rel=0.02) and r.limited_by == "pacing"
    assert ceilings(build_scenario(max_pacing_rate="100mbit", streams=3, bidir=True, **LINUX))["pacing"] == 600e6


def test_without_a_cap_or_fq_nothing_is_paced():
    sc = build_scenario(**LINUX)
    assert sc.sender.tcp.pacing_rule == 0 and math.isinf(ceilings(sc)["pacing"])
    assert "pacing" not in simulate(sc).utilization_frac


@pytest.mark.parametrize("os_, rule", [("linux-4.19", 1), ("linux-5.15", 2), ("linux-6.12", 2)])
def test_the_rule_by_version(os_, rule):
    assert build_scenario(os=os_, max_pacing_rate="1gbit").sender.tcp.pacing_rule == rule


@pytest.mark.parametrize("os_", ["linux-3.10", "linux-2.6", "linux-2.4", "freebsd-14", "solaris-10", None])
def test_a_cap_no_kernel_rule_paces_is_refused_in_one_line(os_):
    with pytest.raises(ConfigError, match="max_pacing_rate='1gbit': must be set on a versioned Linux of 4.13"):
        build_scenario(os=os_, max_pacing_rate="1gbit")


def test_the_cli_refuses_it_with_exit_code_2(capsys):
    from tcpsim.cli import main

    assert main(["predict", "--max-pacing-rate", "fast", "--os", "linux-6.8"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "max_pacing_rate='fast'" in err


def _with_sysctl(text: str, os_: str = "linux-6.8"):
    return apply_tuning(replace(Platform(), os=os_version(os_)), parse_tuning(text))


def test_default_qdisc_fq_paces_every_flow_from_3_12():
    fq = _with_sysctl("net.core.default_qdisc = fq\n")
    assert fq.platform.os.fq_qdisc
    assert build_scenario(sender=fq.platform, receiver=fq.platform).sender.tcp.pacing_rule == 2
    assert not _with_sysctl("net.core.default_qdisc = fq_codel\n").platform.os.fq_qdisc
    old = _with_sysctl("net.core.default_qdisc = fq\n", "linux-3.10")
    assert not old.platform.os.fq_qdisc and "no fq qdisc (3.12 on)" in old.effects[0][1]
    # with fq a cap paces from 3.12 too, where TCP's own pacing (4.13) is not there yet
    on_312 = replace(Platform(), os=replace(os_version("linux-3.10"), version="3.12", fq_qdisc=True))
    assert build_scenario(sender=on_312, receiver=on_312, max_pacing_rate="1gbit").sender.tcp.pacing_rule == 1


def test_fq_pacing_keeps_a_window_limited_flow_at_its_window():
    """fq paces at 1.2 x cwnd / srtt after slow start: it spreads the window over the round trip, it does not
    shrink it."""
    fq = _with_sysctl("net.core.default_qdisc = fq\n").platform
    kw = dict(rtt="10ms", sockbuf="128k")
    plain = simulate(build_scenario(os="linux-6.8", **kw))
    paced = simulate(build_scenario(sender=fq, receiver=fq, **kw))
    assert plain.limited_by == paced.limited_by == "window"
    assert paced.goodput_bps == pytest.approx(plain.goodput_bps, rel=0.05)


@settings(max_examples=25, deadline=None)
@given(cap_mbps=st.integers(5, 2000), rtt_us=st.integers(50, 20_000), mtu=st.sampled_from([1500, 9000]),
       streams=st.integers(1, 3), write=st.sampled_from(["1k", "16k", "128k"]), seed=st.integers(0, 3))
def test_goodput_never_exceeds_the_caps(cap_mbps, rtt_us, mtu, streams, write, seed):
    """Credit takes back time a flow fell behind, so over a run a stream may not outrun its cap."""
    sc = build_scenario(os="linux-6.8", rate="10gbit", rtt=f"{rtt_us}us", mtu=mtu, streams=streams, write=write,
                        sockbuf="4M", max_pacing_rate=f"{cap_mbps}mbit", seed=seed,
                        budget=Budget(max_events=200_000))
    r = simulate(sc)
    assert r.goodput_bps <= cap_mbps * 1e6 * streams * 1.01 + 1e5, (r.goodput_bps, r.limited_by)
