"""Result.timeseries (opt-in): bounded, equally spaced, consistent, and it does not change the answer."""

import dataclasses

import pytest

import tcpsim
from tcpsim.config import Budget
from tcpsim.errors import ConfigError


@pytest.fixture(scope="module")
def pair():
    sc = tcpsim.build_scenario(rtt="10ms", sockbuf="256k")
    traced = sc.replace(budget=dataclasses.replace(sc.budget, record_timeseries=True, timeseries_points=64))
    return tcpsim.simulate(sc), tcpsim.simulate(traced)


def test_off_by_default_and_does_not_change_the_answer(pair):
    plain, traced = pair
    assert plain.timeseries is None
    assert traced.goodput_bps == plain.goodput_bps and traced.sim_time_s == plain.sim_time_s


def test_bounded_and_equally_spaced(pair):
    ts = pair[1].timeseries
    assert 32 <= len(ts) < 64
    gaps = [b - a for a, b in zip(ts.time_s, ts.time_s[1:])]
    assert max(gaps) == pytest.approx(min(gaps), rel=1e-6)
    assert ts.time_s[0] == 0 and ts.time_s[-1] <= pair[1].sim_time_s


def test_windows_are_consistent(pair):
    ts = pair[1].timeseries
    assert all(f <= u <= b for f, u, b in zip(ts.flight_bytes, ts.sndbuf_used_bytes, ts.sndbuf_bytes))
    assert max(ts.flight_bytes) <= 262144 and max(ts.peer_window_bytes) <= 262144
    assert max(ts.peer_window_bytes) > 200_000  # the receiver opens its 256 KiB window
    # After the start-up the mean of the sampled goodput is the run's goodput (the window binds; no loss).
    half = len(ts) // 2
    tail = ts.goodput_bps[half:]
    assert sum(tail) / len(tail) == pytest.approx(pair[1].goodput_bps, rel=0.05)


def test_json_and_columns(pair):
    d = pair[1].to_dict()
    assert list(d["timeseries"]["cwnd_bytes"]) == list(pair[1].timeseries.cwnd_bytes)
    assert set(pair[1].timeseries.columns()) >= {"time_s", "cwnd_bytes", "goodput_bps"}


def test_points_out_of_range():
    with pytest.raises(ConfigError, match="timeseries_points"):
        Budget(timeseries_points=1)


def test_explain_plot_draws_windows_goodput_and_time_sequence(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from tcpsim.explain import explain

    ex = explain(segments=60, rtt="2ms", sockbuf="64k")
    axes = ex.plot_timeseries()
    try:
        labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
        assert labels[0].startswith("Congestion window") and labels[1] == "Bytes in flight"
        assert axes[0].get_ylabel() == "Window (KiB)" and axes[1].get_ylabel() == "Goodput (Mbit/s)"
        assert axes[2].get_ylabel().startswith("Sequence number") and axes[2].collections  # the segment bars
        n_data = sum(1 for r in ex.trace if r[2] == "data")
        assert sum(len(c.get_segments()) for c in axes[2].collections) == n_data
    finally:
        plt.close(axes[0].figure)


def test_cli_explain_plot_and_diagram(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from tcpsim.cli import main

    run, diagram = tmp_path / "run.png", tmp_path / "diagram.png"
    assert main(["explain", "--rtt", "1ms", "--segments", "20", "--plot", str(run), "--diagram", str(diagram)]) == 0
    assert run.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and diagram.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().err.count("figure written") == 2
