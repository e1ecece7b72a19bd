"""All of tcpsim's matplotlib: each function returns a :class:`matplotlib.figure.Figure`.

The only module that imports matplotlib; nothing imports it at ``import tcpsim`` time (sweep, explain
and the CLI import it inside the method that draws). On a Linux box without a display, and unless
the user chose a backend (``MPLBACKEND``, or pyplot already imported, as Jupyter does), the Agg backend
is selected so figures save without a window system.
"""

from __future__ import annotations

import math
import os
import sys
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

from .units import format_quantity

__all__ = ["plot_lines", "plot_predicted_vs_measured", "plot_sequence", "plot_source_chart", "plot_sweep"]


def plot_lines(series: Mapping[str, tuple[Sequence[float], Sequence[float]]], xlabel: str, ylabel: str,
               title: str = "", logx: bool = False, points: Mapping[str, tuple] | None = None,
               logy: bool = False):
    """Lines (model) and optional hollow markers (measurements) on shared axes.

    ``series`` and ``points`` map a legend label to ``(xs, ys)``; ``logx`` uses a base-2 x axis (buffer sizes).
    """
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, (xs, ys) in series.items():
        ax.plot(list(xs), list(ys), marker=".", label=label)
    for label, (xs, ys) in (points or {}).items():
        ax.scatter(list(xs), list(ys), marker="o", facecolors="none", edgecolors="black", label=label, zorder=3)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    if series or points:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def plot_sweep(rows: Sequence[Mapping], x: str, y: str = "goodput_mbps", hue: str | None = None,
               title: str = ""):
    """``y`` against ``x`` from sweep rows, one line per value of ``hue`` (or a single line).

    A positive numeric ``x`` spanning more than 16x (a geometric sweep) gets a base-2 log axis.
    """
    groups: dict[Any, list] = {}
    for r in rows:
        groups.setdefault(r.get(hue) if hue else None, []).append(r)
    series = {}
    for value, rs in groups.items():
        numeric = all(_number(r.get(x)) for r in rs)
        rs = sorted(rs, key=lambda r: r.get(x)) if numeric else rs
        label = f"{hue} = {format_quantity(hue, value)}" if hue else y
        series[label] = ([r.get(x) for r in rs], [r.get(y) for r in rs])
    xs = [v for xs_, _ in series.values() for v in xs_ if _number(v)]
    logx = bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= 8
    return plot_lines(series, x, y, title, logx=logx)


def plot_sequence(trace: Sequence[tuple], one_way_delay_s: float | None = None, rate_bps: float | None = None,
                  title: str = "", to_scale: bool = False):
    """A sequence diagram like the Sun blueprint's Figure 8: two vertical time lines, slanted arrows.

    ``trace`` rows are ``(time_s, endpoint, kind, seq, length, ack, window, why, push, sack)`` as a traced run records
    them (``Result.trace``). By default one row per segment, its send time in microseconds at the left,
    as the blueprint draws it. ``to_scale=True`` puts time on the vertical axis instead: an arrow reaches
    the other line after the one-way delay plus the frame's serialization at ``rate_bps``.
    Ref: Sun blueprint 004, Figure 8.
    """
    from .protocol import framing

    fig, ax = plt.subplots(figsize=(6.2, max(3.5, min(16.0, 1.2 + 0.32 * len(trace)))))
    if not trace:
        ax.set_axis_off()
        return fig
    t0 = trace[0][0]
    gaps = sorted(b[0] - a[0] for a, b in zip(trace, trace[1:]) if b[0] > a[0])
    nominal = (gaps[len(gaps) // 2] if gaps else 1e-6) * 0.8

    def flight(length: int) -> float:
        if one_way_delay_s is None or not rate_bps:
            return nominal
        return one_way_delay_s + framing.wire_bytes(length) * 8.0 / rate_bps

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
        ax.set_ylabel("time [us]")
    else:
        ax.set_yticks(range(len(trace)), [f"{(row[0] - t0) * 1e6:,.1f}" for row in trace], fontsize=7)
        ax.set_ylabel("send time [us]")
    for side in ("right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    if title:
        fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def plot_predicted_vs_measured(measured: Sequence[Any], predicted: Sequence[float] | None = None,
                               naive: Sequence[float] = (), unit: str = "", title: str = ""):
    """Log-log predicted against measured, with the y = x line and, optionally, the BDP calculator's answers.

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
    fig, ax = plt.subplots(figsize=(4.5, 4.2))
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
    ax.set_xlabel(f"measured {unit}".strip())
    ax.set_ylabel(f"predicted {unit}".strip())
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _plain_log_ticks(ax) -> None:
    """Log axes labelled 1-2-5 in plain numbers (matplotlib's default labels minor ticks too, and they
    collide when the range spans about a decade)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale != "log":
            continue
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        axis.set_minor_formatter(NullFormatter())


def plot_source_chart(panels: Mapping[str, Mapping[str, Mapping[str, Sequence]]], xlabel: str, ylabel: str,
                      title: str = "", logx: bool = False, logy: bool | None = None):
    """A source's own chart re-drawn: per series, measured points (hollow), tcpsim (solid line) and the
    bandwidth-delay-product calculator (dashed, where it answers), one panel per value of a third input.

    ``panels`` maps a panel title to ``{series label: {"x": [...], "measured": [...], "tcpsim": [...],
    "bdp": [...] or None}}``; each list in the same order, in the unit the source printed. The x ticks
    are the x values that occur (sizes in bytes shown as ``format_size`` does). ``logy`` None: a log y
    axis when the calculator's answers would otherwise flatten the measurements (over 2.5x their top).
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    sizes = "bytes" in xlabel
    x_format = FuncFormatter(lambda v, _: format_quantity("x_bytes", int(v)).replace(" ", "\n") if sizes else f"{v:g}")
    n = max(1, len(panels))
    fig, axes = plt.subplots(1, n, figsize=(max(6.4, 0.6 + 3.4 * n), 4.4), sharey=True, squeeze=False,
                             layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels: dict[str, str] = {}
    any_bdp = False
    for ax, (panel, series) in zip(axes[0], panels.items()):
        ticks: set[float] = set()
        for label, d in series.items():
            c = labels.setdefault(label, colours[len(labels) % len(colours)])
            order = sorted(range(len(d["x"])), key=lambda k: d["x"][k])
            xs = [d["x"][k] for k in order]
            ticks.update(xs)
            ax.plot(xs, [d["tcpsim"][k] for k in order], color=c, marker=".")
            ax.scatter(xs, [d["measured"][k] for k in order], facecolors="none", edgecolors=c, zorder=3)
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
    axes[0][0].set_ylabel(ylabel)
    handles = [Line2D([], [], color=c, lw=6, label=label) for label, c in labels.items()]
    handles += [Line2D([], [], color="black", marker=".", label="tcpsim"),
                Line2D([], [], color="black", marker="o", ls="none", markerfacecolor="none", label="measured")]
    if any_bdp:
        handles.append(Line2D([], [], color="black", ls="--", lw=0.9, label="BDP calculator"))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(3, len(handles)), fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
