"""The TSO Nagle test (``tcp_tso_should_defer``): the rule's branches, and what it does to a window-limited
Linux sender of GSO aggregates (fewer, larger sends and fewer ACKs, the kernel's pattern)."""

from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from tcpsim.api import build_scenario, simulate
from tcpsim.config import TcpOptions
from tcpsim.errors import ConfigError
from tcpsim.protocol.tso_defer import deferral_is_cwnd_limited, tso_should_defer

MSS = 1448
# a 16-segment window, cwnd larger, an skb of 30 segments queued behind the head, srtt 1 ms
BASE = dict(now_s=1.0, last_send_s=0.9998, head_sent_s=0.9994, srtt_s=1e-3, limit_bytes=3 * MSS,
            max_bytes=30 * MSS, skb_bytes=30 * MSS, is_tail=False, snd_wnd_bytes=16 * MSS, cwnd_bytes=40 * MSS, mss_bytes=MSS)


@pytest.mark.parametrize("rule", [1, 2])
def test_a_small_opening_with_an_ack_due_soon_waits(rule):
    assert tso_should_defer(rule, **BASE)


@pytest.mark.parametrize("change", [
    dict(limit_bytes=6 * MSS),  # a third of min(snd_wnd, cwnd) may go (16 / 3 -> 5.33 segments)
    dict(limit_bytes=30 * MSS),  # a full TSO skb
    dict(skb_bytes=2 * MSS, limit_bytes=2 * MSS),  # the rest of a skb in the middle of the queue, all of it
    dict(last_send_s=0.9985),  # nothing sent for over 1 ms
    dict(head_sent_s=-1.0),  # nothing unacknowledged
    dict(head_sent_s=0.99965),  # the head left 0.35 ms ago: its ACK is more than half an srtt away
])
def test_the_kernel_s_reasons_to_send_now(change):
    assert not tso_should_defer(1, **{**BASE, **change})
    assert not tso_should_defer(2, **{**BASE, **change})


def test_the_divisor_sets_the_share_and_0_means_more_than_three_segments():
    assert not tso_should_defer(1, **{**BASE, "win_divisor": 6})  # 16 / 6 -> 2.67 segments: 3 may go
    assert tso_should_defer(1, **{**BASE, "win_divisor": 0})  # 3 segments, not more than 3
    assert not tso_should_defer(1, **{**BASE, "win_divisor": 0, "limit_bytes": 4 * MSS})


def test_the_tail_waits_for_more_data_even_when_all_of_it_fits():
    assert tso_should_defer(1, **{**BASE, "skb_bytes": 2 * MSS, "limit_bytes": 2 * MSS, "is_tail": True})


def test_6_18_caps_the_wait_at_1_ms_on_long_paths():
    # srtt 10 ms, the head left 4 ms ago: its ACK is 6 ms away. Half an srtt has passed by 4.1's test (wait);
    # 6.18 waits only for an ACK due within min(1 ms, 5 ms)
    long_path = {**BASE, "srtt_s": 10e-3, "head_sent_s": 0.996, "limit_bytes": 3 * MSS}
    assert tso_should_defer(1, **{**long_path, "head_sent_s": 0.994})  # 6 ms ago > 5 ms: wait
    assert not tso_should_defer(2, **{**long_path, "head_sent_s": 0.994})  # ACK due in 4 ms > 1 ms: send
    assert tso_should_defer(2, **{**long_path, "head_sent_s": 0.9905})  # ACK due in 0.5 ms: wait


@given(limit=st.integers(0, 64 * MSS), max_segs=st.integers(2, 45), rule=st.integers(0, 2),
       age_s=st.floats(0.0, 0.01), srtt_s=st.floats(1e-5, 0.05))
def test_never_defers_what_a_full_skb_or_rule_0_would_send(limit, max_segs, rule, age_s, srtt_s):
    kw = {**BASE, "limit_bytes": limit, "max_bytes": max_segs * MSS, "head_sent_s": 1.0 - age_s, "srtt_s": srtt_s}
    if rule == 0 or limit >= max_segs * MSS:
        assert not tso_should_defer(rule, **kw)


def test_a_deferral_is_cwnd_limited_when_cwnd_leaves_less_than_the_window_and_the_skb():
    """``tcp_tso_should_defer``'s "three cases are tracked": cwnd-limited, rwnd-limited (not counted here), or
    application-limited (the skb is smaller than what cwnd leaves)."""
    assert deferral_is_cwnd_limited(22 * MSS, 172 * MSS, 33 * MSS)  # the lab's 16 KiB write row
    assert deferral_is_cwnd_limited(11 * MSS, 30 * MSS, 11 * MSS)
    assert not deferral_is_cwnd_limited(22 * MSS, 10 * MSS, 33 * MSS)  # the window is the smaller limit
    assert not deferral_is_cwnd_limited(22 * MSS, 172 * MSS, 12 * MSS)  # the skb fits: application-limited


def test_the_rule_is_checked():
    with pytest.raises(ConfigError, match="tso_defer_rule"):
        TcpOptions(tso_defer_rule=3)


def _lab_row(defer: bool):
    sc = build_scenario(platform="lab_vm", rate="1gbit", rtt="1ms", mtu=1500, sockbuf="16k")
    # lab_vm's costs and wake-up table as of 2026-11-29's twenty-ninth session: the test is about the deferral, not
    # about what lab_vm is calibrated to now (with later tables its reader's lateness hides part of the effect)
    cpu = replace(sc.sender.platform.cpu, per_packet_tx_s=1.43e-06, per_packet_rx_s=1.766e-06,
                  per_byte_copy_s=7.513e-11,
                  wake_latency_s=((5.8e-05, 2.3e-05), (0.000191, 2e-05), (0.00034, 2.3e-05), (0.00104, 2.6e-05),
                                  (0.00215, 2.7e-05), (0.00408, 3.8e-05)))
    sc = replace(sc, **{role: replace(h, platform=replace(h.platform, cpu=cpu))
                        for role, h in (("sender", sc.sender), ("receiver", sc.receiver))})
    if not defer:
        sc = replace(sc, sender=replace(sc.sender, tcp=replace(sc.sender.tcp, tso_defer_rule=0)))
    return simulate(sc)


def test_a_window_limited_linux_sender_sends_fewer_larger_aggregates():
    on, off = _lab_row(True), _lab_row(False)
    assert on.limited_by == off.limited_by == "window"
    assert on.ack_packets_per_s < 0.75 * off.ack_packets_per_s, (on.ack_packets_per_s, off.ack_packets_per_s)
    assert on.goodput_bps <= on.ceilings_bps["line"]
