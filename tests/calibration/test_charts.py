"""The sources' chart shapes in the report: every chart finds its points, and shows exactly those numbers."""

import pytest

from tcpsim.calibration.charts import CHARTS, chart_panels
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import Outcome


@pytest.fixture(scope="module")
def outcomes():
    """Every point with a made-up prediction 10 % above the measurement (no simulation here)."""
    out = []
    for p in load_points():
        si = p.value_si or 0.0
        out.append(Outcome(p, si * 1.1 if si else None, si * 3.0 if p.metric == "throughput" and si else None,
                           "window", "converged"))
    return out


@pytest.mark.parametrize("spec", CHARTS, ids=lambda s: s.name)
def test_every_chart_finds_its_points_and_keeps_their_values(outcomes, spec):
    panels, unit = chart_panels(outcomes, spec)
    assert panels and unit
    n = 0
    for series in panels.values():
        for d in series.values():
            assert len(d["x"]) == len(d["measured"]) == len(d["tcpsim"]) > 0
            for m, t in zip(d["measured"], d["tcpsim"]):
                assert t == pytest.approx(1.1 * m)  # in the unit the source printed
            if spec.metric == "throughput":
                assert d["bdp"] == pytest.approx([3.0 * m for m in d["measured"]])
            else:
                assert d["bdp"] is None
            n += len(d["x"])
    wanted = [o for o in outcomes if f"{o.point.source_id}/{o.point.table_id}" in spec.tables
              and o.point.metric == spec.metric and o.scored
              and all(o.point.get(k) in v for k, v in spec.where)]
    assert n == len(wanted)


def test_ten_gbe_charts_have_a_panel_per_tuning_level_and_a_series_per_mtu(outcomes):
    spec = next(s for s in CHARTS if s.name == "chart_tengbe_table3")
    panels, unit = chart_panels(outcomes, spec)
    assert unit == "MB/s"
    assert list(panels) == ["tuning: none", "tuning: kernel", "tuning: driver"]
    assert set(panels["tuning: driver"]) == {"MTU 1500", "MTU 9000", "MTU 16114"}
    assert sorted(panels["tuning: none"]["MTU 1500"]["x"]) == [1, 4, 12, 20]


def test_report_draws_every_chart(outcomes, tmp_path):
    from tcpsim.calibration.report import _chart_figures

    drawn = _chart_figures(outcomes, tmp_path)
    assert [name for _, name in drawn] == [f"{s.name}.png" for s in CHARTS]
    assert all((tmp_path / name).stat().st_size > 10_000 for _, name in drawn)
