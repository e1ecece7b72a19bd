"""RACK-TLP (RFC 8985; Linux tcp_recovery.c, tcp_output.c) in a Linux 4.18+ sender, against the sender without it."""

from dataclasses import replace

import pytest

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.engine import _Run
from tcpsim.os_versions import os_version
from tcpsim.protocol.congestion import INFINITE_SSTHRESH
from tcpsim.protocol.rack import reo_wnd_s, sent_after, tlp_timeout_s

MSS = 1448


def test_the_rules():
    """The reordering window closes in recovery and at three SACKed segments (the duplicate-ACK threshold), else a
    quarter of the minimum RTT; the probe waits two round trips rounded up to ticks and two ticks more (the minimum
    RTO more with one segment out), never past the retransmission timer."""
    assert reo_wnd_s(True, 0, 0.002, 0.003) == 0.0 and reo_wnd_s(False, 3, 0.002, 0.003) == 0.0
    assert reo_wnd_s(False, 2, 0.002, 0.003) == pytest.approx(0.0005)
    assert reo_wnd_s(False, 1, 0.002, 0.0001) == pytest.approx(0.0001)
    assert tlp_timeout_s(0.001, 10, 0.004, 0.2, 1.0) == pytest.approx(0.012)   # 2 ms -> 1 tick, + 2 ticks
    assert tlp_timeout_s(0.001, 1, 0.004, 0.2, 1.0) == pytest.approx(0.204)
    assert tlp_timeout_s(0.001, 10, 0.004, 0.2, 0.005) == pytest.approx(0.005)
    assert tlp_timeout_s(0.001, 10, 0.0, 0.2, 1.0) == pytest.approx(0.002)
    assert sent_after(2.0, 10, 1.0, 20) and sent_after(1.0, 20, 1.0, 10) and not sent_after(1.0, 10, 1.0, 10)


def _run(rack: bool, drops: dict[int, int], **workload) -> tuple[_Run, object]:
    """Linux 6.12 (SACK, CUBIC, PRR) over 1 Gbit/s and 2 ms, RACK-TLP on or off; ``drops`` maps a data segment's
    sequence number to how many of its transmissions are lost on the way out."""
    opts = replace(TcpOptions.for_os(os_version("linux-6.12")), rack_tlp=rack)  # autotuned buffers
    run_ = _Run(Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=1e-3),
                         workload=Workload(**workload),
                         budget=Budget(max_sim_time_s=2.0, record_trace=True, trace_limit=50_000)))
    left = dict(drops)

    def loses(seg):
        if seg.length and left.get(seg.seq, 0) > 0:
            left[seg.seq] -= 1
            return True
        return False

    run_.snd_host.tx_drop_filter = loses
    return run_, run_.run()


def _sends(result, seq: int) -> list[float]:
    return [t[0] for t in result.trace if t[2] == "data" and t[3] == seq and t[1].startswith("sender")]


def test_one_sack_marks_a_loss_after_a_quarter_of_the_min_rtt():
    """Ten segments, the ninth lost: one SACK (the tenth), fewer than three duplicate ACKs. RACK marks it once a
    quarter of the minimum RTT has passed beyond the tenth's round trip and resends it; without RACK it waits for
    the retransmission timer (200 ms at least)."""
    lost = 8 * MSS
    with_rack = _run(True, {lost: 1}, total_bytes=10 * MSS)[1]
    without = _run(False, {lost: 1}, total_bytes=10 * MSS)[1]
    assert with_rack.termination == without.termination == "finished"
    first, again = _sends(with_rack, lost)
    assert 2e-3 < again - first < 4e-3                       # a round trip and a quarter of the minimum RTT
    first, again = _sends(without, lost)
    assert again - first > 0.19


def test_a_retransmission_lost_again_is_resent_within_a_round_trip():
    """A segment and its first retransmission lost in a bulk transfer: RACK marks the retransmission lost when a
    segment sent after it is SACKed, a round trip later; without RACK only the retransmission timer finds it."""
    lost = 1_000_000 // MSS * MSS
    with_rack = _run(True, {lost: 2}, total_bytes=3_000_000)[1]
    without = _run(False, {lost: 2}, total_bytes=3_000_000)[1]
    sends = _sends(with_rack, lost)
    assert len(sends) == 3 and sends[2] - sends[1] < 5e-3
    sends = _sends(without, lost)
    assert len(sends) == 3 and sends[2] - sends[1] > 0.19
    assert with_rack.sim_time_s < without.sim_time_s - 0.15


def test_a_lost_tail_is_probed_not_timed_out():
    """Thirty segments, the last two lost: no later segment will be SACKed, so RACK has nothing to go by. Two round
    trips (and two 4-ms ticks) after the flight, the probe resends the last one; its SACK lets RACK mark the other,
    and the transfer ends some 20 ms after its flight, where without RACK-TLP the retransmission timer takes 200 ms.
    (A tail of one segment waits as long either way: the probe then allows the peer's delayed ACK, the minimum RTO.)"""
    last, before = 29 * MSS, 28 * MSS
    with_rack = _run(True, {last: 1, before: 1}, total_bytes=30 * MSS)[1]
    without = _run(False, {last: 1, before: 1}, total_bytes=30 * MSS)[1]
    first, probe = _sends(with_rack, last)
    assert 8e-3 < probe - first < 20e-3
    first, again = _sends(with_rack, before)
    assert again - first < 30e-3
    assert with_rack.termination == without.termination == "finished"
    assert with_rack.sim_time_s < 0.05 < 0.2 < without.sim_time_s


def test_a_probe_that_repaired_a_loss_cuts_cwnd():
    """Bursts of ten segments half a second apart, the last of the second lost: the probe resends it within a few
    round trips (two segments are out while the peer delays its ACK), where without RACK-TLP the retransmission timer
    takes 200 ms; the ACK past the probe at the next burst says it repaired a loss, and cwnd falls to ssthresh
    (``tcp_process_tlp_ack``, TCP_CA_CWR: nothing else here would set ssthresh, as the run without loss shows)."""
    lost = 19 * MSS
    run_, result = _run(True, {lost: 1}, write_bytes=10 * MSS, message_rate_hz=2.0)
    first, probe = _sends(result, lost)
    assert probe - first < 0.05
    sender = run_.flows[0][2]
    assert sender.retransmits == 1 and sender.cc.ssthresh < INFINITE_SSTHRESH
    clean, _ = _run(True, {}, write_bytes=10 * MSS, message_rate_hz=2.0)
    assert clean.flows[0][2].cc.ssthresh == INFINITE_SSTHRESH
    _, without = _run(False, {lost: 1}, write_bytes=10 * MSS, message_rate_hz=2.0)
    first, again = _sends(without, lost)
    assert again - first > 0.19
