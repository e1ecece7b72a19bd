"""The engine against exact closed-form regimes and the Sun blueprint's Nagle / deferred-ACK cycle."""

import math

import pytest

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.engine import run
from tcpsim.protocol import framing


def bulk(sndbuf, rcvbuf, *, rate=1e9, delay=50e-6, mtu=1500, write=65536, **tcp):
    opts = dict(sndbuf_bytes=sndbuf, rcvbuf_bytes=rcvbuf, **tcp)
    return Scenario(sender=Host(tcp=TcpOptions(**opts)), receiver=Host(tcp=TcpOptions(**opts)),
                    link=Link(rate_bps=rate, one_way_delay_s=delay, mtu_bytes=mtu),
                    workload=Workload(write_bytes=write))


def test_line_limited_reaches_line_goodput():
    r = run(bulk(1 << 22, 1 << 22))
    assert r.converged
    assert r.goodput_bps == pytest.approx(framing.line_goodput_bps(1e9, 1500), rel=0.02)
    assert r.limited_by == "line"


def test_jumbo_frames_line_goodput_at_10g():
    r = run(bulk(1 << 24, 1 << 24, rate=10e9, mtu=9000))
    assert r.goodput_bps == pytest.approx(framing.line_goodput_bps(10e9, 9000), rel=0.02)


def test_window_limited_matches_window_over_rtt():
    """1 Gbit/s, RTT 1 ms, 64 KiB receive window: whole segments in flight over one RTT.

    The sender keeps floor(W / MSS) full segments in flight (sender SWS avoidance holds the last
    partial one, RFC 1122 §4.2.3.4), so the exact bound is that many bytes per RTT, where the RTT
    includes one data and one ACK serialization.
    """
    window = 65536
    r = run(bulk(1 << 20, window, delay=500e-6))
    mss = 1460
    rtt = 1e-3 + (framing.wire_bytes(mss) + framing.wire_bytes(0)) * 8 / 1e9
    bound = (window // mss) * mss * 8 / rtt
    assert r.goodput_bps == pytest.approx(bound, rel=0.02)
    assert r.limited_by == "window"


def test_goodput_never_above_line():
    # The measurement window's two edges can each catch one segment more (as in test_invariants).
    for buf in (8192, 65536, 1 << 20):
        r = run(bulk(buf, buf))
        edge_bits = 2 * 1460 * 8
        assert r.goodput_bps <= framing.line_goodput_bps(1e9, 1500) + edge_bits / r.measure_time_s


def test_deterministic():
    sc = bulk(1 << 18, 1 << 18)
    a, b = run(sc), run(sc)
    assert a.goodput_bps == b.goodput_bps and a.events == b.events


def solaris_messages(message_bytes, rate_hz, nodelay=False):
    sol = TcpOptions.for_os("solaris", sockbuf_bytes=65536, nodelay=nodelay)
    return Scenario(sender=Host(tcp=sol), receiver=Host(tcp=sol),
                    link=Link(rate_bps=1e9, one_way_delay_s=5e-6),
                    workload=Workload(write_bytes=message_bytes, message_rate_hz=rate_hz),
                    budget=Budget(max_sim_time_s=0.5))


@pytest.mark.parametrize("message, pair", [(60, (60, 1440)), (100, (100, 1400)), (250, (250, 1250)),
                                           (536, (536, 1072))])
def test_nagle_deferred_ack_cycle_gives_blueprint_pairs(message, pair):
    """Sun blueprint Figure 8 / TABLE 2: a writer slower than the ACK turnaround gives the exact pairs.

    Nagle (Solaris: hold while data is unacknowledged and less than the MSS is queued), whole-message
    segments and the deferred-ACK rules produce the cycle; nothing here names the pair.
    """
    r = run(solaris_messages(message, rate_hz=20_000))
    top = sorted(r.payload_histogram.items(), key=lambda kv: -kv[1])[:2]
    assert sorted(k for k, _ in top) == sorted(pair)
    counts = [v for _, v in top]
    assert abs(counts[0] - counts[1]) <= 1
    assert r.limited_by == "nagle_delack"


def _receiver_after_run(sc):
    from tcpsim.engine import _Run

    r = _Run(sc)
    result = r.run()
    return result, r.flows[0][3]


@pytest.mark.parametrize("family, batched", [("solaris", True), ("bsd", False), ("linux", False)])
def test_solaris_hands_a_bulk_stream_up_in_batches(family, batched):
    """Solaris keeps full segments without PSH in TCP's receive list and passes them up together (on PSH,
    which its sender sets at the window's edge, or at tcp_rcv_push_wait); BSD and Linux wake the
    reader for every segment."""
    opts = TcpOptions.for_os(family, sockbuf_bytes=65536)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=50e-6),
                  workload=Workload(write_bytes=65536))
    result, rcv = _receiver_after_run(sc)
    segments = sum(result.payload_histogram.values())
    assert rcv.read_total > 0
    if batched:
        assert rcv.hand_ups < segments / 2
    else:
        assert rcv.hand_ups >= segments


def test_solaris_hands_short_messages_up_one_by_one():
    """With Nagle off each 100-byte message is its own segment, shorter than the MSS: it ends a record."""
    result, rcv = _receiver_after_run(solaris_messages(100, rate_hz=20_000, nodelay=True))
    assert rcv.hand_ups >= sum(result.payload_histogram.values())


def _repeated_acks(trace) -> int:
    """Pure ACKs from the receiver that repeat its previous ACK exactly (no data sent in between)."""
    last, repeats = None, 0
    for _t, endpoint, kind, _seq, length, ack, wnd, _why, _push, _sack in trace:
        if not endpoint.startswith("receiver"):
            continue
        if kind == "ack":
            repeats += (ack, wnd) == last
            last = (ack, wnd)
        elif length:
            last = None
    return repeats


def test_solaris_reader_never_repeats_its_last_ack():
    """A reader taking 100 bytes at a time reopens the window a little with each read. Solaris's
    ``tcp_rsrv`` sends a window update only when the peer will see the window grow by an MSS; an update
    that SWS avoidance would advertise with the old edge is an exact duplicate of the last ACK, and three
    of them make the sender fast-retransmit data that was never lost (RFC 5681 §2)."""
    from tcpsim.api import build_scenario

    sc = build_scenario(platform="sunfire6800_ce", write="64k", read="100", sockbuf="64k",
                        budget=Budget(max_sim_time_s=0.02, record_trace=True))
    r = run(sc)
    assert r.goodput_bps > 0
    assert _repeated_acks(r.trace) == 0
    assert r.retransmits == 0


@pytest.mark.parametrize("family, acks_per_segment", [("linux", 0.5), ("bsd", 2 / 3)])
def test_a_bulk_stream_is_acked_every_second_segment_plus_the_readers_updates(family, acks_per_segment):
    """Both ACK every second full segment. A 4.4BSD reader adds a window update whenever it has freed two
    segments' worth (``tcp_output``); Linux's ``tcp_cleanup_rbuf`` only when the window the peer has left
    is at most half the buffer and the read at least doubles it, which a reader that keeps up never needs."""
    tcp = TcpOptions.for_os(family, sockbuf_bytes=262144)
    sc = Scenario(sender=Host(tcp=tcp), receiver=Host(tcp=tcp), link=Link(one_way_delay_s=50e-6),
                  workload=Workload(write_bytes=65536))
    r = run(sc)
    assert r.ack_packets_per_s / r.data_packets_per_s == pytest.approx(acks_per_segment, abs=0.02)


def test_a_linux_reader_reopens_a_window_it_let_fall():
    """A reader taking 100 bytes at a time lets the window fall; Linux sends an update once a read at
    least doubles what the peer has left, so the stream keeps moving and never repeats an ACK."""
    from tcpsim.api import build_scenario

    sc = build_scenario(os="linux", write="64k", read="100", sockbuf="64k", platform="p4_linux",
                        budget=Budget(max_sim_time_s=0.05, record_trace=True))
    r = run(sc)
    assert r.goodput_bps > 10e6
    assert _repeated_acks(r.trace) == 0
    assert r.retransmits == 0


def test_solaris_small_window_is_acked_before_it_fills():
    """8 KiB buffers: five full segments and a 892-byte piece fill the window, and 7300 bytes held is a
    multiple of the MSS, so the blueprint's short-segment rule does not ACK it. Solaris holds ACKs for
    at most half the window (rwnd / mss / 2 = 2 segments); without that cap every window waited for the
    100 ms deferred-ACK timer."""
    sol = TcpOptions.for_os("solaris", sockbuf_bytes=8192)
    sc = Scenario(sender=Host(tcp=sol), receiver=Host(tcp=sol), link=Link(one_way_delay_s=50e-6),
                  workload=Workload(write_bytes=65536))
    r = run(sc)
    assert r.goodput_bps > 200e6
    assert r.termination == "converged"


@pytest.mark.parametrize("rate_hz", [20_000, 200_000])
def test_the_short_tail_leaves_right_behind_the_segment_that_passed_nagle(rate_hz):
    """Solaris tests Nagle once per tcp_wput_data call and then sends all it may (tcp_send), so the
    100-byte tail leaves in the same instant as the 1400-byte segment before it: the blueprint's pair
    holds for a writer slower and faster than the ACK turnaround (TABLE 2's writes come every ~9 us)."""
    sc = solaris_messages(100, rate_hz=rate_hz)
    sc = Scenario(sender=sc.sender, receiver=sc.receiver, link=sc.link, workload=sc.workload,
                  budget=Budget(max_sim_time_s=0.05, record_trace=True, trace_limit=4000))
    r = run(sc)
    top = sorted(r.payload_histogram.items(), key=lambda kv: -kv[1])[:2]
    assert sorted(k for k, _ in top) == [100, 1400] and abs(top[0][1] - top[1][1]) <= 1
    sent = [(t[0], t[4]) for t in r.trace if t[1].startswith("sender") and t[2] == "data"][20:]
    pairs = [(a, b) for a, b in zip(sent, sent[1:]) if b[1] == 100]
    assert pairs and all(a[1] == 1400 and a[0] == b[0] for a, b in pairs)


def test_nodelay_sends_one_message_per_segment():
    r = run(solaris_messages(100, rate_hz=20_000, nodelay=True))
    assert set(r.payload_histogram) == {100}


def test_bsd_fills_segments_to_the_mss():
    opts = TcpOptions(sndbuf_bytes=65536, rcvbuf_bytes=65536)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=5e-6),
                  workload=Workload(write_bytes=100, message_rate_hz=200_000), budget=Budget(max_sim_time_s=0.5))
    r = run(sc)
    assert max(r.payload_histogram) == 1460


def test_bsd_window_under_two_jumbo_segments_keeps_moving():
    """ES40, 16 KiB buffers, MTU 9000: a window of less than two segments. The 4.4BSD receiver sends a
    window update only when two segments' worth (or half its buffer) has been read, so a sub-MSS piece
    that Nagle holds would wait for the 200 ms timer; 4.4BSD's sender sends it because it is at least
    half the peer's largest window. Before the rule the model crawled at 0.6 Mbit/s."""
    from tcpsim.api import build_scenario

    r = run(build_scenario(platform="es40_tru64", sockbuf="16k", mtu=9000))
    assert r.goodput_bps > 100e6
    assert r.termination == "converged"


def test_solaris_jumbo_frames_with_a_buffer_under_one_segment_keep_moving():
    """Sun Fire, 8 KiB buffers, MTU 9000, 1 KiB messages: the send buffer can never hold an MSS, so a
    Nagle limit of one MSS would wait for the 100 ms deferred-ACK timer every other segment; Solaris's
    limit is min(MSS, tcp_naglim_def = 4095)."""
    from tcpsim.api import build_scenario

    r = run(build_scenario(platform="sunfire6800_ce", sockbuf="8k", mtu=9000, write="1k"))
    assert r.goodput_bps > 50e6
    assert r.termination == "converged"


def test_measurement_does_not_begin_inside_a_startup_stall():
    """ES40, 24 KiB buffers, MTU 9000, 1 KiB writes: the first segment waits 200 ms for the 4.4BSD
    delayed-ACK timer, long after the warm-up. Counting that stall biased the estimate low and kept it
    from converging; the run must agree with one whose warm-up is past the stall."""
    from dataclasses import replace

    from tcpsim.api import build_scenario

    sc = build_scenario(platform="es40_tru64", sockbuf="24k", mtu=9000, write="1k")
    r = run(sc)
    late = run(sc.replace(budget=replace(sc.budget, min_sim_time_s=0.3)))
    assert r.termination == "converged"
    assert r.goodput_bps == pytest.approx(late.goodput_bps, rel=0.02)


def test_linux_request_one_segment_and_a_bit_does_not_wait_for_delayed_acks():
    """TCP_RR with 1460-byte messages over Linux (MSS 1448 with timestamps): each request is a full
    segment and a 12-byte tail. Classic Nagle holds the tail for the delayed ACK of the full one (40 ms
    each way, 12 transactions/s); Linux's Minshall check sends it at once."""
    from tcpsim.api import build_scenario

    r = run(build_scenario(platform="p4_linux", rr=1460))
    assert r.transactions_per_s > 1000


@pytest.mark.parametrize("family", ["bsd", "linux", "solaris"])
def test_a_held_ack_never_loses_the_race_to_the_retransmission_timer(family):
    """A 64000-byte request is 43 full segments and a tail: the last full one waits for the delayed-ACK
    timer while Nagle holds the tail. On a lossless path that must not cost a retransmission: each
    family's minimum RTO exceeds its delayed-ACK timeout (the generic BSD defaults once had 200 ms for
    both, and the timer armed at sending always fired first)."""
    from tcpsim.api import build_scenario

    sc = build_scenario(os=family, rtt="1ms", sockbuf="64k", rr=64000, response=100,
                        budget=Budget(max_sim_time_s=2.0))
    assert sc.sender.tcp.min_rto_s > sc.receiver.tcp.delack_timeout_s
    r = run(sc)
    assert r.retransmits == 0


def test_budget_is_reported():
    sc = bulk(1 << 20, 1 << 20)
    sc = Scenario(sender=sc.sender, receiver=sc.receiver, link=sc.link, workload=sc.workload,
                  budget=Budget(max_events=20_000, rel_tol=1e-6))
    r = run(sc)
    assert r.termination == "event_budget"
    assert not r.converged


def test_a_budget_spent_before_the_warm_up_ends_still_gives_a_result():
    sc = bulk(1 << 20, 1 << 20)
    r = run(Scenario(sender=sc.sender, receiver=sc.receiver, link=sc.link, workload=sc.workload,
                     budget=Budget(max_events=200)))
    assert r.termination == "event_budget"
    assert set(r.drops) == {"link", "receiver_ring", "receiver_backlog", "receiver_memory", "receiver_window",
                            "receiver_pruned"}
    assert not any(r.drops.values())


def test_request_response_rate_is_one_rtt_per_transaction():
    opts = TcpOptions(sndbuf_bytes=65536, rcvbuf_bytes=65536)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=50e-6),
                  workload=Workload(kind="rr", write_bytes=100))
    r = run(sc)
    rtt = 100e-6 + 2 * framing.wire_bytes(100) * 8 / 1e9
    assert r.transactions_per_s == pytest.approx(1 / rtt, rel=0.02)


def test_lossy_link_recovers_and_counts_retransmissions():
    sc = bulk(1 << 18, 1 << 18)
    sc = Scenario(sender=sc.sender, receiver=sc.receiver, link=Link(loss_frac=0.001), workload=sc.workload,
                  budget=Budget(max_sim_time_s=0.5))
    r = run(sc)
    assert r.retransmits > 0
    assert 0 < r.goodput_bps < framing.line_goodput_bps(1e9, 1500)
    assert math.isfinite(r.goodput_bps)


def lossy_bulk(loss_frac, *, delay_s, max_sim_time_s, sockbuf=1 << 23, rel_tol=0.08):
    """A lossy bulk stream with Linux's 0.2 s minimum RTO (a lossy run measures ten of them at least)."""
    opts = TcpOptions(sndbuf_bytes=sockbuf, rcvbuf_bytes=sockbuf, min_rto_s=0.2)
    return Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts),
                    link=Link(one_way_delay_s=delay_s, loss_frac=loss_frac), workload=Workload(write_bytes=1 << 16),
                    budget=Budget(rel_tol=rel_tol, max_sim_time_s=max_sim_time_s))


def test_rare_losses_keep_a_run_from_claiming_convergence():
    """At 1e-5 on a 80 ms path a loss comes every few seconds; a window-limited stretch between two of them
    is smooth enough to pass the interval test, but it is not the long-run average."""
    sc = lossy_bulk(1e-5, delay_s=40e-3, max_sim_time_s=3.0, sockbuf=1 << 22, rel_tol=0.03)
    r = run(sc)
    assert r.termination == "time_budget"


def test_a_lossy_run_stops_only_after_many_losses():
    """... and only once each batch of the interval is as long as a retransmission timeout (a 0.2 s floor,
    Linux's; with 4.4BSD's 1 s, a 10 s span). At 0.2 % the timeouts of retransmissions lost again take under
    half the tolerance, so the run may stop without seeing five of them (at 0.5 % it may not, and ends on the
    budget: it stopped at 207 Mbit/s +-7 % after 3 s, above the 183 a 20 s run measures)."""
    loss = 2e-3
    r = run(lossy_bulk(loss, delay_s=0.5e-3, max_sim_time_s=20.0))
    assert r.termination == "converged"
    assert r.data_packets_per_s * r.measure_time_s * loss >= 20
    assert r.measure_time_s >= 10 * 0.2
    lost_again = r.retransmits * loss
    assert lost_again >= 5 or lost_again * 0.2 <= 0.08 / 2 * r.measure_time_s


def test_a_lossy_run_that_saw_no_timeout_does_not_stop_before_its_batches_could_hold_one():
    """Issue 24: 100 Mbit/s, 1 % loss, 1 ms: runs that happened to see no 1 s timeout stopped after 0.3 s
    at the line rate, +-4 %, while the mean over seeds (timeouts included) was 68 Mbit/s."""
    from tcpsim.api import build_scenario

    sc = build_scenario(rate="100mbit", loss=0.01, rtt="1ms", sockbuf="256k", seed=0,
                        budget=Budget(rel_tol=0.05, max_sim_time_s=5))
    r = run(sc)
    assert r.termination == "time_budget" or r.measure_time_s >= 10 * sc.sender.tcp.min_rto_s


def _validation_scenario(point):
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points

    p = next(p for p in load_points() if f"{p.source_id}/{p.table_id}/{p.row}" == point)
    return scenario_for(p, platforms_for_point(p))


def test_a_run_does_not_stop_while_its_buffers_are_still_filling():
    """10 GbE, driver tuning, four streams: the receivers' socket buffers fill for a tenth of a second, and
    meanwhile more crosses the wire than the readers take. The report counts interface bytes, so a run that
    stopped then read 5.6 % high; sent and delivered must now agree within the interval's tolerance."""
    sc = _validation_scenario("tengbe/table1/driver tuning, MTU 1500, 4 stream(s)")
    assert not (sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
    mss = framing.mss_bytes(sc.link.mtu_bytes, timestamps=False)
    frame_bytes = framing.frame_bytes(mss, framing.tcp_option_bytes(False)) - 4  # FCS not counted
    r = run(sc)
    assert r.converged
    assert r.interface_bps["forward"] / (r.goodput_bps * frame_bytes / mss) <= 1 + 1.5 * sc.budget.rel_tol


@pytest.mark.parametrize("point, horizon_s", [
    ("tengbe/table6/none tuning, MTU 9000, 1 stream(s)", 0.8),
    ("tru64/table2/sockbuf 262144", 0.6),
])
def test_a_converged_answer_agrees_with_a_long_run(point, horizon_s):
    """Two validation points whose rate moves on a scale of a tenth of a second: the stopping rule must not
    stop inside that drift. A rule that sampled once a round trip (its first decision some forty round trips
    after the warm-up) stopped these 20 % and 6 % off while its interval claimed +-3 %."""
    from dataclasses import replace

    from tcpsim.calibration.mapping import CALIBRATION_BUDGET

    sc = _validation_scenario(point)
    assert sc.budget == CALIBRATION_BUDGET
    quick = run(sc)
    long = run(replace(sc, budget=replace(sc.budget, rel_tol=1e-6, max_sim_time_s=horizon_s)))
    assert quick.converged and long.sim_time_s > 2 * quick.sim_time_s
    assert abs(quick.goodput_bps - long.goodput_bps) <= quick.goodput_halfwidth_bps + 0.01 * long.goodput_bps


def lose_one_segment(run_, times, from_seq=1_000_000):
    """Drop the first data segment at or past ``from_seq``, and its retransmissions, ``times`` times in all,
    on the way to the wire; returns ([its sequence number], [when each copy was lost])."""
    victim, drops = [], []

    def loses(seg):
        if seg.length and seg.seq >= from_seq and not victim:
            victim.append(seg.seq)
        if seg.length and victim and seg.seq == victim[0] and len(drops) < times:
            drops.append(run_.kernel.now)
            return True
        return False

    run_.snd_host.tx_drop_filter = loses
    return victim, drops


def test_a_retransmission_lost_after_a_timeout_is_sent_again():
    """RFC 6298 §5.5-5.6: the timer restarts, backed off, when it fires. Before, a lost go-back-N
    retransmission left the connection waiting forever (at 0.5 % random loss it happened within seconds)."""
    from tcpsim.engine import _Run

    run_ = _Run(lossy_bulk(0.0, delay_s=0.5e-3, max_sim_time_s=7.5, sockbuf=1 << 16))
    # The segment and its next three retransmissions (fast, then two timeouts) are lost.
    victim, drops = lose_one_segment(run_, times=4)
    run_.run()
    assert len(drops) == 4
    first_rto, second_rto = drops[2] - drops[1], drops[3] - drops[2]
    assert second_rto == pytest.approx(2 * first_rto, rel=0.05)
    assert run_.flows[0][3].rcv_nxt > victim[0] + 1_000_000  # and the transfer went on
    assert 1 not in run_.links["forward"].sent_payloads  # a timeout with data outstanding sends no persist probe


def _recovery_sends(prr_rule):
    """CUBIC with SACK at 1 Gbit/s and 2 ms, a window the receiver does not limit, one segment lost in slow start:
    the times (from the fast retransmit) at which new segments went out until the recovery ended (an ACK of all that
    was out when it began)."""
    from tcpsim.engine import _Run

    opts = TcpOptions(sndbuf_bytes=1 << 23, rcvbuf_bytes=1 << 23, sack=True, congestion_control="cubic",
                      min_rto_s=0.2, prr_rule=prr_rule)
    run_ = _Run(Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=1e-3),
                         workload=Workload(total_bytes=4_000_000),
                         budget=Budget(max_sim_time_s=1.0, record_trace=True, trace_limit=20_000)))
    lose_one_segment(run_, times=1, from_seq=800_000)
    trace = run_.run().trace
    rtx = next(t for t in trace if t[2] == "data" and t[7] == "retransmit")
    high = max(t[3] + t[4] for t in trace if t[2] == "data" and t[0] < rtx[0])
    end = next(t[0] for t in trace if t[2] == "ack" and t[5] >= high) + 1e-3  # when it reaches the sender
    return [t[0] - rtx[0] for t in trace if t[2] == "data" and t[3] >= high and rtx[0] < t[0] < end]


def test_linux_recovery_reduces_proportionally():
    """RFC 6937 / ``tcp_cwnd_reduction``: after the fast retransmit PRR sends 0.7 new segments for each one delivered
    from the first ACKs on, where RFC 6675 (cwnd = ssthresh at once) is silent until the flight has come down by 0.3
    of the window; over the recovery's round trip both send about ssthresh."""
    prr, rfc6675 = _recovery_sends(4), _recovery_sends(0)
    assert prr and rfc6675
    assert prr[0] < 0.05e-3 and rfc6675[0] > 0.4e-3  # a 2 ms round trip: PRR at once, RFC 6675 after 0.3 of it
    gaps = [b - a for a, b in zip(prr, prr[1:])]
    assert max(gaps) < 0.05e-3  # spread, no pause in the round trip
    assert len(prr) == pytest.approx(len(rfc6675), rel=0.1)


@pytest.mark.parametrize("limited_transmit", [False, True])
def test_limited_transmit_turns_a_lost_first_segment_into_a_fast_retransmit(limited_transmit):
    """Linux's initial window of two: when the first segment is lost, the second brings one duplicate ACK.
    Without limited transmit (RFC 3042) nothing more can go and the sender waits for its retransmission
    timer (the handshake's round trip set it: Linux's 200 ms floor); with it, each duplicate ACK lets a new
    segment out, and the third starts a fast retransmit."""
    from tcpsim.engine import _Run

    opts = TcpOptions.for_os("linux", sockbuf_bytes=1 << 20, limited_transmit=limited_transmit)
    run_ = _Run(Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=1e-3),
                         workload=Workload(total_bytes=200_000), budget=Budget(max_sim_time_s=10.0)))
    lose_one_segment(run_, times=1, from_seq=0)
    r = run_.run()
    assert r.termination == "finished" and r.retransmits == 1
    assert (r.sim_time_s < 0.1) is limited_transmit and (r.sim_time_s > 0.2) is not limited_transmit


def test_time_waiting_on_a_retransmission_timer_counts_as_loss_recovery():
    """Two timeouts in a row on one lost segment: the sender's window holds it the whole time, but what
    it waits on is the repair. A lossless run records no recovery at all."""
    from tcpsim.engine import _Run

    run_ = _Run(lossy_bulk(0.0, delay_s=0.5e-3, max_sim_time_s=3.0, sockbuf=1 << 16))
    _, drops = lose_one_segment(run_, times=3)
    run_.run()
    sender = run_.flows[0][2]
    assert len(drops) == 3
    assert sender.block_time["recovery"] >= 0.99 * (drops[2] - drops[0])
    assert run(lossy_bulk(0.0, delay_s=0.5e-3, max_sim_time_s=0.2)).utilization_frac["loss_recovery"] == 0.0


@pytest.mark.slow
def test_random_loss_goodput_follows_mathis():
    """Mathis et al. (1997): MSS / RTT x sqrt(3/2) / sqrt(p) for a sawtooth cut by rare random losses."""
    from tcpsim.ceilings import loss_estimate_bps

    sc = lossy_bulk(2e-3, delay_s=0.5e-3, max_sim_time_s=10.0)
    r = run(sc)
    assert r.termination == "converged" and r.retransmits > 50
    assert r.goodput_bps == pytest.approx(loss_estimate_bps(sc), rel=0.2)


def linux_bulk(*, delay=10e-3, sockbuf=None, rate=1e9):
    from tcpsim.platform import os_defaults

    opts = TcpOptions.for_os(os_defaults("linux"), sockbuf_bytes=sockbuf)
    return Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts),
                    link=Link(rate_bps=rate, one_way_delay_s=delay), workload=Workload(write_bytes=1 << 20),
                    budget=Budget(max_sim_time_s=3.0))


def test_linux_autotunes_buffers_the_application_left_unset():
    """tcp_new_space and tcp_rcv_space_adjust grow a 16 KiB / 87 KiB default past the 20 ms path's BDP;
    a socket whose application set SO_SNDBUF/SO_RCVBUF keeps what it asked for."""
    auto = run(linux_bulk())
    fixed = run(linux_bulk(sockbuf=65536))
    line = framing.line_goodput_bps(1e9, 1500)
    assert auto.goodput_bps > 0.9 * line
    assert auto.streams[0].peer_window_bytes > 2_500_000 > 87380
    # 128 KiB kernel buffers (setsockopt doubles the request), 3/4 of it advertised, over a 20 ms RTT.
    assert fixed.goodput_bps == pytest.approx(98304 * 8 / 0.02, rel=0.1)


def test_autotuned_window_stops_at_tcp_rmem_max():
    from dataclasses import replace

    from tcpsim.platform import os_defaults

    os = replace(os_defaults("linux"), rcvbuf_autotune_max_bytes=262144)
    opts = TcpOptions.for_os(os)
    sc = replace(linux_bulk(), sender=Host(tcp=opts), receiver=Host(tcp=opts))
    r = run(sc)
    assert r.streams[0].peer_window_bytes <= os.window_bytes(262144)
    assert r.goodput_bps == pytest.approx(os.window_bytes(262144) * 8 / 0.02, rel=0.12)


def test_a_blocked_writer_with_data_held_by_nagle_is_limited_by_the_send_buffer():
    """16 KiB send buffer, 8 KiB writes: the tail of each write waits while the writer waits for space;
    the send buffer, not Nagle, is what limits."""
    opts = TcpOptions(sndbuf_bytes=16384, rcvbuf_bytes=1 << 20)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(rate_bps=1e9, one_way_delay_s=200e-6),
                  workload=Workload(write_bytes=8192))
    r = run(sc)
    assert r.limited_by in ("window", "sndbuf")
    assert r.utilization_frac["sndbuf"] > r.utilization_frac["nagle_delack"]


@pytest.mark.parametrize("wakes_at_third", [False, True])
def test_a_blocked_writer_resumes_at_the_low_water_mark_or_a_third_of_the_buffer(wakes_at_third):
    """4.4BSD wakes a writer once SO_SNDLOWAT (2048 bytes) is free, so it copies a few segments per ACK;
    Linux (sk_stream_write_space) once a third of the buffer is free, so it copies in large pieces."""
    from tcpsim.engine import _Run

    opts = TcpOptions(sndbuf_bytes=65536, rcvbuf_bytes=1 << 20, writer_wakes_at_third=wakes_at_third)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(rate_bps=1e9, one_way_delay_s=100e-6),
                  workload=Workload(write_bytes=1 << 20), budget=Budget(max_sim_time_s=0.05))
    r = _Run(sc)
    writer, ep = r.writers[0], r.flows[0][2]
    pieces = []  # (bytes copied when the endpoint woke the writer, what the call still had to copy before)

    def on_writable():
        before = writer.remaining
        writer.kick()  # an ideal host copies at once, so the piece is done when kick() returns
        if writer.remaining < before:
            pieces.append((before - writer.remaining, before))

    ep.on_writable = on_writable
    r.run()
    # pieces after a wait, but not a call's last
    resumed = sorted(chunk for chunk, remaining in pieces if chunk < remaining)
    assert len(resumed) > 20
    if wakes_at_third:
        assert resumed[0] >= 65536 // 3
    else:
        assert resumed[len(resumed) // 2] < 65536 // 8


@pytest.mark.parametrize("held_frac, expected", [(0.7, "window"), (0.3, "line")])
def test_a_tcp_reason_holding_the_senders_half_the_time_outranks_an_unsaturated_resource(held_frac, expected):
    from tcpsim.engine import _binding

    util = {"line": 0.88, "cpu_sender": 0.3, "window": 0.1, "cwnd": 0.0, "sndbuf": held_frac,
            "nagle_delack": 0.1, "application": 0.0, "loss_recovery": 0.0}
    assert _binding(util, {}, 0) == expected  # a full send buffer reads as the window (buffers vs RTT)
    util["line"] = 0.99
    assert _binding(util, {}, 0) == "line"  # a saturated resource always binds


def test_a_finite_transfer_is_measured_whole_and_ends_with_its_last_byte():
    """2 MB: the last, partial segment waits under Nagle for the ACK of the one before it, which the
    receiver delays by its 200 ms timer (RFC 896 meets RFC 1122 §4.2.3.2); TCP_NODELAY sends it at once."""
    total = 2_000_000
    nagle = run(Scenario(workload=Workload(total_bytes=total)))
    nodelay = run(Scenario(sender=Host(tcp=TcpOptions(nodelay=True)), workload=Workload(total_bytes=total)))
    for r in (nagle, nodelay):
        assert r.termination == "finished" and r.goodput_halfwidth_bps is None
        assert r.goodput_bps == pytest.approx(total * 8 / r.sim_time_s)
    assert 0.2 < nagle.sim_time_s < 0.25
    assert nodelay.sim_time_s < 0.03


def overshoot(sack):
    """Slow start into a 50-frame queue at 100 Mbit/s, 20 ms: the first loss event drops many segments of one
    window (Fall and Floyd 1996's case for SACK)."""
    opts = TcpOptions(sndbuf_bytes=1 << 21, rcvbuf_bytes=1 << 21, sack=sack)
    return run(Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts),
                        link=Link(rate_bps=1e8, one_way_delay_s=10e-3, queue_packets=50),
                        workload=Workload(total_bytes=20_000_000),
                        budget=Budget(max_sim_time_s=60.0, max_events=5_000_000)))


def test_sack_repairs_many_losses_of_one_window_without_timeouts_or_spurious_resends():
    """RFC 6675 resends every hole the SACK blocks reveal within about a round trip; NewReno (RFC 6582)
    repairs one hole per round trip. Neither resends what the receiver holds: with SACK every
    retransmission replaces a dropped frame."""
    newreno, sacked = overshoot(False), overshoot(True)
    assert newreno.termination == sacked.termination == "finished"
    assert sacked.drops["link"] >= 20  # the case has many losses in one window
    assert sacked.sim_time_s < 0.75 * newreno.sim_time_s
    assert sacked.retransmits <= sacked.drops["link"]


def test_a_newreno_recovery_from_many_losses_holds_the_senders_far_longer_than_sack():
    """NewReno repairs one hole per round trip, and the window waits on each repair; SACK repairs them all in
    about one round trip (the overshoot case below)."""
    newreno, sacked = overshoot(False), overshoot(True)
    assert newreno.utilization_frac["loss_recovery"] > 0.25
    assert newreno.utilization_frac["loss_recovery"] > 5 * sacked.utilization_frac["loss_recovery"]


def test_sack_is_used_only_when_both_ends_permit_it():
    """RFC 2018 §2: SACK-permitted must come from both SYNs."""
    from tcpsim.engine import _Run

    one_sided = Scenario(sender=Host(tcp=TcpOptions(sack=True)), receiver=Host(tcp=TcpOptions(sack=False)))
    run_ = _Run(one_sided)
    assert not any(ep.sack_ok for flow in run_.flows for ep in flow[2:4])
    both = Scenario(sender=Host(tcp=TcpOptions(sack=True)), receiver=Host(tcp=TcpOptions(sack=True)))
    assert all(ep.sack_ok for flow in _Run(both).flows for ep in flow[2:4])


def test_the_handshake_round_trip_is_each_connections_first_rtt_sample():
    """Before data flows each end has timed its SYN (Linux ``tcp_ack_update_rtt`` on the SYN-ACK,
    ``tcp_synack_rtt_meas``; RFC 6298 §2.2): srtt and the minimum RTT are the idle round trip of a
    header-only segment, shorter than a full segment's and longer than the propagation alone."""
    from tcpsim import ceilings
    from tcpsim.engine import _Run

    sc = Scenario(link=Link(one_way_delay_s=2e-3))
    run_ = _Run(sc)
    syn = ceilings.handshake_rtt_s(sc)
    assert 4e-3 < syn < ceilings.base_rtt_s(sc)
    for ep in run_.flows[0][2:4]:
        assert ep.rto.srtt_s == syn and ep.rto.rttvar_s == syn / 2 and ep.rtt_n == 0


def test_a_linux_rto_counts_ticks_and_backs_off_to_linux_s_cap():
    """A versioned Linux's RTO is whole ticks of its CONFIG_HZ (250: 4 ms) and backs off to TCP_RTO_MAX, 120 s; RFC
    6298's endpoints keep their 60 s."""
    from tcpsim.api import build_scenario
    from tcpsim.engine import _Run

    for os_name, cap, hz in (("linux-6.12", 120.0, 250), ("solaris-8", 60.0, 0)):
        ep = _Run(build_scenario(os=os_name, rtt="7ms")).flows[0][2]
        assert ep.rto.max_rto_s == cap and ep.rto.hz == hz
        ep.rto.sample(0.0071, 1, 2)
        assert hz == 0 or ep.rto.rto_s * hz == pytest.approx(round(ep.rto.rto_s * hz))
        for _ in range(30):
            ep.rto.on_timeout()
        assert ep.rto.timeout_s() == cap


@pytest.mark.parametrize("rtt_s, ratio", [(4.2e-3, 164), (4e-3, 205), (1e-3, 205)])
def test_the_first_aggregate_follows_the_handshake_and_sets_the_scaling_ratio(rtt_s, ratio):
    """The kernel trace in validation/README.md ("The handshake's round trip is the first RTT sample"): on the
    lab path, ``tcp_tso_autosize`` sizes the first skb from the SYN's round trip (2 x 10 x 1448 bytes / RTT >>
    10, plus 64 KiB >> (min RTT in us >> 9)): over 4.096 ms four segments, 5792 bytes in two pages, and the
    receiver's ``tcp_measure_rcv_mss`` takes its ratio from it, 5792 x 256 / 9024 = 164; under it (4 ms on the
    delay line as measured on 2026-11-29) five, 7240 bytes in the same two pages: 205; at 1 ms half of cwnd
    (five segments) binds first: 205."""
    from dataclasses import replace

    from tcpsim.api import build_scenario
    from tcpsim.engine import _Run
    from tcpsim.lab.scenario import lab_link_fields

    sc = build_scenario(platform="lab_vm", rate="1gbit", rtt=f"{rtt_s * 1e3:g}ms", sockbuf="32k",
                        budget=Budget(max_sim_time_s=0.03))
    sc = replace(sc, link=replace(sc.link, **lab_link_fields(1e9, rtt_s, 1500, "relay")))
    run_ = _Run(sc)
    run_.run()
    assert run_.flows[0][3]._ratio == ratio


@pytest.mark.parametrize("timestamps", [False, True])
def test_a_handshake_longer_than_the_initial_timeout(timestamps):
    """A SYN whose answer takes longer than the 1 s initial timer was sent again. Without timestamps a
    retransmitted segment is not timed (Karn's rule, RFC 6298 §3) and data starts on a 3 s timeout (§5.7);
    with them the echo times it anyway (RFC 7323 §4.1), so the first sample is the round trip."""
    from tcpsim import ceilings
    from tcpsim.engine import _Run

    opts = TcpOptions(timestamps=timestamps)
    sc = Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts), link=Link(one_way_delay_s=0.6))
    run_ = _Run(sc)
    for ep in run_.flows[0][2:4]:
        if timestamps:
            assert ep.rto.srtt_s == ceilings.handshake_rtt_s(sc) > 1.2
        else:
            assert ep.rto.srtt_s is None and ep.rto.rto_s == 3.0


def test_a_rise_of_the_windows_is_not_taken_for_the_steady_state():
    """The lab's 64 KiB write row (unshaped veth, CPU-bound): cwnd grows in congestion avoidance for some 30 ms
    and the rate with it, in samples too noisy for MSER and the batch means to see the trend. Stopped at
    validate's 3 % it said 12.3 Gbit/s +-2.7 % at 15 ms where a long run gives 15.0; the stop rule now waits
    while the windows rise, and its interval holds the long run's answer. (From the socket-owner rule of 2026-11-29
    to lab_vm's third wake-up table the same run switched from a sender-bound to a reader-bound state after 50 ms,
    which the rule converged before: a slow change of state, which no test here sees now; and again from work on a
    veth running where its segment is processed until Linux's autotuned send buffer, 2026-11-30.)"""
    from dataclasses import replace

    from tcpsim.api import simulate
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points
    from tcpsim.profiles import load_platform

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "writes"
                 and "write 65536," in p.row)
    lab = load_platform("lab_vm")  # the costs of 2026-11-28, pinned: the test is about the stop rule, not the fit
    lab = replace(lab, cpu=replace(lab.cpu, per_packet_tx_s=4.642e-6, per_packet_rx_s=4.642e-6,
                                   per_byte_copy_s=2.607e-10))
    sc = scenario_for(point, platforms_for_point(point, {"lab_vm": lab}))
    r = simulate(sc)
    long = simulate(replace(sc, budget=replace(sc.budget, rel_tol=1e-6, min_sim_time_s=0.1, max_sim_time_s=0.1)))
    assert r.termination == "converged"
    assert abs(r.goodput_bps - long.goodput_bps) <= r.goodput_halfwidth_bps + 0.01 * long.goodput_bps
