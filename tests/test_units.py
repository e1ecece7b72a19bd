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
    assert format_quantity("loss_frac", 0.0) == "0%"
    assert format_quantity("loss_frac", 0.015) == "1.5%"  # a sweep's rows stay apart below 10 %
    assert format_quantity("loss_frac", 1e-6) == "0.0001%"
    assert format_quantity("goodput_mbps", 949.53, ",.1f") == "949.5"
    assert format_quantity("streams", 4) == "4"
    assert format_quantity("limited_by", "window") == "window"
    assert format_quantity("rtt_s", None) == "-"
    assert format_quantity("rtt_s", float("inf")) == "inf"


# ---------------------------------------------------------------- hostile spellings (issue 24) and unit traps (issue 23)

from hypothesis import given, strategies as st  # noqa: E402

from tcpsim.units import parse_fraction, parse_int, parse_number  # noqa: E402


def test_an_mtu_is_decimal_and_a_buffer_binary():
    assert parse_size("9k", "mtu", decimal=True) == 9000
    assert parse_size("9KiB", "mtu", decimal=True) == 9216
    assert parse_size("9k", "sockbuf") == 9216


@pytest.mark.parametrize("text", ["10Gb", "10G", "10Gbps", "10gbit", "10 Gbit/s", "10gb", "1.25GB/s"])
def test_every_common_spelling_of_ten_gigabit(text):
    assert parse_rate(text) == pytest.approx(1e10)


def test_a_bare_duration_is_refused_with_a_hint_and_zero_is_zero():
    with pytest.raises(ConfigError, match="20 what. write 20ms"):
        parse_duration("20", "rtt")
    assert parse_duration("0") == 0.0 and parse_duration(0.02) == 0.02


@pytest.mark.parametrize("text, expected", [("1%", 0.01), ("0.5 %", 0.005), ("1e-3", 1e-3), (0.25, 0.25)])
def test_fractions_take_a_percent_sign(text, expected):
    assert parse_fraction(text, "loss") == pytest.approx(expected)


@pytest.mark.parametrize("fn", [parse_size, parse_rate, parse_duration, parse_int, parse_number, parse_fraction])
@pytest.mark.parametrize("text", ["", "   ", "inf", "nan", "-inf", "Infinity", "١٢٣", "1e999", float("inf"),
                                  float("nan")])
def test_empty_infinite_and_non_ascii_values_are_refused_by_every_parser(fn, text):
    with pytest.raises(ConfigError) as exc:
        fn(text, "the_field")
    assert str(exc.value).startswith("the_field=") and "\n" not in str(exc.value)


@given(st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=6))
def test_only_ascii_digits_are_numbers(text):
    if text.isascii():
        assert parse_int(text) == int(text) and parse_size(text) == int(text)
        return
    for fn in (parse_int, parse_size, parse_number):
        with pytest.raises(ConfigError, match="ASCII"):
            fn(text, "n")


def test_int_ranges_are_named():
    assert parse_int("4", "streams", lo=1) == 4
    with pytest.raises(ConfigError, match=r"streams='0': must be a whole number >= 1"):
        parse_int("0", "streams", lo=1)
    with pytest.raises(ConfigError, match="a whole number such as 4"):
        parse_int(2.5, "streams")


@pytest.mark.parametrize("seconds, text", [(0.02, "20 ms"), (1e-4, "100 us"), (2.5, "2.5 s"), (0, "0 s"),
                                           (3e-8, "30 ns"), (3600.0, "3600 s"), (86400.0, "86400 s")])
def test_durations_print_in_their_natural_unit(seconds, text):
    assert format_duration(seconds) == text


def test_a_duration_out_of_its_range_is_one_error_naming_field_and_range():
    from tcpsim.errors import ConfigError
    from tcpsim.units import parse_duration

    assert parse_duration("1ms", "gap", 0.0, 1e-3) == 1e-3
    with pytest.raises(ConfigError, match=r"gap='2ms': must be a duration in 0\.\.1 ms"):
        parse_duration("2ms", "gap", 0.0, 1e-3)
    with pytest.raises(ConfigError, match=r"must be a duration >= 500 ms"):
        parse_duration("1ms", "duration", lo_s=0.5)


@pytest.mark.parametrize("fn,text", [(parse_size, "-5k"), (parse_rate, "-1gbit"), (parse_duration, "-1ms"),
                                     (parse_fraction, "-0.1"), (parse_size, "- 9000")])
def test_a_negative_quantity_is_refused_naming_the_bound(fn, text):
    with pytest.raises(ConfigError, match=r"must be 0 or more \(a "):
        fn(text, "field")


def test_a_badly_written_quantity_is_not_called_negative():
    with pytest.raises(ConfigError) as err:
        parse_size("-5q", "sockbuf")
    assert "0 or more" not in str(err.value)


def test_extreme_rates_and_times_print_as_numbers_a_reader_can_take_in():
    """A 1 kbit/s link's goodput is 0.000947 Mbit/s, not 0.0; Mathis's rate at a loss of 1e-300 and the time between
    its losses print with three significant figures, not 150 and 300 digits."""
    from tcpsim.units import format_mbps

    assert format_mbps(947.0) == "0.000947" and format_mbps(949.3e6) == "949.3" and format_mbps(0.0) == "0.0"
    assert format_mbps(1.266e158) == "1.27e+152" and format_mbps(949.3e6, 9) == "    949.3"
    assert format_duration(1.23e295) == "1.23e+295 s" and format_duration(3600.0) == "3600 s"


def test_a_fraction_too_small_for_a_float_is_refused_not_run_as_zero():
    assert parse_fraction("1e-300", "loss") == 1e-300 and parse_fraction("0", "loss") == 0.0
    assert parse_fraction("0.0e-5", "loss") == 0.0
    with pytest.raises(ConfigError, match=r"loss='1e-400': must be 0 or a fraction of at least"):
        parse_fraction("1e-400", "loss")
