"""tcpsim.widgets.explore(): sliders redraw the prediction; the bars show every bound and the limit."""

import pytest

pytest.importorskip("ipywidgets")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from tcpsim.config import Budget  # noqa: E402
from tcpsim.plot import plot_prediction  # noqa: E402
from tcpsim.widgets import explore  # noqa: E402

QUICK = Budget(rel_tol=0.05, max_sim_time_s=2.0)


def test_moving_a_slider_runs_a_new_prediction():
    ex = explore(budget=QUICK)
    assert set(ex.controls) == {"platform", "mtu", "sockbuf", "rtt", "rate", "loss"}
    first = ex.result
    assert first is not None and first.limited_by == "window"  # 64 KiB over 1 ms on 1 Gbit/s
    ex.controls["rtt"].value = 10e-3
    assert ex.result is not first
    assert ex.result.goodput_bps == pytest.approx(first.goodput_bps / 10, rel=0.15)
    assert "application/vnd.jupyter.widget-view+json" in ex._repr_mimebundle_()


def test_prediction_bars_mark_the_binding_bound():
    import matplotlib.pyplot as plt

    ex = explore(budget=QUICK)
    ax = plot_prediction(ex.result)
    try:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels[-1] == "simulated goodput" and "window / RTT bound" in labels
        bars = ax.patches
        window = bars[labels.index("window / RTT bound")]
        assert window.get_facecolor() == bars[-1].get_facecolor()  # the limit in the goodput's colour
        assert bars[labels.index("line rate bound")].get_facecolor() != bars[-1].get_facecolor()
        assert ax.get_xlim()[0] == 0 and "limited by" in ax.get_title()
    finally:
        plt.close(ax.figure)


def test_without_ipywidgets_the_import_fails_in_one_line(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # what a missing package looks like to import
    monkeypatch.delitem(sys.modules, "tcpsim.widgets")
    with pytest.raises(ImportError) as info:
        importlib.import_module("tcpsim.widgets")
    assert str(info.value) == "tcpsim.widgets needs ipywidgets: pip install 'tcpsim[jupyter]'"
    assert info.value.__cause__ is None and info.value.__suppress_context__
