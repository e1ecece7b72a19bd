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
