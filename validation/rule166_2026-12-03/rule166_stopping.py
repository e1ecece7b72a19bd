"""When a run has its answer, and how sure it is: the stopping rule of :mod:`tcpsim.engine`.

The engine samples cumulative counters at equal intervals after a warm-up; :class:`StopRule` keeps them
(thinned past a bound, so the record stays short however long the run), asks :mod:`tcpsim.steady` where
the transient ends (MSER-5) and how precise the mean since then is (batch means), and says when the run
may stop: the 95 % interval within ``Budget.rel_tol`` of the mean, the span long against the windows and not
a steady rise of them, and on a lossy link only once the span has seen some twenty random losses (where they can
move the rate: :meth:`StopRule.loss_cost_bound`) and, where their timeouts matter, five retransmissions lost again.
It also states the interval a run ends with, whichever way it ended.

Pure bookkeeping on numbers the engine hands over: no simulation objects, so the rule can be read (and
tested) apart from the wiring.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

from . import steady

__all__ = ["StopRule", "sim_time_needed_s", "losses_needed", "lossy_interval_caution", "MAX_AUTO_SIM_TIME_S",
           "SAMPLING_PLAN_S"]

_SWING_FACTOR = 4.0
_MIN_SAMPLES = 40
"""Samples before the first decision: eight MSER batches, the first half of which may be cut."""
_MIN_KEPT = 2 * steady.N_BATCHES
_MAX_SAMPLES = 2048
_CHECK_GROWTH = 1.1
_MIN_LOSSES_KEPT = 2 * steady.N_BATCHES
"""Random losses the measured span must expect before a lossy run may stop: one cycle of the congestion
window's sawtooth per loss (Mathis et al. 1997), so each batch of the batch-means interval holds a few."""
_TRANSIENT_LOSSES = 4
"""Random losses per stream after which a lossy run's warm-up is over: slow start ends at the first, and each
later one halves the congestion window, so after four the window is within a sixteenth of its sawtooth."""
_MIN_LOST_RETRANSMITS = 5
"""Retransmissions lost again (each one a retransmission timeout) the measured span must expect before a lossy
run may stop, when such timeouts matter: one in half the batches of the interval, and none seen at all only
once in 150 runs (Poisson)."""

SAMPLING_PLAN_S = 5.0
"""The least simulated time a run is given when its budget leaves it to the rule (``Budget.max_sim_time_s`` None):
the fixed default before the budget followed the scenario. Its samples are spaced as for a run of at most this
long (:meth:`tcpsim.engine._Run.run`), so what converged within it converges as before, no later."""
_ROUND_TRIPS_NEEDED = 500
"""Round trips a run is given at least: slow start, the windows' growth, a warm-up and the rule's forty samples
(the engine spaces them up to five round trips apart) each need their share."""
MAX_AUTO_SIM_TIME_S = 3600.0
"""At most this much simulated time by the rule (``Budget``'s own bound); the event and wall budgets still apply."""

Sample = tuple[float, int, int, int, int]
"""(time_s, bytes delivered, bytes sent, data segments sent, retransmissions): cumulative, all streams."""


def losses_needed(n_flows: int) -> int:
    """Random losses a lossy run waits for before it may stop: the warm-up's per flow and the measured span's."""
    return _MIN_LOSSES_KEPT + _TRANSIENT_LOSSES * n_flows


def sim_time_needed_s(*, rtt_s: float, goodput_bps: float, segment_bytes: int, loss_frac: float, n_flows: int,
                      finite_bits: Optional[float] = None) -> float:
    """The simulated time a run needs before :class:`StopRule` can stop it, from what is known before it starts:
    its round trip, a bound on its goodput (the least closed-form ceiling, or Mathis et al.'s rate on a lossy
    link) and its segments' payload. At least 5 s and 500 round trips; on a lossy link, time for the random
    losses the rule waits for twice over (the transient's four per flow and the span's twenty, at that rate:
    MSER may cut up to half the run); for a finite transfer, twice its bytes at that rate. At most an hour.

    It is the default of ``Budget.max_sim_time_s``: a fixed 5 s cut a satellite path (600 ms) off inside slow
    start and a lossy WAN path after a handful of losses, each with an answer far from the long run's."""
    need = max(SAMPLING_PLAN_S, _ROUND_TRIPS_NEEDED * rtt_s)
    if goodput_bps > 0.0 and math.isfinite(goodput_bps):
        segments_per_s = goodput_bps / (8.0 * max(segment_bytes, 1))
        if loss_frac > 0.0:
            losses = losses_needed(n_flows)
            need = max(need, 2.0 * losses / loss_frac / segments_per_s)  # a product could underflow to 0
        if finite_bits:
            need = max(need, 2.0 * finite_bits / goodput_bps + 40 * rtt_s)
    return min(need, MAX_AUTO_SIM_TIME_S)


def lossy_interval_caution(loss_frac: float, limited_by: str, halfwidth_bps: Optional[float],
                           expected_losses: float = math.inf) -> str:
    """What a lossy run's stated interval cannot hold, where the line limits it (empty otherwise). The rate sits at
    the line through most losses, and the long-run mean also pays for rarer clusters of losses that take cwnd below
    the path; a run that drew none states a narrow interval above that mean, and nothing in its own samples can widen
    it. Over 40 seeds each (2026-12-01; 100 Mbit/s at 2 ms with 0.03 and 0.1 % loss, 1 Gbit/s at 1 ms with 0.01 %,
    CUBIC, and Reno at 0.1 %) the interval held the mean over seeds 30-33 times; 40 at 10 Mbit/s with 0.3 % loss,
    where such clusters come often, and 38-40 on the paths whose windows bind (``tests/test_interval_coverage.py``).
    A run whose measured span expected fewer losses than the rule waits for stopped because they cannot move its rate
    (:meth:`StopRule.loss_cost_bound`), whose bound its interval already holds: no caution."""
    if not (loss_frac > 0.0 and limited_by == "line" and halfwidth_bps is not None
            and expected_losses >= _MIN_LOSSES_KEPT):
        return ""
    return ("the line limits this lossy run, and its interval holds only the losses it drew: rarer clusters that take "
            "cwnd below the path lower the long-run mean, and at 0.01-0.1 % loss such intervals held it 30-33 times of "
            "40 seeds; for the spread, run several (tcpsim sweep ... --seed 0..4)")


class StopRule:
    """The samples of one run and the rule that decides when they hold its answer.

    ``window_bytes`` gives what the windows can hold at once (a swing of that much must not move the
    estimate); ``window_binds(snapshot)`` says whether, since that snapshot, the congestion windows set the
    rate rather than the line (the engine's binding rule); ``windows_rising(snapshots)`` whether the
    windows rose at every one of those batch boundaries while the line was not full (a transient that the
    rate's own statistics miss in a noisy rate: validation/README.md, "A run does not stop while its
    windows still rise").
    """

    def __init__(self, *, rel_tol: float, loss_frac: float, min_rto_s: float, n_flows: int, rr: bool,
                 window_bytes: Callable[[], int], window_binds: Callable[[dict], bool],
                 windows_rising: Callable[[list[dict]], bool] = lambda snaps: False, stall_s: float = math.inf) -> None:
        self.rel_tol = rel_tol
        self.loss_frac = loss_frac
        self.min_rto_s = min_rto_s
        self.stall_s = stall_s
        """The longest a loss can leave a sender waiting on a timer without a second loss (the engine's
        :func:`tcpsim.engine.loss_stall_s`); infinite: every loss is felt, as before rule 166."""
        self.n_flows = n_flows
        self.rr = rr
        self._window_bytes = window_bytes
        self._window_binds = window_binds
        self._windows_rising = windows_rising
        self.samples: list[Sample] = []
        self.snaps: list[Optional[dict]] = []
        """The full snapshot where the warm-up can end (every MSER batch), None between."""
        self.gap_s = 0.0
        """Spacing of the samples; the engine sets the first, and it doubles whenever the record is thinned."""
        self.next_check = _MIN_SAMPLES
        self.cut = 0
        """Index of the first measured sample (the end of the warm-up), once decided."""
        self.halfwidth: Optional[float] = None
        """The stated 95 % half-width of the delivered-bytes rate, once decided."""

    def record(self, sample: Sample, snapshot: Callable[[], dict]) -> None:
        """Keep ``sample``, with the full snapshot where the warm-up can end. Past ``_MAX_SAMPLES`` every other
        one goes and the spacing doubles (sample 2j becomes sample j, so a multiple of the MSER batch still has
        its snapshot)."""
        samples, snaps = self.samples, self.snaps
        samples.append(sample)
        snaps.append(snapshot() if (len(samples) - 1) % steady.MSER_BATCH == 0 else None)
        if len(samples) > _MAX_SAMPLES:
            del samples[1::2], snaps[1::2]
            self.gap_s *= 2
            self.next_check = len(samples) + 1

    def due(self) -> bool:
        """Enough new samples since the last decision to decide again (checks at geometric intervals)."""
        return len(self.samples) >= self.next_check

    def estimate(self) -> steady.Estimate:
        samples = self.samples
        max_cut = None
        if self.loss_frac:
            # Random loss: the windows forget slow start within a few loss cycles per stream; past that,
            # a deep dip is a retransmission timeout of the steady state, not warm-up, and stays measured.
            forgotten = _TRANSIENT_LOSSES * self.n_flows / self.loss_frac  # data segments since the start
            max_cut = next((i for i, s in enumerate(samples) if s[3] >= forgotten), len(samples))
        return steady.estimate([s[0] for s in samples], [s[1] for s in samples], max_cut=max_cut)

    def converged(self, now: float) -> bool:
        """Whether the steady-state estimate is precise enough to stop (see :mod:`tcpsim.steady`); when it is,
        :attr:`cut` and :attr:`halfwidth` hold the answer's."""
        samples, loss_frac, min_rto_s = self.samples, self.loss_frac, self.min_rto_s
        self.next_check = max(len(samples) + 1, int(len(samples) * _CHECK_GROWTH))
        est = self.estimate()
        n_rates = len(samples) - 1
        if est.rate <= 0 or n_rates - est.start < _MIN_KEPT or est.start > n_rates // 2 - steady.MSER_BATCH:
            return False  # nothing moves yet, or the transient may not be over
        if est.halfwidth > self.rel_tol * est.rate:
            return False
        span_s = now - samples[est.start][0]
        if not self.rr:
            # Bytes in flight and in buffers can swing by up to the windows: the span must be long
            # enough that such a swing moves the estimate by a few percent at most, and data sent
            # and delivered over it must agree as closely as the interval asks, 2 % at least (the
            # pipeline is not still filling or draining: interface-byte rates would read high).
            if span_s * est.rate < _SWING_FACTOR * self._window_bytes():
                return False
            sent_rate = (samples[-1][2] - samples[est.start][2]) / span_s
            if abs(sent_rate - est.rate) > max(self.rel_tol, 0.02) * est.rate:
                return False
            if self._windows_rising([snap for snap in self.snaps[est.start:] if snap is not None]):
                return False  # cwnd still grows in a rate the line does not cap: not the steady state yet
        felt = loss_frac and self.loss_cost_bound(est.start) >= self.rel_tol / 2
        if felt and span_s < steady.N_BATCHES * min_rto_s:
            # A retransmission timeout stalls a stream for an RTO or more, rarely but at great cost: each
            # batch of the interval must be long enough to hold one, or runs that happened to see none
            # stop early with an interval that misses the long-run mean (issue 24).
            return False
        if felt and (samples[-1][3] - samples[est.start][3]) * loss_frac < _MIN_LOSSES_KEPT:
            # Random loss: between two losses the rate climbs steadily and looks converged; the
            # average needs many loss cycles, however smooth the span without them.
            return False
        if loss_frac:
            # A retransmission is lost again with the same probability, and without RACK (RFC 8985; modelled for
            # Linux 4.18 on, components/rack.py, which finds most such losses itself) only the retransmission timer
            # finds that loss (RFC 6298 5.5; Linux tcp_retransmit_timer): a stall of an RTO or more, rare and
            # costly. Where such stalls can move the mean by more than half the tolerance, the span must expect a
            # few of them, or a run that happened to see none states a narrow interval above the long-run mean
            # (issue 24: 11 of 20 intervals held it at 1 % loss). The rule waits on every stack alike, which only
            # lengthens a RACK run.
            lost_again = (samples[-1][4] - samples[est.start][4]) * loss_frac
            if lost_again * min_rto_s > self.rel_tol / 2 * span_s and lost_again < _MIN_LOST_RETRANSMITS:
                return False
        self.cut, self.halfwidth = est.start, self._stated_halfwidth(est)
        return True

    def settle(self) -> None:
        """A run that ended another way (a budget, its last event): its answer from the samples it has."""
        if len(self.samples) >= 2:
            est = self.estimate()
            self.cut, self.halfwidth = est.start, self._stated_halfwidth(est)

    def loss_cost_bound(self, start: int) -> float:
        """At most the fraction of the rate random losses cost, from the samples since ``start`` (rules 165 and
        166, validation/README.md, "A lossy run stops without waiting for losses its rate cannot feel, a stall
        counted for every loss").

        A loss halves a flight of W segments, which regrows by one MSS a round trip (RFC 5681 3.1-3.2, RFC 6582):
        about W^2 / 8 segments unsent, a fraction p W^2 / 8 of the rate at loss probability p, bounded four times
        over (delayed ACKs without byte counting halve the growth). And each loss may leave the sender waiting on
        a timer, :attr:`stall_s`: a timeout, or the delayed ACK of the one segment NewReno's deflation leaves when
        nothing is in flight (RFC 3782; rule 166's path a). W is the largest sent-but-unread of the span (all
        streams: at least any one's), in the span's bytes per segment. Infinite where the samples cannot say
        (request/response counts transactions, not bytes)."""
        span = self.samples[start:]
        first, last = span[0], span[-1]
        segments, span_s = last[3] - first[3], last[0] - first[0]
        if self.rr or segments <= 0 or span_s <= 0 or last[2] <= first[2]:
            return math.inf
        w = max(s[2] - s[1] for s in span) * segments / (last[2] - first[2])
        return self.loss_frac * (w * w / 2.0 + segments / span_s * self.stall_s)

    def _stated_halfwidth(self, est: steady.Estimate) -> float:
        """The batch means' half-width, plus on a lossy path what the span should expect of its losses and may not
        have seen. A retransmission lost again waits for the timer (an RTO or more), rare and costly: a span that saw
        none reads high by about their expected share of its time, a bias no batch-means interval can show, so
        it is added to the half-width (not in quadrature: at 100 Mbit/s, 0.1 % loss, added it held the mean over
        seeds 18 times of 20, in quadrature 15). A span that expected fewer random losses than the rule waits for
        where they are felt reads high by at most :meth:`loss_cost_bound`, which is added likewise."""
        samples = self.samples
        if not self.loss_frac or len(samples) < 2:
            return est.halfwidth
        first, last = samples[est.start], samples[-1]
        span_s = last[0] - first[0]
        if span_s <= 0:
            return est.halfwidth
        lost_again = (last[4] - first[4]) * self.loss_frac
        share = lost_again * self.min_rto_s / span_s
        if (last[3] - first[3]) * self.loss_frac < _MIN_LOSSES_KEPT:
            share += self.loss_cost_bound(est.start)
        hw = est.halfwidth + est.rate * (share if share < 1.0 else 1.0)
        return max(hw, self._loss_count_halfwidth(est, first, last))

    def _loss_count_halfwidth(self, est: steady.Estimate, first: Sample, last: Sample) -> float:
        """Where the congestion window binds, the rate follows the losses the span happened to draw (about
        1 / sqrt(loss rate), Mathis et al. 1997): a Poisson count k moves it by 1 / (2 sqrt(k)) (one sd).
        Over a span of a few dozen losses the batch means, two or three loss cycles each, judge that spread
        from too few cycles; this is the least the interval can be where the windows bind."""
        k = (last[3] - first[3]) * self.loss_frac
        snap0 = self.snaps[est.start]
        if k <= 0 or snap0 is None or not self._window_binds(snap0):
            return 0.0  # the line (or something else) sets the rate, not the losses drawn
        return est.rate * 1.96 / (2.0 * math.sqrt(k))  # the normal 95 % quantile: the sd is the model's
