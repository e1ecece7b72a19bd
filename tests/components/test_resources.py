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


def test_a_token_bucket_passes_a_burst_then_holds_to_the_rate():
    """tbf: a full bucket lets frames out back to back (at the veth's speed), then one per frame time."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    link = LinkDirection(RATE, 0.0, None, burst_bytes=125000)
    w = wire_s(1518)
    arrivals = [link.send(0.0, 0.0, w) for _ in range(200)]
    in_burst = 125000 // 1538
    assert arrivals[in_burst - 1] < 0.01 * w * in_burst              # the burst crosses at once
    gaps = [b - a for a, b in zip(arrivals[in_burst + 1:], arrivals[in_burst + 2:])]
    assert all(g == pytest.approx(w) for g in gaps)                  # then paced at the rate
    assert link.send(1.0, 1.0, w) == pytest.approx(1.0 + w * 1e-3)   # refilled after idling

    @settings(max_examples=50, deadline=None)
    @given(st.lists(st.tuples(st.floats(0, 1e-3), st.integers(64, 9018)), min_size=1, max_size=60),
           st.integers(18000, 1 << 20))
    def never_above_rate_plus_bucket(frames, burst):
        """Over any run the bytes out are at most the bucket plus the rate times the time taken."""
        link = LinkDirection(RATE, 0.0, None, burst_bytes=burst)
        now, sent, first = 0.0, 0.0, None
        for gap, size in frames:
            now += gap
            out = link.send(now, now, wire_s(size))
            first = now if first is None else first
            sent += size + 20
            assert sent <= burst + (out - first) * RATE / 8 + 1e-6 * RATE

    never_above_rate_plus_bucket()


def test_build_scenario_takes_a_bucket():
    from tcpsim.api import build_scenario, predict
    from tcpsim.config import Budget
    from tcpsim.errors import ConfigError

    assert build_scenario(burst="125k").link.burst_bytes == 128000
    assert build_scenario().link.burst_bytes == 0
    with pytest.raises(ConfigError, match="burst"):
        build_scenario(burst="-1")
    r = predict(rate="100mbit", rtt="1ms", sockbuf="1m", burst="64k", budget=Budget(max_sim_time_s=0.2))
    assert 0.9 * 94e6 < r.goodput_bps <= 100e6                      # the bucket never lifts the long-run rate
