"""Properties that hold for any scenario: the sliding window, conservation of bytes, physical bounds."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.components import endpoint
from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.engine import _Run, run
from tcpsim.os_versions import os_version
from tcpsim.platform import Platform

from bounds import check_physical_bounds
from strategies import host_scenarios, linux_versioned_scenarios, scenarios


@pytest.fixture(autouse=True)
def audited():
    endpoint.audit(True)
    yield
    endpoint.audit(False)


@settings(deadline=None)
@given(scenarios(lossless=False))
def test_window_and_conservation(sc):
    """Never more in flight than the peer's window or cwnd; bytes arrive in order and never beyond what was written."""
    _run_conserving(sc)


def _run_conserving(sc):
    """Run ``sc`` audited (the window and cwnd on every segment) and check that bytes arrive in order, never beyond
    what was written, and that the reader's and TCP's shares fit the receive buffer."""
    r = _Run(sc)
    result = r.run()  # AuditError would propagate
    for _direction, _stream, snd, rcv, reader in r.flows:
        assert rcv.rcv_nxt <= snd.snd_max <= snd.written
        # an skb carries one segment or a GSO aggregate of them
        assert (snd.data_skbs > 0) == (snd.data_segments > 0) and snd.data_skbs <= snd.data_segments
        if reader is not None:
            assert reader.delivered_bytes + rcv.rcv_buffered == rcv.rcv_nxt
            # what the reader may take and what TCP still holds (Solaris) are parts of the buffer
            assert 0 <= rcv.rcv_readable and 0 <= rcv.rcv_unpushed
            assert rcv.rcv_readable + rcv.rcv_unpushed <= rcv.rcv_buffered
        if rcv._linux_wnd:  # the receive queue's skbs hold what is buffered; an aggregate still arriving is not in it
            assert sum(rcv._rq_bytes) - rcv._rq_read == rcv.rcv_buffered
            assert 0 <= rcv._rq_read < (rcv._rq_bytes[0] if rcv._rq_bytes else 1)
            # the socket's memory: the receive queue's skbs and the out-of-order queue's (tcp_data_queue_ofo)
            assert rcv._rmem == sum(rcv._rq_truesize) + sum(map(rcv._truesize, rcv.ooo.values()))
            assert all(seq > rcv.rcv_nxt for seq in rcv.ooo)
    assert result.termination in ("converged", "time_budget", "event_budget", "finished")
    assert result.delivered_bytes == sum(f[4].delivered_bytes for f in r.flows if f[4] is not None)
    return result


@settings(deadline=None, max_examples=60)
@given(linux_versioned_scenarios())
def test_a_versioned_linux_keeps_the_window_the_bytes_and_the_link(sc):
    """The window, conservation, send-buffer and rate invariants where Linux's own rules run."""
    endpoint.audit(True)
    check_physical_bounds(sc, _run_conserving(sc))


def _lab_lossy_points():
    from tcpsim.calibration.tables import load_points
    return [p for p in load_points() if p.source_id == "lab" and p.table_id.startswith("loss")]


@pytest.mark.parametrize("point", _lab_lossy_points(), ids=lambda p: f"{p.table_id}-{p.row.split(': ', 1)[1]}")
def test_the_lab_lossy_rows_keep_the_windows(point):
    """The lab's random-loss rows as validate runs them, audited for a simulated second: RACK begins recovery
    before the third duplicate ACK there, and limited transmit's loan once outlived it (validation/README.md,
    "Limited transmit's loan ends when recovery begins"); the hypothesis scenarios above had not drawn that case."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for

    sc = scenario_for(point, platforms_for_point(point, None))
    result = _run_conserving(replace(sc, budget=replace(sc.budget, max_sim_time_s=1.0)))
    assert result.retransmits > 0  # the loss was drawn, and recovery ran under the audit


def test_a_slow_reader_behind_a_lossy_path_prunes_held_data_and_the_bytes_still_arrive_in_order():
    """Locked buffers of 16-64 KiB, a reader at 40 us a call and 1 % loss on the lab's path: held out-of-order data
    takes the memory and is pruned (``tcp_prune_ofo_queue``), the sender finds its SACKs reneged and sends the data
    again; audited, the bytes still arrive in order and whole (validation/README.md, "Pruning the out-of-order queue,
    and the sender that sees it reneged")."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "loss")
    base = scenario_for(point, platforms_for_point(point, None))
    slow = replace(base.receiver.platform, cpu=replace(base.receiver.platform.cpu, per_syscall_rx_s=40e-6))
    pruned = 0
    for rcvbuf in (16 << 10, 32 << 10, 64 << 10):
        sc = replace(base, receiver=replace(base.receiver, platform=slow,
                                            tcp=TcpOptions.for_os(slow.os, rcvbuf_bytes=rcvbuf)),
                     link=replace(base.link, loss_frac=0.01), budget=replace(base.budget, max_sim_time_s=1.0))
        result = _run_conserving(sc)
        assert result.delivered_bytes > 0
        pruned += result.drops["receiver_pruned"]
    assert pruned > 0, "no run pruned: choose buffers and a reader that fill the memory behind a hole"


@settings(deadline=None)
@given(scenarios())
def test_rates_within_what_the_link_carries(sc):
    """Goodput <= line-rate goodput, interface rate <= link rate, data frames/s <= what the link carries:
    strict, for the measured interval (rates count what crossed the wire, issue 24)."""
    result = run(sc)
    check_physical_bounds(sc, result)


@settings(deadline=None, max_examples=10)
@given(scenarios())
def test_same_seed_same_result(sc):
    a, b = run(sc), run(sc)
    assert a.goodput_bps == b.goodput_bps and a.events == b.events and a.payload_histogram == b.payload_histogram


@settings(deadline=None, max_examples=15)
@given(scenarios(bulk_only=True), st.sampled_from([2, 4]))
def test_more_receive_buffer_never_hurts_a_lossless_bulk_stream(sc, factor):
    sc = replace(sc, workload=replace(sc.workload, n_streams=1, bidirectional=False, message_rate_hz=None,
                                      write_bytes=65536),
                 budget=replace(sc.budget, max_sim_time_s=0.05))
    fixed = replace(sc.receiver.tcp, rcv_window_autotune_max_bytes=None)  # buffers as set, no autotuning
    sc = replace(sc, receiver=replace(sc.receiver, tcp=fixed))
    bigger = replace(sc, receiver=replace(sc.receiver, tcp=replace(fixed, rcvbuf_bytes=fixed.rcvbuf_bytes * factor,
                                                                    rcv_window_bytes=None)))
    small, large = run(sc), run(bigger)
    if small.converged and large.converged:
        assert large.goodput_bps >= small.goodput_bps * 0.97


@settings(deadline=None, max_examples=40)
@given(host_scenarios())
def test_hosts_with_costs_rings_and_buses_keep_the_invariants(sc):
    """With CPUs, interrupts, rings, backlogs and buses in the path: the window still holds, bytes are
    conserved, goodput stays under the line and both buses' ceilings, and every utilization is a fraction."""
    r = _Run(sc)
    result = r.run()
    for _direction, _stream, snd, rcv, reader in r.flows:
        assert rcv.rcv_nxt <= snd.snd_max <= snd.written
        if reader is not None:
            assert reader.delivered_bytes + rcv.rcv_buffered == rcv.rcv_nxt
            # what the reader may take and what TCP still holds (Solaris) are parts of the buffer
            assert 0 <= rcv.rcv_readable and 0 <= rcv.rcv_unpushed
            assert rcv.rcv_readable + rcv.rcv_unpushed <= rcv.rcv_buffered
    check_physical_bounds(sc, result)
    for cpus in result.cpu_utilization_frac.values():
        assert all(0.0 <= c <= 1.0 for c in cpus)
    assert all(v >= 0 for v in result.drops.values())
    for host in (r.snd_host, r.rcv_host):
        now = r.kernel.now
        assert sum(1 for t in host._tx_posted if t > now) <= host.tx_ring
        assert not host._qdisc or host._qdisc_wake  # a frame held for a full ring has a restart coming


@settings(deadline=None, max_examples=40)
@given(host_scenarios(lossless=True))
def test_nothing_lost_nothing_reordered_nothing_retransmitted(sc):
    """Where no frame is dropped anywhere, the frames of a connection arrive in the order sent (a short
    frame never overtakes a long one in a store-and-forward switch) and no segment is sent twice: the
    runs are far shorter than any minimum RTO, so only duplicate ACKs could cause it (RFC 5681 §2)."""
    r = _Run(sc)
    result = r.run()
    lost = sum(d.drops for d in r.links.values())
    lost += sum(h.ring_drops + h.rx_drops for h in (r.snd_host, r.rcv_host))
    if lost == 0:
        assert sum(f[2].out_of_order_segments + f[3].out_of_order_segments for f in r.flows) == 0
        assert result.retransmits == 0
        assert result.utilization_frac["loss_recovery"] == 0.0  # no repair, so no time spent on one


def test_a_versioned_linux_writer_keeps_within_its_send_buffer_and_one_skb():
    """The send-buffer audit on a versioned Linux (Linux's window, TSO sizing and TSQ rules), the case a
    versioned-Linux strategy found (2026-11-27, eighth session): with IW10 and 8 KiB writes the writer fills
    the unsent tail skb to the size goal past the buffer's size (32,768 bytes queued against 26,844), as
    ``tcp_sendmsg_locked`` does (it asks ``sk_stream_memory_free`` only before a new skb, and refills a tail
    ``tso_fragment`` sent part of); the audit bounds what the kernel bounds, the unsent bytes, by the buffer
    and one skb less a byte."""
    os = os_version("linux-6.12")
    host = Host(platform=Platform(os=os), tcp=TcpOptions.for_os(os))
    sc = Scenario(sender=host, receiver=host, link=Link(rate_bps=1e8, one_way_delay_s=1e-6, mtu_bytes=9000),
                  workload=Workload(kind="bulk", write_bytes=8192),
                  budget=Budget(max_sim_time_s=0.02, min_sim_time_s=0.001, max_events=150_000))
    endpoint.audit(True)
    r = _Run(sc)
    r.run()
    assert r.flows[0][2].opts.writer_copies_whole_skbs  # the writer whose bound this is
