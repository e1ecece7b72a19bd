"""The FIFO servers: a link direction through store-and-forward switches keeps its frames in order."""

import pytest

from tcpsim.components.resources import LinkDirection

RATE = 1e9


def wire_s(frame_bytes: int) -> float:
    return (frame_bytes + 20) * 8 / RATE


@pytest.mark.parametrize("hops", [0, 1, 3])
def test_a_short_frame_never_overtakes_a_long_one(hops):
    link = LinkDirection(RATE, 2e-6, None, hops=hops)
    big = link.send(0.0, 0.0, wire_s(1518))
    small = link.send(0.0, 0.0, wire_s(64))
    assert small > big
    # each switch receives the whole frame before sending it: one more serialization per hop
    assert big == pytest.approx(wire_s(1518) * (1 + hops) + 2e-6)
    if hops:
        assert small == pytest.approx(big + wire_s(64))  # it waits for the port, then takes its own time


def test_an_idle_switch_adds_one_serialization_per_hop():
    link = LinkDirection(RATE, 2e-6, None, hops=2)
    first = link.send(0.0, 0.0, wire_s(1518))
    later = link.send(1.0, 1.0, wire_s(64))
    assert later == pytest.approx(1.0 + 3 * wire_s(64) + 2e-6)
    assert first < later
