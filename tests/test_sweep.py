"""Sweeps: grids, range syntax, determinism across executors, tables for pandas."""

from concurrent.futures import ProcessPoolExecutor

import pytest

from tcpsim.errors import ConfigError
from tcpsim.sweep import parse_axis, sweep


def test_range_syntax():
    assert parse_axis("sockbuf", "16k..128k:x2") == [16384, 32768, 65536, 131072]
    assert parse_axis("streams", "1..10:+4") == [1, 5, 9]
    assert parse_axis("mtu", "1500,9000") == [1500, 9000]
    with pytest.raises(ConfigError):
        parse_axis("sockbuf", "16k..1M:y2")


def test_executor_gives_the_same_table_as_serial():
    axes = dict(sockbuf=["16k", "64k", "256k"], mtu=[1500, 9000])
    serial = sweep({"rtt": "1ms"}, workers=1, **axes)
    with ProcessPoolExecutor(2) as ex:
        pooled = sweep({"rtt": "1ms"}, executor=ex, **axes)
    assert serial.to_records() == pooled.to_records()
    assert len(serial.rows) == 6
    cols = serial.columns
    assert len(cols["goodput_bps"]) == 6 and cols["goodput_bps"].dtype.kind == "f"


def test_goodput_grows_with_the_buffer_when_the_window_limits():
    res = sweep({"rtt": "2ms"}, workers=1, sockbuf=["16k", "64k", "256k"])
    g = [r["goodput_bps"] for r in res.rows]
    assert g[0] < g[1] < g[2]


def test_to_pandas_has_units_in_column_names():
    pd = pytest.importorskip("pandas")
    df = sweep({}, workers=1, mtu=[1500]).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert {"mtu_bytes", "goodput_bps", "limited_by"} <= set(df.columns)
