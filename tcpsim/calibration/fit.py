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
from .mapping import platforms_for_point, predicted_value, scenario_for
from .tables import Point

__all__ = ["Param", "PARAMS", "apply_params", "param_values", "predict_point", "fit_platform", "FitResult"]


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


def _clip(v: float, prm: Param) -> float:
    return min(max(v, prm.lo), prm.hi)


LOSSES = ("linear", "soft_l1")
ROBUST_SCALE = 0.1
"""Residual (in log error, about 10 %) beyond which the ``soft_l1`` loss grows linearly, not quadratically."""


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
    import numpy as np
    from scipy.optimize import least_squares, minimize

    base = platforms[platform_id]
    params = [replace(PARAMS[n], lo=bounds[n][0], hi=bounds[n][1]) if bounds and n in bounds else PARAMS[n]
              for n in names]
    x0 = np.array([math.log(_clip(p.get(base), p)) for p in params])
    lo = np.array([math.log(p.lo) for p in params])
    hi = np.array([math.log(p.hi) for p in params])
    x0 = np.clip(x0, lo + 1e-9, hi - 1e-9)
    measured = np.array([p.value_si for p in points])
    n_eval = [0]
    best = {"cost": math.inf, "x": x0, "pred": None, "start_cost": None}

    def objective(res: np.ndarray) -> float:
        """What both stages minimise: the sum of squared log errors, or of their soft-L1 loss."""
        if loss == "linear":
            return float(np.sum(res ** 2))
        z = (res / ROBUST_SCALE) ** 2
        return float(ROBUST_SCALE ** 2 * np.sum(2.0 * (np.sqrt(1.0 + z) - 1.0)))

    def predictions(x) -> np.ndarray:
        cand = apply_params(base, names, np.exp(x))
        plats = dict(platforms)
        plats[platform_id] = cand
        scenarios = [scenario_for(pt, platforms_for_point(pt, plats)) for pt in points]
        results = run_all(scenarios, executor)
        preds = [predicted_value(pt, sc, r) for pt, sc, r in zip(points, scenarios, results)]
        return np.array([np.nan if v is None else v for v in preds], dtype=float)

    def residuals(x) -> np.ndarray:
        pred = predictions(x)
        res = np.log(np.maximum(pred, 1e-9) / measured)
        res = np.where(np.isfinite(res), res, 3.0)
        n_eval[0] += 1
        cost = objective(res)
        if best["start_cost"] is None:
            best["start_cost"] = cost  # least_squares evaluates x0 first
        if cost < best["cost"]:
            best.update(cost=cost, x=np.array(x), pred=pred)
        if progress is not None:
            progress(f"  eval {n_eval[0]:3d}: median |err| {np.median(np.abs(np.expm1(res))):.1%}, "
                     f"objective {cost:.5g}")
        return res

    sol = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.08, max_nfev=max_nfev, x_scale=1.0,
                        method="trf", loss=loss, f_scale=ROBUST_SCALE)
    message = f"loss {loss}: {sol.message}"
    if polish_nfev > 0:
        def cost(x) -> float:
            return objective(residuals(np.clip(x, lo, hi)))

        pol = minimize(cost, best["x"], method="Powell", bounds=list(zip(lo, hi)),
                       options={"maxfev": polish_nfev, "xtol": 0.01, "ftol": 1e-3})
        message += f"; Powell polish: {pol.message}"
    x = best["x"]
    pred = best["pred"] if best["pred"] is not None else predictions(x)
    err = np.abs(pred / measured - 1.0)
    fitted = apply_params(base, names, np.exp(x))
    return FitResult(platform=fitted, names=tuple(names), values=tuple(float(v) for v in np.exp(x)),
                     start=tuple(float(v) for v in np.exp(x0)), median_abs_rel_error=float(np.nanmedian(err)),
                     max_abs_rel_error=float(np.nanmax(err)), n_points=len(points), n_evaluations=n_eval[0],
                     message=message, objective=best["cost"], start_objective=best["start_cost"])
