"""The pacing rules (tcpsim.protocol.pacing): the rate, and the departure times with their credit."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpsim.protocol.pacing import PACING_CA_RATIO, PACING_SS_RATIO, advance, pacing_rate_Bps, skb_start


def test_the_rate_is_a_multiple_of_the_window_over_srtt_at_most_the_cap():
    assert pacing_rate_Bps(100_000, 50_000, 0.01, True, 0.0) == pytest.approx(100_000 / 0.01 * PACING_SS_RATIO)
    assert pacing_rate_Bps(100_000, 150_000, 0.01, False, 0.0) == pytest.approx(150_000 / 0.01 * PACING_CA_RATIO)
    assert pacing_rate_Bps(100_000, 0, 0.01, False, 1e6) == 1e6          # SO_MAX_PACING_RATE caps it
    assert pacing_rate_Bps(100_000, 0, 0.0, False, 0.0) == 0.0           # no RTT yet, no cap: unlimited
    assert pacing_rate_Bps(100_000, 0, 0.0, False, 5e5) == 5e5           # no RTT yet: the cap


def test_an_skb_leaves_at_its_time_or_now_and_the_lateness_is_credit_from_4_20():
    assert skb_start(2.0, 1.0, True) == (2.0, 0.0)       # ahead of schedule: waits, no credit
    assert skb_start(1.0, 1.5, True) == (1.5, 0.5)       # behind: leaves now, half a second of credit
    assert skb_start(1.0, 1.5, False) == (1.5, 0.0)      # before 4.20: none


def test_credit_takes_back_at_most_half_an_skb():
    at, credit = advance(1.0, 10.0, 1000, 1000.0)       # one second of payload, much credit
    assert (at, credit) == pytest.approx((1.5, 9.5))
    at, credit = advance(1.0, 0.1, 1000, 1000.0)
    assert (at, credit) == pytest.approx((1.9, 0.0))
    assert advance(1.0, 0.3, 1000, 0.0) == (1.0, 0.3)   # no rate: nothing moves


@given(lengths=st.lists(st.integers(1, 65536), min_size=1, max_size=45), credit=st.floats(0.0, 1.0),
       rate=st.floats(1e3, 1e10))
def test_an_skb_booked_a_segment_at_a_time_moves_as_one(lengths, credit, rate):
    """The sender books an aggregate's segments one by one; the kernel books the skb once: the same time."""
    at, left = 0.0, credit
    for n in lengths:
        at, left = advance(at, left, n, rate)
    whole, _ = advance(0.0, credit, sum(lengths), rate)
    assert at == pytest.approx(whole, rel=1e-9, abs=1e-15)
    assert 0.0 <= left <= credit
