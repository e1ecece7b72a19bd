"""Linux's SACK compression (4.18 on; tcp_input.c ``__tcp_ack_snd_check``, ``tcp_compressed_ack_kick``,
``tcp_sack_new_ofo_skb``): a receiver holding out-of-order data sends three duplicate ACKs at once, then one per timer
or per ``tcp_comp_sack_nr`` compressed."""

from dataclasses import replace

import pytest

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.engine import _Run
from tcpsim.os_versions import comp_sack_defaults, os_version
from tcpsim.protocol.delack import comp_sack_delay_s
from tcpsim.protocol.sack import opens_block
from tcpsim.platform import Platform
from tcpsim.tuning import apply_tuning, parse_tuning

MSS = 1448
LOST = 6_000_000 // MSS * MSS


def test_the_timer_and_the_versions():
    """5 % of the lesser of the receiver's and the socket's round trip, at most the cap, plus the hrtimer's slack; the
    slack from 5.8, the share of the round trip 100 % from 6.19; no compression before 4.18."""
    assert comp_sack_delay_s(0.002, 0.0, 0.05, 1e-3, 1e-4) == pytest.approx(2e-4)
    assert comp_sack_delay_s(0.004, 0.002, 0.05, 1e-3, 0.0) == pytest.approx(1e-4)
    assert comp_sack_delay_s(0.0, 0.002, 0.05, 1e-3, 0.0) == pytest.approx(1e-4)
    assert comp_sack_delay_s(0.1, 0.0, 0.05, 1e-3, 1e-4) == pytest.approx(1.1e-3)
    assert comp_sack_delay_s(0.0, 0.0, 0.05, 1e-3, 1e-4) == pytest.approx(1e-4)
    assert comp_sack_defaults((5, 4)) == {"comp_sack_slack_s": 0.0, "comp_sack_rtt_percent": 5}
    assert comp_sack_defaults((6, 19))["comp_sack_rtt_percent"] == 100
    assert TcpOptions.for_os(os_version("linux-6.12")).comp_sack_nr == 44
    assert TcpOptions.for_os(os_version("linux-6.12")).comp_sack_slack_s == pytest.approx(1e-4)
    assert TcpOptions.for_os(os_version("linux-3.10")).comp_sack_nr == 0


def test_a_new_block_is_one_that_touches_none():
    blocks = [[10, 20], [30, 40]]
    assert not opens_block(blocks, 20, 25, 0) and not opens_block(blocks, 25, 30, 0)
    assert opens_block(blocks, 22, 28, 0) and opens_block([[10, 20]], 12, 15, 20)


def test_sysctls_set_it_and_older_kernels_ignore_them():
    text = "net.ipv4.tcp_comp_sack_nr = 0\nnet.ipv4.tcp_comp_sack_slack_ns = 50000\n"
    r = apply_tuning(replace(Platform(), os=os_version("linux-6.12")), parse_tuning(text))
    assert r.platform.os.comp_sack_nr == 0 and r.platform.os.comp_sack_slack_s == pytest.approx(5e-5)
    assert TcpOptions.for_os(r.platform.os).comp_sack_nr == 0
    r = apply_tuning(replace(Platform(), os=os_version("linux-2.6")), parse_tuning(text))
    assert r.platform.os.comp_sack_nr == 44 and len(r.ignored) == 2


def _acks_for_hole(**opts) -> tuple[list[float], object]:
    """Linux 6.12 over 1 Gbit/s and 2 ms, one segment lost once 6 MB into an 8 MB transfer, past slow start, where
    the flight arrives steadily: the times of the receiver's ACKs that still ask for it, and the receiver. (1 MB into
    3 MB until HyStart's ACK train was timed as Linux 5.7's: slow start lasts longer since, and there the hole's ACKs
    now paused, 1.5 ms once, between bursts of arrivals.) The receive buffer is locked at 1 MB, so ``rcv_ssthresh`` is at
    its clamp by then: out-of-order data that still grows it is ACKed at once (``tcp_grow_window``, 4.19 on), which
    an autotuned buffer's would be through the hole."""
    o = replace(TcpOptions.for_os(os_version("linux-6.12"), rcvbuf_bytes=1 << 20), **opts)
    run_ = _Run(Scenario(sender=Host(tcp=o), receiver=Host(tcp=o), link=Link(one_way_delay_s=1e-3),
                         workload=Workload(total_bytes=8_000_000),
                         budget=Budget(max_sim_time_s=2.0, record_trace=True, trace_limit=100_000)))
    left = [1]

    def loses(seg):
        if seg.length and seg.seq == LOST and left[0]:
            left[0] -= 1
            return True
        return False

    run_.snd_host.tx_drop_filter = loses
    result = run_.run()
    assert result.termination == "finished"
    acks = [t[0] for t in result.trace if t[2] == "ack" and t[1].startswith("receiver") and t[5] == LOST]
    assert acks
    return acks, run_.flows[0][3]


def test_three_duplicate_acks_then_one_per_timer():
    """Without compression every out-of-order segment brings a duplicate ACK; with it the first three go at once,
    the others one per 5 % of the round trip plus 100 us of slack (0.2 ms here), until the hole is filled."""
    plain, _ = _acks_for_hole(comp_sack_nr=0)
    acks, rcv = _acks_for_hole()
    assert len(plain) > 100
    assert 5 < len(acks) < 25 and rcv.acks_compressed > 80
    assert acks[2] - acks[0] < 3 * 12e-6 * 1.5              # three at once: one a segment time (12 us at 1 Gbit/s)
    gaps = [b - a for a, b in zip(acks[3:], acks[4:])]
    assert min(gaps) >= 0.2e-3 - 1e-6 and max(gaps) < 0.3e-3


def test_at_most_tcp_comp_sack_nr_are_compressed():
    """With a timer that never comes due, every 45th out-of-order segment (after 44 compressed) sends an ACK."""
    plain, _ = _acks_for_hole(comp_sack_nr=0)
    acks, rcv = _acks_for_hole(comp_sack_rtt_frac=10.0, comp_sack_delay_s=1.0)
    expected = 3 + (len(plain) - 3) // 45
    assert abs(len(acks) - expected) <= 1
    assert rcv.acks_compressed == pytest.approx(44 * (len(acks) - 3), abs=44)
