"""The fitter behind ``tcpsim calibrate --lab`` / ``--iperf3``: a model's costs fitted to measured goodputs in log
space, robustly, with intervals from the Jacobian, and from several starts where one start's search path would decide.

Any callable ``model(values) -> predictions`` works: :mod:`tcpsim.calibration.own` passes the simulator over the
runs, the tests a closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from ..errors import ConfigError

__all__ = ["OwnFit", "Evaluation", "KEEP", "kept_evaluation", "fit_costs", "fit_costs_restarts", "restart_starts",
           "robust_cost", "ROBUST_SCALE", "RESTART_SPREAD"]


@dataclass(frozen=True)
class Evaluation:
    """One model evaluation of a fit: the costs tried, the objective there, the median |error| over the runs."""

    values: tuple[float, ...]
    objective: float
    median_abs_rel_error: float


KEEP = ("objective", "median")
"""What a fit keeps of its evaluations: the least objective (the robust loss the search minimises; the default), or
the least median |error| over the goodput runs, the figure ``calibrate`` prints (ties: the least objective)."""


def kept_evaluation(evaluations: Sequence[Evaluation], keep: str) -> int:
    """The index of the evaluation ``keep`` (of :data:`KEEP`) chooses; the first of equals."""
    if keep not in KEEP:
        raise ConfigError("keep", keep, " or ".join(KEEP))
    if keep == "objective":
        return min(range(len(evaluations)), key=lambda i: evaluations[i].objective)
    return min(range(len(evaluations)),
               key=lambda i: (evaluations[i].median_abs_rel_error, evaluations[i].objective))


@dataclass(frozen=True)
class OwnFit:
    names: tuple[str, ...]
    values: tuple[float, ...]
    start: tuple[float, ...]
    lo95: tuple[Optional[float], ...]
    hi95: tuple[Optional[float], ...]
    errors: tuple[float, ...]
    """predicted / measured - 1 per run, at the fitted values."""
    n_evaluations: int
    message: str
    objective: float = math.nan
    """The fit's objective at its values (:func:`robust_cost` of the log errors, the prior's terms included): what
    :func:`fit_costs_restarts` compares fits from different starts by."""
    kept_by: str = "objective"
    """Which of :data:`KEEP` chose the values among the evaluations."""
    evaluations: tuple[Evaluation, ...] = ()
    """Every evaluation in the order run: the search path, for a reader and for :func:`fit_costs_restarts`."""

    @property
    def median_abs_rel_error(self) -> float:
        return _median_abs(self.errors)


def _median_abs(xs: Sequence[float]) -> float:
    e = sorted(abs(x) for x in xs)
    n = len(e)
    return (e[n // 2] if n % 2 else (e[n // 2 - 1] + e[n // 2]) / 2) if n else math.nan


ROBUST_SCALE = 0.1
"""The log error (about 10 %) beyond which :func:`fit_costs` weighs a run's error about linearly, not squared."""


def robust_cost(log_errors) -> float:
    """:func:`fit_costs`' objective: scipy's ``soft_l1`` loss, sum of 2 s^2 (sqrt(1 + (e/s)^2) - 1), s =
    :data:`ROBUST_SCALE` (twice scipy's ``cost``)."""
    import numpy as np

    z = (np.asarray(log_errors, dtype=float) / ROBUST_SCALE) ** 2
    return float(np.sum(2 * ROBUST_SCALE ** 2 * (np.sqrt(1 + z) - 1)))


def fit_costs(model: Callable[[Sequence[float]], Sequence[float]], measured: Sequence[float], start: Sequence[float],
              bounds: Sequence[tuple[float, float]], names: Sequence[str], max_nfev: int = 30,
              progress: Optional[Callable[[str], None]] = None, prior_factor: Optional[float] = None,
              prior_center: Optional[Sequence[float]] = None, keep: str = "objective",
              n_goodputs: Optional[int] = None) -> OwnFit:
    """Fit ``model(values) -> predictions`` to ``measured`` in log space within ``bounds``, robustly.

    ``prior_factor`` (None: no prior): the start values are believed within this factor, one standard deviation
    in log space, and each cost's distance from its start, ``ROBUST_SCALE x log(value / start) / log(factor)``,
    joins the residuals (a maximum a posteriori fit). Where the runs weigh a cost the data decide; where they
    cannot (a direction along which the predictions do not change, such as a per-write and a per-unit cost when
    every write is one segment) the cost stays near its start instead of wandering to wherever the optimizer
    stopped. The intervals then include the prior (weighed as if the runs scattered by ``ROBUST_SCALE``);
    "not identified" still says the runs alone do not tell.

    The loss is scipy's ``soft_l1`` of the log errors with scale :data:`ROBUST_SCALE` (about 10 %): errors
    well inside it count as their squares, larger ones about linearly, so a run the model cannot reach (a
    structural miss) does not pull the shared costs away from the runs it can.

    ``max_nfev`` bounds the model evaluations roughly (each least-squares step costs one per cost plus one).
    ``model`` is the simulator over the runs in :func:`main`; any callable works (the tests use a closed
    form). Intervals: +-1.96 standard errors in log space from the Jacobian; None where it is singular
    in that direction (the runs do not tell the cost).

    The result is the best point evaluated (the start, every trial step and every Jacobian probe alike), by
    the fit's own objective, the sum of that loss: the optimizer's last iterate can be worse than a
    point it passed (a budget that ends mid-search, a probe that landed lower on a simulator that is not
    smooth), and an evaluated point's errors are the simulator's own, so nothing is extrapolated.
    ``keep="median"`` keeps instead the evaluation of least median |error| over the first ``n_goodputs``
    measured values (default all; ``calibrate --shares`` appends busy shares after the goodputs). Every
    evaluation is in the result's ``evaluations``.
    """
    import numpy as np
    from scipy.optimize import least_squares

    meas = np.asarray(measured, dtype=float)
    if len(meas) == 0 or np.any(~np.isfinite(meas)) or np.any(meas <= 0):
        raise ConfigError("measured", list(measured), "positive finite goodputs, at least one run")
    _check_prior(prior_factor)
    prior_weight = 0.0 if prior_factor is None else ROBUST_SCALE / math.log(prior_factor)
    n_runs = len(meas)
    lo = np.log([b[0] for b in bounds])
    hi = np.log([b[1] for b in bounds])
    x0 = np.clip(np.log(np.maximum(np.asarray(start, dtype=float), 1e-30)), lo + 1e-9, hi - 1e-9)
    center = x0 if prior_center is None else np.log(np.maximum(np.asarray(prior_center, dtype=float), 1e-30))
    if keep not in KEEP:
        raise ConfigError("keep", keep, " or ".join(KEEP))
    n_med = n_runs if n_goodputs is None else max(1, min(n_goodputs, n_runs))
    n_eval = [0]
    trace: list[Evaluation] = []
    points: list[tuple[np.ndarray, np.ndarray]] = []  # x and residuals of each evaluation

    def residuals(x: np.ndarray) -> np.ndarray:
        pred = np.asarray(model(list(np.exp(x))), dtype=float)
        res = np.log(np.maximum(pred, 1e-9) / meas)
        n_eval[0] += 1
        res = np.where(np.isfinite(res), res, 3.0)
        if prior_weight:
            res = np.concatenate([res, prior_weight * (np.asarray(x, dtype=float) - center)])
        med = _median_abs(np.expm1(res[:n_med]).tolist())
        trace.append(Evaluation(tuple(float(v) for v in np.exp(x)), robust_cost(res), med))
        points.append((np.array(x, dtype=float), res.copy()))
        if progress is not None:
            progress(f"  eval {n_eval[0]:3d}: median |err| {med:.1%}")
        return res

    # least_squares counts neither Jacobian evaluations nor the start: budget the model runs themselves. In these
    # variables (ln of a cost in seconds, always negative) scipy's probes lower each cost by 0.05 x |ln cost|, a factor
    # 2-3, and its first trust region is the start's norm, about 30: a coarse first search that the simulator's jumps
    # between CPU states need. Unit-free steps of 10 % and of a factor 2 both fitted worse on four machines' runs
    # (validation/README.md, "What stepping in each cost's own scale gave").
    sol = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.05, max_nfev=max(1, max_nfev // (len(x0) + 1)),
                        method="trf", loss="soft_l1", f_scale=ROBUST_SCALE)
    k = kept_evaluation(trace, keep)
    x_best, res = points[k]
    runs_res = res[:n_runs]
    dof = max(n_runs - len(x0), 1)
    s2 = float(np.sum(runs_res ** 2)) / dof
    lo95: list[Optional[float]] = [None] * len(x0)
    hi95: list[Optional[float]] = [None] * len(x0)
    jac = np.asarray(sol.jac, dtype=float)
    if jac.size and n_runs > len(x0) and _identified(jac[:n_runs]):
        cov = np.linalg.inv(jac.T @ jac) * s2  # with a prior its rows are in ``jac``: the interval includes it
        for i in range(len(x0)):
            half = 1.96 * math.sqrt(max(cov[i, i], 0.0))
            if half < 5.0:  # a factor e^5 ~ 150 either way says nothing
                lo95[i], hi95[i] = float(np.exp(x_best[i] - half)), float(np.exp(x_best[i] + half))
    message = (f"{sol.message} Best of {n_eval[0]} evaluations" + ("" if keep == "objective" else f" by {keep}")
               + f": number {k + 1}" + (" (the start)" if k == 0 else ""))
    return OwnFit(names=tuple(names), values=tuple(float(v) for v in np.exp(x_best)),
                  start=tuple(float(v) for v in np.exp(x0)), lo95=tuple(lo95), hi95=tuple(hi95),
                  errors=tuple(float(v) for v in np.expm1(runs_res)), n_evaluations=n_eval[0], message=message,
                  objective=trace[k].objective, kept_by=keep, evaluations=tuple(trace))


RESTART_SPREAD = 10.0
"""How far from the first start :func:`restart_starts` draws the others: log-uniformly within this factor either
way (within the costs' bounds), so a restart can leave the basin the first start's search fell into."""


def restart_starts(start: Sequence[float], bounds: Sequence[tuple[float, float]], n: int,
                   spread: float = RESTART_SPREAD, seed: int = 0) -> list[list[float]]:
    """``start`` itself, then ``n - 1`` starts drawn log-uniformly within ``spread`` of it and inside ``bounds``, from
    a generator seeded with ``seed``: the same runs and seed give the same starts."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = [list(map(float, start))]
    for _ in range(n - 1):
        step = rng.uniform(-1.0, 1.0, len(start)) * math.log(spread)
        out.append([float(min(max(v * math.exp(d), lo), hi)) for v, d, (lo, hi) in zip(start, step, bounds)])
    return out


def fit_costs_restarts(model: Callable[[Sequence[float]], Sequence[float]], measured: Sequence[float],
                       start: Sequence[float], bounds: Sequence[tuple[float, float]], names: Sequence[str],
                       restarts: int = 1, max_nfev: int = 30, progress: Optional[Callable[[str], None]] = None,
                       prior_factor: Optional[float] = None, seed: int = 0, keep: str = "objective",
                       n_goodputs: Optional[int] = None) -> tuple[OwnFit, list[OwnFit]]:
    """:func:`fit_costs` from ``restarts`` starts (:func:`restart_starts`), each with ``max_nfev`` evaluations and the
    prior (if any) about ``start``: the fit of the lowest objective, and all of them. Where the runs weigh two costs
    only together, or the simulator's states make the objective rugged, one start's search path decides where it
    stops (validation/README.md, "The calibration runs weigh the receiving side"); fits that end far apart at
    about the same objective say so. ``keep`` chooses within each fit and among them alike."""
    if not 1 <= restarts <= 20:
        raise ConfigError("restarts", restarts, "1..20")
    fits = []
    for k, s in enumerate(restart_starts(start, bounds, restarts, seed=seed)):
        if progress is not None and restarts > 1:
            progress(f"start {k + 1} of {restarts}: " + ", ".join(f"{n} {v:.3g}" for n, v in zip(names, s)))
        fits.append(fit_costs(model, measured, s, bounds, names, max_nfev=max_nfev, progress=progress,
                              prior_factor=prior_factor, prior_center=None if k == 0 else start, keep=keep,
                              n_goodputs=n_goodputs))
    if keep == "objective":
        return min(fits, key=lambda f: f.objective), fits
    return min(fits, key=lambda f: (min(e.median_abs_rel_error for e in f.evaluations), f.objective)), fits


def _check_prior(factor: Optional[float]) -> None:
    if factor is not None and not (math.isfinite(factor) and factor > 1.0):
        raise ConfigError("prior", factor, "a factor above 1 (3: the start values are right within 3x)")


def _identified(jac_runs) -> bool:
    """Whether the runs alone tell every cost: their Jacobian has full column rank and is not near-singular."""
    import numpy as np

    jtj = jac_runs.T @ jac_runs
    return bool(np.linalg.matrix_rank(jtj) == jac_runs.shape[1] and np.linalg.cond(jtj) < 1e12)
