"""A received frame's work in two parts at ``tcp_v4_rcv``'s ownership check (``CpuCost.rx_tcp_frac``;
validation/README.md, "The receive work divides at the socket's lock")."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.config import Budget
from tcpsim.engine import _Run, run
from tcpsim.errors import ConfigError
from tcpsim.platform import CpuCost


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), True])
def test_the_share_is_a_fraction(bad):
    with pytest.raises(ConfigError, match="rx_tcp_frac"):
        CpuCost(rx_tcp_frac=bad)


def _slow_reader(frac, n_cpus=2):
    """A receiver whose reader is the limit, its NIC's interrupts on CPU 0 and its reader on CPU 1, no aggregates."""
    from tcpsim.api import build_scenario

    sc = build_scenario(platform="lab_vm", rate="10gbit", write="64k", rtt="100us",
                        budget=Budget(max_sim_time_s=0.01, rel_tol=1e-6))
    cpu = replace(sc.receiver.platform.cpu, n_cpus=n_cpus, rx_tcp_frac=frac, interrupts_on_one_cpu=True,
                  per_byte_copy_rx_s=5e-10, per_packet_rx_s=5e-6)

    def host(h, **cpu_fields):
        p = h.platform
        return replace(h, platform=replace(p, nic=replace(p.nic, gso_whole=False), **cpu_fields))

    return replace(sc, receiver=host(sc.receiver, cpu=cpu), sender=host(sc.sender))


def test_the_whole_work_goes_to_a_reader_that_holds_the_socket_as_the_frame_arrives():
    """``rx_tcp_frac`` 1, every shipped profile: a frame arriving while the reader's call owns the socket is the
    reader's, its driver's and IP's work too (the model before the split)."""
    busy = run(_slow_reader(1.0)).cpu_utilization_frac["receiver"]
    assert busy[0] < 0.05 and busy[1] > 0.95


def test_the_part_before_the_check_stays_on_the_cpu_that_takes_the_frame_in():
    """With the split the driver's and IP's part runs on the interrupt CPU whatever the socket's state."""
    whole = run(_slow_reader(1.0)).cpu_utilization_frac["receiver"]
    split = run(_slow_reader(0.53)).cpu_utilization_frac["receiver"]
    assert split[0] > whole[0] + 0.3


@pytest.mark.xfail(strict=True, reason=(
    "the check asks only of calls already under way when the frame's work is queued: with the interrupt CPU "
    "saturated the check lies beyond the reader's current call, so TCP's part stays on the interrupt CPU although "
    "the reader, saturated too, holds the socket nearly always (validation/README.md, 'What dividing the receive "
    "work gave'); asked at its instant, by an event, the model lost on the table held out to judge it (lab/cpu17: "
    "17.4 against 15.7 %, 'What the check at its instant gave')"))
def test_tcp_s_part_goes_to_a_reader_that_holds_the_socket_at_the_check():
    """A reader always inside a call takes TCP's part of nearly every frame from its backlog: the interrupt CPU does
    only the part before the check (47 % of the work), not all of it."""
    split = run(_slow_reader(0.53)).cpu_utilization_frac["receiver"]
    assert split[0] < 0.9


@settings(max_examples=8, deadline=None)
@given(write=st.sampled_from(["16k", "64k"]), streams=st.integers(1, 2), mtu=st.sampled_from([1500, 9000]),
       frac=st.sampled_from([0.0, 0.53]), seed=st.integers(0, 3))
def test_a_drop_free_veth_takes_every_segment_in_order_with_the_work_divided(write, streams, mtu, frac, seed):
    """The split keeps a connection's segments in the order sent (``tcp_v4_rcv`` locks the socket before it runs a
    segment or queues it on the owner's backlog): no hole at the receiver, no retransmission, bytes delivered never
    more than sent."""
    from tcpsim.api import build_scenario

    sc = build_scenario(platform="lab_vm", rate=0, veth=True, write=write, streams=streams, mtu=mtu, rtt="40us",
                        seed=seed, budget=Budget(max_sim_time_s=0.01, rel_tol=1e-6))
    hosts = {role: replace(h, platform=replace(h.platform, cpu=replace(h.platform.cpu, rx_tcp_frac=frac)))
             for role, h in (("sender", sc.sender), ("receiver", sc.receiver))}
    sc = replace(sc, **hosts)
    sim = _Run(sc)
    r = sim.run()
    assert r.delivered_bytes > 0 and not any(r.drops.values())
    assert [f[3].out_of_order_segments for f in sim.flows] == [0] * streams
    assert r.retransmits == 0
