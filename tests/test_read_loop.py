"""A Linux receive call copies what the receive queue holds once it has the socket (``tcp_recvmsg_locked``), and a
segment that reaches TCP while the socket is owned joins the backlog (``tcp_v4_rcv``): validation/README.md, "A
receive call copies what the queue holds when its copy begins"."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.api import build_scenario
from tcpsim.engine import _Run, run
from tcpsim.lab.predict import host_platform, lab_simulation
from tcpsim.lab.scenario import lab_scenario
from tcpsim.os_versions import os_version
from tcpsim.platform import Platform


def _acks_below_largest_window(rtt: str, sockbuf: str) -> tuple[int, int]:
    """(ACKs after 20 ms, those offering less than the largest window offered before them) of ``lab_vm`` on the
    lab's delay line."""
    sc = lab_scenario(rate="1gbit", rtt=rtt, mtu=1500, sockbuf=sockbuf, write=131072, duration="0.5s")
    sim = lab_simulation(sc, host_platform({}, "lab_vm", None, "relay"), "relay", 0, "iperf3")
    result = run(replace(sim, budget=replace(sim.budget, skb_log_limit=100_000, rel_tol=1e-6, min_sim_time_s=0.3,
                                             max_sim_time_s=0.3)))
    largest, acks, below = 0, 0, 0
    for entry in result.skb_log:
        if entry[1]:
            if entry[0] > 0.02:
                acks += 1
                below += entry[6] < largest
            largest = max(largest, entry[6])
    return acks, below


@pytest.mark.parametrize("rtt, sockbuf", [("1ms", "16k"), ("2ms", "32k")])
def test_a_read_leaves_nothing_it_could_have_copied_behind_its_ack(rtt, sockbuf):
    """The ACK a read ends with (``tcp_cleanup_rbuf``) offers the whole window: the read took every skb queued before
    it held the socket, and what arrived after waits in the backlog, not yet acknowledged. Before the rule 29.8 % of
    the 1 ms, 16 KiB row's ACKs offered less (an aggregate queued during the read's entry was left for the next
    call); the kernel's capture of the 2 ms, 32 KiB row: 17 of 2,267."""
    acks, below = _acks_below_largest_window(rtt, sockbuf)
    assert acks > 50 and below < 0.05 * acks


def test_the_rule_is_linux_s_alone():
    linux = build_scenario(platform=Platform(os=os_version("linux-6.12")), rate="1gbit", rtt="1ms")
    assert linux.receiver.tcp.read_length_at_copy
    assert not build_scenario(platform="es40_tru64").receiver.tcp.read_length_at_copy
    assert not build_scenario(rate="1gbit", rtt="1ms").receiver.tcp.read_length_at_copy


def test_the_socket_backlog_keeps_the_order_segments_came_in():
    """Segments that found the socket owned once their softirq work was done run before those that came after them:
    four unshaped streams, whose receive work runs on two CPUs into reads that own their sockets, lose and reorder
    nothing, so nothing is retransmitted (a first build let later segments overtake them: 1,153 out of order and
    749 retransmissions in 50 ms)."""
    sc = lab_scenario(rate="0", mtu=1500, write=131072, streams=4, duration="0.5s")
    sim = lab_simulation(sc, host_platform({}, "lab_vm", None, "none"), "none", 0, "iperf3")
    result = run(replace(sim, budget=replace(sim.budget, rel_tol=1e-6, min_sim_time_s=0.03, max_sim_time_s=0.03)))
    assert result.goodput_bps > 1e10 and result.retransmits == 0 and not any(result.drops.values())


@settings(max_examples=12, deadline=None)
@given(streams=st.integers(1, 4), mtu=st.sampled_from([1500, 9000]), write_k=st.sampled_from([1, 4, 16, 64, 256]),
       shaped=st.booleans(), sockbuf_k=st.sampled_from([None, 16, 64, 256]), seed=st.integers(0, 3))
def test_no_segment_reaches_tcp_out_of_order_on_the_lab_path(streams, mtu, write_k, shaped, sockbuf_k, seed):
    """The lab's path neither loses nor reorders, and neither do the host's queues, the socket backlog included: every
    receiver takes its segments in order, whatever the reads and the owners' calls (lab_vm, the read loop)."""
    sc = lab_scenario(rate="1gbit" if shaped else "0", rtt="1ms" if shaped else None, mtu=mtu,
                      sockbuf=None if sockbuf_k is None else f"{sockbuf_k}k", write=write_k * 1024, streams=streams,
                      duration="0.5s")
    sim = lab_simulation(sc, host_platform({}, "lab_vm", None, "relay" if shaped else "none"),
                         "relay" if shaped else "none", seed, "iperf3")
    sim = replace(sim, budget=replace(sim.budget, rel_tol=1e-6, min_sim_time_s=0.01, max_sim_time_s=0.01))
    run_ = _Run(sim)
    result = run_.run()
    assert not any(result.drops.values())
    assert all(flow[3].out_of_order_segments == 0 for flow in run_.flows)
