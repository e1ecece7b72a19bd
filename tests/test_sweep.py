"""Sweeps: range syntax, grid order, seeds, determinism across executors, tables for numpy and pandas."""

import functools
import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from tcpsim import predict
from tcpsim.errors import ConfigError
from tcpsim.sweep import parse_axis, split_axes, sweep

QUICK = {"rtt": "1ms"}


# ---------------------------------------------------------------- range syntax

@pytest.mark.parametrize("name, text, expected", [
    ("sockbuf", "16k..128k:x2", [16384, 32768, 65536, 131072]),
    ("sockbuf", "16k..100k:x2", [16384, 32768, 65536]),          # hi included only when a step lands on it
    ("streams", "1..20:+4", [1, 5, 9, 13, 17]),
    ("streams", "1..4", [1, 2, 3, 4]),                            # whole-number inputs step by 1
    ("mtu", "1500,9000", [1500, 9000]),
    ("mtu", "9000", [9000]),
    ("rate", "100mbit,1gbit", [1e8, 1e9]),
    ("rtt", "100us..10ms:x10", [1e-4, 1e-3, 1e-2]),               # no 9.999999999999999e-05
    ("loss", "0..0.01:+0.0025", [0.0, 0.0025, 0.005, 0.0075, 0.01]),
    ("platform", "ideal,es40_tru64", ["ideal", "es40_tru64"]),
    ("platform", "../my.toml", ["../my.toml"]),                   # text inputs have no ranges
])
def test_range_syntax(name, text, expected):
    assert parse_axis(name, text) == expected


@pytest.mark.parametrize("name, text", [
    ("sockbuf", "16k..1M:y2"), ("sockbuf", "16k..1M:x1"), ("streams", "1..20:+0"), ("streams", "20..1:+1"),
    ("sockbuf", "0..1M:x2"), ("sockbuf", "16k..64k"), ("sockbuf", "16k.."), ("sockbuf", "12q,16k"),
    ("streams", "1..1000000"), ("streams", "one,two"),
])
def test_bad_ranges_raise_config_error_naming_the_input(name, text):
    with pytest.raises(ConfigError) as info:
        parse_axis(name, text)
    assert info.value.field == name


def test_split_axes_takes_lists_and_ranges_only():
    rest, axes = split_axes(["sweep", "--mtu=1500,9000", "--sockbuf", "16k..64k:x2", "--rate", "10gbit",
                             "--platform", "../p.toml", "--csv", "a,b.csv", "--message-rate", "1000,2000"],
                            ["mtu", "sockbuf", "rate", "platform", "message_rate"])
    assert axes == {"mtu": [1500, 9000], "sockbuf": [16384, 32768, 65536], "message_rate": [1000.0, 2000.0]}
    assert rest == ["sweep", "--rate", "10gbit", "--platform", "../p.toml", "--csv", "a,b.csv"]


# ---------------------------------------------------------------- the grid

def test_grid_order_values_in_si_units_and_inputs():
    res = sweep(QUICK, workers=1, sockbuf=["16k", "64k"], mtu=[1500, 9000], streams=[1])
    assert res.axes == ("sockbuf", "mtu", "streams")
    assert [(r["sockbuf_bytes"], r["mtu_bytes"]) for r in res.rows] == \
        [(16384, 1500), (16384, 9000), (65536, 1500), (65536, 9000)]
    assert all(r["one_way_delay_s"] == pytest.approx(5e-4) and r["n_streams"] == 1 for r in res.rows)
    assert res.axis_columns == ["sockbuf_bytes", "mtu_bytes", "n_streams"]
    assert res.column_name("sockbuf") == "sockbuf_bytes" and res.column_name("goodput_bps") == "goodput_bps"


def test_each_point_matches_a_single_prediction():
    res = sweep(QUICK, workers=1, sockbuf=["16k", "64k"])
    for row in res.rows:
        single = predict(sockbuf=row["sockbuf_bytes"], seed=row["seed"], **QUICK)
        assert row["goodput_bps"] == single.goodput_bps
        assert row["limited_by"] == single.limited_by


def test_seeds_come_from_seed_sequence_spawn():
    res = sweep({**QUICK, "seed": 7}, workers=1, mtu=[1500, 9000, 4000])
    expected = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(7).spawn(3)]
    assert [r["seed"] for r in res.rows] == expected
    assert len(set(expected)) == 3
    replicated = sweep(QUICK, workers=1, seed=[3, 4])
    assert [r["seed"] for r in replicated.rows] == [3, 4]


def test_executor_gives_the_same_table_as_serial():
    axes = dict(sockbuf=["16k", "64k", "256k"], mtu=[1500, 9000])
    serial = sweep(QUICK, workers=1, **axes)
    with ProcessPoolExecutor(2) as ex:
        pooled = sweep(QUICK, executor=ex, **axes)
    assert serial.to_records() == pooled.to_records()
    cols = serial.columns
    assert len(serial) == 6
    assert all(len(v) == 6 for v in cols.values())
    assert cols["goodput_bps"].dtype.kind == "f" and cols["sockbuf_bytes"].dtype.kind == "i"
    assert cols["limited_by"].dtype == object


def test_any_executor_works_and_progress_is_reported():
    seen = []
    with ThreadPoolExecutor(2) as ex:
        res = sweep(QUICK, executor=ex, progress=lambda done, total: seen.append((done, total)), streams=[1, 2])
    assert seen == [(1, 2), (2, 2)]
    assert [r["n_streams"] for r in res.rows] == [1, 2]


def test_goodput_grows_with_the_buffer_when_the_window_limits():
    res = sweep({"rtt": "2ms"}, workers=1, sockbuf="16k..64k:x2")
    g = [r["goodput_bps"] for r in res.rows]
    assert [r["limited_by"] for r in res.rows] == ["window"] * 3
    assert g[0] < g[1] < g[2]


@pytest.mark.parametrize("base, axes", [
    ({}, {"colour": ["red"]}),                  # not a build_scenario keyword
    ({"colour": "red"}, {"mtu": [1500]}),
    ({}, {"budget": [None]}),                    # a keyword, but not sweepable
    ({}, {"mtu": [1500, 70000]}),                # checked before anything runs
    ({}, {"mtu": []}),
])
def test_bad_sweeps_fail_before_running(base, axes):
    with pytest.raises(ConfigError):
        sweep(base, workers=1, **axes)


# ---------------------------------------------------------------- outputs

def test_tables_csv_json_html_and_pandas(tmp_path):
    res = sweep(QUICK, workers=1, mtu=[1500, 9000])
    text = res.to_csv(tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text() == text
    assert text.splitlines()[0].startswith("mtu_bytes,") and len(text.strip().splitlines()) == 3
    rows = json.loads(res.to_json(), parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert rows[0]["ceiling_cpu_sender_bps"] is None and math.isinf(res.rows[0]["ceiling_cpu_sender_bps"])
    assert "mtu_bytes" in res.table() and "goodput_mbps" in res.table()
    html = res._repr_html_()
    assert html.count("<tr>") == 3 and "limited_by" in html
    pd = pytest.importorskip("pandas")
    df = res.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 2
    assert {"mtu_bytes", "goodput_bps", "goodput_mbps", "goodput_halfwidth_bps", "limited_by",
            "data_packets_per_s"} <= set(df.columns)


def test_plot_returns_axes_with_one_series_per_hue():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    res = sweep(QUICK, workers=1, sockbuf=["16k", "32k"], mtu=[1500, 9000])
    ax = res.plot("sockbuf", "goodput_mbps", hue="mtu")
    try:
        assert ax.get_xlabel() == "Socket buffer (KiB)" and ax.get_ylabel() == "Goodput (Mbit/s)"
        assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["MTU 1500 bytes", "MTU 9000 bytes"]
        curves = [c.lines[0] for c in ax.containers]  # one errorbar container per series
        assert len(curves) == 2 and sorted(curves[0].get_xdata()) == [16.0, 32.0]
    finally:
        plt.close(ax.figure)




# ---------------------------------------------------------------- streaming and columns known up front

def test_the_grid_streams_to_the_workers(monkeypatch):
    """Points are built a few ahead of the workers, not all before the first runs (issue 24); same order."""
    import tcpsim.api

    sw = sys.modules["tcpsim.sweep"]
    built = []
    real = tcpsim.api.build_scenario
    monkeypatch.setattr(tcpsim.api, "build_scenario", functools.wraps(real)(lambda **kw: built.append(kw) or real(**kw)))
    monkeypatch.setattr(sw, "_run_point", lambda sc: {"goodput_bps": float(sc.workload.n_streams)})
    checks = 20 + 30 - 1  # every value of each axis once, before anything runs
    seen = []
    res = sweep(QUICK, workers=1, streams="1..20", cpus="1..30",
                progress=lambda done, total: seen.append((done, len(built))))
    assert seen[0] == (1, checks + 1) and seen[-1] == (600, checks + 600)
    with ThreadPoolExecutor(2) as ex:
        built.clear()
        seen.clear()
        pooled = sweep(QUICK, executor=ex, streams="1..20", cpus="1..30",
                       progress=lambda done, total: seen.append((done, len(built))))
    assert seen[0][1] <= checks + 4 * (os.cpu_count() or 1) + 1
    assert pooled.to_records() == res.to_records()
    assert [r["n_streams"] for r in res.rows[:31]] == [1] * 30 + [2]


def test_a_bad_value_anywhere_in_the_grid_fails_before_any_point_runs(monkeypatch):
    ran = []
    monkeypatch.setattr(sys.modules["tcpsim.sweep"], "_run_point", lambda sc: ran.append(sc) or {})
    with pytest.raises(ConfigError) as info:
        sweep(QUICK, workers=1, streams=[1, 2, 3], sockbuf=["16k", "64k"], mtu=[1500, 9000, 70000])
    assert "mtu" in info.value.field and ran == []


def test_every_output_column_is_known_before_the_run():
    from tcpsim.sweep import check_columns, possible_columns

    res = sweep(QUICK, workers=1, mtu=[1500, 9000], platform=["ideal", "es40_tru64"])
    assert set(res._keys()) <= set(possible_columns(res.axes))
    check_columns(res.axes, x="mtu", y="goodput_mbps", hue="platform")
    with pytest.raises(ConfigError) as info:
        check_columns(res.axes, x="mtu", y="goodput")
    assert info.value.field == "y"


def test_the_python_api_refuses_what_it_cannot_run_as_a_value_error():
    """From Jupyter as from the shell: a keyword build_scenario has not, a non-scenario, a what-if of another type
    and an executor that is none are each a ConfigError (a ValueError) naming it, not a TypeError or
    AttributeError from deep inside."""
    import tcpsim
    from tcpsim.errors import ConfigError

    for call, field in ((lambda: tcpsim.predict(bogus=1), "bogus="), (lambda: tcpsim.simulate("x"), "scenario="),
                        (lambda: tcpsim.compare({}, what_if=5), "what_if="),
                        (lambda: tcpsim.sweep(mtu=[1500], executor="x"), "executor=")):
        with pytest.raises(ConfigError, match=field):
            call()


def test_a_column_no_point_has_is_a_float_column_in_pandas():
    pytest.importorskip("pandas")
    from tcpsim.config import Budget

    df = sweep({"budget": Budget(max_sim_time_s=0.005)}, mtu=[1500, 9000], workers=1).to_pandas()
    assert df["transactions_per_s"].dtype == float and df["transactions_per_s"].isna().all()
