"""Leave one source out: fit the shared parameters without a source, then predict every table of it.

For each source in turn, :func:`leave_one_source_out` fits a :class:`~tcpsim.calibration.joint.JointModel`
to the calibration tables of the *other* sources only, and :func:`cross_outcomes` predicts every point
of the left-out source with those fitted platforms (``Outcome.cross_predicted``). A parameter that no
remaining point constrains keeps its start (validation/README.md, the cross-validation rule). Sources
whose folds fit the same points (those without calibration tables) share one fit.

A source none of whose machines is in the joint model (the lab, the VirtualBox note, the NIC article) is
predicted in its fold by its profiles without their ``[calibration.*]`` residuals (:func:`uncalibrated`): a
value calibrated on the left-out source never enters its fold (validation/README.md, "The lab left out").
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Optional, Sequence

from ..platform import Platform
from .calibrate import fittable
from .joint import JointFit, JointModel, fit_joint
from .mapping import platform_ids
from .tables import Point
from .validate import Outcome, evaluate

__all__ = ["Fold", "leave_one_source_out", "cross_outcomes", "describe_fold", "source_medians", "IN_SAMPLE",
           "joint_in_sample"]

IN_SAMPLE = "none"
"""The ``left_out`` of the joint fit to every source's calibration tables (nothing left out)."""


@dataclass(frozen=True)
class Fold:
    """One leave-one-source-out fit: the source left out, the points fitted, the fit.

    ``fit`` is None when no point of the left-out source runs on a machine of the model: no parameter can
    change its predictions, which are its profiles' (in-sample and cross-validated alike)."""

    left_out: str
    fit_points: tuple[Point, ...]
    fit: Optional[JointFit]
    profiles: tuple[str, ...] = ()
    """The profiles the left-out source's points run on (for a fold with no fit: :func:`uncalibrated`)."""


def leave_one_source_out(model: JointModel, points: Sequence[Point], executor: Optional[Executor] = None,
                         max_nfev: int = 10, polish_nfev: int = 0, loss: str = "soft_l1",
                         progress: Optional[Callable[[str], None]] = None,
                         in_sample: bool = False, broyden: bool = False) -> dict[str, Fold]:
    """One fold per source that has a scorable point; each fitted on the other sources' calibration points
    (those on machines the model sets). ``in_sample`` adds the fit to every source's calibration points,
    under :data:`IN_SAMPLE` (it predicts no point: :func:`joint_in_sample` scores it)."""
    sources = sorted({p.source_id for p in points if p.role in ("calibration", "holdout")})
    if in_sample:
        sources.append(IN_SAMPLE)
    usable = [p for p in points if fittable(p) and model.touches(p)]
    fits: dict[tuple[str, ...], JointFit] = {}
    out: dict[str, Fold] = {}
    # Every fold starts at the committed values: the runs of a machine kept in several folds (its start and
    # its first Jacobian's columns) are the same scenarios, run once.
    cache: dict = {}
    for source in sources:
        fit_points = tuple(p for p in usable if p.source_id != source)
        if source != IN_SAMPLE and not any(model.touches(p) for p in points if p.source_id == source):
            profiles = sorted({pid for p in points if p.source_id == source for pid in platform_ids(p) if pid})
            out[source] = Fold(source, fit_points, None, tuple(profiles))
            continue
        key = tuple(p.key for p in fit_points)
        if key not in fits:
            if progress is not None:
                progress(f"{_title(source)}: {len(fit_points)} points, "
                         f"{len(model.free(fit_points))} of {len(model.params)} parameters free")
            fits[key] = fit_joint(model, fit_points, executor, max_nfev=max_nfev, polish_nfev=polish_nfev,
                                  loss=loss, progress=progress, cache=cache, broyden=broyden)
        out[source] = Fold(source, fit_points, fits[key])
    return out


def cross_outcomes(outcomes: Sequence[Outcome], folds: dict[str, Fold],
                   executor: Optional[Executor] = None) -> list[Outcome]:
    """``outcomes`` with ``cross_predicted`` set from the fold that left the point's source out."""
    cross: dict[int, Optional[float]] = {}
    for source, fold in folds.items():
        if source == IN_SAMPLE:
            continue
        mine = [i for i, o in enumerate(outcomes) if o.point.source_id == source]
        platforms = fold.fit.platforms if fold.fit is not None else uncalibrated(fold.profiles)
        if not platforms:  # nothing of this source was calibrated: its fold is its profiles
            cross.update((i, outcomes[i].predicted) for i in mine)
            continue
        predicted = evaluate([outcomes[i].point for i in mine], executor, platforms=platforms)
        cross.update((i, o.predicted) for i, o in zip(mine, predicted))
    return [replace(o, cross_predicted=cross.get(i)) for i, o in enumerate(outcomes)]


def _without_calibration(key: str, table: str) -> bool:
    return table != "calibration"


def _fold_costs():
    """The shared costs a fold of a source outside the joint model predicts it with: the catalog's, less the value
    its own profile gave the catalog (``copy_factor_fsrm``, derived from ``lab_vm``; validation/README.md, "A copy
    factor for cores with fast short string moves")."""
    from ..machine.costs import default_costs

    return replace(default_costs(), copy_factor_fsrm=None)


def uncalibrated(ids: Iterable[str]) -> dict[str, Platform]:
    """The profiles among ``ids`` that carry ``[calibration.*]`` residuals, resolved without them: their fitted
    values replaced by what their parts and the shared costs give (:func:`_fold_costs`)."""
    from ..machine.spec import load_machine

    costs = _fold_costs()
    return {pid: load_machine(pid, costs=costs, keep=_without_calibration).platform
            for pid in ids if _calibrated_values(pid)}


def _calibrated_values(pid: str) -> list[tuple[str, float, float]]:
    """(runtime key, calibrated value, what the parts and shared costs give) of each ``[calibration.*]`` residual
    of profile ``pid``; none for a profile of runtime values."""
    from ..machine.resolve import runtime_value
    from ..machine.spec import is_machine_spec, load_machine

    if not is_machine_spec(pid):
        return []
    m = load_machine(pid, costs=_fold_costs())
    return [(key, runtime_value(m.platform, key), runtime_value(m.physics, key))
            for key, table in sorted(m.residuals.items()) if table == "calibration"]


def describe_fold(fold: Fold) -> list[str]:
    """Per parameter: start -> fitted value (or kept), what it means, and the measured points that constrain it."""
    fit = fold.fit
    if fit is None:
        changes = [f"{pid} {key} {old:.4g} -> {new:.4g}" for pid in fold.profiles
                   for key, old, new in _calibrated_values(pid)]
        if not changes:
            return [f"without {fold.left_out}: no machine of it is in the joint model and no value of its profiles was "
                    "calibrated on it: its predictions are its profiles', unchanged"]
        return [f"without {fold.left_out}: no machine of it is in the joint model; its profiles predict it without the "
                "values calibrated on it, which come from their parts and the shared costs instead: "
                + "; ".join(changes)]
    lines = [f"{_title(fold.left_out)}: {fit.n_points} points, {fit.n_evaluations} evaluations, "
             f"{fit.n_jacobians} Jacobians, "
             f"median |error| {fit.median_abs_rel_error:.1%} on them, objective {fit.start_objective:.4g} -> "
             f"{fit.objective:.4g} ({fit.message})"]
    for i, (prm, v0) in enumerate(zip(fit.model.params, fit.start)):
        tables: dict[str, int] = {}
        for p in fit.model.constraining(prm, fold.fit_points):
            tables[f"{p.source_id}/{p.table_id}"] = tables.get(f"{p.source_id}/{p.table_id}", 0) + 1
        if i in fit.free:
            value = f"{v0:.4g} -> {prm.start:.4g}"
        elif prm.borrow and prm.start != v0:
            value = f"{prm.start:.4g} (borrowed)"
        else:
            value = f"{prm.start:.4g} (prior)"
        where = ", ".join(f"{k} ({n})" for k, n in sorted(tables.items())) or "no point in this fit"
        lines.append(f"  {prm.name:34s} {value:24s} {prm.meaning}; constrained by {where}")
    return lines


def _title(left_out: str) -> str:
    return "joint fit in sample (nothing left out)" if left_out == IN_SAMPLE else f"fold without {left_out}"


def joint_in_sample(outcomes: Sequence[Outcome], fold: Fold, executor: Optional[Executor] = None) -> dict:
    """Per table and per source, the median |error| of the points on the joint model's machines predicted
    with the in-sample joint fit (the per-platform calibration's figures are ``outcomes``' own)."""
    import statistics

    mine = [o for o in outcomes if o.scored and fold.fit.model.touches(o.point)]
    predicted = evaluate([o.point for o in mine], executor, platforms=fold.fit.platforms)
    tables: dict[str, list[float]] = {}
    sources: dict[str, list[float]] = {}
    for o in predicted:
        if o.error is not None:
            tables.setdefault(f"{o.point.source_id}/{o.point.table_id}", []).append(abs(o.error))
            sources.setdefault(o.point.source_id, []).append(abs(o.error))
    calib = [abs(o.error) for o in predicted if o.error is not None and o.point.role == "calibration"]
    return {"tables": {k: statistics.median(v) for k, v in sorted(tables.items())},
            "sources": {k: statistics.median(v) for k, v in sorted(sources.items())},
            "calibration_points": len(calib), "calibration_median": statistics.median(calib) if calib else None}


def source_medians(outcomes: Sequence[Outcome]) -> dict[str, tuple[int, Optional[float], Optional[float]]]:
    """Per source: scored points, median |error| in sample and cross-validated."""
    import statistics

    out = {}
    for source in sorted({o.point.source_id for o in outcomes}):
        scored = [o for o in outcomes if o.point.source_id == source and o.scored]
        errs = [abs(o.error) for o in scored]
        cross = [abs(o.cross_error) for o in scored if o.cross_error is not None]
        out[source] = (len(scored), statistics.median(errs) if errs else None,
                       statistics.median(cross) if cross else None)
    return out


def cpu_limited_medians(outcomes: Sequence[Outcome]) -> dict[str, tuple[int, float, float]]:
    """Per source, over its scored points whose in-sample run a CPU limits (where the costs decide): how many, and
    the median |error| in sample and cross-validated. Sources with no such point are absent."""
    import statistics

    errs: dict[str, tuple[list[float], list[float]]] = {}
    for o in outcomes:
        if o.scored and o.cross_error is not None and (o.limited_by or "").startswith("cpu"):
            ins, cross = errs.setdefault(o.point.source_id, ([], []))
            ins.append(abs(o.error))
            cross.append(abs(o.cross_error))
    return {s: (len(ins), statistics.median(ins), statistics.median(cross)) for s, (ins, cross) in sorted(errs.items())}


def fingerprint(points: Sequence[Point], model: JointModel) -> str:
    """A digest of the measured points, the joint model's parameters (names, bounds, starts) and every profile the
    points run on, as resolved and as their folds resolve them (a refit, or a part changed): a cross-validation
    record is current only while all are what it was computed from."""
    import hashlib

    from ..profiles import load_platform

    h = hashlib.sha256()
    for p in sorted(points, key=lambda p: p.key):
        h.update(f"{p.key}|{p.value!r}|{p.role}|{';'.join(p.flags)}|{sorted(p.fields.items())!r}\n".encode())
    for prm in model.params:
        h.update(f"{prm.name}|{prm.lo!r}|{prm.hi!r}|{prm.start!r}|{prm.prior_sigma!r}\n".encode())
    profiles = sorted({pid for p in points for pid in platform_ids(p) if pid})
    folds = uncalibrated(profiles)
    for pid in profiles:
        h.update(f"{pid}|{load_platform(pid)!r}|{folds.get(pid)!r}\n".encode())
    return h.hexdigest()[:16]


def cross_summary(outcomes: Sequence[Outcome], folds: dict[str, Fold], settings: dict, digest: str,
                  joint: Optional[dict] = None) -> dict:
    """What ``validate --cross --report`` records in ``validation/cross_summary.json``: per source and per
    table, the in-sample, cross-validated and calculator medians, with the run's settings and fingerprint."""
    from .validate import table_summary

    tables = {f"{r.source_id}/{r.table_id}": {"role": r.role, "scored": r.n_scored, "in_sample": r.median_error,
                                               "cross": r.cross_median_error, "bdp": r.naive_median_error}
              for r in table_summary(outcomes)}
    sources = {s: {"scored": n, "in_sample": ins, "cross": cross}
               for s, (n, ins, cross) in source_medians(outcomes).items()}
    for s, (n, ins, cross) in cpu_limited_medians(outcomes).items():
        sources[s]["cpu_limited"] = {"scored": n, "in_sample": ins, "cross": cross}
    for s, row in sources.items():
        row["left_out"] = any(o.cross_predicted != o.predicted for o in outcomes if o.point.source_id == s)
    fits = {s: None if f.fit is None else {"points": f.fit.n_points, "evaluations": f.fit.n_evaluations,
                                           "jacobians": f.fit.n_jacobians,
                                           "objective": f.fit.objective, "start_objective": f.fit.start_objective,
                                           "free": [f.fit.model.params[i].name for i in f.fit.free]}
            for s, f in folds.items()}
    out = {"fingerprint": digest, "settings": settings, "sources": sources, "tables": tables, "fits": fits}
    if joint is not None:
        out["joint_in_sample"] = joint
    return out
