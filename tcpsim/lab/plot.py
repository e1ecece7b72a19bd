"""``tcpsim lab --plot``: the measured run over time beside tcpsim's prediction (matplotlib only here)."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError

__all__ = ["plot_run"]


def plot_run(d: dict[str, Any], path: str) -> None:
    """Goodput, congestion window and RTT over time: measured samples, predicted steady values as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series, pred = d["measured"]["series"], d["predicted"]
    t = [r["t_s"] for r in series]
    fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    panels = (("goodput_bps", 1e-6, "goodput (Mbit/s)", pred.get("steady_goodput_bps", pred["goodput_bps"])),
              ("cwnd_bytes", 1e-3, "cwnd (KB)", sum(s["cwnd_bytes"] for s in pred["streams"]) or None),
              ("rtt_s", 1e3, "RTT (ms)", pred["rtt_s"]))
    for ax, (key, scale, label, p) in zip(axes, panels):
        ys = [(x, r[key] * scale) for x, r in zip(t, series) if r.get(key) is not None]
        if ys:
            ax.plot([x for x, _ in ys], [y for _, y in ys], ".-", label=f"measured ({d['measured']['tool']})")
        if p:
            ax.axhline(p * scale, color="C1", ls="--", label="tcpsim (steady state)")
        if key == "cwnd_bytes":
            w = [(x, r["peer_window_bytes"] * scale) for x, r in zip(t, series) if r.get("peer_window_bytes")]
            if w:
                ax.plot([x for x, _ in w], [y for _, y in w], ".:", color="C2", label="measured peer window")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[-1].set_xlabel("time (s)")
    sc = d["scenario"]
    fig.suptitle(f"tcpsim lab: {sc['rate_bps'] / 1e9:g} Gbit/s, RTT {sc['rtt_s'] * 1e3:g} ms, MTU {sc['mtu_bytes']}, "
                 f"kernel {d['kernel']}", fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except (OSError, ValueError) as exc:
        raise ConfigError("plot", path, f"a writable .png, .pdf or .svg path ({exc})") from None
    finally:
        plt.close(fig)
