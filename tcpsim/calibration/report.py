"""Write ``validation/REPORT.md`` and its figures from validation outcomes (the only writer of the report)."""

from __future__ import annotations

import datetime as _dt
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from .targets import CROSS_SOURCE_TARGET, SEED_MEDIAN_TABLES, SEEN, TABLE_TARGETS
from .validate import Outcome, TableSummary, _fmt, role_summaries

if TYPE_CHECKING:
    from .cross import Fold

__all__ = ["write_report"]


def _role(r: TableSummary) -> str:
    """The table's role, with "seen" for a holdout table a model decision had in view."""
    seen = SEEN.get(f"{r.source_id}/{r.table_id}")
    return f"{r.role}, **seen**" if seen else r.role


def _value(o: Outcome, si: float | None) -> str:
    if si is None:
        return "-"
    scale = o.point.value / o.point.value_si if o.point.value_si else 1.0
    v = si * scale
    return f"{v:,.4g}"


def _figures(outcomes: Sequence[Outcome], rows: Sequence[TableSummary], fig_dir: Path) -> dict[str, str]:
    import matplotlib.pyplot as plt

    from ..plot import plot_predicted_vs_measured

    fig_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, str] = {}
    for r in rows:
        outs = [o for o in outcomes if (o.point.source_id, o.point.table_id) == (r.source_id, r.table_id)
                and o.predicted is not None and o.point.value_si]
        if not outs:
            continue
        scale = [o.point.value / o.point.value_si for o in outs]
        naive = [o.naive * s for o, s in zip(outs, scale) if o.naive is not None]
        fig = plot_predicted_vs_measured([o.point.value for o in outs], [o.predicted * s for o, s in zip(outs, scale)],
                                         naive if len(naive) == len(outs) else (), unit=f"[{outs[0].point.unit}]",
                                         title=f"{r.source_id}: {r.table}"[:60]).figure
        name = f"{r.source_id}__{r.table_id}.png"
        fig.savefig(fig_dir / name, dpi=90)
        plt.close(fig)
        out[f"{r.source_id}/{r.table_id}"] = name
    return out


def _chart_figures(outcomes: Sequence[Outcome], fig_dir: Path) -> list[tuple[str, str]]:
    """The sources' chart shapes (:mod:`.charts`); ``(title, file name)`` of each figure drawn."""
    import matplotlib.pyplot as plt

    from ..plot import plot_source_chart
    from .charts import CHARTS, chart_panels

    out = []
    for spec in CHARTS:
        panels, unit = chart_panels(outcomes, spec)
        if not panels:
            continue
        fig = plot_source_chart(panels, spec.xlabel, f"{spec.metric.replace('_', ' ')} [{unit}]", spec.title,
                                logx=spec.logx)[0][0].figure
        fig.savefig(fig_dir / f"{spec.name}.png", dpi=90)
        plt.close(fig)
        out.append((spec.title, f"{spec.name}.png"))
    return out


def _cross_section(outcomes: Sequence[Outcome], folds: Mapping[str, "Fold"], joint: Optional[dict] = None) -> list[str]:
    """Per source: in-sample, cross-validated and calculator medians; per fit, its parameters and points."""
    from .cross import cpu_limited_medians, describe_fold, source_medians

    naive = {}
    for o in outcomes:
        if o.scored and o.naive_error is not None:
            naive.setdefault(o.point.source_id, []).append(abs(o.naive_error))
    lines = ["## Cross-validation: leave one source out", "",
             "For each source, the shared parameters (`tcpsim/calibration/shared.py`) are fitted to the "
             "calibration tables of the other sources only, and every table of the left-out source is "
             "predicted with them. A parameter no remaining point constrains borrows its kind's fitted geometric "
             "mean from the other machines (an OS x driver row) or takes its prior (a residual). Target: "
             f"each source's median within {CROSS_SOURCE_TARGET:.0%} and each table below the BDP calculator. "
             "A source none of whose machines is in the joint model is predicted by its profiles without the values "
             "calibrated on it (the lab: `lab_vm`'s fitted costs from its parts and the shared costs instead). "
             "The last column takes only the points whose in-sample run a CPU limits, where the costs decide. "
             "The rule for using these figures is in [README.md](README.md#held-out-seen-and-the-rule-from-now-on).",
             "", "| source | scored | in-sample median (per-platform calibration) | joint fit in sample | "
             "cross-validated median | BDP calculator median | CPU-limited points: in sample / cross-validated |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    joint_sources = (joint or {}).get("sources", {})
    cpu = cpu_limited_medians(outcomes)
    for source, (n, ins, cross) in source_medians(outcomes).items():
        nv = sorted(naive.get(source, []))
        limited = "-"
        if source in cpu:
            n_cpu, c_ins, c_cross = cpu[source]
            limited = f"{_fmt(c_ins).strip()} / {_fmt(c_cross).strip()} ({n_cpu})"
        lines.append(f"| {source} | {n} | {_fmt(ins).strip()} | {_fmt(joint_sources.get(source)).strip()} | "
                     f"{_fmt(cross).strip()} | {_fmt(statistics.median(nv) if nv else None).strip()} | {limited} |")
    if joint:
        lines += ["", f"The joint fit in sample (`--joint`: the shared parameters fitted to every source's "
                  f"calibration tables at once): {joint['calibration_points']} calibration points, median "
                  f"|error| {_fmt(joint['calibration_median']).strip()}; per table "
                  + ", ".join(f"{k} {_fmt(v).strip()}" for k, v in joint["tables"].items()) + "."]
    lines += ["", "Each fit: the free parameters (start -> fitted; borrowed or prior where no point constrains "
              "them), and the measured points that constrain them.", "",
              "```"]
    seen = set()
    for fold in folds.values():
        if fold.fit is None:
            lines += describe_fold(fold)
            continue
        if id(fold.fit) in seen:
            lines.append(f"without {fold.left_out}: the same fit as above (no calibration table of its own)")
            continue
        seen.add(id(fold.fit))
        lines += describe_fold(fold)
    return lines + ["```", ""]


def _seed_median_lines(seed_medians: Mapping[str, list[float]]) -> list[str]:
    """The figures of record of the tables scored by each row's median over seeds 0-4 (the table above shows seed 0)."""
    lines = []
    for key, errors in seed_medians.items():
        if not errors:
            continue
        median_target, max_target = SEED_MEDIAN_TABLES[key]
        med, worst = statistics.median(errors), max(errors)
        lines.append(f"- **{key}**, scored by each row's median prediction over seeds 0-4 (its rule, README.md, "
                     f"\"A third lossy table\"; the table above shows seed 0): median |error| {med:.1%} (target "
                     f"{median_target:.0%} {'met' if med <= median_target else '**missed**'}), max {worst:.1%} "
                     f"(target {max_target:.0%} {'met' if worst <= max_target else '**missed**'}).")
    return lines


def write_report(outcomes: Sequence[Outcome], rows: Sequence[TableSummary], validation_dir: Path,
                 folds: Optional[Mapping[str, "Fold"]] = None, joint: Optional[dict] = None,
                 seed_medians: Optional[Mapping[str, list[float]]] = None) -> Path:
    """Write the Markdown report next to ``data/``; returns its path (with ``folds``: the cross-validation too;
    with ``seed_medians``, table -> |error| per row of its five-seed median, those tables' figures of record)."""
    fig_dir = validation_dir / "figures"
    figures = _figures(outcomes, rows, fig_dir)
    charts = _chart_figures(outcomes, fig_dir)
    lines = ["# tcpsim validation report", "",
             f"Generated by `tcpsim validate --report` on {_dt.date.today().isoformat()}. Every measured number "
             "of the five sources, the model's prediction with the calibrated platform profiles, and what a "
             "bandwidth-delay-product calculator (min(line rate, socket buffer / RTT)) says. Errors are "
             "(predicted - measured) / measured. Calibration tables were used to fit the platform "
             "parameters; holdout tables never were, but model decisions had most of them in view: those are "
             "marked **seen** (the decisions are listed in [README.md](README.md#held-out-seen-and-the-rule-from-"
             "now-on)).", "",
             "## Summary per table", "",
             "Targets: median |error| at most 10 % on every calibration table and 20 % on every holdout table. "
             "Why each missed table misses is in [README.md](README.md#misses).", "",
             "The *sim ±* columns give each run's 95 % confidence interval on its rate, relative to it (batch "
             "means after the transient, `tcpsim/steady.py`; runs stop at ±3 % or after one simulated second): "
             "an error inside it is simulation noise, not model error. CPU figures and finite runs have none.", "",
             "| table | role | points | scored | median abs. error | target | max abs. error | cross-validated median "
             "| BDP calculator median | median sim ± | flags |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    for r in rows:
        target = TABLE_TARGETS.get(r.role.split("/")[0])
        verdict = "-" if target is None or r.median_error is None else (
            f"{target:.0%} met" if r.median_error <= target else f"{target:.0%} **missed**")
        lines.append(f"| {r.source_id}/{r.table_id} ({r.table}) | {_role(r)} | {r.n_points} | {r.n_scored} | "
                     f"{_fmt(r.median_error).strip()} | {verdict} | {_fmt(r.max_error).strip()} | "
                     f"{_fmt(r.cross_median_error).strip()} | {_fmt(r.naive_median_error).strip()} | {_fmt(r.median_halfwidth).strip()} | "
                     f"{', '.join(r.flags)} |")
    lines.append("")
    for role, n, median, worst, naive in role_summaries(outcomes):
        lines.append(f"- **{role}**: {n} points, median |error| {median:.1%}, max {worst:.1%}; "
                     f"BDP calculator median {_fmt(naive).strip()}.")
    lines += _seed_median_lines(seed_medians or {})
    if folds:
        lines += [""] + _cross_section(outcomes, folds, joint)
    lines += ["", "## The sources' charts", "",
              "The shapes the sources drew or tabulated, re-drawn with the same numbers as the tables below: "
              "measured (hollow markers), tcpsim (solid lines) and the BDP calculator (dashed, for throughput).",
              ""]
    for title, name in charts:
        lines += [f"![{title}](figures/{name})", ""]
    lines += ["## Every point", ""]
    for r in rows:
        lines += [f"### {r.source_id}/{r.table_id}: {r.table} ({r.role})", ""]
        if f"{r.source_id}/{r.table_id}" in SEEN:
            lines += ["Seen by: " + "; ".join(SEEN[f"{r.source_id}/{r.table_id}"]) + ".", ""]
        if f"{r.source_id}/{r.table_id}" in figures:
            lines += [f"![{r.table}](figures/{figures[r.source_id + '/' + r.table_id]})", ""]
        lines += ["| row | metric | unit | measured | tcpsim | sim ± | error | cross-validated | BDP calc | limited by "
                  "| flags / note |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
        for o in outcomes:
            if (o.point.source_id, o.point.table_id) != (r.source_id, r.table_id):
                continue
            note = "; ".join(x for x in (", ".join(o.point.flags), o.point.note, o.why_not) if x)
            lines.append(f"| {o.point.row} | {o.point.metric} | {o.point.unit} | {o.point.value:,.4g} | "
                         f"{_value(o, o.predicted)} | {_fmt(o.sim_halfwidth).strip()} | {_fmt(o.error).strip()} | "
                         f"{_fmt(o.cross_error).strip()} | "
                         f"{_value(o, o.naive)} | "
                         f"{o.limited_by or '-'} | {note.replace('|', '/')} |")
        lines.append("")
    path = validation_dir / "REPORT.md"
    path.write_text("\n".join(lines) + "\n")
    return path
