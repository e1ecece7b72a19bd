"""A GSO aggregate the path carries whole reaches TCP as one skb (``tcp_data_queue`` advances ``rcv_nxt`` over it at
once), so no ACK, window update or read acknowledges part of it: validation/README.md, "An aggregate taken whole is
acknowledged whole"."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.engine import run
from tcpsim.lab.predict import host_platform, lab_simulation
from tcpsim.lab.scenario import lab_scenario


def _acks_inside_an_aggregate(rtt: str, sockbuf: str, mtu: int = 1500, seed: int = 0) -> tuple[int, int]:
    """(ACKs, those whose acknowledgment is not the end of an skb taken in before them) of ``lab_vm`` on the lab's
    delay line, where iperf3's aggregates arrive whole."""
    sc = lab_scenario(rate="1gbit", rtt=rtt, mtu=mtu, sockbuf=sockbuf, write=131072, duration="0.5s")
    sim = lab_simulation(sc, host_platform({}, "lab_vm", None, "relay"), "relay", seed, "iperf3")
    result = run(replace(sim, budget=replace(sim.budget, skb_log_limit=100_000, rel_tol=1e-6, min_sim_time_s=0.2,
                                             max_sim_time_s=0.2)))
    ends, acks, inside = {0}, 0, 0
    for _t, outgoing, _port, seq, length, ack, *_ in result.skb_log:
        if outgoing:
            acks += 1
            inside += ack not in ends
        else:
            ends.add(seq + length)
    return acks, inside


@pytest.mark.parametrize("rtt, sockbuf", [("3.5ms", "12k"), ("1ms", "16k")])
def test_no_ack_acknowledges_part_of_an_aggregate(rtt, sockbuf):
    """The 3.5 ms, 12 KiB row of lab/window4: before the rule a read's ACK (``tcp_cleanup_rbuf``) acknowledged three of
    the six segments of an aggregate still arriving, four times in its first round trips, and the sender's reply to
    it, a lone segment, grew the window past the kernel's 11,584 bytes."""
    acks, inside = _acks_inside_an_aggregate(rtt, sockbuf)
    assert acks > 50 and inside == 0


@settings(max_examples=6, deadline=None)
@given(rtt_ms=st.sampled_from([0.3, 0.8, 2.0, 5.0]), sockbuf_k=st.integers(8, 96), mtu=st.sampled_from([1500, 9000]),
       seed=st.integers(0, 3))
def test_every_ack_ends_at_an_skb_boundary(rtt_ms, sockbuf_k, mtu, seed):
    acks, inside = _acks_inside_an_aggregate(f"{rtt_ms}ms", f"{sockbuf_k}k", mtu, seed)
    assert acks > 0 and inside == 0
