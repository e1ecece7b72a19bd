"""A shared uplink: per-flow goodput, Jain's index, drops; plan flows answers how many fit."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpsim.cli import main
from tcpsim.config import Budget
from tcpsim.errors import ConfigError
from tcpsim.uplink import flows_that_fit, jain_index, share_uplink

QUICK = Budget(rel_tol=1e-6, min_sim_time_s=0.0, max_sim_time_s=1.0)


@given(st.lists(st.floats(0, 1e10), min_size=1, max_size=50))
def test_jain_index_lies_between_one_over_n_and_one(rates):
    j = jain_index(rates)
    assert 1 / len(rates) - 1e-9 <= j <= 1 + 1e-9
    assert jain_index([r * 3 for r in rates]) == pytest.approx(j)  # scale-free


def test_jain_index_extremes():
    assert jain_index([5.0] * 8) == pytest.approx(1.0)
    assert jain_index([1.0] + [0.0] * 9) == pytest.approx(0.1)


def test_flows_share_a_bounded_queue():
    s = share_uplink(4, "100mbit", "4ms", queue=20, budget=QUICK)
    assert len(s.flow_goodput_bps) == 4 and s.queue_packets == 20
    assert sum(s.flow_goodput_bps) == pytest.approx(s.goodput_bps)
    assert s.goodput_bps <= 100e6 and s.goodput_bps > 85e6  # four large windows saturate the line
    assert s.drops > 0  # the 20-frame queue overflows
    assert s.jain_index == pytest.approx(jain_index(s.flow_goodput_bps)) and s.jain_index > 0.5
    assert "Jain's index" in s.text


@pytest.mark.parametrize("flows, uplink, rtt, queue, kw", [
    (20, "100mbit", "10ms", None, {"sockbuf": "1M", "budget": None}),  # notebook 07: 98.0 of 94.9 Mbit/s
    (8, "10mbit", "5ms", None, {}),        # read 0.5 % above the line rate goodput before the fix
    (8, "1mbit", "2ms", None, {}),         # 13 % above
    (4, "100mbit", "4ms", 20, {}),
    (8, "100mbit", "1ms", 5, {"os": "linux"}),  # timestamps: 12 option bytes a frame
    (3, "10mbit", "2ms", 10, {"mtu": 9000}),
])
def test_the_flows_together_never_read_above_the_line_rate_goodput(flows, uplink, rtt, queue, kw):
    """Goodput counts bytes read; a window not aligned on frames, or reads in bursts, counted bytes that
    crossed the wire before the window opened. The window is at least the wire time of what was read."""
    from tcpsim.api import build_scenario
    from tcpsim.protocol import framing

    kw = dict(kw)
    budget = kw.pop("budget", QUICK)  # None: the uplink's own 4 s run, as the notebook has it
    s = share_uplink(flows, uplink, rtt, queue, **kw) if budget is None else \
        share_uplink(flows, uplink, rtt, queue, budget=budget, **kw)
    sc = build_scenario(rate=uplink, **kw)
    line = framing.line_goodput_bps(sc.link.rate_bps, sc.link.mtu_bytes,
                                    sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps)
    assert sum(s.flow_goodput_bps) == pytest.approx(s.goodput_bps, rel=1e-12)
    assert s.goodput_bps <= line * (1 + 1e-12), (s.goodput_bps, line)
    assert s.mean_bps * flows <= line * (1 + 1e-12)


def test_how_many_flows_fit():
    a = flows_that_fit("20mbit", uplink="100mbit", rtt="4ms", sockbuf="1M", budget=QUICK)
    assert a.flows == 4  # the line carries 94.9 Mbit/s: four flows of 20 at most, and four get it on average
    assert a.share.n_flows == 4 and a.share.mean_bps >= 20e6
    assert a.reason.startswith("4 flows of 20 Mbit/s fit")
    none = flows_that_fit("200mbit", uplink="100mbit", rtt="4ms", budget=QUICK)
    assert none.flows == 0 and none.tried == (1,) and "not even one" in none.reason


def test_an_answer_on_average_says_when_a_flow_was_starved():
    """The count is the most flows whose average reaches the target; where TCP starved one of them (the slowest
    under half the target) the answer says that fewer fit with an even share required. An unshaped uplink has no
    capacity to plan for."""
    a = flows_that_fit("20mbit", uplink="100mbit", rtt="4ms", sockbuf="1M", budget=QUICK)
    assert (a.share.slowest_bps < 10e6) == ("Not every flow gets it" in a.reason)
    with pytest.raises(ConfigError, match="uplink='0'"):
        flows_that_fit("20mbit", uplink="0", rtt="1ms")


def test_the_uplink_sets_the_stream_count():
    with pytest.raises(ConfigError, match="streams"):
        share_uplink(4, streams=2)
    with pytest.raises(ConfigError, match="flows"):
        share_uplink(0)


def test_cli_plan_flows_json(capsys):
    assert main(["plan", "flows", "--target", "30mbit", "--uplink", "100mbit", "--rtt", "4ms", "--sockbuf", "1M",
                 "--max-time", "1s", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flows"] == 3 and len(out["share"]["flow_goodput_bps"]) == 3 and 0 < out["share"]["jain_index"] <= 1


def test_cli_plan_flows_needs_a_target_and_an_rtt(capsys):
    assert main(["plan", "flows", "--uplink", "1gbit", "--rtt", "20ms"]) == 2
    assert main(["plan", "flows", "--target", "20mbit", "--uplink", "1gbit"]) == 2
    assert "rtt" in capsys.readouterr().err


def test_plot_uplink_share_draws_one_bar_per_flow():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tcpsim.plot import plot_uplink_share
    from tcpsim.uplink import UplinkShare

    rates = (30e6, 20e6, 10e6)
    share = UplinkShare(n_flows=3, uplink_bps=100e6, rtt_s=0.01, queue_packets=80, goodput_bps=sum(rates),
                        flow_goodput_bps=rates, jain_index=jain_index(rates), drops=7, retransmits=7,
                        termination="time_budget", measure_time_s=3.0)
    fig, ax = plt.subplots()
    try:
        assert plot_uplink_share(share, ax=ax) is ax
        assert [p.get_height() for p in ax.patches] == pytest.approx([30, 20, 10])
        assert ax.get_ylabel() == "Goodput (Mbit/s)" and ax.get_ylim()[0] == 0
        assert "Jain's index 0.86" in ax.get_title()
    finally:
        plt.close(fig)
