"""units.py: the one place that reads and writes human quantities (binary sizes, decimal rates)."""

import pytest

from tcpsim.errors import ConfigError
from tcpsim.units import (format_duration, format_quantity, format_rate, format_size, parse_duration, parse_rate,
                          parse_size, parse_switch)


@pytest.mark.parametrize("text, expected", [
    ("9000", 9000), (9000, 9000), ("512k", 524288), ("512K", 524288), ("64KiB", 65536), ("64KB", 65536),
    ("1M", 1048576), ("1MiB", 1048576), ("1.5k", 1536), ("2G", 2 * 1024**3), ("61440", 61440),
])
def test_sizes_are_binary(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("1gbit", 1e9), ("10g", 1e10), ("100mbit", 1e8), ("1e9", 1e9), ("1Gbps", 1e9), ("125MB/s", 1e9),
    ("2.5gbit/s", 2.5e9), (1e9, 1e9),
])
def test_rates_are_decimal(text, expected):
    assert parse_rate(text) == pytest.approx(expected)


@pytest.mark.parametrize("text, expected", [("100us", 1e-4), ("1.5ms", 1.5e-3), (0.2, 0.2), ("0", 0.0), ("2s", 2.0),
                                            ("50 us", 5e-5), ("40ms", 0.04)])
def test_durations(text, expected):
    assert parse_duration(text) == pytest.approx(expected)


@pytest.mark.parametrize("text, expected", [("on", True), ("OFF", False), ("true", True), ("0", False),
                                            (" yes ", True), (True, True), (False, False)])
def test_switches(text, expected):
    assert parse_switch(text) is expected


@pytest.mark.parametrize("fn, text", [(parse_size, "12q"), (parse_size, "1.3"), (parse_size, ""),
                                      (parse_rate, "fast"), (parse_duration, "soon"), (parse_size, True),
                                      (parse_switch, "maybe"), (parse_switch, "")])
def test_bad_quantities_name_the_field(fn, text):
    with pytest.raises(ConfigError) as exc:
        fn(text, "the_field")
    assert "the_field" in str(exc.value)
    assert isinstance(exc.value, ValueError)
    assert "\n" not in str(exc.value)


def test_formats_round_trip_common_values():
    assert format_size(524288) == "512 KiB"
    assert format_rate(9.49e8) == "949 Mbit/s"
    assert format_duration(1.5e-4) == "150 us"
    assert parse_size(format_size(65536).replace(" ", "")) == 65536


def test_format_quantity_reads_the_unit_from_the_name():
    assert format_quantity("sockbuf_bytes", 524288) == "512 KiB"
    assert format_quantity("mtu_bytes", 9000) == "9000"
    assert format_quantity("goodput_bps", 9.49e8) == "949 Mbit/s"
    assert format_quantity("data_packets_per_s", 57512.4) == "57,512"
    assert format_quantity("delay_s", 1.5e-4) == "150 us"
    assert format_quantity("cpu_frac", 0.42) == "42%"
    assert format_quantity("goodput_mbps", 949.53, ",.1f") == "949.5"
    assert format_quantity("streams", 4) == "4"
    assert format_quantity("limited_by", "window") == "window"
    assert format_quantity("rtt_s", None) == "-"
    assert format_quantity("rtt_s", float("inf")) == "inf"
