"""All of tcpsim's matplotlib: each function returns a Figure. Imported lazily, never by ``import tcpsim``."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import matplotlib

if matplotlib.get_backend().lower() not in ("agg",) and not __import__("os").environ.get("DISPLAY"):
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["plot_sweep", "plot_sequence", "plot_lines", "plot_predicted_vs_measured"]


def plot_lines(series: Mapping[str, tuple[Sequence[float], Sequence[float]]], xlabel: str, ylabel: str,
               title: str = "", logx: bool = False, points: Optional[Mapping[str, tuple]] = None):
    """Lines (model) and optional markers (measurements) sharing axes."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, marker=".", label=label)
    for label, (xs, ys) in (points or {}).items():
        ax.scatter(xs, ys, marker="o", facecolors="none", edgecolors="black", label=label, zorder=3)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_sweep(rows: Sequence[Mapping], x: str, y: str = "goodput_mbps", hue: Optional[str] = None):
    """One line per value of ``hue`` (or one line), ``y`` against ``x``."""
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(str(r.get(hue)) if hue else y, []).append(r)
    series = {}
    for label, rs in groups.items():
        rs = sorted(rs, key=lambda r: r[x])
        series[f"{hue}={label}" if hue else label] = ([r[x] for r in rs], [r[y] for r in rs])
    return plot_lines(series, x, y)


def plot_sequence(trace: Sequence[tuple]):
    """A sequence diagram like the Sun blueprint's Figure 8: two time lines, slanted arrows."""
    fig, ax = plt.subplots(figsize=(5, 7))
    if not trace:
        return fig
    t0 = trace[0][0]
    span = max(t[0] for t in trace) - t0 or 1e-6
    lag = span / max(len(trace), 1) * 0.8
    for t, who, kind, seq, length, ack, wnd, why in trace:
        y = (t - t0) * 1e6
        if who.startswith("sender"):
            ax.annotate("", xy=(1, y + lag * 1e6), xytext=(0, y), arrowprops=dict(arrowstyle="->", color="tab:blue"))
            ax.text(0.02, y, f"{length} B" if kind == "data" else "ack", fontsize=7, color="tab:blue", va="bottom")
        else:
            ax.annotate("", xy=(0, y + lag * 1e6), xytext=(1, y), arrowprops=dict(arrowstyle="->", color="tab:red"))
            ax.text(0.98, y, f"ACK {ack}", fontsize=7, color="tab:red", va="bottom", ha="right")
    ax.set_xlim(-0.1, 1.1)
    ax.invert_yaxis()
    ax.set_xticks([0, 1], ["sender", "receiver"])
    ax.set_ylabel("time [us]")
    fig.tight_layout()
    return fig


def plot_predicted_vs_measured(measured: Sequence[float], predicted: Sequence[float], naive: Sequence[float] = (),
                               unit: str = "", title: str = ""):
    """Log-log predicted against measured, with the y = x line and the BDP calculator beside."""
    fig, ax = plt.subplots(figsize=(4.5, 4.2))
    ax.scatter(measured, predicted, label="tcpsim", zorder=3)
    if naive:
        ax.scatter(measured, naive, marker="x", color="grey", label="BDP calculator")
    vals = [v for v in list(measured) + list(predicted) + list(naive) if v]
    lo, hi = min(vals) * 0.8, max(vals) * 1.2
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"measured {unit}")
    ax.set_ylabel(f"predicted {unit}")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
