"""Pure protocol rules, table-driven, each against the RFC or OS behaviour it follows."""


import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpsim.protocol import framing
from tcpsim.protocol.congestion import NewReno
from tcpsim.protocol.delack import make_delack
from tcpsim.protocol.nagle import may_send_bytes, solaris_nagle_holds, whole_message_length
from tcpsim.protocol.push import receiver_pushes, sender_sets_push
from tcpsim.protocol.rto import RtoEstimator, wheel_expiry_s
from tcpsim.protocol.window import advertised_window, read_update_due, scale_window, window_shift

MSS = 1460


@pytest.mark.parametrize("mtu, ts, mss", [(1500, False, 1460), (1500, True, 1448), (9000, True, 8948),
                                          (9000, False, 8960), (16114, False, 16074)])
def test_mss_from_mtu(mtu, ts, mss):
    """RFC 9293 §3.7.1 and RFC 7323 §3; 8948 is what iperf printed in the VirtualBox note."""
    assert framing.mss_bytes(mtu, ts) == mss


def test_ethernet_framing():
    assert framing.frame_bytes(0) == 64  # minimum frame
    assert framing.wire_bytes(1460) == 1538
    assert framing.line_goodput_bps(1e9, 1500) == pytest.approx(1e9 * 1460 / 1538)
    # behind a tbf the rate charges the skb (qdisc_pkt_len: IP packet and Ethernet header), not the 802.3 wire
    assert framing.wire_bytes(1448, 12, skb_charged=True) == 1514
    assert framing.line_goodput_bps(1e9, 1500, timestamps=True, skb_charged=True) == pytest.approx(1e9 * 1448 / 1514)


@pytest.mark.parametrize("length, unsent, in_flight, nodelay, max_wnd, ok", [
    (1460, 5000, 3000, False, 65535, True),     # a full segment always goes
    (500, 500, 0, False, 65535, True),          # idle and all queued data fits: push it
    (500, 500, 1460, False, 65535, False),      # Nagle: small segment while data is unacknowledged
    (500, 500, 1460, True, 65535, True),        # TCP_NODELAY
    (500, 2000, 0, False, 65535, False),        # idle but more data queued than fits: wait (SWS)
    (600, 2000, 0, False, 1000, True),          # at least half the largest window offered
    (0, 100, 0, False, 65535, False),
])
def test_rfc1122_when_to_send(length, unsent, in_flight, nodelay, max_wnd, ok):
    """RFC 1122 §4.2.3.4 with RFC 896."""
    assert may_send_bytes(length, unsent, MSS, in_flight, nodelay, max_wnd) is ok


@pytest.mark.parametrize("bsd, ok", [(True, True), (False, False)])
def test_half_window_piece_with_data_in_flight(bsd, ok):
    """4.4BSD tcp_output sends at least half the largest offered window whatever is in flight; RFC 1122's
    wording (and Linux) only when idle."""
    assert may_send_bytes(8704, 8704, 8960, 5888, False, 16384, half_window_beats_nagle=bsd) is ok


@pytest.mark.parametrize("small_unacked, ok", [(None, False), (True, False), (False, True)])
def test_minshall_nagle_waits_only_for_a_short_segment(small_unacked, ok):
    """A 12-byte tail behind a full segment: RFC 896 holds it, Linux's Minshall check does not unless
    an earlier short segment is still unacknowledged."""
    assert may_send_bytes(12, 12, 1448, 1448, False, 65535, small_unacked=small_unacked) is ok


def test_44bsd_delayed_ack_fires_on_the_fast_timer_tick():
    """4.4BSD: tcp_fasttimo ACKs every TF_DELACK connection each 200 ms, so the wait is 0-200 ms; a
    per-connection timer (FreeBSD's delack callout, Linux, Solaris) always waits the full timeout."""
    assert make_delack("bsd44", MSS, 0.2, 2, 0).deadline_s(0.45) == pytest.approx(0.6)
    assert make_delack("bsd", MSS, 0.1, 2, 0).deadline_s(0.45) == pytest.approx(0.55)


def test_solaris_nagle_counts_queued_bytes():
    assert solaris_nagle_holds(1400, 100, MSS)
    assert not solaris_nagle_holds(1500, 100, MSS)
    assert not solaris_nagle_holds(100, 0, MSS)


def test_solaris_nagle_lets_a_small_piece_follow_a_large_segment():
    """Sun blueprint: S waits "because the last packet it sent had less than 1,460 bytes"; after a
    segment of at least naglim the next small one goes (tcp_last_sent_len)."""
    assert solaris_nagle_holds(100, 1400, MSS, last_sent_bytes=1400)
    assert not solaris_nagle_holds(100, 1460, MSS, last_sent_bytes=1460)
    # a jumbo MSS: tcp_naglim_def (4095) is the limit, not the MSS
    assert not solaris_nagle_holds(4096, 1024, min(8960, 4095), last_sent_bytes=1024)


@pytest.mark.parametrize("messages, limit, expected", [
    ([100] * 15, MSS, 1400), ([536] * 3, MSS, 1072), ([60] * 25, MSS, 1440), ([250] * 6, MSS, 1250),
    ([65536], MSS, MSS), ([1000, 1000], 900, 0), ([100, 100], 150, 100),
])
def test_whole_message_segments(messages, limit, expected):
    """The Sun blueprint: Solaris does not split a message to fill the MSS (TABLE 2 pairs)."""
    assert whole_message_length(messages, limit, MSS) == expected


def test_bsd_delack_every_second_segment_and_out_of_order_at_once():
    d = make_delack("bsd", MSS, 0.2, 2, 0)
    assert d.on_segment(MSS, True) is False
    assert d.on_segment(MSS, True) is True
    d.on_ack_sent()
    assert d.on_segment(MSS, False) is True  # RFC 5681 §4.2


def test_bsd44_leaves_in_order_data_to_the_timer_and_acks_out_of_order_at_once():
    d = make_delack("bsd44", MSS, 0.2, 2, 0)  # 4.4BSD TCP_REASS / header prediction: TF_DELACK only
    assert not any(d.on_segment(MSS, True) for _ in range(10))
    assert d.held_segments == 10
    assert d.on_segment(MSS, False) is True


def test_linux_quickack_lasts_a_number_of_acks_then_more_than_one_frame():
    """``tcp_dec_quickack_mode``: each ACK of new data spends one quick ACK, however many segments it covers."""
    d = make_delack("linux", MSS, 0.04, 2, 2)
    assert d.on_segment(MSS, True) and d.on_segment(MSS, True)  # quick-ACK mode: two segments, one skb
    d.on_ack_sent()  # one ACK: one spent
    assert d.on_segment(MSS, True)  # still quick
    d.on_ack_sent()
    assert d.on_segment(MSS, True) is False
    assert d.on_segment(MSS, True) is True


def test_an_ack_of_nothing_new_spends_no_quick_ack():
    d = make_delack("linux", MSS, 0.04, 2, 1)
    d.on_ack_sent()  # nothing held: a window update, not an ACK of new data
    assert d.on_segment(MSS, True) and d.quick


@given(st.integers(0, 16), st.lists(st.sampled_from(["seg", "ack", "end", "incr"]), max_size=60))
def test_quickack_mode_lasts_exactly_its_acks_of_new_data(budget, ops):
    """Whatever the order: each ACK that covers new data spends one quick ACK, an ACK of nothing spends none,
    ``end_quickack`` empties the budget, ``set_quickack`` only raises it; a segment is quick-ACKed while any
    is left."""
    d = make_delack("linux", MSS, 0.04, 2, budget)
    left = budget
    for op in ops:
        if op == "seg":
            assert d.on_segment(MSS, True) == (True if left else d.held_bytes > d.rcv_mss)
            assert d.quick == (left > 0)
        elif op == "ack":
            if d.held_segments and left:
                left -= 1
            d.on_ack_sent()
        elif op == "end":
            d.end_quickack()
            left = 0
            assert not d.quick
        else:
            d.set_quickack(3)
            left = max(left, 3)
        assert d.quick_left == left >= 0


def test_linux_quickack_ends_when_the_window_selection_says_so():
    """``__tcp_select_window`` sets ``icsk_ack.quick = 0``; the next segment is held by the full-frame rule."""
    d = make_delack("linux", MSS, 0.04, 2, 16)
    d.end_quickack()
    assert d.on_segment(MSS, True) is False and not d.quick
    assert d.on_segment(MSS, True) is True


def test_solaris_deferred_acks_grow_to_the_maximum():
    d = make_delack("solaris", MSS, 0.1, 4, 0)
    ratios = []
    for _ in range(5):
        n = 0
        while True:
            n += 1
            if d.on_segment(MSS, True):
                break
        d.on_ack_sent()
        ratios.append(n)
    assert ratios == [1, 2, 3, 4, 4]


def test_solaris_immediate_ack_rule_of_figure_8():
    d = make_delack("solaris", MSS, 0.1, 8, 0)
    d.cur_max = 8
    assert d.on_segment(100, True) is False   # nothing held before: deferred
    assert d.on_segment(1400, True) is True   # non-MSS, 100 held (not a multiple of MSS): ACK now


def test_newreno_slow_start_avoidance_and_recovery():
    cc = NewReno(MSS, initial_window_segments=2)
    cc.on_new_ack(2 * MSS, 2 * MSS, 0)
    assert cc.cwnd == 4 * MSS                    # ABC, L = 2 SMSS (RFC 3465)
    cc.ssthresh = cc.cwnd
    before = cc.cwnd
    cc.on_new_ack(before, 10 * MSS, 0)
    assert cc.cwnd == before + MSS               # one SMSS per cwnd acked (RFC 5681 §3.1)
    flight = 10 * MSS
    assert not cc.on_dupack(flight, 20 * MSS, 10 * MSS) and not cc.on_dupack(flight, 20 * MSS, 10 * MSS)
    assert cc.on_dupack(flight, 20 * MSS, 10 * MSS)  # third duplicate ACK
    assert cc.ssthresh == flight // 2 and cc.cwnd == cc.ssthresh + 3 * MSS
    cc.on_dupack(flight, 20 * MSS, 10 * MSS)
    assert cc.cwnd == cc.ssthresh + 4 * MSS      # inflation
    assert cc.on_new_ack(MSS, 12 * MSS, flight)  # partial ACK (RFC 6582): retransmit
    assert not cc.on_new_ack(8 * MSS, 20 * MSS, 0)  # full ACK ends recovery
    assert not cc.in_recovery and cc.cwnd <= cc.ssthresh + MSS
    cc.on_timeout(8 * MSS, 30 * MSS)
    assert cc.cwnd == MSS and cc.ssthresh == 4 * MSS


def test_linux_without_sack_reduces_by_prr_and_ends_above_recover_at_ssthresh():
    """Rule 167 (Linux 3.2 on, no SACK): no inflation per duplicate ACK and no RFC 6582 deflation (PRR sets cwnd, the
    endpoint); an ACK at ``recover`` itself holds the recovery (``tcp_try_undo_recovery``), one above it ends it with
    cwnd = ssthresh (``tcp_end_cwnd_reduction``)."""
    cc = NewReno(MSS, initial_window_segments=10, prr_rule=4, halve_cwnd=True)
    assert cc.reno_prr_rule == 4 and cc.prr_rule == 0
    flight = 10 * MSS
    assert [cc.on_dupack(flight, 20 * MSS, 10 * MSS) for _ in range(3)] == [False, False, True]
    assert cc.in_recovery and cc.prior_cwnd == 10 * MSS and cc.ssthresh == 5 * MSS
    cwnd = cc.cwnd
    cc.on_dupack(flight, 20 * MSS, 10 * MSS)
    assert cc.cwnd == cwnd                                   # no inflation
    assert cc.on_new_ack(MSS, 11 * MSS, 9 * MSS) and cc.cwnd == cwnd  # partial: resend the head, no deflation
    assert not cc.on_new_ack(9 * MSS, 20 * MSS, 0) and cc.in_recovery and cc.cwnd == cwnd  # at recover: held
    assert not cc.on_new_ack(MSS, 21 * MSS, 0) and not cc.in_recovery and cc.cwnd == cc.ssthresh
    sack = NewReno(MSS, initial_window_segments=10, prr_rule=4, sack=True)
    assert sack.prr_rule == 4 and sack.reno_prr_rule == 0 and NewReno(MSS).reno_prr_rule == 0


def test_newreno_no_fast_retransmit_for_data_sent_before_a_timeout():
    """RFC 6582 §3.2 step 1: duplicate ACKs below ``recover`` (go-back-N resending what the receiver
    holds) do not start a fast retransmit; once the ACKs pass ``recover``, a new loss does."""
    cc = NewReno(MSS, initial_window_segments=10)
    cc.on_timeout(10 * MSS, 30 * MSS)
    assert not any(cc.on_dupack(MSS, 30 * MSS, 20 * MSS) for _ in range(5))
    assert cc.cwnd == MSS and not cc.in_recovery
    cc.on_new_ack(MSS, 30 * MSS, 0)
    assert [cc.on_dupack(4 * MSS, 34 * MSS, 30 * MSS) for _ in range(3)] == [False, False, True]


@pytest.mark.parametrize("limited_transmit", [False, True])
def test_limited_transmit_lends_two_segments_and_leaves_cwnd_alone(limited_transmit):
    """RFC 3042 / RFC 5681 §3.2 step 1: a new segment may go on each of the first two duplicate ACKs,
    cwnd unchanged; at the third, ssthresh halves the flight without them (step 2); a new ACK ends it."""
    cc = NewReno(MSS, initial_window_segments=4, limited_transmit=limited_transmit)
    lent = []
    for _ in range(2):
        assert not cc.on_dupack(4 * MSS, 4 * MSS, 0)
        lent.append(cc.extra)
    assert cc.cwnd == 4 * MSS
    assert lent == ([MSS, 2 * MSS] if limited_transmit else [0, 0])
    assert cc.on_dupack(6 * MSS if limited_transmit else 4 * MSS, 6 * MSS, 0)
    assert cc.extra == 0 and cc.ssthresh == 2 * MSS  # half of the four segments cwnd allowed
    again = NewReno(MSS, initial_window_segments=4, limited_transmit=limited_transmit)
    again.on_dupack(4 * MSS, 4 * MSS, 0)
    again.on_new_ack(MSS, MSS, 3 * MSS)
    assert again.extra == 0
    # Below ``recover`` after a timeout there is no fast retransmit, and no third lent segment either.
    again.on_timeout(3 * MSS, 10 * MSS)
    lent = []
    for _ in range(4):
        assert not again.on_dupack(MSS, 10 * MSS, MSS)
        lent.append(again.extra)
    assert lent == ([MSS, 2 * MSS, 0, 0] if limited_transmit else [0, 0, 0, 0])


@pytest.mark.parametrize("validate, flight_segments, grows", [
    (False, 0, True),   # 4.4BSD: every ACK grows the window, used or not
    (True, 0, False),   # RFC 7661 / Linux: an application-limited sender's window stays put
    (True, 8, True),    # within tcp_max_burst (3) segments of the window: it counts as used
])
def test_cwnd_validation(validate, flight_segments, grows):
    cc = NewReno(MSS, initial_window_segments=10, validate=validate)
    before = cc.cwnd
    cc.on_new_ack(MSS, MSS, flight_segments * MSS)
    assert (cc.cwnd > before) is grows


def _window_limited_round_trips(cc, n_acks: int, ack: int = 0) -> int:
    """A receiver's window holds the flight at 10 segments, ACKed a segment at a time; after each ACK the
    sender refills it, an output pass that sent one segment (``tcp_write_xmit``'s end, ``tcp_cwnd_validate``)."""
    for _ in range(n_acks):
        ack += MSS
        cc.on_new_ack(MSS, ack, 9 * MSS)
        cc.cwnd_validate(10 * MSS >= cc.cwnd, 10 * MSS, ack, ack + 10 * MSS)
    return ack


@pytest.mark.parametrize("measured", [False, True])
def test_a_window_limited_slow_start_grows_cwnd_to_twice_what_is_out_since_linux_4_3(measured):
    """Before 4.3 cwnd stops within ``tcp_max_burst`` of the flight; from 4.3 slow start takes it to twice
    the flight (``tcp_is_cwnd_limited``: cwnd < 2 x max_packets_out), and congestion avoidance does not grow it."""
    cc = NewReno(MSS, initial_window_segments=10, validate=True, measured=measured)
    ack = _window_limited_round_trips(cc, 200)
    assert cc.cwnd == (20 if measured else 14) * MSS
    cc.ssthresh = cc.cwnd  # congestion avoidance: a window the flight does not fill stays put
    before = cc.cwnd
    _window_limited_round_trips(cc, 30, ack)
    assert cc.cwnd == before


def test_a_pass_that_waited_on_cwnd_lets_congestion_avoidance_grow_it():
    """Linux 4.3+ with 299bcb55ecd1 (5.11, stable 4.14+): a ``tcp_tso_should_defer`` that waits on cwnd makes the
    pass cwnd-limited though it sent nothing, so cwnd grows; with the flight alone (57 of 79 segments, as the
    lab's 16 KiB write row had it) it would not."""
    grown = {}
    for waited in (False, True):
        cc = NewReno(MSS, initial_window_segments=79, validate=True, measured=True)
        cc.ssthresh = cc.cwnd
        ack = 0
        for _ in range(200):
            ack += MSS
            cc.on_new_ack(MSS, ack, 56 * MSS)
            cc.cwnd_validate(waited, 57 * MSS, ack, ack + 57 * MSS)
        grown[waited] = cc.cwnd // MSS - 79
    assert grown == {False: 0, True: 2}


def test_cwnd_validate_keeps_the_strongest_signal_of_the_window():
    """6.0's "tcp: fix tcp_cwnd_validate() to not forget is_cwnd_limited": a cwnd-limited pass is remembered for
    its window, a later pass with more out but not cwnd-limited does not clear it; a new window does."""
    cc = NewReno(MSS, initial_window_segments=40, validate=True, measured=True)
    cc.ssthresh = cc.cwnd
    cc.cwnd_validate(True, 30 * MSS, 0, 30 * MSS)
    cc.cwnd_validate(False, 35 * MSS, 5 * MSS, 40 * MSS)  # same window (snd_una below 30 MSS): kept
    assert cc._cwnd_limited(MSS, 6 * MSS, 34 * MSS)
    cc.cwnd_validate(False, 20 * MSS, 30 * MSS, 50 * MSS)  # the window is acknowledged: a new one begins
    assert not cc._cwnd_limited(MSS, 31 * MSS, 19 * MSS)


def test_rto_rfc6298():
    r = RtoEstimator(min_rto_s=0.2)
    r.sample(0.1)
    assert r.srtt_s == 0.1 and r.rttvar_s == 0.05 and r.rto_s == pytest.approx(0.3)
    r.sample(0.1)
    assert r.rttvar_s == pytest.approx(0.0375)
    r.on_timeout()
    assert r.timeout_s() == pytest.approx(2 * r.rto_s)
    for _ in range(20):
        r.on_timeout()
    assert r.timeout_s() == 60.0


def test_rto_linux_is_srtt_plus_at_least_the_minimum():
    """tcp_rtt_estimator / __tcp_set_rto: a steady 16 ms path gets 216 ms (the kernel's ss showed 220, its 250 Hz tick
    rounding up), where RFC 6298 gives the 200 ms floor; the first sample starts mdev at twice it."""
    r = RtoEstimator(min_rto_s=0.2, linux=True)
    r.sample(0.016, 0, 10)
    assert r.rto_s == pytest.approx(0.216) and r.rttvar_s == pytest.approx(0.05)
    for i in range(1, 100):
        r.sample(0.016, 10 * i, 10 * i + 10)
    assert r.srtt_s == pytest.approx(0.016) and r.rto_s == pytest.approx(0.216)
    r.sample(0.4, 1000, 1010)  # a jump raises the variance at once
    assert r.rto_s > 0.4


@given(st.lists(st.floats(1e-6, 2.0), min_size=1, max_size=60), st.floats(0.001, 1.0))
def test_rto_linux_never_below_srtt_plus_the_minimum(samples, min_rto_s):
    r = RtoEstimator(min_rto_s=min_rto_s, linux=True)
    for i, m in enumerate(samples):
        r.sample(m, i * 3, i * 3 + 5)  # snd_una passes the watched round trip every other sample
        assert r.rto_s >= min(r.srtt_s + min_rto_s, r.max_rto_s) * (1 - 1e-12)
        assert r.rto_s <= r.max_rto_s and r.backoff == 1


def test_rto_linux_counts_whole_ticks_and_fires_on_the_wheel():
    """usecs_to_jiffies rounds srtt + rttvar up to whole ticks (250 Hz: 4 ms; the kernel's ss showed 212 where the
    continuous figure was 208.1); the back-off doubles the ticks; the timer wheel's calc_index fires a timer due in
    under 63 ticks one tick after its expiry, a longer one at the next multiple of 8 ticks."""
    r = RtoEstimator(min_rto_s=0.2, linux=True, hz=250)
    r.sample(0.0081, 0, 10)
    assert r.rto_s == pytest.approx(0.212)  # 8.1 ms + max(2 x 8.1, 200) ms = 52.025 ticks, rounded up to 53
    r.sample(0.0081, 10, 20)
    assert r.rto_s == pytest.approx(0.212) and RtoEstimator(min_rto_s=0.2, linux=True).rto_s != r.rto_s
    r.on_timeout()
    assert r.timeout_s() == pytest.approx(0.424)
    assert wheel_expiry_s(0.0, 0.220, 250) == pytest.approx(0.224)       # 55 ticks: bucket 56
    assert wheel_expiry_s(0.0039, 0.220, 250) == pytest.approx(0.224)    # armed late in tick 0: still tick 56
    assert wheel_expiry_s(0.004, 0.220, 250) == pytest.approx(0.228)
    assert wheel_expiry_s(0.0, 0.252, 250) == pytest.approx(0.256)       # 63 ticks: level 1, the next multiple of 8
    assert wheel_expiry_s(0.0, 0.424, 250) == pytest.approx(0.448)       # 106 ticks: at 112


@given(st.floats(0.0, 100.0), st.integers(1, 30000), st.sampled_from([100, 250, 300, 1000]))
def test_the_wheel_never_fires_a_timer_early_nor_late_by_more_than_its_level(now_s, ticks, hz):
    fire = wheel_expiry_s(now_s, ticks / hz, hz)
    assert fire >= now_s + ticks / hz - 1e-9
    gran = 1
    while ticks >= 63 * gran and gran < 1 << 24:
        gran <<= 3
    assert fire <= now_s + (ticks + 2 * gran) / hz + 1e-9


def test_window_scaling_and_receiver_sws():
    assert window_shift(65535, True) == 0
    assert window_shift(1 << 20, True) == 5
    assert window_shift(1 << 20, False) == 0
    assert scale_window(1000, 3) == 1000 // 8 * 8
    # RFC 1122 §4.2.3.3: the right edge moves only by at least min(buffer/2, MSS).
    assert advertised_window(free_bytes=1000, rcv_nxt=0, right_edge=60000, mss_bytes=MSS, buffer_bytes=65536) == 60000
    assert advertised_window(65536, 5000, 65536, MSS, 65536) == 65536
    assert advertised_window(65536, 500, 65536, MSS, 65536) == 65036


@pytest.mark.parametrize("rule, left, free, due", [
    ("bsd", 60000, 62920, True),       # the edge moves by two segments: 4.4BSD tcp_output sends an update
    ("bsd", 60000, 62000, False),
    ("linux", 60000, 65536, False),    # more than half the buffer left: tcp_cleanup_rbuf waits
    ("linux", 20000, 39000, False),    # fallen to half, but the read does not double it
    ("linux", 20000, 40000, True),
    ("linux", 100, 200, False),        # doubles, but by less than an MSS: it would repeat the last ACK
    ("solaris", 40000, 65536, False),  # tcp_rsrv: only a window that had fallen to half or below an MSS
    ("solaris", 30000, 31000, False),  # ... and grows by an MSS
    ("solaris", 30000, 31460, True),
])
def test_when_a_read_sends_a_window_update(rule, left, free, due):
    """4.4BSD tcp_output, Linux tcp_cleanup_rbuf, Solaris tcp_rsrv (64 KiB buffer, MSS 1460)."""
    assert read_update_due(rule, left, free, 65536, MSS, MSS) is due


@pytest.mark.parametrize("end, written, length, usable, edge, forced, last, push", [
    (2920, 2920, 1460, 5000, False, 0, 0, True),        # empties the unsent data: every stack marks it
    (2920, 8760, 1460, 5000, False, 0, 0, False),       # more queued, window open: no PSH (4.4BSD)
    (2920, 8760, 1460, 1460, True, 0, 0, True),         # Solaris also marks the last segment the window lets out
    (2920, 8760, 1460, 1460, False, 0, 0, False),       # 4.4BSD does not
    (40000, 80000, 1448, 9000, False, 32768, 5000, True),   # Linux forced_push: half the peer's window since the last
    (20000, 80000, 1448, 9000, False, 32768, 5000, False),
])
def test_which_segments_carry_psh(end, written, length, usable, edge, forced, last, push):
    """RFC 1122 §4.2.2.2; 4.4BSD tcp_output, Solaris tcp_wput_slow, Linux tcp_sendmsg."""
    assert sender_sets_push(end, written, length, usable, edge, forced, last) is push


@pytest.mark.parametrize("psh, length, queued, wait, up", [
    (False, 1460, 1460, 0, True),        # BSD, Linux: every in-order segment is readable at once
    (False, 1460, 14600, 16384, False),  # Solaris: full segments wait in tcp_rcv_list ...
    (False, 1460, 17520, 16384, True),   # ... until tcp_rcv_push_wait is reached
    (True, 1460, 2920, 16384, True),     # ... or a segment with PSH arrives
    (False, 536, 536, 16384, True),      # a segment shorter than the MSS ends a record
])
def test_when_solaris_hands_received_data_up(psh, length, queued, wait, up):
    """Solaris tcp_rput_data: (flags & (TH_PSH|TH_FIN)) || rcv_cnt + seg_len >= tcp_rcv_push_wait."""
    assert receiver_pushes(psh, length, MSS, queued, wait) is up


@pytest.mark.parametrize("window, every", [(65536, 8), (24576, 8), (8192, 2), (2048, 1)])
def test_solaris_defers_acks_for_at_most_half_the_window(window, every):
    """tcp_rack_abs_max = min(tcp_deferred_acks_max, rwnd / mss / 2) segments (Solaris tcp_rwnd_set): a
    small window is ACKed before it fills, not by the 100 ms timer."""
    d = make_delack("solaris", MSS, 0.1, 8, 0)
    d.fit_window(window)
    gaps, n = [], 0
    for _ in range(100):
        n += 1
        if d.on_segment(MSS, True):
            gaps.append(n)
            n = 0
            d.on_ack_sent()
    assert gaps[-1] == every


@given(cwnd=st.integers(1, 500), flight=st.integers(0, 500))
def test_linux_reno_halves_cwnd_rfc_5681_halves_the_flight(cwnd, flight):
    """``tcp_reno_ssthresh``: max(cwnd >> 1, 2) segments, whatever is in flight; RFC 5681 eq. 4: max(FlightSize / 2,
    2 SMSS), on entering recovery and on a timeout alike."""
    mss = 1448
    for halve in (True, False):
        cc = NewReno(mss, halve_cwnd=halve)
        cc.cwnd = cwnd * mss
        expected = max(cwnd >> 1, 2) * mss if halve else max(flight * mss // 2, 2 * mss)
        assert cc.loss_ssthresh(flight * mss) == expected
        cc.on_timeout(flight * mss, 10**9)
        assert cc.ssthresh == expected and cc.cwnd == mss
