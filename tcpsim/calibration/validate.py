"""Run every measured point of the sources through the model; per-table errors, JSON and a report.

``tcpsim validate`` prints, per table: points, role (calibration / holdout), median and maximum absolute
relative error of tcpsim and of a bandwidth-delay-product calculator, and flags. ``--json FILE`` writes
one object per point; ``--report`` writes ``validation/REPORT.md`` with figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

from ..cliutil import OneLineParser, typed
from ..components import hot_path_label
from ..config import MAX_WORKERS, Scenario
from ..errors import ConfigError
from ..fileio import check_writable_dir, write_text_reporting
from ..platform import Platform
from ..result import Result
from ..units import parse_int
from ..workers import worker_pool
from .batch import run_all
from .mapping import SOURCE_SETUPS, platform_ids, platforms_for_point, predicted_value, scenario_for
from .tables import UNSCORED_FLAGS, Point, load_user_points
from .targets import SEED_MEDIAN_TABLES

__all__ = ["Outcome", "evaluate", "seed_median_errors", "seed_median_tables", "SEED_MEDIAN_SEEDS", "table_summary",
           "main", "load_platforms"]


@dataclass(frozen=True)
class Outcome:
    """A measured point beside the model's and the naive calculator's values (SI units)."""

    point: Point
    predicted: Optional[float]
    naive: Optional[float]
    limited_by: Optional[str]
    termination: Optional[str]
    why_not: str = ""
    sim_halfwidth: Optional[float] = None
    """The run's 95 % interval on its rate, as a fraction of it (None for a finite run, a CPU figure,
    or a run too short to tell): an error within it is simulation noise, not model error."""
    cross_predicted: Optional[float] = None
    """The prediction with the shared parameters fitted without this point's source (``--cross``)."""

    @property
    def error(self) -> Optional[float]:
        if self.predicted is None or not self.point.value_si:
            return None
        return self.predicted / self.point.value_si - 1.0

    @property
    def cross_error(self) -> Optional[float]:
        if self.cross_predicted is None or not self.point.value_si:
            return None
        return self.cross_predicted / self.point.value_si - 1.0

    @property
    def naive_error(self) -> Optional[float]:
        if self.naive is None or not self.point.value_si:
            return None
        return self.naive / self.point.value_si - 1.0

    @property
    def scored(self) -> bool:
        """Counts in the statistics: a measurement the model predicts, not flagged as unusable nor printed twice."""
        return (self.error is not None and self.point.role in ("calibration", "holdout")
                and not UNSCORED_FLAGS & set(self.point.flags))

    def to_json(self) -> dict:
        p = self.point
        scale = self.point.value / self.point.value_si if self.point.value_si else 1.0
        return {
            "source": p.source, "table": p.table, "row": p.row, "metric": p.metric, "unit": p.unit,
            "inputs": {k: v for k, v in p.fields.items() if k not in ("source", "table", "value", "unit", "metric",
                                                                       "role", "flags", "note", "row") and v},
            "measured": p.value,
            "predicted": None if self.predicted is None else self.predicted * scale,
            "naive_bdp": None if self.naive is None else self.naive * scale,
            "error": self.error, "naive_error": self.naive_error,
            "cross_predicted": None if self.cross_predicted is None else self.cross_predicted * scale,
            "cross_error": self.cross_error,
            "role": p.role, "flags": list(p.flags), "limited_by": self.limited_by, "termination": self.termination,
            "sim_halfwidth": self.sim_halfwidth,
            "note": p.note or self.why_not,
        }


def load_platforms(ids: Iterable[str]) -> dict[str, Platform]:
    from ..profiles import load_platform

    out: dict[str, Platform] = {}
    for pid in ids:
        if pid and pid not in out:
            out[pid] = load_platform(pid)
    return out


def _unmodelled(point: Point) -> Optional[str]:
    """Why ``point`` is not simulated, or None when it is."""
    if point.source_id not in SOURCE_SETUPS or not platform_ids(point)[0]:
        return "no test bed mapped for this point"
    if point.metric not in ("throughput", "packet_rate", "transactions", "cpu_pct", "cpus_busy"):
        return f"metric {point.metric!r} is not modelled"
    return None


_RATE_METRICS = ("throughput", "packet_rate", "transactions")
"""Metrics that scale with the run's goodput, so its relative interval applies to them."""


def _calculator_view(sc: Scenario) -> Scenario:
    """The scenario as a BDP calculator's user gives it: a bare veth's round trip is the one such a user measures
    there (:data:`tcpsim.lab.scenario.VETH_RTT_S`), not the none tcpsim simulates between modelled hosts."""
    link = sc.link
    if link.one_way_delay_s or not link.rx_on_sending_cpu:
        return sc
    from ..lab.scenario import VETH_RTT_S

    return replace(sc, link=replace(link, one_way_delay_s=VETH_RTT_S / 2))


def _outcome(point: Point, sc: Scenario, result: Result) -> Outcome:
    from ..ceilings import naive_bdp_bps

    pred = predicted_value(point, sc, result)
    naive = None
    if point.metric == "throughput":
        naive = naive_bdp_bps(_calculator_view(sc))
        if SOURCE_SETUPS[point.source_id].counts_interface_bytes and naive is not None:
            from ..protocol import framing
            mss = framing.mss_bytes(sc.link.mtu_bytes)
            naive *= (mss + 54) / mss
    why = "" if pred is not None else "this metric's quantity is not part of the model"
    halfwidth = None
    if point.metric in _RATE_METRICS and result.goodput_halfwidth_bps is not None and result.goodput_bps > 0:
        halfwidth = result.goodput_halfwidth_bps / result.goodput_bps
    return Outcome(point, pred, naive, result.limited_by, result.termination, why, halfwidth)


def evaluate(points: Sequence[Point], executor: Optional[Executor] = None,
             platforms: Optional[Mapping[str, Platform]] = None) -> list[Outcome]:
    """Outcomes for ``points`` (in order); the simulations run on ``executor`` when given.

    ``platforms`` replaces the shipped profiles of the ids it names (a fit's platforms, untuned).
    """
    simulated = [p for p in points if _unmodelled(p) is None]
    scenarios = [scenario_for(p, platforms_for_point(p, platforms)) for p in simulated]
    results = dict(zip(map(id, simulated), zip(scenarios, run_all(scenarios, executor))))
    out = []
    for p in points:
        why = _unmodelled(p)
        out.append(Outcome(p, None, None, None, None, why) if why else _outcome(p, *results[id(p)]))
    return out


SEED_MEDIAN_SEEDS = 5
"""Seeds whose median prediction is a lossy table's figure of record (validation/README.md, "A third lossy table")."""


def seed_median_errors(points: Sequence[Point], executor: Optional[Executor] = None,
                       seeds: int = SEED_MEDIAN_SEEDS) -> list[Optional[float]]:
    """Per point, the relative error of its median prediction over seeds ``0 .. seeds - 1`` (None where it is not
    scored): the estimator of a lossy table, whose single runs are a lottery on both sides."""
    simulated = [p for p in points if _unmodelled(p) is None]
    base = [scenario_for(p, platforms_for_point(p)) for p in simulated]
    scenarios = [replace(sc, seed=seed) for sc in base for seed in range(seeds)]
    results = run_all(scenarios, executor)
    by_point: dict[int, Optional[float]] = {}
    for i, p in enumerate(simulated):
        preds = [predicted_value(p, scenarios[i * seeds + k], results[i * seeds + k]) for k in range(seeds)]
        by_point[id(p)] = (statistics.median(preds) / p.value_si - 1.0) if None not in preds and p.value_si else None
    return [by_point.get(id(p)) for p in points]


def seed_median_tables(points: Sequence[Point], executor: Optional[Executor] = None) -> dict[str, list[float]]:
    """|error| of each scored row's median prediction over seeds 0-4, for the tables scored that way
    (:data:`~tcpsim.calibration.targets.SEED_MEDIAN_TABLES`) that ``points`` hold."""
    out = {}
    for key in SEED_MEDIAN_TABLES:
        pts = [p for p in points if f"{p.source_id}/{p.table_id}" == key]
        if pts:
            out[key] = [abs(e) for e in seed_median_errors(pts, executor) if e is not None]
    return out


@dataclass(frozen=True)
class TableSummary:
    source_id: str
    table_id: str
    table: str
    role: str
    n_points: int
    n_scored: int
    median_error: Optional[float]
    max_error: Optional[float]
    naive_median_error: Optional[float]
    flags: tuple[str, ...] = field(default_factory=tuple)
    median_halfwidth: Optional[float] = None
    """Median of the scored points' simulation intervals (:attr:`Outcome.sim_halfwidth`)."""
    cross_median_error: Optional[float] = None
    """Median |cross-validated error| of the scored points (``--cross``; None without it)."""


def _median(xs: list[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def table_summary(outcomes: Sequence[Outcome]) -> list[TableSummary]:
    groups: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault((o.point.source_id, o.point.table_id), []).append(o)
    rows = []
    for (sid, tid), outs in groups.items():
        scored = [o for o in outs if o.scored]
        errs = [abs(o.error) for o in scored]
        naive = [abs(o.naive_error) for o in scored if o.naive_error is not None]
        halfwidths = [o.sim_halfwidth for o in scored if o.sim_halfwidth is not None]
        cross = [abs(o.cross_error) for o in scored if o.cross_error is not None]
        roles = sorted({o.point.role for o in outs})
        flags = sorted({f for o in outs for f in o.point.flags})
        rows.append(TableSummary(sid, tid, outs[0].point.table, "/".join(roles), len(outs), len(scored),
                                 _median(errs), max(errs) if errs else None, _median(naive), tuple(flags),
                                 _median(halfwidths), _median(cross)))
    return rows


def _fmt(x: Optional[float]) -> str:
    return "   -  " if x is None else f"{x:6.1%}"


def format_summary(rows: Sequence[TableSummary], outcomes: Sequence[Outcome]) -> str:
    cross = any(r.cross_median_error is not None for r in rows)
    lines = [f"{'table':34s} {'role':12s} {'pts':>4s} {'scored':>6s} {'median':>7s} {'max':>7s} "
             + (f"{'cross':>7s} " if cross else "") + f"{'BDP calc':>8s} {'sim +-':>7s}  flags"]
    for r in rows:
        lines.append(f"{r.source_id + '/' + r.table_id:34s} {r.role:12s} {r.n_points:4d} {r.n_scored:6d} "
                     f"{_fmt(r.median_error)} {_fmt(r.max_error)} " + (f"{_fmt(r.cross_median_error)} " if cross else "")
                     + f"{_fmt(r.naive_median_error):>8s} {_fmt(r.median_halfwidth)}  {','.join(r.flags)}")
    for role, n, median, worst, naive in role_summaries(outcomes):
        lines.append(f"overall {role:12s}: {n} points, median |error| {median:.1%}, max {worst:.1%}; "
                     f"BDP calculator median {_fmt(naive).strip()}")
    return "\n".join(lines)


def role_summaries(outcomes: Sequence[Outcome]) -> list[tuple[str, int, float, float, Optional[float]]]:
    """Per role: (role, scored points, median and max |error|, the BDP calculator's median |error|)."""
    out = []
    for role in ("calibration", "holdout"):
        scored = [o for o in outcomes if o.scored and o.point.role == role]
        errs = [abs(o.error) for o in scored]
        naive = [abs(o.naive_error) for o in scored if o.naive_error is not None]
        if errs:
            out.append((role, len(errs), _median(errs), max(errs), _median(naive)))
    return out


def given_platforms(specs: Sequence[str], points: Sequence[Point]) -> dict[str, Platform]:
    """``--platform ID=FILE`` arguments as the platforms that replace the profiles ``ID`` names in ``points``
    (FILE a machine or profile file, or a shipped profile's name), placed on the lab's path as ``lab_vm`` is where
    the rows are the lab's (:func:`tcpsim.lab.predict.as_lab_vm`). An ID no row names, or a malformed argument, is
    a ConfigError naming it."""
    from ..lab.predict import as_lab_vm
    from ..profiles import load_platform

    used = sorted({pid for p in points for pid in platform_ids(p) if pid})
    on_lab = {pid for p in points if p.source_id == "lab" for pid in platform_ids(p) if pid}
    out: dict[str, Platform] = {}
    for spec in specs:
        pid, sep, source = spec.partition("=")
        pid, source = pid.strip(), source.strip()
        if not sep or not pid or not source:
            raise ConfigError("--platform", spec, "ID=FILE, e.g. lab_vm=myhost.toml")
        if pid not in used:
            raise ConfigError("--platform", spec, "an ID the tables' rows name: " + ", ".join(used))
        out[pid] = as_lab_vm(source) if pid in on_lab else load_platform(source)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = OneLineParser(prog="tcpsim validate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Example:\n  tcpsim validate --json points.json --report")
    parser.add_argument("--data", type=Path, default=None,
                        help="folder of measured tables, one subfolder per source (default: the tables shipped "
                             "in the package)")
    parser.add_argument("--json", dest="json_path", default=None, help="write one object per point to FILE ('-' = stdout)")
    parser.add_argument("--report", action="store_true",
                        help="write REPORT.md and figures/ into ./validation (run it from a checkout)")
    parser.add_argument("--workers", type=typed(parse_int, "workers", lo=1, hi=MAX_WORKERS),
                        default=os.cpu_count() or 1)
    parser.add_argument("--source", default=None, help="only this source id (tru64, sunfire, tengbe, vbox, gignic)")
    parser.add_argument("--cross", action="store_true",
                        help="also leave one source out: fit the shared parameters without it, predict it "
                             "(cross_error in --json, a column here and in the report)")
    parser.add_argument("--cross-evals", type=typed(parse_int, "cross-evals", lo=0), default=None, metavar="N",
                        help="full evaluations of the fit points per leave-one-source-out fit (default 10, the "
                             "committed record's; each accepted step also costs one Jacobian)")
    parser.add_argument("--cross-polish", type=typed(parse_int, "cross-polish", lo=0), default=None, metavar="N",
                        help="further Powell evaluations per fit (default 0)")
    parser.add_argument("--joint", action="store_true",
                        help="with --cross, also fit the shared parameters to every source's calibration tables "
                             "(the joint fit in sample) and score the model's machines with it")
    parser.add_argument("--cross-jacobian", choices=("full", "broyden"), default=None,
                        help="each fit's Jacobian after its first: differenced again at every accepted step "
                             "(full, the default) or Broyden's update from the step (no runs)")
    parser.add_argument("--platform", dest="platforms", action="append", default=[], metavar="ID=FILE",
                        help="score the tables with this machine or profile (a file or a profile name) in place of "
                             "the one their rows name (lab_vm, es40_tru64 ...): your own machine file against "
                             "your own measured runs; repeatable; not with --cross or --report")
    args = parser.parse_args(argv)
    if args.platforms and (args.cross or args.report):
        raise ConfigError("--platform", ", ".join(args.platforms), "absent with --cross or --report (they score "
                          "and record the shipped profiles)")
    if args.joint and not args.cross:
        raise ConfigError("--joint", "given", "together with --cross")
    for name, default in (("cross_evals", 10), ("cross_polish", 0), ("cross_jacobian", "full")):
        value = getattr(args, name)
        if value is not None and not args.cross:
            raise ConfigError("--" + name.replace("_", "-"), value, "given together with --cross (it sets the "
                              "leave-one-source-out fits)")
        setattr(args, name, default if value is None else value)
    if args.cross and args.source:
        raise ConfigError("--source", args.source, "absent with --cross (a fold needs the other sources)")
    t0 = time.perf_counter()
    if args.json_path not in (None, "-"):
        check_writable_dir(args.json_path, "json")  # before the run, not after it
    if args.report:
        out_dir = Path.cwd() / "validation"
        if out_dir.exists() and not out_dir.is_dir():
            raise ConfigError("report", str(out_dir), "a folder to write REPORT.md into (it is a file)")
        check_writable_dir(out_dir / "REPORT.md" if out_dir.is_dir() else out_dir, "report")
    points = load_user_points(args.data, args.source)
    given = given_platforms(args.platforms, points)
    folds = joint = None
    with (worker_pool(args.workers) if args.workers > 1 else nullcontext()) as ex:
        outcomes = evaluate(points, ex, given)
        if args.cross:
            from .cross import IN_SAMPLE, cross_outcomes, describe_fold, joint_in_sample, leave_one_source_out
            from .shared import joint_model

            model = joint_model()
            folds = leave_one_source_out(model, points, ex, max_nfev=args.cross_evals,
                                         polish_nfev=args.cross_polish, progress=print, in_sample=args.joint,
                                         broyden=args.cross_jacobian == "broyden")
            outcomes = cross_outcomes(outcomes, folds, ex)
            for fold in folds.values():
                print("\n".join(describe_fold(fold)))
            if args.joint:
                joint = joint_in_sample(outcomes, folds[IN_SAMPLE], ex)
                print(f"joint fit in sample: {joint['calibration_points']} calibration points, median |error| "
                      f"{joint['calibration_median']:.1%}; per table " + ", ".join(
                          f"{k} {v:.1%}" for k, v in joint["tables"].items()))
    rows = table_summary(outcomes)
    print(format_summary(rows, outcomes))
    print(f"{len(points)} points in {time.perf_counter() - t0:.1f} s ({hot_path_label()} hot path, "
          f"{args.workers} worker(s))")
    if args.json_path:
        payload = json.dumps([o.to_json() for o in outcomes], indent=1, allow_nan=False, default=str)
        write_text_reporting(args.json_path, payload, "json")
    if args.report:
        from .report import write_report

        with worker_pool(args.workers) if args.workers > 1 else nullcontext() as pool:
            seed_medians = seed_median_tables(points, pool)
        write_report(outcomes, rows, Path.cwd() / "validation", folds, joint, seed_medians)
        if folds is not None:
            from .cross import cross_summary, fingerprint

            record = cross_summary(outcomes, folds, {"cross_evals": args.cross_evals,
                                                     "cross_jacobian": args.cross_jacobian,
                                                     "cross_polish": args.cross_polish,
                                                     "date": time.strftime("%Y-%m-%d"),
                                                     "wall_s": round(time.perf_counter() - t0, 1),
                                                     "workers": args.workers, "hot_path": hot_path_label()},
                                   fingerprint(points, model), joint)
            write_text_reporting(str(Path.cwd() / "validation" / "cross_summary.json"),
                                 json.dumps(record, indent=1, allow_nan=False) + "\n", "report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
