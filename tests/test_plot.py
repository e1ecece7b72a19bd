"""Plots follow matplotlib's conventions (issue 23, defect 5): ax= honoured, Axes returned, labels in words
with units, sizes ticked in KiB, throughput from zero, error bars, one marker per series, bounds under curves.

Rows are written by hand (no simulation), so these tests take milliseconds."""

import math

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from tcpsim.plot import axis_unit, plot_lines, plot_sequence, plot_sweep  # noqa: E402
from tcpsim.protocol import framing  # noqa: E402
from tcpsim.sweep import SweepResult  # noqa: E402


def _rows():
    rows = []
    for mtu in (1500, 9000):
        for k in range(7):
            buf = 16384 << k
            good = min(buf * 8 / 1e-3, 9.4e8) * (0.97 if mtu == 1500 else 0.99)
            rows.append({"rcvbuf_bytes": buf, "mtu_bytes": mtu, "goodput_bps": good, "goodput_mbps": good / 1e6,
                         "goodput_halfwidth_bps": 0.02 * good, "ceiling_line_bps": 9.5e8,
                         "ceiling_window_bps": buf * 8 / 1e-3, "ceiling_cpu_sender_bps": math.inf,
                         "limited_by": "window"})
    return SweepResult(rows=tuple(rows), axes=("sockbuf", "mtu"))


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def test_draws_on_the_axes_given_and_returns_them(ax):
    out = _rows().plot("rcvbuf_bytes", "goodput_mbps", hue="mtu_bytes", ax=ax)
    assert out is ax and isinstance(out, Axes)
    assert len(plt.get_fignums()) == 1  # no second figure


def test_a_new_figure_uses_constrained_layout_and_returns_axes():
    out = _rows().plot("rcvbuf_bytes", hue="mtu_bytes", title="One stream, 1 ms RTT")
    try:
        assert isinstance(out, Axes)
        assert out.figure.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"
    finally:
        plt.close(out.figure)


def test_labels_are_words_with_units(ax):
    _rows().plot("rcvbuf_bytes", "goodput_bps", hue="mtu_bytes", ax=ax)
    assert ax.get_xlabel() == "Receive buffer (KiB)"
    assert ax.get_ylabel() == "Goodput (Mbit/s)"
    assert axis_unit("path_rtt_s", [0.01]) == ("Path RTT (ms)", 1e3)
    assert axis_unit("mtu_bytes", [9000]) == ("MTU (bytes)", 1.0)
    assert axis_unit("sndbuf_bytes", [8 << 20])[0] == "Send buffer (MiB)"


def test_byte_axis_ticks_in_kib_not_powers_of_two(ax):
    _rows().plot("rcvbuf_bytes", hue="mtu_bytes", ax=ax)
    assert ax.get_xscale() == "log"
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["16", "32", "64", "128", "256", "512", "1,024"]
    assert not any("^" in t or "$" in t for t in labels)


def test_throughput_axis_starts_at_zero(ax):
    _rows().plot("rcvbuf_bytes", hue="mtu_bytes", ax=ax)
    assert ax.get_ylim()[0] == 0


def test_error_bars_are_the_95_percent_interval(ax):
    res = _rows()
    res.plot("rcvbuf_bytes", hue="mtu_bytes", ax=ax)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 and all(c.has_yerr for c in bars)
    segments = bars[0].lines[2][0].get_segments()
    first = res.rows[0]
    assert segments[0][1][1] - segments[0][0][1] == pytest.approx(2 * first["goodput_halfwidth_bps"] / 1e6)


def test_each_series_has_its_own_colour_and_marker_and_a_bound_beneath(ax):
    _rows().plot("rcvbuf_bytes", hue="mtu_bytes", ax=ax)
    curves = [c.lines[0] for c in ax.containers]
    assert len({c.get_marker() for c in curves}) == 2 and len({c.get_color() for c in curves}) == 2
    bounds = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("-", "None")]
    assert len(bounds) == 2
    for curve, bound in zip(curves, bounds):
        assert bound.get_color() == curve.get_color() and bound.get_zorder() < curve.get_zorder()
        # the bound is the smallest finite ceiling of each point, in Mbit/s
        assert max(bound.get_ydata()) == pytest.approx(950.0)
    assert "closed-form bound (dashed)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_plot_lines_takes_ax_and_markers_differ(ax):
    out = plot_lines({"a": ([1, 2], [3, 4]), "b": ([1, 2], [1, 2])}, "Streams", "Goodput (Mbit/s)", ax=ax)
    assert out is ax
    assert len({c.lines[0].get_marker() for c in ax.containers}) == 2
    assert ax.get_ylim()[0] == 0


def test_plot_sweep_without_hue_or_interval(ax):
    rows = [{"n_streams": n, "goodput_mbps": 100.0 * n} for n in (1, 2, 4)]
    plot_sweep(rows, "n_streams", ax=ax)
    assert ax.get_xlabel() == "Streams" and not any(c.has_yerr for c in ax.containers)


# (time_s, endpoint, kind, seq, length, ack, window, why, push, sack): a 1448-byte segment, its ACK 20 us later
_TRACE = [(0.0, "sender#0", "data", 0, 1448, 0, 65535, "app", True, ()),
          (20e-6, "receiver#0", "ack", 0, 0, 1448, 65535, "", False, ())]


def _arrow_ends_us(ax) -> list[float]:
    """Where each arrow of a to-scale sequence diagram ends, in microseconds down the page."""
    return [a.xy[1] for a in ax.texts if getattr(a, "arrow_patch", None) is not None]


@pytest.mark.parametrize("option_bytes", [0, 12])
def test_a_to_scale_arrow_flies_as_long_as_the_link_charges_its_bytes(option_bytes):
    """An arrow reaches the other line after the delay plus the frame's time at the rate, the bytes counted as the
    run's link counts them: a tbf (skb_charged) charges the skb (1448 + 12 + 54 = 1514 bytes with timestamps), an
    802.3 line the frame, preamble and gap (1538), so the tbf's arrow lands earlier; an ACK's padded 64-byte frame
    (84 on the wire) is a 66-byte skb."""
    rate_bps, delay_s = 1e8, 10e-6
    ends = {}
    for skb in (False, True):
        fig, ax = plt.subplots()
        try:
            plot_sequence(_TRACE, one_way_delay_s=delay_s, rate_bps=rate_bps, to_scale=True, ax=ax,
                          option_bytes=option_bytes, skb_charged=skb)
            ends[skb] = _arrow_ends_us(ax)
        finally:
            plt.close(fig)
    for skb, (data_end, ack_end) in ends.items():
        data_s = delay_s + framing.wire_bytes(1448, option_bytes, skb) * 8 / rate_bps
        ack_s = 20e-6 + delay_s + framing.wire_bytes(0, option_bytes, skb) * 8 / rate_bps
        assert data_end == pytest.approx(data_s * 1e6) and ack_end == pytest.approx(ack_s * 1e6)
    assert ends[True][0] < ends[False][0] and ends[True][1] < ends[False][1]
    assert ends[False][0] - ends[True][0] == pytest.approx(24 * 8 / rate_bps * 1e6)  # FCS 4, preamble 8, gap 12


def test_a_to_scale_arrow_defaults_to_802_3_framing_without_options(ax):
    plot_sequence(_TRACE, one_way_delay_s=0.0, rate_bps=1e9, to_scale=True, ax=ax)
    assert _arrow_ends_us(ax)[0] == pytest.approx(1526 * 8 / 1e9 * 1e6)  # 1448 + 40 + 14 + 4 + 8 + 12
