"""Fit a platform's free cost parameters to its calibration tables (scipy bounded least squares).

The residual of a point is log(predicted / measured), so every table weighs by relative error; the
parameters are searched in log space inside physical bounds. Tuning levels are not parameters: they
are the OS and driver knobs the profile maps. A fit is reproducible: the simulator is deterministic
and the optimiser starts from the profile's values.

A discrete-event simulator's residuals are piecewise constant in its parameters at fine scales, so
finite-difference gradients mislead ``least_squares`` and it often stops after a step or two. A
derivative-free Powell search (bounded, same cost) polishes its result.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Optional, Sequence

from ..errors import ConfigError
from ..platform import Platform
from .batch import run_all
from .mapping import CALIBRATION_BUDGET, platforms_for_point, predicted_value, scenario_for
from .tables import Point

__all__ = ["Param", "PARAMS", "apply_params", "param_values", "predict_point", "predict_points", "fit_platform",
           "FitResult", "fit_log_vector", "VectorFit", "FD_STEP", "FD_HORIZON_S", "predict_points_at"]


@dataclass(frozen=True)
class Param:
    """A free parameter: where it lives on a Platform, its physical bounds, what it means."""

    name: str
    lo: float
    hi: float
    meaning: str

    def get(self, p: Platform) -> float:
        part, attr = self.name.split(".")
        if attr == "per_ack_s":
            return float(p.cpu.per_ack_tx_s)
        if attr == "per_byte_copy_rx_s":
            return float(p.cpu.copy_rx_s)
        return float(getattr(getattr(p, part), attr))

    def set(self, p: Platform, value: float) -> Platform:
        value = float(value)
        part, attr = self.name.split(".")
        sub = getattr(p, part)
        if attr == "per_ack_s":  # one cost for sending and for receiving an ACK
            return replace(p, cpu=replace(p.cpu, per_ack_tx_s=value, per_ack_rx_s=value))
        cast = int if isinstance(getattr(sub, attr), int) and not isinstance(getattr(sub, attr), bool) else float
        return replace(p, **{part: replace(sub, **{attr: cast(value)})})


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("cpu.per_packet_tx_s", 0.3e-6, 300e-6, "CPU seconds to send one data segment (TCP/IP/driver)"),
    Param("cpu.per_packet_rx_s", 0.3e-6, 300e-6, "CPU seconds to receive one data segment"),
    Param("cpu.per_ack_tx_s", 0.2e-6, 200e-6, "CPU seconds to send an ACK"),
    Param("cpu.per_ack_rx_s", 0.2e-6, 200e-6, "CPU seconds to process a received ACK"),
    Param("cpu.per_ack_s", 0.2e-6, 200e-6, "CPU seconds to send or to process an ACK (one value for both)"),
    Param("cpu.per_syscall_s", 0.1e-6, 200e-6, "CPU seconds per send/recv system call"),
    Param("cpu.per_byte_copy_s", 0.02e-9, 50e-9, "CPU seconds per byte copied user<->kernel (1/copy bandwidth)"),
    Param("cpu.per_byte_copy_rx_s", 0.02e-9, 50e-9, "CPU seconds per byte a recv copies kernel->user"),
    Param("cpu.per_byte_csum_s", 0.01e-9, 50e-9, "CPU seconds per byte checksummed"),
    Param("cpu.per_interrupt_s", 0.1e-6, 200e-6, "CPU seconds per interrupt"),
    Param("cpu.per_push_s", 0.1e-6, 100e-6, "CPU seconds to hand received data up to the socket (Solaris putnext)"),
    Param("cpu.per_stream_frac", 1e-4, 1.0, "extra per-packet cost per additional active stream (fraction)"),
    Param("nic.coalesce_delay_s", 1e-6, 2e-3, "receive interrupt delay of the NIC (seconds)"),
    Param("bus.efficiency_frac", 0.2, 0.98, "share of raw bus bandwidth left for DMA"),
    Param("bus.per_transaction_s", 0.01e-6, 20e-6, "bus set-up time per DMA burst"),
)}


def param_values(p: Platform, names: Sequence[str]) -> list[float]:
    return [PARAMS[n].get(p) for n in names]


def apply_params(p: Platform, names: Sequence[str], values: Sequence[float]) -> Platform:
    for n, v in zip(names, values):
        p = PARAMS[n].set(p, v)
    return p


def predict_point(point: Point, platforms: Mapping[str, Platform]) -> Optional[float]:
    """Simulate one point on the given (untuned) platforms; its value in SI units (None: not modelled)."""
    from ..engine import run

    sc = scenario_for(point, platforms_for_point(point, platforms))
    return predicted_value(point, sc, run(sc))


@dataclass(frozen=True)
class FitResult:
    platform: Platform
    names: tuple[str, ...]
    values: tuple[float, ...]
    start: tuple[float, ...]
    median_abs_rel_error: float
    max_abs_rel_error: float
    n_points: int
    n_evaluations: int
    message: str
    objective: float = math.nan
    """The minimised objective (``loss`` applied to the log errors) at :attr:`values`."""
    start_objective: float = math.nan
    """The same at :attr:`start`: the fit's gain is the difference."""


LOSSES = ("linear", "soft_l1")
ROBUST_SCALE = 0.1
"""Residual (in log error, about 10 %) beyond which the ``soft_l1`` loss grows linearly, not quadratically."""


FD_STEP = 0.1
"""Forward-difference step in log(parameter): about 10 %, large enough that a discrete-event run registers
it, small enough to stay on one side of most regime changes (scipy's relative ``diff_step`` on a log
value was a factor of 2-5)."""

FD_HORIZON_S = 0.1
"""Longest simulated time of a Jacobian run: a point's runs for a derivative stop at the lesser of this and
the simulated time its full run took at the base point, on both sides of the difference, with the same seed
(common random numbers). The derivative is only a search direction: every step is judged on full runs."""


@dataclass(frozen=True)
class VectorFit:
    """What :func:`fit_log_vector` found: the best point seen and the objective there and at the start."""

    values: tuple[float, ...]
    start: tuple[float, ...]
    predicted: tuple[float, ...]
    """The model's values for the fitted points at :attr:`values` (NaN: not predicted)."""
    n_evaluations: int
    message: str
    objective: float
    start_objective: float
    n_jacobians: int = 0
    """Jacobians computed by ``jacobian`` (each one run per point per free parameter, plus the base)."""


def _objective(res, loss: str) -> float:
    """What both stages minimise: the sum of squared log errors, or of their soft-L1 loss."""
    import numpy as np

    if loss == "linear":
        return float(np.sum(res ** 2))
    z = (res / ROBUST_SCALE) ** 2
    return float(ROBUST_SCALE ** 2 * np.sum(2.0 * (np.sqrt(1.0 + z) - 1.0)))


def fit_log_vector(predict: Callable[[Sequence[float]], Sequence[Optional[float]]], measured: Sequence[float],
                   start: Sequence[float], bounds: Sequence[tuple[float, float]], max_nfev: int = 40,
                   polish_nfev: int = 0, loss: str = "linear",
                   progress: Optional[Callable[[str], None]] = None,
                   prior_sigma: Optional[Sequence[Optional[float]]] = None,
                   jacobian: Optional[Callable[[Sequence[Sequence[float]]], Sequence[Sequence[Optional[float]]]]]
                   = None, broyden: bool = False) -> VectorFit:
    """Fit positive parameters so that ``predict(values)`` matches ``measured`` in log error.

    Bounded least squares (scipy ``least_squares``, trust region) in log space, then an optional
    derivative-free Powell polish of the same cost; the best point any evaluation saw is returned.
    ``predict`` returns one value per measured point (None: not predicted, counted as a far miss).
    ``prior_sigma`` gives a parameter a prior around its start: a log-normal spread sigma adds the term
    ``ROBUST_SCALE * log(value / start) / sigma``, so one sigma away costs as much as one point 10 % off
    (None: flat within the bounds).

    ``jacobian(vectors)`` returns predictions for several parameter vectors at once (the first is the base):
    the Jacobian is then forward differences of :data:`FD_STEP` in log space from one call per step;
    without it, scipy's own differences call ``predict`` once per column. ``broyden``: only the first
    Jacobian is differenced; after each accepted step it is corrected by Broyden's rank-one update from
    the step and the change of the residuals (Dennis and Schnabel, *Numerical Methods for Unconstrained
    Optimization*, section 8.1), which costs no run.
    """
    if loss not in LOSSES:
        raise ConfigError("loss", loss, "one of " + ", ".join(LOSSES))
    import numpy as np
    from scipy.optimize import least_squares, minimize

    lo = np.array([math.log(b[0]) for b in bounds])
    hi = np.array([math.log(b[1]) for b in bounds])
    x0 = np.clip(np.array([math.log(min(max(v, b[0]), b[1])) for v, b in zip(start, bounds)]), lo + 1e-9, hi - 1e-9)
    meas = np.array(measured, dtype=float)
    n_eval = [0]
    best = {"cost": math.inf, "x": x0, "pred": None, "start_cost": None}

    def predictions(x) -> np.ndarray:
        return np.array([np.nan if v is None else v for v in predict(tuple(float(v) for v in np.exp(x)))],
                        dtype=float)

    sigma = np.array([math.inf if v is None else v for v in (prior_sigma or [None] * len(x0))], dtype=float)
    anchored = np.isfinite(sigma)

    def residuals(x) -> np.ndarray:
        pred = predictions(x)
        res = np.log(np.maximum(pred, 1e-9) / meas)
        res = np.where(np.isfinite(res), res, 3.0)
        if anchored.any():
            res = np.concatenate([res, ROBUST_SCALE * (x[anchored] - x0[anchored]) / sigma[anchored]])
        n_eval[0] += 1
        seen_res[np.asarray(x, dtype=float).tobytes()] = res
        cost = _objective(res, loss)
        if best["start_cost"] is None:
            best["start_cost"] = cost  # least_squares evaluates x0 first
        if cost < best["cost"]:
            best.update(cost=cost, x=np.array(x), pred=pred)
        if progress is not None:
            progress(f"  eval {n_eval[0]:3d}: median |err| {np.median(np.abs(np.expm1(res[:len(meas)]))):.1%}, "
                     f"objective {cost:.5g}")
        return res

    n_jac = [0]
    seen_res: dict = {}  # residuals by point, for Broyden's update
    last: dict = {}  # the previous Jacobian, its point and residuals

    def log_errors(pred) -> np.ndarray:
        pred = np.array([np.nan if v is None else v for v in pred], dtype=float)
        return np.log(np.maximum(pred, 1e-9) / meas)

    def jac(x) -> np.ndarray:
        res = seen_res.get(np.asarray(x, dtype=float).tobytes())
        if broyden and last and res is not None:
            dx, dr = x - last["x"], res - last["res"]
            j = last["j"] + np.outer(dr - last["j"] @ dx, dx) / max(float(dx @ dx), 1e-300)
            last.update(x=np.array(x), res=res, j=j)
            if progress is not None:
                progress("  jacobian: Broyden update")
            return j
        j = fd_jac(x)
        if res is not None:
            last.update(x=np.array(x), res=res, j=j)
        return j

    def fd_jac(x) -> np.ndarray:
        steps = np.where(x + FD_STEP <= hi, FD_STEP, -FD_STEP)
        vectors = [x] + [x + np.eye(len(x))[i] * steps[i] for i in range(len(x))]
        preds = jacobian([tuple(float(v) for v in np.exp(v)) for v in vectors])
        base = log_errors(preds[0])
        cols = [(log_errors(p) - base) / h for p, h in zip(preds[1:], steps)]
        j = np.nan_to_num(np.column_stack(cols), nan=0.0, posinf=0.0, neginf=0.0)
        if anchored.any():
            j = np.vstack([j, np.diag(ROBUST_SCALE / np.where(anchored, sigma, 1.0))[anchored]])
        n_jac[0] += 1
        if progress is not None:
            progress(f"  jacobian {n_jac[0]}: {len(x)} columns")
        return j

    message = f"loss {loss}"
    if len(x0) and max_nfev > 0:
        sol = least_squares(residuals, x0, jac=jac if jacobian is not None else "2-point", bounds=(lo, hi),
                            diff_step=0.08, max_nfev=max_nfev, x_scale=1.0, method="trf", loss=loss,
                            f_scale=ROBUST_SCALE)
        message += f": {sol.message}"
    if len(x0) and polish_nfev > 0:
        def cost(x) -> float:
            return _objective(residuals(np.clip(x, lo, hi)), loss)

        pol = minimize(cost, best["x"], method="Powell", bounds=list(zip(lo, hi)),
                       options={"maxfev": polish_nfev, "xtol": 0.01, "ftol": 1e-3})
        message += f"; Powell polish: {pol.message}"
    if best["pred"] is None:  # nothing to fit, or no evaluation: the start as it is
        residuals(x0)
    return VectorFit(values=tuple(float(v) for v in np.exp(best["x"])), start=tuple(float(v) for v in np.exp(x0)),
                     predicted=tuple(float(v) for v in best["pred"]), n_evaluations=n_eval[0], message=message,
                     objective=best["cost"], start_objective=best["start_cost"], n_jacobians=n_jac[0])


def predict_points(points: Sequence[Point], platforms: Mapping[str, Platform], executor: Optional[Executor] = None,
                   cache: Optional[dict] = None) -> list[Optional[float]]:
    """The model's value of each point (SI units; None: not modelled) on the given untuned platforms.

    ``cache``: results of earlier runs by scenario (:func:`tcpsim.calibration.batch.run_all`)."""
    scenarios = [scenario_for(pt, platforms_for_point(pt, platforms)) for pt in points]
    results = run_all(scenarios, executor, cache)
    return [predicted_value(pt, sc, r) for pt, sc, r in zip(points, scenarios, results)]


def predict_points_at(points: Sequence[Point], base: Mapping[str, Platform], variants: Sequence[Mapping[str, Platform]],
                      executor: Optional[Executor] = None, cache: Optional[dict] = None,
                      horizon_s: float = FD_HORIZON_S) -> list[list[Optional[float]]]:
    """Each point's value on each platform set of ``variants``, every run stopped at one fixed simulated time.

    A point's horizon is the lesser of ``horizon_s`` and the simulated time of its full run on ``base`` (from
    ``cache``, or run): the runs a finite difference compares then end at the same instant with the same
    seed. All variants' runs go to ``executor`` in one batch; equal scenarios run once.
    """
    full = run_all([scenario_for(pt, platforms_for_point(pt, base)) for pt in points], executor, cache)
    # A finite transfer's answer is its whole duration: it runs to its end on both sides.
    budgets = [CALIBRATION_BUDGET if r.termination == "finished"
               else replace(CALIBRATION_BUDGET, rel_tol=1e-6, max_sim_time_s=min(horizon_s, r.sim_time_s))
               for r in full]
    scenarios = [[scenario_for(pt, platforms_for_point(pt, v), b) for pt, b in zip(points, budgets)] for v in variants]
    results = run_all([sc for row in scenarios for sc in row], executor, cache)
    out, i = [], 0
    for row in scenarios:
        out.append([predicted_value(pt, sc, r) for pt, sc, r in zip(points, row, results[i:i + len(row)])])
        i += len(row)
    return out


def fit_platform(platform_id: str, points: Sequence[Point], platforms: Mapping[str, Platform],
                 names: Sequence[str], executor: Optional[Executor] = None, max_nfev: int = 40,
                 progress: Optional[Callable[[str], None]] = None, polish_nfev: int = 0,
                 bounds: Optional[Mapping[str, tuple[float, float]]] = None, loss: str = "linear") -> FitResult:
    """Fit ``names`` of ``platforms[platform_id]`` to ``points`` (which must involve that platform).

    ``max_nfev`` bounds the least-squares stage, ``polish_nfev`` the Powell stage after it (0 = none);
    ``bounds`` narrows a parameter's generic bounds for this machine (name -> (lo, hi)). ``loss``
    "soft_l1" is scipy's robust loss with scale :data:`ROBUST_SCALE`, used by both stages: a point the
    model misses by far (a run on the knife edge between one and several messages per segment) then
    weighs in linearly rather than with its square.
    """
    if loss not in LOSSES:
        raise ConfigError("loss", loss, "one of " + ", ".join(LOSSES))
    base = platforms[platform_id]
    params = [replace(PARAMS[n], lo=bounds[n][0], hi=bounds[n][1]) if bounds and n in bounds else PARAMS[n]
              for n in names]

    cache: dict = {}

    def predict(values: Sequence[float]) -> list[Optional[float]]:
        return predict_points(points, {**platforms, platform_id: apply_params(base, names, values)}, executor, cache)

    vf = fit_log_vector(predict, [p.value_si for p in points], [p.get(base) for p in params],
                        [(p.lo, p.hi) for p in params], max_nfev=max_nfev, polish_nfev=polish_nfev, loss=loss,
                        progress=progress)
    err = [abs(v / p.value_si - 1.0) for v, p in zip(vf.predicted, points)]
    return FitResult(platform=apply_params(base, names, vf.values), names=tuple(names), values=vf.values,
                     start=vf.start, median_abs_rel_error=_nanmedian(err), max_abs_rel_error=_nanmax(err),
                     n_points=len(points), n_evaluations=vf.n_evaluations, message=vf.message,
                     objective=vf.objective, start_objective=vf.start_objective)


def _nanmedian(xs: Sequence[float]) -> float:
    import numpy as np

    return float(np.nanmedian(xs)) if len(xs) else math.nan


def _nanmax(xs: Sequence[float]) -> float:
    import numpy as np

    return float(np.nanmax(xs)) if len(xs) else math.nan
