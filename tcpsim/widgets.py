"""Sliders for a notebook: move MTU, buffer, RTT, rate, loss or platform and see the prediction and its limit.

``tcpsim.widgets.explore()`` shows the sliders and, under them, the simulated goodput against every
closed-form bound (:func:`tcpsim.plot.plot_prediction`), redrawn when a slider is let go. Needs the
``jupyter`` extra (``pip install 'tcpsim[jupyter]'``: ipywidgets) and matplotlib.
"""

from __future__ import annotations

try:
    import ipywidgets as _w
except ImportError:
    raise ImportError("tcpsim.widgets needs ipywidgets: pip install 'tcpsim[jupyter]'") from None

from typing import Any

from .units import format_duration, format_rate, format_size

__all__ = ["Explorer", "explore"]

MTUS_BYTES = (576, 1280, 1500, 4352, 9000)
BUFFERS_BYTES = tuple(4096 << k for k in range(13))  # 4 KiB .. 16 MiB
RTTS_S = (20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 200e-3)
RATES_BPS = (10e6, 100e6, 1e9, 2.5e9, 10e9, 25e9, 40e9, 100e9)
LOSSES_FRAC = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


def _slider(label: str, options: tuple, value: Any, words) -> Any:
    return _w.SelectionSlider(options=[(words(v), v) for v in options], value=value, description=label,
                              continuous_update=False, style={"description_width": "7em"},
                              layout=_w.Layout(width="32em"))


class Explorer:
    """The sliders (:attr:`widget`), the last prediction (:attr:`result`) and its drawing; a notebook
    displays it as its widget."""

    def __init__(self, platform: str = "ideal", budget: Any = None) -> None:
        from . import profiles
        from .config import Budget

        self.budget = budget or Budget(rel_tol=0.03, max_sim_time_s=10.0, max_wall_s=20.0)
        self.controls = {
            "platform": _w.Dropdown(options=profiles.list_platforms(), value=platform, description="Platform",
                                    style={"description_width": "7em"}),
            "mtu": _slider("MTU", MTUS_BYTES, 1500, lambda v: f"{v} B"),
            "sockbuf": _slider("Socket buffer", BUFFERS_BYTES, 65536, format_size),
            "rtt": _slider("RTT", RTTS_S, 1e-3, format_duration),
            "rate": _slider("Line rate", RATES_BPS, 1e9, format_rate),
            "loss": _slider("Loss", LOSSES_FRAC, 0.0, lambda v: f"{v:.4%}".rstrip("0").rstrip(".") if v else "none"),
        }
        self.output = _w.Output()
        self.status = _w.HTML()
        self.widget = _w.VBox([*self.controls.values(), self.status, self.output])
        self.result = None
        for c in self.controls.values():
            c.observe(lambda _change: self.update(), names="value")
        self.update()

    def inputs(self) -> dict[str, Any]:
        """The sliders' values as :func:`tcpsim.predict` keywords."""
        c = self.controls
        return {"platform": c["platform"].value, "mtu": c["mtu"].value, "sockbuf": c["sockbuf"].value,
                "rtt": f"{c['rtt'].value}s", "rate": c["rate"].value, "loss": c["loss"].value}

    def update(self) -> None:
        """Simulate the sliders' scenario and redraw (a bad combination shows its one-line error)."""
        import matplotlib.pyplot as plt

        from .api import predict
        from .plot import plot_prediction

        self.status.value = "<i>simulating...</i>"
        try:
            self.result = predict(budget=self.budget, **self.inputs())
        except ValueError as exc:  # ConfigError: the message names the field and the range
            self.result = None
            self.status.value = f"<b>{str(exc).splitlines()[0]}</b>"
            return
        self.status.value = ""
        with self.output:
            self.output.clear_output(wait=True)
            fig, ax = plt.subplots(figsize=(6.4, 3.2), layout="constrained")
            plot_prediction(self.result, ax=ax)
            plt.show()
            plt.close(fig)

    def _repr_mimebundle_(self, **kwargs: Any):
        return self.widget._repr_mimebundle_(**kwargs)


def explore(platform: str = "ideal", budget: Any = None) -> Explorer:
    """Sliders for MTU, socket buffer, RTT, line rate, loss and platform over a live prediction."""
    return Explorer(platform=platform, budget=budget)
