"""The stopping rule on counters made by hand, apart from any simulation (tcpsim.stopping)."""

import math
import random

import pytest

from tcpsim.stopping import StopRule


def _rule(loss_frac=0.0, binds=True, window_bytes=10_000):
    return StopRule(rel_tol=0.05, loss_frac=loss_frac, min_rto_s=0.2, n_flows=1, rr=False,
                    window_bytes=lambda: window_bytes, window_binds=lambda snap: binds)


def _feed(rule, n, rate=1e6, seg_rate=1000.0, retx_rate=0.0, dt=0.01, seed=0, stop=False):
    """n samples of a counter growing at ``rate`` bytes/s with 2 % noise per interval; the index of the sample
    at which the rule stopped (and, with ``stop``, no sample after it)."""
    rnd = random.Random(seed)
    t = delivered = segs = retx = 0.0
    decided = None
    for i in range(n):
        rule.record((t, int(delivered), int(delivered), int(segs), int(retx)), lambda: {"t": t})
        if decided is None and rule.due() and rule.converged(t):
            decided = i
            if stop:
                break
        t += dt
        delivered += rate * dt * (1 + 0.02 * rnd.uniform(-1, 1))
        segs += seg_rate * dt
        retx += retx_rate * dt
    return decided


def test_a_steady_lossless_counter_converges_with_a_narrow_interval():
    rule = _rule()
    decided = _feed(rule, 400)
    assert decided == 39  # at the first decision: forty samples, steady from the start
    assert rule.halfwidth is not None and 0 < rule.halfwidth <= 0.05 * 1e6


def test_a_span_short_against_the_windows_does_not_stop():
    """Four windows' worth of bytes must pass in the span: a 1 MB window at 1 MB/s needs four seconds."""
    assert _feed(_rule(window_bytes=1_000_000), 300) is None


def test_a_lossy_counter_waits_for_twenty_losses_in_its_span():
    """At 1 % of 200 segments/s the span sees two losses a second: twenty need ten seconds of span, where the
    same counter without loss stops after forty samples (0.4 s)."""
    rule = _rule(loss_frac=0.01)
    assert _feed(rule, 2000, seg_rate=200.0, stop=True) is not None
    first, last = rule.samples[rule.cut], rule.samples[-1]
    assert (last[3] - first[3]) * 0.01 >= 20 and last[0] - first[0] >= 10.0


def test_the_record_is_thinned_and_its_spacing_doubles():
    rule = _rule()
    rule.gap_s = 0.01
    for i in range(2049):
        rule.record((i * 0.01, i, i, i, 0), lambda: {})
    assert len(rule.samples) == 1025 and rule.gap_s == pytest.approx(0.02)
    assert all(s is not None for s in rule.snaps[::5])  # every MSER batch boundary keeps its snapshot


@pytest.mark.parametrize("binds", [True, False])
def test_where_the_window_binds_the_interval_holds_the_loss_count_spread(binds):
    rule = _rule(loss_frac=0.01, binds=binds)
    _feed(rule, 300, seg_rate=1000.0)  # 3 s, about 30 losses: never converges on its own (10 RTOs' span)
    rule.settle()
    first, last = rule.samples[rule.cut], rule.samples[-1]
    k = (last[3] - first[3]) * 0.01
    rate = (last[1] - first[1]) / (last[0] - first[0])
    floor = rate * 1.96 / (2 * math.sqrt(k))
    assert (rule.halfwidth >= floor * 0.999) is binds


def test_the_stall_share_is_added_to_a_lossy_interval():
    """Retransmissions lost again at 1 %: 50 a second over the span expect 0.5 timeouts of 0.2 s a second,
    a tenth of the time, so the stated half-width is at least a tenth of the rate."""
    rule = _rule(loss_frac=0.01, binds=False)
    _feed(rule, 300, retx_rate=50.0)
    rule.settle()
    assert rule.halfwidth >= 0.1 * 1e6 * 0.999


def test_a_run_whose_windows_still_rise_does_not_stop():
    """A steady counter stops at its first decision, but not while the engine says the windows rose at every
    batch boundary of the span (validation/README.md, "A run does not stop while its windows still rise")."""
    rising = StopRule(rel_tol=0.05, loss_frac=0.0, min_rto_s=0.2, n_flows=1, rr=False, window_bytes=lambda: 10_000,
                      window_binds=lambda snap: True, windows_rising=lambda snaps: len(snaps) >= 3)
    assert _feed(rising, 400) is None
    assert _feed(_rule(), 400) == 39


# --- the simulated-time budget a run is given when its Budget leaves it to the rule ---------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tcpsim.stopping import MAX_AUTO_SIM_TIME_S, sim_time_needed_s  # noqa: E402


def _needed(rtt_s=100e-6, goodput_bps=1e9, loss_frac=0.0, n_flows=1, finite_bits=None):
    return sim_time_needed_s(rtt_s=rtt_s, goodput_bps=goodput_bps, segment_bytes=1448, loss_frac=loss_frac,
                             n_flows=n_flows, finite_bits=finite_bits)


def test_a_short_clean_path_keeps_the_five_seconds_it_always_had():
    assert _needed() == 5.0


def test_a_long_path_gets_five_hundred_round_trips():
    assert _needed(rtt_s=0.6) == pytest.approx(300.0)


def test_a_lossy_path_gets_time_for_the_losses_the_rule_waits_for():
    # 9.4 Mbit/s at 0.1 % loss is 0.81 losses a second; the rule waits for 4 + 20, twice over.
    assert _needed(rtt_s=0.05, goodput_bps=9.4e6, loss_frac=1e-3) == pytest.approx(2 * 24 / (1e-3 * 9.4e6 / 8 / 1448))


def test_a_finite_transfer_gets_twice_its_time_at_the_bound():
    assert _needed(goodput_bps=1e7, finite_bits=8e9) == pytest.approx(2 * 800.0 + 40 * 100e-6)


def test_the_budget_by_the_rule_is_at_most_an_hour():
    assert _needed(rtt_s=0.6, goodput_bps=1e3, loss_frac=0.01) == MAX_AUTO_SIM_TIME_S  # 15 h of losses


@settings(max_examples=200, deadline=None)
@given(rtt=st.floats(1e-6, 2.0), rate=st.floats(1e4, 1e11), loss=st.just(0.0) | st.floats(1e-9, 0.5),
       flows=st.integers(1, 64), factor=st.floats(1.0, 100.0))
def test_the_budget_grows_with_the_round_trip_and_as_the_rate_or_the_losses_fall(rtt, rate, loss, flows, factor):
    base = _needed(rtt_s=rtt, goodput_bps=rate, loss_frac=loss, n_flows=flows)
    assert 5.0 <= base <= MAX_AUTO_SIM_TIME_S
    assert _needed(rtt_s=rtt * factor, goodput_bps=rate, loss_frac=loss, n_flows=flows) >= base
    assert _needed(rtt_s=rtt, goodput_bps=rate / factor, loss_frac=loss, n_flows=flows) >= base
    assert _needed(rtt_s=rtt, goodput_bps=rate, loss_frac=loss / factor, n_flows=flows) >= base  # rarer losses
