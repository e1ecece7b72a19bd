"""All of tcpsim's matplotlib, by matplotlib's convention: each function draws on ``ax=`` (a new figure
when None) and returns the Axes.

Axis labels are words with a unit ("Receive buffer (KiB)", "Goodput (Mbit/s)"), and values are drawn in
that unit: sizes in bytes, KiB or MiB by their range, every rate in Mbit/s, durations in ms or us,
fractions in %. Throughput axes start at zero; a sweep's points carry their 95 % interval as error
bars; each series has its own colour and marker, and its closed-form bound is drawn dashed in the same
colour, under the curve. A new figure uses constrained layout, so titles and legends are not cut off.
Returning Axes (not a Figure) is what makes Jupyter show a figure once when ``res.plot(...)`` ends a
cell (it shows the pyplot figure; an Axes has no rich display of its own).

The only module that imports matplotlib; nothing imports it at ``import tcpsim`` time (sweep, explain
and the CLI import it inside the method that draws). On a Linux box without a display, and unless
the user chose a backend (``MPLBACKEND``, or pyplot already imported, as Jupyter does), the Agg backend
is selected so figures save without a window system.
"""

from __future__ import annotations

import math
import os
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib


def _pick_backend() -> None:
    if os.environ.get("MPLBACKEND") or "matplotlib.pyplot" in sys.modules:
        return
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        matplotlib.use("Agg")


_pick_backend()
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

from .units import format_quantity

__all__ = ["axis_unit", "plot_goodput_over_time", "plot_explanation", "plot_lines", "plot_predicted_vs_measured", "plot_prediction", "plot_sequence",
           "plot_source_chart", "plot_sweep", "plot_time_sequence", "plot_uplink_share", "plot_windows",
           "series_style"]

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")
"""One marker per series, in order, so series differ in print and for colour-blind readers too."""

_WORDS = {
    "sockbuf": "Socket buffer", "sndbuf": "Send buffer", "rcvbuf": "Receive buffer",
    "sndbuf_request": "Send buffer requested", "rcvbuf_request": "Receive buffer requested",
    "write": "Write size", "message": "Message size", "read": "Read size", "rr": "Request size",
    "response": "Response size", "mtu": "MTU", "rate": "Line rate", "one_way_delay": "One-way delay",
    "path_rtt": "Path RTT", "rtt": "RTT", "n_streams": "Streams", "n_cpus": "CPUs", "queue_packets": "Queue (frames)",
    "message_rate": "Message rate", "loss": "Loss", "goodput": "Goodput", "data_packets": "Data segments",
    "ack_packets": "ACKs", "transactions": "Transactions", "cwnd": "Congestion window", "flight": "Bytes in flight",
    "peer_window": "Advertised window", "sndbuf_used": "Send buffer in use", "seq": "Sequence number",
    "retransmits": "Retransmissions", "sim_time": "Simulated time", "time": "Time", "nodelay": "TCP_NODELAY",
    "bidirectional": "Both directions", "sack": "SACK", "limited_transmit": "Limited transmit", "os": "OS",
    "delack": "Delayed ACK", "sender_platform": "Sender", "receiver_platform": "Receiver",
    "deferred_acks_max": "Deferred ACKs (max)", "n_flows": "Flows", "jain_index": "Jain's fairness index",
}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def axis_unit(column: str, values: Sequence[Any] = ()) -> tuple[str, float]:
    """``(label, factor)``: a column's name in words with the unit it is drawn in, and the factor that
    turns its values into that unit (``"rcvbuf_bytes"``, up to 1 MiB -> ``("Receive buffer (KiB)", 1/1024)``).

    Sizes are drawn in bytes below 4 KiB (and an MTU always), KiB below 4 MiB, MiB above; rates in Mbit/s;
    durations in ms (us below 1 ms, s from 2 s); fractions in %.
    """
    top = max((abs(v) for v in values if _number(v)), default=None)
    name, unit, factor = column, "", 1.0
    if column.endswith("_bytes"):
        name = column[:-6]
        if name == "mtu" or (top is not None and top < 4096):
            unit = "bytes"
        elif top is not None and top >= 4 * 1024 ** 2:
            unit, factor = "MiB", 1 / 1024 ** 2
        else:
            unit, factor = "KiB", 1 / 1024
    elif column.endswith("_mbps"):
        name, unit = column[:-5], "Mbit/s"
    elif column.endswith("_bps"):
        name, unit, factor = column[:-4], "Mbit/s", 1e-6
    elif column.endswith("_per_s"):
        name, unit = column[:-6], "per second"
    elif column.endswith("_hz"):
        name, unit = column[:-3], "Hz"
    elif column.endswith("_frac"):
        name, unit, factor = column[:-5], "%", 100.0
    elif column.endswith("_s"):
        name = column[:-2]
        unit, factor = ("us", 1e6) if top is not None and 0 < top < 1e-3 else \
            ("s", 1.0) if top is not None and top >= 2.0 else ("ms", 1e3)
    if name.startswith("ceiling_"):
        words = name[8:].replace("_", " ") + " bound"
        words = words[0].upper() + words[1:]
    else:
        words = _WORDS.get(name) or (name.replace("_", " ")[:1].upper() + name.replace("_", " ")[1:])
    return (f"{words} ({unit})" if unit else words), factor


def series_style(i: int) -> dict[str, str]:
    """Colour and marker of the ``i``-th series (matplotlib's colour cycle, :data:`MARKERS`)."""
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {"color": colours[i % len(colours)], "marker": MARKERS[i % len(MARKERS)]}


def _new_axes(ax, figsize: tuple[float, float]):
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _plain(v: float, _pos: Any = None) -> str:
    return f"{v:,.6g}"


def _log_axis(axis, base: int, values: Sequence[float]) -> None:
    """A log axis ticked at the values drawn (up to 12 of them) or at powers of ``base``, in plain numbers
    (matplotlib's default would print 2^15)."""
    ticks = sorted({v for v in values if _number(v) and v > 0})
    axis.set_major_locator(FixedLocator(ticks) if 0 < len(ticks) <= 12 else LogLocator(base=base))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def plot_lines(series: Mapping[str, tuple[Sequence[float], Sequence[float]]], xlabel: str, ylabel: str,
               title: str = "", logx: bool | int = False, points: Mapping[str, tuple] | None = None,
               logy: bool = False, *, ax=None, bounds: Mapping[str, tuple] | None = None,
               errors: Mapping[str, Sequence[float]] | None = None):
    """Lines (model), hollow markers (measurements) and dashed bounds on one Axes; returns the Axes.

    ``series``, ``points`` and ``bounds`` map a legend label to ``(xs, ys)`` in the units of the labels;
    a bound whose label is also a series' takes that series' colour, and the j-th set of points the j-th
    series' colour and marker (hollow). Whole-number x values (12 or fewer) are the x ticks. ``errors`` maps a series label to
    the half-widths of its error bars. ``logx``: True (or 2) a base-2 log x axis (sizes), 10 a decimal
    one. A linear y axis with no negative values starts at zero.
    """
    ax = _new_axes(ax, (6.4, 4.2))
    styles: dict[str, dict] = {}
    for i, (label, (xs, ys)) in enumerate(series.items()):
        st = styles[label] = series_style(i)
        err = (errors or {}).get(label)
        yerr = [e if _number(e) else 0.0 for e in err] if err is not None else None
        ax.errorbar(list(xs), list(ys), yerr=yerr, label=label, lw=1.6, ms=5, capsize=3 if yerr else 0,
                    zorder=3, **st)
    for label, (xs, ys) in (bounds or {}).items():
        colour = styles.get(label, {}).get("color", "black")
        ax.plot(list(xs), list(ys), color=colour, ls=(0, (4, 3)), lw=1.0, alpha=0.75, zorder=2)
    for j, (label, (xs, ys)) in enumerate((points or {}).items()):
        st = series_style(j)  # the j-th measurement set pairs with the j-th series: same colour, hollow marker
        ax.scatter(list(xs), list(ys), marker=st["marker"], facecolors="none", edgecolors=st["color"], s=42,
                   linewidths=1.3, label=label, zorder=4)
    all_x = [v for xs, _ in list(series.values()) + list((points or {}).values()) for v in xs]
    all_y = [v for d in (series, points or {}, bounds or {}) for _, ys in d.values() for v in ys if _number(v)]
    if logx:
        ax.set_xscale("log", base=2 if logx is True else int(logx))
        _log_axis(ax.xaxis, 2 if logx is True else int(logx), all_x)
    elif all_x and all(_number(v) and float(v).is_integer() for v in all_x) and len(set(all_x)) <= 12:
        ax.xaxis.set_major_locator(FixedLocator(sorted(set(all_x))))  # counts (streams, CPUs): no 2.5 streams
        ax.xaxis.set_major_formatter(FuncFormatter(_plain))
    if logy:
        ax.set_yscale("log")
        _log_axis(ax.yaxis, 10, ())
    elif all_y and min(all_y) >= 0:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if bounds:
        handles.append(Line2D([], [], color="black", ls=(0, (4, 3)), lw=1.0))
        labels.append("closed-form bound (dashed)")
    if handles:
        ax.legend(handles, labels, fontsize=8)
    return ax


def _bound_bps(row: Mapping) -> float | None:
    """The smallest finite closed-form ceiling of a sweep row (``ceiling_<name>_bps``), or None."""
    vals = [v for k, v in row.items() if k.startswith("ceiling_") and k.endswith("_bps") and _number(v)]
    return min(vals) if vals else None


def plot_sweep(rows: Sequence[Mapping], x: str, y: str = "goodput_mbps", hue: str | None = None,
               title: str = "", *, ax=None, bounds: bool = True, errorbars: bool = True):
    """``y`` against ``x`` from sweep rows, one series per value of ``hue``; returns the Axes.

    Goodput (``goodput_mbps`` or ``goodput_bps``) is drawn in Mbit/s with its 95 % interval
    (``goodput_halfwidth_bps``) as error bars and, with ``bounds``, the smallest closed-form ceiling of
    each point (``ceiling_*_bps``) dashed in the series' colour. A positive numeric ``x`` spanning 8x or
    more gets a log axis (base 2 for sizes).
    """
    groups: dict[Any, list] = {}
    for r in rows:
        groups.setdefault(r.get(hue) if hue else None, []).append(r)
    x_label, fx = axis_unit(x, [r.get(x) for r in rows])
    y_label, fy = axis_unit(y, [r.get(y) for r in rows])
    goodput = y in ("goodput_mbps", "goodput_bps")
    hue_words = axis_unit(hue)[0].split(" (")[0] if hue else ""
    series, errors, bound = {}, {}, {}
    for value, rs in groups.items():
        numeric = all(_number(r.get(x)) for r in rs)
        rs = sorted(rs, key=lambda r: r.get(x)) if numeric else rs
        if hue:
            shown = "on" if value is True else "off" if value is False else format_quantity(hue, value)
            label = f"{hue_words} {shown}" + (" bytes" if hue.endswith("_bytes") and shown.isdigit() else "")
        else:
            label = y_label.split(" (")[0]
        xs = [r.get(x) * fx if _number(r.get(x)) else r.get(x) for r in rs]
        series[label] = (xs, [r.get(y) * fy if _number(r.get(y)) else math.nan for r in rs])
        if goodput and errorbars and any(_number(r.get("goodput_halfwidth_bps")) for r in rs):
            errors[label] = [r["goodput_halfwidth_bps"] * 1e-6 if _number(r.get("goodput_halfwidth_bps")) else 0.0
                             for r in rs]
        if goodput and bounds:
            bs = [_bound_bps(r) for r in rs]
            if all(b is not None for b in bs):
                bound[label] = (xs, [b * 1e-6 for b in bs])
    xs_all = [v for xs, _ in series.values() for v in xs if _number(v)]
    logx: bool | int = False
    if xs_all and min(xs_all) > 0 and max(xs_all) / min(xs_all) >= 8:
        logx = 2 if x.endswith("_bytes") else 10
    ax = plot_lines(series, x_label, y_label, title, logx=logx, ax=ax, bounds=bound, errors=errors)
    if goodput:
        ax.set_ylim(bottom=0)
    return ax


def plot_prediction(result, ax=None, title: str = ""):
    """One prediction against its closed-form bounds: a horizontal bar per finite bound and one for the
    simulated goodput (with its 95 % interval), in Mbit/s from zero; the bound named by
    ``result.limited_by`` is drawn in the goodput's colour; bars far beyond the answer are cut at the axis'
    end and labelled with their value. Returns the Axes."""
    from .report_text import limit_name

    short = {"line": "line rate", "window": "window / RTT", "bus_sender": "sender's bus",
             "bus_receiver": "receiver's bus", "cpu_sender": "sender's CPU", "cpu_receiver": "receiver's CPU"}
    bounds = sorted(((k, v) for k, v in result.ceilings_bps.items() if _number(v)), key=lambda kv: -kv[1])
    names = [short.get(k, k.replace("_", " ")) + " bound" for k, _ in bounds] + ["simulated goodput"]
    values = [v * 1e-6 for _, v in bounds] + [result.goodput_bps * 1e-6]
    main, grey = series_style(0)["color"], "0.72"
    colours = [main if k == result.limited_by else grey for k, _ in bounds] + [main]
    ax = _new_axes(ax, (6.4, 0.9 + 0.42 * len(values)))
    ax.barh(range(len(values)), values, color=colours, height=0.6)
    half = result.goodput_halfwidth_bps
    if _number(half):
        ax.errorbar([values[-1]], [len(values) - 1], xerr=[half * 1e-6], color="black", capsize=4, lw=1.2)
    ax.set_yticks(range(len(values)), names)
    ax.set_xlabel("Goodput (Mbit/s)")
    # Bounds far above the answer (a window bound of 100 Gbit/s) would squeeze the bars that matter: the
    # axis ends a little past the answer, the smallest bound and the line rate, and longer bars say their value.
    near = [values[-1], min(values[:-1], default=0.0)] + [v * 1e-6 for k, v in bounds if k == "line"]
    right = 1.2 * max(near) if max(near) > 0 else None
    ax.set_xlim(0, right)
    for i, v in enumerate(values):
        if right is not None and v > right:
            ax.text(0.985 * right, i, f"{v:,.0f} \u2192", ha="right", va="center", fontsize=7, color="0.15")
    ax.grid(axis="x", alpha=0.3)
    limit = limit_name(result.limited_by).split(" (")[0]
    ax.set_title(title or f"{result.goodput_bps * 1e-6:,.1f} Mbit/s, limited by {limit}", fontsize=9)
    return ax


def plot_uplink_share(share, ax=None, title: str = ""):
    """Each flow's goodput through a shared uplink (:class:`tcpsim.uplink.UplinkShare`) as a bar, in
    Mbit/s from zero, with the equal share (the flows' total / n) as a dashed line; the title gives Jain's
    index and the drops. Returns the Axes."""
    rates = [g * 1e-6 for g in share.flow_goodput_bps]
    ax = _new_axes(ax, (6.4, 3.6))
    ax.bar(range(1, len(rates) + 1), rates, color=series_style(0)["color"], width=0.8, label="one flow")
    ax.axhline(share.mean_bps * 1e-6, color="black", ls=(0, (4, 3)), lw=1.0, label="equal share")
    ax.set_xlabel("Flow")
    ax.set_ylabel("Goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    if len(rates) <= 12:
        ax.set_xticks(range(1, len(rates) + 1))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title or f"{share.n_flows} flows, {share.uplink_bps * 1e-6:,.0f} Mbit/s uplink: Jain's index "
                 f"{share.jain_index:.2f}, {share.drops} frames dropped", fontsize=9)
    return ax


def plot_windows(ts, ax=None, title: str = ""):
    """A :class:`~tcpsim.timeseries.TimeSeries`' windows over time: congestion window, bytes in flight,
    the advertised window and the send buffer's fill; returns the Axes."""
    from .units import format_size

    cols = ("cwnd_bytes", "flight_bytes", "peer_window_bytes", "sndbuf_used_bytes")
    # cwnd keeps growing while the receive window binds (RFC 5681 leaves it so; RFC 7661 would not): the
    # other three set the scale, and cwnd's label says when it leaves the chart.
    others = [v for c in cols[1:] for v in getattr(ts, c)]
    y_label, fy = axis_unit("window_bytes", others or ts.cwnd_bytes)
    top = 1.25 * max(others) * fy if others and max(others) > 0 else None
    t_label, ft = axis_unit("time_s", ts.time_s[-1:])
    ax = _new_axes(ax, (6.4, 3.6))
    for i, c in enumerate(cols):
        label = axis_unit(c)[0].split(" (")[0]
        ys = [v * fy for v in getattr(ts, c)]
        if i == 0 and top is not None and ys and max(ys) > top:
            label += f" (off the chart, up to {format_size(max(getattr(ts, c)))})"
        ax.plot([t * ft for t in ts.time_s], ys, color=series_style(i)["color"], lw=1.3, label=label,
                drawstyle="steps-post", zorder=3 - i * 0.1)
    ax.set_xlabel(t_label)
    ax.set_ylabel("Window (" + y_label.split("(")[1])
    ax.set_ylim(0, top)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the axes: never over a curve
    if title:
        ax.set_title(title)
    return ax


def plot_goodput_over_time(ts, ax=None, title: str = ""):
    """A :class:`~tcpsim.timeseries.TimeSeries`' goodput between samples, in Mbit/s; returns the Axes."""
    t_label, ft = axis_unit("time_s", ts.time_s[-1:])
    ax = _new_axes(ax, (6.4, 3.0))
    ax.plot([t * ft for t in ts.time_s], [g * 1e-6 for g in ts.goodput_bps], drawstyle="steps-pre",
            color=series_style(0)["color"], lw=1.3)
    ax.set_xlabel(t_label)
    ax.set_ylabel("Goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


def plot_explanation(ts, trace: Sequence[tuple], title: str = "", *, axes=None):
    """Three panels, top to bottom: the windows over time (:func:`plot_windows`), goodput over time
    (:func:`plot_goodput_over_time`) and the first segments' time-sequence plot (:func:`plot_time_sequence`).
    ``axes``: three Axes to draw on (a new figure when None); returns them."""
    if axes is None:
        fig, axes = plt.subplots(3, 1, figsize=(7.0, 10.0), layout="constrained", height_ratios=(3, 2, 4))
        if title:
            fig.suptitle(textwrap.fill(title, 100), fontsize=9)
    plot_windows(ts, ax=axes[0], title="Windows over the run (connection %d)" % ts.stream)
    plot_goodput_over_time(ts, ax=axes[1], title="Goodput between samples")
    plot_time_sequence(trace, stream=ts.stream, ax=axes[2], title=f"The first {len(trace)} segments")
    return axes


def plot_time_sequence(trace: Sequence[tuple], stream: int = 0, ax=None, title: str = ""):
    """A Stevens-style time-sequence plot of one connection (TCP/IP Illustrated, vol. 1, ch. 21; tcptrace):
    each data segment a vertical bar from its first to its last byte at the time it left (retransmissions
    in red), the ACKs the receiver sent as a step line, and the right edge of the window it advertised
    (ACK + window) above them. ``trace`` rows as ``Result.trace``; returns the Axes."""
    rows = [r for r in trace if str(r[1]).partition("#")[2] in (str(stream), "")]
    t_label, ft = axis_unit("time_s", [rows[-1][0]] if rows else [])
    sender = next((r[1] for r in rows if r[2] == "data"), None)
    data = [r for r in rows if r[2] == "data" and r[1] == sender]
    acks = [r for r in rows if r[1] != sender]
    top = max([r[3] + r[4] for r in data] + [r[5] + r[6] for r in acks] + [1])
    y_label, fy = axis_unit("seq_bytes", [top])
    ax = _new_axes(ax, (6.4, 4.2))
    fresh, again = series_style(0)["color"], "tab:red"
    for kind, colour in (("new data", fresh), ("retransmission", again)):
        segs = [r for r in data if (r[7] == "retransmit") == (kind == "retransmission")]
        if segs:
            ax.vlines([r[0] * ft for r in segs], [r[3] * fy for r in segs], [(r[3] + r[4]) * fy for r in segs],
                      color=colour, lw=2.0, label=f"data segment ({kind})", zorder=3)
    if acks:
        ts = [r[0] * ft for r in acks]
        ax.plot(ts, [r[5] * fy for r in acks], drawstyle="steps-post", color=series_style(1)["color"], lw=1.2,
                label="ACK", zorder=2)
        ax.plot(ts, [(r[5] + r[6]) * fy for r in acks], drawstyle="steps-post", color=series_style(2)["color"],
                lw=1.0, ls=(0, (4, 2)), label="ACK + advertised window", zorder=2)
    ax.set_xlabel(t_label)
    ax.set_ylabel(y_label)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if data or acks:
        ax.legend(fontsize=8, loc="upper left")
    if title:
        ax.set_title(title)
    return ax


def plot_sequence(trace: Sequence[tuple], one_way_delay_s: float | None = None, rate_bps: float | None = None,
                  title: str = "", to_scale: bool = False, *, ax=None, option_bytes: int = 0,
                  skb_charged: bool = False):
    """A sequence diagram like the Sun blueprint's Figure 8: two vertical time lines, slanted arrows.

    ``trace`` rows are ``(time_s, endpoint, kind, seq, length, ack, window, why, push, sack)`` as a traced run records
    them (``Result.trace``). By default one row per segment, its send time in microseconds at the left,
    as the blueprint draws it. ``to_scale=True`` puts time on the vertical axis instead: an arrow reaches
    the other line after the one-way delay plus the frame's serialization at ``rate_bps``, its bytes as the run's
    link charged them: ``option_bytes`` of TCP options on every segment (12 with timestamps,
    :func:`tcpsim.protocol.framing.tcp_option_bytes`) and ``skb_charged`` for a token bucket's rate
    (:attr:`tcpsim.config.Link.skb_charged`; :func:`tcpsim.protocol.framing.wire_bytes`). The defaults are
    802.3 framing without options. Returns the Axes. Ref: Sun blueprint 004, Figure 8.
    """
    from .protocol import framing

    ax = _new_axes(ax, (6.2, max(3.5, min(16.0, 1.2 + 0.32 * len(trace)))))
    if not trace:
        ax.set_axis_off()
        return ax
    t0 = trace[0][0]
    gaps = sorted(b[0] - a[0] for a, b in zip(trace, trace[1:]) if b[0] > a[0])
    nominal = (gaps[len(gaps) // 2] if gaps else 1e-6) * 0.8

    def flight(length: int) -> float:
        if one_way_delay_s is None or not rate_bps:
            return nominal
        return one_way_delay_s + framing.wire_bytes(length, option_bytes, skb_charged) * 8.0 / rate_bps

    bottom = 0.0
    for i, (t, who, kind, seq, length, ack, wnd, why, *_) in enumerate(trace):
        forward = str(who).startswith("sender")
        if to_scale:
            y0, y1 = (t - t0) * 1e6, (t + flight(length) - t0) * 1e6
        else:
            y0, y1 = float(i), i + 0.8
        bottom = max(bottom, y1)
        x0, x1 = (0.0, 1.0) if forward else (1.0, 0.0)
        color = "tab:blue" if kind == "data" else "tab:red"
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                    arrowprops=dict(arrowstyle="->", color=color, lw=1.0, shrinkA=0, shrinkB=0))
        label = f"seq {seq}, {length} B" if kind == "data" else f"ACK {ack}, win {wnd}"
        ax.text(0.5, (y0 + y1) / 2, label, fontsize=7, color=color, ha="center", va="center",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    for x in (0.0, 1.0):
        ax.plot([x, x], [0, bottom], color="black", lw=1.4)
    pad = (bottom or 1.0) * 0.03
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(bottom + pad, -pad)
    ax.set_xticks([0, 1], ["sender", "receiver"])
    ax.xaxis.tick_top()
    if to_scale:
        ax.set_ylabel("Time (us)")
    else:
        ax.set_yticks(range(len(trace)), [f"{(row[0] - t0) * 1e6:,.1f}" for row in trace], fontsize=7)
        ax.set_ylabel("Send time (us)")
    for side in ("right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, fontsize=8)
    return ax


def plot_predicted_vs_measured(measured: Sequence[Any], predicted: Sequence[float] | None = None,
                               naive: Sequence[float] = (), unit: str = "", title: str = "", *, ax=None):
    """Log-log predicted against measured, with the y = x line and, optionally, the BDP calculator's
    answers; returns the Axes.

    Give ``measured`` and ``predicted`` as two sequences, or ``measured`` alone as points:
    ``(measured, predicted)`` pairs or mappings with those keys.
    """
    if predicted is None:
        pts = list(measured)
        if pts and isinstance(pts[0], Mapping):
            measured, predicted = [p["measured"] for p in pts], [p["predicted"] for p in pts]
        else:
            measured, predicted = [p[0] for p in pts], [p[1] for p in pts]
    measured, predicted, naive = list(measured), list(predicted), list(naive)
    ax = _new_axes(ax, (4.5, 4.2))
    ax.scatter(measured, predicted, label="tcpsim", zorder=3)
    if naive:
        ax.scatter(measured, naive, marker="x", color="grey", label="BDP calculator")
    vals = [v for v in measured + predicted + naive if _number(v) and v > 0]
    if vals:
        lo, hi = min(vals) * 0.8, max(vals) * 1.2
        ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
    _plain_log_ticks(ax)
    ax.set_xlabel(f"Measured {unit}".strip())
    ax.set_ylabel(f"Predicted {unit}".strip())
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    return ax


def _plain_log_ticks(ax) -> None:
    """Log axes labelled 1-2-5 in plain numbers (matplotlib's default labels minor ticks too, and they
    collide when the range spans about a decade)."""
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale != "log":
            continue
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        axis.set_minor_formatter(NullFormatter())


def plot_source_chart(panels: Mapping[str, Mapping[str, Mapping[str, Sequence]]], xlabel: str, ylabel: str,
                      title: str = "", logx: bool = False, logy: bool | None = None, *, axes=None):
    """A source's own chart re-drawn: per series, measured points (hollow), tcpsim (solid line) and the
    bandwidth-delay-product calculator (dashed, where it answers), one panel per value of a third input.

    ``panels`` maps a panel title to ``{series label: {"x": [...], "measured": [...], "tcpsim": [...],
    "bdp": [...] or None}}``; each list in the same order, in the unit the source printed. The x ticks
    are the x values that occur (sizes in bytes shown as ``format_size`` does). ``logy`` None: a log y
    axis when the calculator's answers would otherwise flatten the measurements (over 2.5x their top).
    ``axes``: one Axes per panel on one figure (new ones when None); returns them, as a 1 x n array.
    """
    import numpy as np

    sizes = "bytes" in xlabel
    if sizes:  # the ticks carry the unit (32 KiB, 1 MiB): the label keeps the words
        xlabel = xlabel.replace(" [bytes]", "").replace(" (bytes)", "")
        xlabel = xlabel[:1].upper() + xlabel[1:]
    x_format = FuncFormatter(lambda v, _: format_quantity("x_bytes", int(v)).replace(" ", "\n") if sizes else f"{v:g}")
    n = max(1, len(panels))
    if axes is None:
        fig, axes = plt.subplots(1, n, figsize=(max(6.4, 0.6 + 3.4 * n), 4.4), sharey=True, squeeze=False,
                                 layout="constrained")
    else:
        axes = np.asarray(axes, dtype=object).reshape(1, -1)
        fig = axes[0][0].figure
    labels: dict[str, dict[str, str]] = {}
    any_bdp = False
    for ax, (panel, series) in zip(axes[0], panels.items()):
        ticks: set[float] = set()
        for label, d in series.items():
            st = labels.setdefault(label, series_style(len(labels)))
            c = st["color"]
            order = sorted(range(len(d["x"])), key=lambda k: d["x"][k])
            xs = [d["x"][k] for k in order]
            ticks.update(xs)
            ax.plot(xs, [d["tcpsim"][k] for k in order], color=c, lw=1.5, zorder=2)
            ax.scatter(xs, [d["measured"][k] for k in order], marker=st["marker"], facecolors="none", edgecolors=c,
                       zorder=3)
            bdp = d.get("bdp")
            if bdp is not None:
                any_bdp = True
                ax.plot(xs, [bdp[k] for k in order], color=c, ls="--", lw=0.9)
        if logx:
            ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sorted(ticks)))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(x_format)
        ax.set_xlabel(xlabel)
        if panel:
            ax.set_title(panel, fontsize=9)
        ax.grid(alpha=0.3)
    if logy is None:
        tops = [(max(d["bdp"]), max(d["measured"] + d["tcpsim"])) for series in panels.values()
                for d in series.values() if d.get("bdp") is not None]
        logy = bool(tops) and max(b for b, _ in tops) > 2.5 * max(m for _, m in tops)
    if logy:
        axes[0][0].set_yscale("log")
        _plain_log_ticks(axes[0][0])
    else:
        axes[0][0].set_ylim(bottom=0)  # the panels share y: throughput from zero
    axes[0][0].set_ylabel(ylabel[:1].upper() + ylabel[1:])
    handles = [Line2D([], [], color=st["color"], marker=st["marker"], markerfacecolor="none", lw=1.5, label=label)
               for label, st in labels.items()]
    handles += [Line2D([], [], color="black", lw=1.5, label="tcpsim (line)"),
                Line2D([], [], color="black", marker="o", ls="none", markerfacecolor="none", label="measured (markers)")]
    if any_bdp:
        handles.append(Line2D([], [], color="black", ls="--", lw=0.9, label="BDP calculator"))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(3, len(handles)), fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return axes
