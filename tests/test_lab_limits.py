"""The limit a pinned lab run measured, where its CPU shares make it plain, and the prediction's named limit scored
against it (validation/README.md, "The limit tcpsim names, scored where the kernel's is plain")."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from tcpsim.lab.limits import LimitCheck, limit_summary, measured_limit, pinned_busy


def test_the_busier_side_limits_only_when_saturated_and_plainly_busier():
    assert measured_limit((0.91, 0.35)) == "cpu_sender"
    assert measured_limit((0.35, 0.91)) == "cpu_receiver"
    assert measured_limit((0.80, 0.60)) == "cpu_sender"        # both thresholds met exactly
    assert measured_limit((0.79, 0.40)) is None                # busier, but a fifth idle
    assert measured_limit((0.91, 0.72)) is None                # both busy: the shares do not say
    assert measured_limit((0.30, 0.10)) is None                # neither busy (a shaped link, a window)
    assert measured_limit(None) is None


@given(st.floats(0, 1), st.floats(0, 1))
def test_swapping_the_sides_swaps_the_limit_and_never_names_both(a, b):
    swap = {"cpu_sender": "cpu_receiver", "cpu_receiver": "cpu_sender", None: None}
    assert measured_limit((b, a)) == swap[measured_limit((a, b))]


def test_pinned_busy_reads_the_two_pinned_cpus_in_the_senders_order():
    shares = {"cpu0": {"idle": 0.1}, "cpu1": {"idle": 0.6}, "cpu2": {"idle": 0.0}}
    assert pinned_busy(shares, [0, 1]) == pytest.approx((0.9, 0.4))
    assert pinned_busy(shares, [1, 0]) == pytest.approx((0.4, 0.9))
    assert pinned_busy(shares, None) is None                   # not pinned
    assert pinned_busy(shares, [0, 0]) is None                 # both tools on one CPU: no side apart
    assert pinned_busy(shares, [0, 3]) is None                 # a CPU not recorded
    assert pinned_busy({"cpu0": {"idle": 1.5}, "cpu1": {"idle": 0.1}}, [0, 1]) is None


def test_the_summary_counts_decided_runs_and_shows_each_miss_with_both_sides():
    checks = [LimitCheck("a", (0.35, 0.91), "cpu_receiver", "cpu_sender", (0.99, 0.79)),
              LimitCheck("b", (0.95, 0.50), "cpu_sender", "cpu_sender", (1.0, 0.4)),
              LimitCheck("c", (0.90, 0.85), None, "line", (0.5, 0.5))]
    assert [c.agrees for c in checks] == [False, True, None]
    lines = limit_summary(checks)
    assert lines[0].startswith("the limit named: 1 of 2 pinned runs") and "1 not decided" in lines[0]
    assert len(lines) == 2 and lines[1].startswith("  a: measured the receiver's CPU (sender 35%, receiver 91%), "
                                                   "predicted the sender's CPU (sender 99%, receiver 79%)")
    assert limit_summary([]) == []


@pytest.mark.parametrize("record,cautioned", [("1 of 16", True), ("2 of 3", True), ("3 of 3", False),
                                              (None, False), ("three of 3", False), ("4 of 3", False)])
def test_predict_cautions_where_a_fit_named_the_limiting_cpu_wrongly(record, cautioned):
    """A machine file ``calibrate --lab`` fitted records how often it named the pinned runs' limiting CPU; where it
    missed some, the answer says so beside its goodput (tcpsim.confidence.host_cautions)."""
    from dataclasses import replace

    from tcpsim.api import build_scenario
    from tcpsim.confidence import cautions, limits_named_rightly
    from tcpsim.profiles import load_platform

    base = load_platform("lab_vm")
    fit = dict(base.fit) | ({} if record is None else {"limits_named_rightly": record})
    host = replace(base, name="mine", fit=tuple(fit.items()))
    lines = [c for c in cautions(build_scenario(platform=host, rate=0, rtt=0, write="110"))
             if "limiting CPU" in c]
    assert len(lines) == cautioned
    if cautioned:
        right, decided = limits_named_rightly(host)
        assert lines[0].startswith("mine: ") and f"rightly on {right} of the {decided} pinned" in lines[0]


@pytest.mark.parametrize("first_gap_s,kind,cautioned", [(1e-4, "rr", True), (1e-5, "rr", False), (1e-4, "bulk", False),
                                                        (None, "rr", False)])
def test_predict_cautions_a_request_response_answer_whose_latency_lacks_short_idles(first_gap_s, kind, cautioned):
    """Rule 161: a transaction's wake-ups come after short idles; a table measured from 0.1 ms prices them at a few
    microseconds where the tenth machine's VM spent 24-32 (tcpsim.confidence.host_cautions)."""
    from dataclasses import replace

    from tcpsim.api import build_scenario
    from tcpsim.confidence import cautions
    from tcpsim.profiles import load_platform

    base = load_platform("lab_vm")
    late = () if first_gap_s is None else ((first_gap_s, 3e-5), (1e-3, 5e-5))
    host = replace(base, name="mine", cpu=replace(base.cpu, wake_latency_s=late))
    kw = {"rr": "64"} if kind == "rr" else {"write": "64k"}
    lines = [c for c in cautions(build_scenario(platform=host, rate=0, rtt=0, **kw)) if "wake-up latency" in c]
    assert len(lines) == cautioned
    if cautioned:
        assert lines[0].startswith("mine: ") and "machine detect --probes --spin" in lines[0]
