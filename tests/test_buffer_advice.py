"""The advice to raise socket buffers can be followed as written: its tuning lines parse and apply, and with them
and its flag the buffers reach the size it names (tcpsim.tuning.advice)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.api import build_scenario
from tcpsim.os_versions import OS_NAMES, os_version
from tcpsim.report_text import advice
from tcpsim.engine import run
from tcpsim.tuning import apply_tuning, parse_tuning
from tcpsim.tuning.advice import buffer_plan, cap_knob

REQUESTS = ({}, {"sockbuf": "4M"}, {"sndbuf": "1M"}, {"rcvbuf": "64k"}, {"sockbuf": "8k"})


def _followed(kw: dict, plan) -> tuple[int, int]:
    """The sender's largest send buffer and the receiver's largest window once ``plan`` is followed."""
    hosts = []
    sc = build_scenario(**kw)
    knobs = parse_tuning("\n".join(plan.lines), "<advice>")
    for host in (sc.sender, sc.receiver):
        hosts.append(apply_tuning(host.platform, knobs, "<advice>").platform)
    requests = {k: v for k, v in kw.items() if k in ("sockbuf", "sndbuf", "rcvbuf")}
    if plan.flag:
        name, value = plan.flag.split()
        name = name.lstrip("-")
        if name == "sockbuf":
            requests = {"sockbuf": value}
        else:
            requests.pop("sockbuf", None)
            other = "rcvbuf" if name == "sndbuf" else "sndbuf"
            if kw.get("sockbuf") is not None:
                requests[other] = kw["sockbuf"]
            requests[name] = value
    rest = {k: v for k, v in kw.items() if k not in ("sockbuf", "sndbuf", "rcvbuf", "os")}
    after = build_scenario(sender=hosts[0], receiver=hosts[1], **requests, **rest)
    return after.sender.tcp.sndbuf_limit_bytes, after.receiver.tcp.window_limit_bytes


@settings(max_examples=60, deadline=None)
@given(os=st.sampled_from(OS_NAMES), asked=st.sampled_from(REQUESTS), shift=st.integers(14, 28))
def test_following_the_plan_reaches_its_size(os, asked, shift):
    size = 1 << shift
    kw = dict(os=os, rtt="100ms", **asked)
    plan = buffer_plan(build_scenario(**kw), size)
    snd, wnd = _followed(kw, plan)
    want = 65535 if plan.notes else size
    assert snd >= want and wnd >= want, (plan, snd, wnd)


@pytest.mark.parametrize("request_kw, expect", [
    ({"sockbuf": "4M"}, ["--sockbuf 16M", "net.core.wmem_max = 16777216", "net.core.rmem_max = 16777216"]),
    ({}, ["let autotuning grow", "net.ipv4.tcp_wmem = 4096 16384 16777216", "net.ipv4.tcp_rmem = 4096 131072"]),
])
def test_linux_advice_names_the_cap_or_the_autotuning_limit(request_kw, expect):
    sc = build_scenario(os="linux-6.8", rtt="100ms", **request_kw)
    r = run(sc)
    assert r.limited_by == "window"
    text = advice(sc, r)
    for words in expect:
        assert words in text


def test_an_os_without_window_scaling_is_told_its_64_kib():
    sc = build_scenario(os="windows-nt", rtt="100ms", sockbuf="8k")
    r = run(sc)
    assert r.limited_by == "window"
    text = advice(sc, r)
    assert "--sockbuf 64k" in text and "does not scale its window" in text
    assert text.count("does not scale") == 1


@pytest.mark.parametrize("os, send, knob", [
    ("linux-6.8", True, "net.core.wmem_max"), ("linux-2.4", False, "net.core.rmem_max"),
    ("solaris-8", True, "tcp_max_buf"), ("hpux-11", False, "tcp_recv_hiwater_max"),
    ("tru64-5", True, "sb_max"), ("freebsd-14", False, "kern.ipc.maxsockbuf"),
    ("windows-2000", True, "GlobalMaxTcpWindowSize"),
])
def test_cap_knob_by_os(os, send, knob):
    assert cap_knob(os_version(os), send) == knob


def test_freebsd_autotuning_knobs_apply_only_where_it_autotunes():
    line = "net.inet.tcp.recvbuf_max = 8388608\nnet.inet.tcp.sendbuf_auto = 0"
    knobs = parse_tuning(line)
    new = build_scenario(os="freebsd-14").receiver.platform
    tuned = apply_tuning(new, knobs).platform
    assert tuned.os.rcvbuf_autotune_max_bytes == 8388608 and tuned.os.sndbuf_autotune_max_bytes == 0
    old = apply_tuning(build_scenario(os="freebsd-4").receiver.platform, knobs)
    assert old.platform.os.rcvbuf_autotune_max_bytes == 0
    assert any(what.startswith("ignored") for _, what in old.effects)
