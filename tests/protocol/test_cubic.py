"""CUBIC (RFC 9438, Linux tcp_cubic.c) and HyStart, as pure rules on a Cubic window."""

from __future__ import annotations

import pytest

from tcpsim.protocol.congestion import NewReno
from tcpsim.protocol.cubic import CUBIC_BETA, CUBIC_C, UPDATE_HOLD_S, Cubic, cubic_k_s, cubic_window_segments

MSS = 1448


def test_k_is_the_time_back_to_w_max():
    assert cubic_k_s(100, 70) == pytest.approx((30 / 0.4) ** (1 / 3))
    assert cubic_k_s(70, 100) == 0.0
    k = cubic_k_s(100, 70)
    assert cubic_window_segments(k, k, 100) == pytest.approx(100)
    assert cubic_window_segments(0.0, k, 100) == pytest.approx(70)


def test_a_loss_keeps_seven_tenths_and_remembers_w_max():
    cc = Cubic(MSS, 10)
    cc.cwnd = 100 * MSS
    assert cc.loss_ssthresh(cc.cwnd) == 70 * MSS            # beta = 717/1024
    assert cc.w_last_max == 100
    cc.cwnd = 80 * MSS                                      # lost again below the last maximum:
    cc.loss_ssthresh(cc.cwnd)
    assert cc.w_last_max == 68 == int(80 * (1 + CUBIC_BETA) / 2)   # fast convergence gives way, in whole segments


def _avoid(cc: Cubic, rtt_s: float, until_s: float) -> list[tuple[float, int]]:
    """Congestion avoidance with one ACK per segment, spread evenly over each round trip."""
    seen = []
    while cc.now_s < until_s:
        segs = cc.cwnd // MSS
        for _ in range(segs):
            cc.now_s += rtt_s / segs
            cc.avoid_congestion(MSS)
        seen.append((cc.now_s, cc.cwnd // MSS))
    return seen


def test_the_window_climbs_back_to_w_max_in_about_k_then_probes_beyond():
    # A long path (100 ms, W_max 200): the cubic curve, not the Reno-friendly estimate, sets the pace.
    rtt = 0.1
    cc = Cubic(MSS, 10)
    cc.cwnd = 200 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)
    cc.cwnd = cc.ssthresh
    cc.delay_min_s = rtt
    k = cubic_k_s(200, 140)
    seen = _avoid(cc, rtt, 2.5 * k)
    at_k = min(seen, key=lambda p: abs(p[0] - k))[1]
    assert 190 <= at_k <= 205                                # back near W_max after K (the plateau)
    early = [w for t, w in seen if t < k / 2]
    assert early[-1] - early[0] > 35                         # concave: fast at first
    plateau = [w for t, w in seen if abs(t - k) < 0.1 * k]
    assert max(plateau) - min(plateau) < 8                   # flat around W_max
    assert seen[-1][1] > 300                                 # convex beyond it


def test_short_paths_grow_as_reno_friendly_cubic_in_steps_of_a_32nd_of_a_second():
    """RTT 1 ms, W_max 20: the cubic curve is slower than Reno there, and the Reno-friendly estimate grows
    3 (1 - beta) / (1 + beta) = 0.53 segments per round trip (RFC 9438 §4.3). Linux looks at it only when
    ``bictcp_update`` runs past its hold: after the loss the target is below cwnd (``cnt`` = 100 cwnd) and cwnd stands
    still for 1/32 s, then catches up; over the long run the estimate's pace."""
    rtt = 1e-3
    cc = Cubic(MSS, 10)
    cc.cwnd = 20 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)
    cc.cwnd = cc.ssthresh
    cc.delay_min_s = rtt
    seen = _avoid(cc, rtt, 0.5)
    held = [w for t, w in seen if t < 0.95 * UPDATE_HOLD_S]
    assert len(held) > 25 and held[-1] - 14 <= 1             # 29 round trips without a segment of growth
    after = [w for t, w in seen if t < 1.5 * UPDATE_HOLD_S]
    assert after[-1] - 14 >= 0.4 * len(after)               # caught up with the estimate within 16 ms more
    per_rtt = (seen[-1][1] - 14) / len(seen)
    assert 0.4 <= per_rtt <= 1.0


def test_the_hold_ends_when_cwnd_moves_or_a_timeout_resets_cubic():
    """``bictcp_update`` computes again at once when cwnd differs from its last computation's (a reduction, or growth),
    and ``bictcp_reset`` forgets that computation."""
    cc = Cubic(MSS, 10)
    cc.cwnd = 20 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)
    cc.cwnd = cc.ssthresh
    cc.delay_min_s = 0.001
    cc.now_s = 1.0
    cc.avoid_congestion(MSS)
    assert (cc.last_cwnd, cc.last_time_s) == (14, 1.0)
    cc.now_s = 1.01
    cc.avoid_congestion(MSS)
    assert cc.last_time_s == 1.0                             # held: the same cwnd, 10 ms later
    cc.cwnd += MSS
    cc.avoid_congestion(MSS)
    assert (cc.last_cwnd, cc.last_time_s) == (15, 1.01)      # moved: computed again
    cc.on_timeout(15 * MSS, 10**6)
    assert cc.last_cwnd == 0 and cc.cnt == 0.0


def _stretch_acks_after_a_loss(hz: int, until_s: float) -> list[tuple[float, int, float]]:
    """60 segments lost to 42 on a 1-ms path, then ACKs of 20 segments each: (time, cwnd, Reno-friendly estimate)."""
    cc = Cubic(MSS, 10, hz=hz)
    cc.cwnd = 60 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)
    cc.cwnd = cc.ssthresh
    cc.delay_min_s = 1e-3
    seen = []
    while cc.now_s < until_s:
        segs = cc.cwnd // MSS
        for _ in range(0, segs, 20):
            cc.now_s += 1e-3 * 20 / segs
            cc.avoid_congestion(20 * MSS)
        seen.append((cc.now_s, cc.cwnd // MSS, cc.w_est))
    return seen


def test_cwnd_moved_within_the_tick_keeps_cnt_so_the_catch_up_overshoots():
    """"The CUBIC function can update ca->cnt at most once per jiffy": when the hold ends with cnt at 2, cwnd grows by
    half of each ACK's segments until the tick (4 ms at HZ 250) is over, past the Reno-friendly estimate; with a
    continuous clock it stops at the estimate (the kernel's trace: 38 -> 175 segments in under 3 ms)."""
    continuous = _stretch_acks_after_a_loss(0, 0.045)
    ticks = _stretch_acks_after_a_loss(250, 0.045)
    assert max(w for _, w, _ in continuous) <= continuous[-1][2] + 2
    assert max(w for _, w, _ in ticks) > 2 * ticks[-1][2]
    held = [w for t, w, _ in ticks if 0.008 < t < 0.028]
    assert held[0] == held[-1] <= 46                         # the hold: 7 ticks of 4 ms at least


@pytest.mark.parametrize("hz, ticks", [(250, 7), (1000, 31)])
def test_the_hold_is_hz_over_32_whole_ticks(hz, ticks):
    cc = Cubic(MSS, 10, hz=hz)
    cc.cwnd = 20 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)
    cc.cwnd = cc.ssthresh
    cc.now_s = 1.0 + 0.7 / hz                                # within tick hz of second 1
    cc.avoid_congestion(MSS)
    assert cc.epoch_s == cc.last_time_s == 1.0               # the clock reads the tick's start
    cc.cwnd = 14 * MSS                                       # as it was computed for
    cc.now_s = 1.0 + (ticks + 0.9) / hz
    cc.avoid_congestion(MSS)
    assert cc.last_time_s == 1.0                             # HZ / 32 ticks later: still held
    cc.cwnd = 14 * MSS
    cc.now_s = 1.0 + (ticks + 1.1) / hz
    cc.avoid_congestion(MSS)
    assert cc.last_time_s == pytest.approx(1.0 + (ticks + 1) / hz)


def test_growth_is_at_most_one_segment_per_two_acked():
    cc = Cubic(MSS, 10)
    cc.cwnd = 10 * MSS
    cc.ssthresh = 10 * MSS
    cc.w_last_max = 1000.0                                   # far below W_max: the curve asks for a lot
    cc.delay_min_s = 0.001
    cc.now_s = 0.0
    cc.avoid_congestion(MSS)
    cc.now_s = 5.0
    for _ in range(10):
        cc.avoid_congestion(MSS)
    assert cc.cwnd <= 16 * MSS


def test_before_its_first_loss_cubic_grows_at_least_five_percent_a_round_trip():
    """bictcp_update: no loss yet (HyStart ended slow start, W_max unknown), ca->cnt at most 20. Over 40 round
    trips of 4 ms from 600 segments the cubic curve from K = 0 adds a handful; the floor makes it 600 x 1.05^40."""
    rtt = 0.004
    cc = Cubic(MSS, 10)
    cc.cwnd = cc.ssthresh = 600 * MSS                        # where HyStart left slow start
    cc.delay_min_s = rtt
    seen = _avoid(cc, rtt, 40 * rtt)
    assert seen[-1][1] >= 600 * 1.05 ** 38
    assert seen[-1][1] <= 600 * 1.06 ** 41                   # the floor, not more: one segment per 20 acked
    cc.cwnd = 1000 * MSS
    cc.ssthresh = cc.loss_ssthresh(cc.cwnd)                  # a loss: from here the cubic curve alone
    cc.cwnd = cc.ssthresh
    after = _avoid(cc, rtt, cc.now_s + 40 * rtt)
    assert after[-1][1] - 700 < 60                           # concave, slow just below W_max (K is 4 s here)


def test_a_timeout_resets_cubic_so_the_floor_holds_again():
    """cubictcp_state(TCP_CA_Loss) -> bictcp_reset: W_max, epoch and delay_min forgotten."""
    cc = Cubic(MSS, 10)
    cc.cwnd = 500 * MSS
    cc.delay_min_s = 0.004
    cc.on_timeout(500 * MSS, 10**6)
    assert cc.ssthresh == 350 * MSS and cc.cwnd == MSS
    assert cc.w_last_max == 0.0 and cc.delay_min_s == 0.0 and cc.epoch_s < 0.0
    cc.on_ack_timing(0.005, 10**6, 1)                        # delay_min taken afresh from the next sample
    assert cc.delay_min_s == 0.005
    cc.cwnd = cc.ssthresh
    seen = _avoid(cc, 0.005, cc.now_s + 20 * 0.005)
    assert seen[-1][1] >= 350 * 1.05 ** 18


def test_hystart_ends_slow_start_on_an_ack_train_spanning_half_the_min_rtt():
    cc = Cubic(MSS, 10)
    cc.cwnd = 32 * MSS
    cc.now_s = 0.0
    cc.on_ack_timing(0.001, 100 * MSS, 1)                    # starts the round, sets delay_min 1 ms
    t = 0.0
    while cc.ssthresh > cc.cwnd and t < 0.002:
        t += 20e-6                                           # back-to-back ACKs, 20 us apart
        cc.now_s = t
        cc.on_ack_timing(0.001, 100 * MSS, 2)
    assert cc.ssthresh == cc.cwnd and 0.0005 < t < 0.0006


def test_hystart_ends_slow_start_when_the_round_s_rtt_rises():
    cc = Cubic(MSS, 10)
    cc.cwnd = 32 * MSS
    cc.now_s = 0.0
    cc.on_ack_timing(0.001, 100 * MSS, 1)                    # delay_min 1 ms: threshold clamps to 4 ms
    for i in range(8):
        cc.now_s = 0.01 * (i + 1)                            # spaced: no ACK train
        cc.on_ack_timing(0.0061, 100 * MSS, 2)
    assert cc.ssthresh == cc.cwnd
    calm = Cubic(MSS, 10)
    calm.cwnd = 32 * MSS
    calm.on_ack_timing(0.001, 100 * MSS, 1)
    for i in range(8):
        calm.now_s = 0.01 * (i + 1)
        calm.on_ack_timing(0.0049, 100 * MSS, 2)
    assert calm.ssthresh > calm.cwnd                         # 3.9 ms above: still in slow start


def test_hystart_waits_for_sixteen_segments():
    cc = Cubic(MSS, 10)
    cc.on_ack_timing(0.001, 100 * MSS, 1)
    for i in range(200):
        cc.now_s = i * 1e-6
        cc.on_ack_timing(0.001, 100 * MSS, 2)
    assert cc.ssthresh > cc.cwnd


def _train_end_s(cc: Cubic, pacing_Bps: float, paced: bool) -> float:
    """When back-to-back ACKs 20 us apart end slow start, the round started at 0 with delay_min 1 ms."""
    cc.now_s = 0.0
    cc.on_ack_timing(0.001, 100 * MSS, 1, pacing_Bps, paced)
    t = 0.0
    while cc.ssthresh > cc.cwnd and t < 0.004:
        t += 20e-6
        cc.now_s = t
        cc.on_ack_timing(0.001, 100 * MSS, 2, pacing_Bps, paced)
    return t


@pytest.mark.parametrize("pacing_Bps,paced,lo_s,hi_s", [
    (0.0, False, 0.0005, 0.00053),            # no rate yet: hystart_ack_delay 0, half of delay_min
    (524288e3, False, 0.00075, 0.00078),      # 64 KiB x 4 at 512 MB/s: 0.5 ms more, then halved
    (50e6, False, 0.001, 0.00103),            # a slow rate: the 1 ms cap, (1 + 1) / 2 ms
    (524288e3, True, 0.0015, 0.00153),        # a paced socket: not halved
])
def test_linux_5_7_hystart_allows_for_the_ack_delay_of_tso_and_gro(pacing_Bps, paced, lo_s, hi_s):
    """``hystart_update`` since 5.7: the train must span ``delay_min + hystart_ack_delay(sk)``, halved only when the
    socket is not paced; ``hystart_ack_delay`` is min(1 ms, ``sk_gso_max_size`` x 4 / ``sk_pacing_rate``)."""
    from tcpsim.protocol.cubic import hystart_ack_delay_s

    assert hystart_ack_delay_s(0.0) == 0.0 and hystart_ack_delay_s(1e6) == 0.001
    assert hystart_ack_delay_s(524288e3) == pytest.approx(0.0005)
    cc = Cubic(MSS, 10, train_rule=1)
    cc.cwnd = 32 * MSS
    assert lo_s < _train_end_s(cc, pacing_Bps, paced) <= hi_s
    before = Cubic(MSS, 10)                                  # before 5.7: half of delay_min whatever the rate
    before.cwnd = 32 * MSS
    assert 0.0005 < _train_end_s(before, pacing_Bps, paced) <= 0.00053


def test_linux_5_7_hystart_keeps_no_round_below_sixteen_segments():
    """Since 5.7 ``cubictcp_acked`` calls ``hystart_update`` only from ``hystart_low_window``: the round starts at the
    first ACK at 16 segments, not earlier, so a train counted from before it cannot end slow start."""
    cc = Cubic(MSS, 10, train_rule=1)
    cc.on_ack_timing(0.001, 100 * MSS, 1)                    # 10 segments: no round yet
    assert cc.round_end == -1
    cc.cwnd = 16 * MSS
    cc.now_s = 0.0009                                        # 0.9 ms on: the round starts here
    cc.on_ack_timing(0.001, 100 * MSS, 2)
    assert cc.round_end == 100 * MSS and cc.round_start_s == 0.0009
    old = Cubic(MSS, 10)
    old.on_ack_timing(0.001, 100 * MSS, 1)
    assert old.round_end == 100 * MSS and old.round_start_s == 0.0


def test_reno_keeps_its_own_arithmetic():
    reno = NewReno(MSS, 10)
    reno.cwnd = 100 * MSS
    assert reno.loss_ssthresh(100 * MSS) == 50 * MSS
    reno.on_ack_timing(0.001, 0, 0)                          # no timing rule: nothing happens
    assert CUBIC_C == 0.4


@pytest.mark.parametrize("per_ack, grown", [(2, 2), (1, 1), (0, 10)])
def test_slow_start_credits_what_the_stack_credits_for_a_stretch_ack(per_ack, grown):
    """An ACK of ten segments in slow start: RFC 3465's two, Linux before 3.18 one, Linux 3.18 on all ten
    (tcp_slow_start), for Reno and CUBIC alike."""
    for cc in (NewReno(MSS, 10, per_ack), Cubic(MSS, 10, per_ack)):
        cc.on_new_ack(10 * MSS, 10 * MSS, 0)
        assert cc.cwnd == (10 + grown) * MSS


def test_linux_slow_start_stops_at_ssthresh_and_grows_the_rest_as_congestion_avoidance():
    """tcp_slow_start: cwnd = min(cwnd + acked, ssthresh); what is left of acked goes to tcp_cong_avoid_ai."""
    cc = NewReno(MSS, 10, 0)
    cc.ssthresh = 14 * MSS
    cc.on_new_ack(10 * MSS, 10 * MSS, 0)           # 4 segments reach ssthresh, 6 are left for the linear phase
    assert cc.cwnd == 14 * MSS and cc._ca_acc == 6 * MSS
    for _ in range(2):
        cc.on_new_ack(4 * MSS, 20 * MSS, 0)          # 14 segments acknowledged in all: one more segment
    assert cc.cwnd == 15 * MSS
