"""Every run ends by its budgets, whatever the scenario: no stall at one simulated instant, Ctrl-C honoured."""

import os
import signal
import threading
import time

import pytest

from tcpsim.api import build_scenario, simulate
from tcpsim.components.app import MAX_CALLS_PER_INSTANT
from tcpsim.config import Budget
from tcpsim.engine import _Run


@pytest.mark.parametrize("kw", [dict(message=1, sockbuf="1G"), dict(message=1, sockbuf="1G", nodelay=True)])
def test_tiny_writes_into_a_huge_buffer_end_by_the_event_budget(kw):
    """1-byte writes into a 1 GB buffer on an ideal host used to loop at t = 0 with no event, so no budget
    was ever checked (issue 24: 451 s against 60). Now they end by a budget of a few thousand events."""
    sc = build_scenario(budget=Budget(max_events=3000, max_wall_s=60), **kw)
    r = _Run(sc)
    result = r.run()
    assert result.termination == "event_budget"
    for _d, _s, snd, rcv, reader in r.flows:  # the run moved data, in order, no more than written
        assert reader.delivered_bytes <= rcv.rcv_nxt <= snd.snd_max <= snd.written
        assert snd.snd_max > 0


def test_writes_the_window_only_queues_are_handed_over_at_once_and_counted():
    """On an ideal host the writes TCP would only queue go over as one batch: the buffer fills at t = 0 in
    a few events, and every write is still counted as a call."""
    sc = build_scenario(message=1, sockbuf="1M", budget=Budget(max_events=200))
    r = _Run(sc)
    r.run()
    writer = r.writers[0]
    snd = r.flows[0][2]
    assert writer.calls == snd.written  # one call per byte
    assert snd.written >= snd.sndbuf - 2 * snd.mss  # the buffer was filled, within 200 events


@pytest.mark.parametrize("kw", [dict(os="linux", write="10"), dict(os="linux-6.12", write="7", mtu=9000),
                                dict(os="linux-4.19", write="10", sockbuf="16k")])
def test_handing_writes_over_at_once_changes_nothing_but_the_wall_time(kw, monkeypatch):
    """A Linux writer of whole skbs fills the unsent tail skb past the free space; its writes in a row are
    handed over as one batch too (``Writer._whole_skb_room``). Against the same run with every call made
    one by one (and no yield between calls, which would reorder events at one instant): the same answer."""
    from tcpsim.components import app

    sc = build_scenario(budget=Budget(max_sim_time_s=0.004, min_sim_time_s=0.004), **kw)
    monkeypatch.setattr(app, "MAX_CALLS_PER_INSTANT", 10**9)
    batched = simulate(sc)
    monkeypatch.setattr(app.Writer, "_absorb_writes", lambda self: None)
    one_by_one = simulate(sc)
    assert (batched.goodput_bps, batched.sim_time_s, batched.payload_histogram) == \
        (one_by_one.goodput_bps, one_by_one.sim_time_s, one_by_one.payload_histogram)


def test_a_burst_of_calls_at_one_instant_yields_to_the_event_loop():
    """Solaris keeps each message whole, so its writes are not batched: they yield to the loop instead."""
    sc = build_scenario(message=1, sockbuf="1M", os="solaris", budget=Budget(max_events=100))
    r = _Run(sc)
    result = r.run()
    assert result.termination == "event_budget"
    assert r.writers[0].calls <= 100 * MAX_CALLS_PER_INSTANT


def test_ctrl_c_reaches_the_event_loop_within_a_second():
    """SIGINT during a run raises KeyboardInterrupt promptly (the compiled loop calls a Python function with
    each clock read, where the interpreter runs the handler)."""
    sc = build_scenario(message=1, sockbuf="1G", os="solaris", budget=Budget(max_wall_s=30, max_sim_time_s=3600,
                                                                              max_events=1 << 40))
    # Python's own Ctrl-C handler, whatever this process inherited (a background job ignores SIGINT).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            simulate(sc)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - t0 < 0.5 + 1.0


def test_windows_that_would_not_fit_in_memory_are_refused_up_front():
    """1000 streams of 28-byte segments in 64 KB windows: 2.3 million segments in flight (1.1 GB, issue 24)."""
    from tcpsim.config import MAX_TRACE_SEGMENTS
    from tcpsim.engine import MAX_SEGMENTS_IN_FLIGHT, segments_in_flight_max
    from tcpsim.errors import ConfigError

    sc = build_scenario(streams=1000, mtu=68)
    assert segments_in_flight_max(sc) > MAX_SEGMENTS_IN_FLIGHT
    with pytest.raises(ConfigError, match="streams=1000.*in flight"):
        simulate(sc)
    assert segments_in_flight_max(build_scenario(sockbuf="1G")) <= MAX_SEGMENTS_IN_FLIGHT  # one stream: runs
    with pytest.raises(ConfigError, match="trace_limit"):
        Budget(trace_limit=MAX_TRACE_SEGMENTS + 1)


def test_the_cli_refuses_them_in_one_line(capsys):
    from tcpsim.cli import main

    assert main(["predict", "--streams", "1000", "--mtu", "68"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "streams=1000" in err


def test_the_wall_budget_ends_a_run_within_a_second_even_when_events_are_slow():
    """The clock used to be read every 16,384 events (92.6 s against 60); now from the 16th event on, and
    more often while events are slow."""
    from tcpsim.components.kernel import BudgetExhausted, Kernel

    kernel = Kernel(max_events=1 << 40, max_wall_s=0.2)

    def slow() -> None:
        time.sleep(0.002)
        kernel.call_in(1e-6, slow)

    kernel.call_in(0.0, slow)
    t0 = time.perf_counter()
    with pytest.raises(BudgetExhausted, match="wall_budget"):
        kernel.run()
    assert time.perf_counter() - t0 < 0.2 + 0.1


def test_a_gigabyte_of_one_byte_writes_ends_by_its_wall_budget():
    sc = build_scenario(message=1, sockbuf="1G", budget=Budget(max_wall_s=0.5, max_events=1 << 40,
                                                               max_sim_time_s=3600))
    t0 = time.perf_counter()
    result = simulate(sc)
    assert result.termination == "wall_budget"
    assert time.perf_counter() - t0 < 0.5 + 1.0


def test_a_run_whose_events_turn_slow_still_ends_by_its_wall_budget():
    """Found by the fuzz campaign: a thousand quick events stretched the clock reads to every 1,024 events,
    then each event became a burst of 4,096 one-byte Solaris writes; the run took 4.7 s against 2. The other
    budgets are out of reach, so only the wall budget can end it on any machine (the compiled build of
    2026-11-28 ran the fuzz case's 10 ms of simulated time in 0.49 s, a hair under its 0.5-s wall budget)."""
    sc = build_scenario(rate="1gbit", rtt="200ms", mtu=576, streams=2, nodelay=True, loss=1e-4, seed=110,
                        sockbuf="16M", message="1", os="solaris",
                        budget=Budget(max_sim_time_s=60.0, max_events=10_000_000, max_wall_s=0.5))
    t0 = time.perf_counter()
    assert simulate(sc).termination == "wall_budget"
    assert time.perf_counter() - t0 < 0.5 + 1.0


def test_a_satellite_path_runs_past_slow_start_by_default():
    """600 ms at 50 Mbit/s with 4 MB buffers: a fixed 5 s budget (eight round trips) ended inside slow start at
    1.6 Mbit/s, +-129 %; the budget by the scenario (500 round trips) lets it converge at the line."""
    r = simulate(build_scenario(rate="50mbit", rtt="600ms", sockbuf="4M"))
    assert r.termination == "converged"
    assert r.goodput_bps > 0.95 * 47.5e6


def test_a_lossy_wan_path_is_given_time_for_its_losses():
    """50 ms, 0.1 % loss: some 50 losses need a minute of simulated time, not the 5 s a fixed budget gave."""
    sc = build_scenario(rate="1gbit", rtt="50ms", loss=1e-3, os="linux-6.8")
    assert sc.budget.max_sim_time_s is None
    r = simulate(sc)
    assert r.sim_time_s > 30.0
    assert r.retransmits >= 24


def test_an_explicit_simulated_time_budget_still_binds():
    r = simulate(build_scenario(rate="50mbit", rtt="600ms", sockbuf="4M", budget=Budget(max_sim_time_s=5.0)))
    assert r.termination == "time_budget" and r.sim_time_s == pytest.approx(5.0)


def test_a_run_that_converged_within_five_seconds_is_the_same_run():
    """The budget by the scenario spaces the samples as the fixed 5 s default did: 100 ms at the line converged
    at 2 s then and does now, to the same figures."""
    sc = build_scenario(rtt="100ms", sockbuf="16M")
    by_rule, fixed = simulate(sc), simulate(sc.replace(budget=Budget(max_sim_time_s=5.0)))
    assert by_rule.termination == fixed.termination == "converged"
    assert by_rule.to_dict()["goodput_bps"] == fixed.to_dict()["goodput_bps"]
    assert by_rule.events == fixed.events


@pytest.mark.parametrize("flags, budget, flag", [
    (["--max-events", "2000"], "event", "--max-events"),
    (["--max-time", "1ms"], "simulated-time", "--max-time"),
])
def test_a_budget_that_ends_a_run_is_named_with_the_flag_that_gives_more(capsys, flags, budget, flag):
    from tcpsim.cli import main

    assert main(["predict", "--rtt", "10ms", "--sockbuf", "1M", *flags]) == 0
    out = capsys.readouterr().out
    assert f"the {budget} budget ended the run" in out and f"allow more ({flag})" in out


@pytest.mark.parametrize("flags, field", [(["--max-events", "50"], "max_events"), (["--max-wall", "0s"], "max_wall"),
                                          (["--max-events", "lots"], "max_events")])
def test_a_budget_flag_out_of_range_is_one_line(capsys, flags, field):
    from tcpsim.cli import main

    assert main(["predict", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err


def test_the_budget_flags_reach_the_run():
    from tcpsim.cli import _parser, _scenario_kwargs

    a = _parser().parse_args(["predict", "--max-events", "1234", "--max-wall", "2s", "--max-time", "3s"])
    budget = _scenario_kwargs(a)["budget"]
    assert (budget.max_events, budget.max_wall_s, budget.max_sim_time_s) == (1234, 2.0, 3.0)
