"""Joint fitting: one vector of shared physical parameters, applied to every platform it concerns.

A :class:`SharedParam` is one number with physical bounds (cycles to send a data segment on a Linux host
with an ixgb driver, bytes moved per byte copied, a named residual of one machine), and a list of
:class:`Target` s: the platform fields it sets, each with its scale (1 / clock for cycles, 1 / memory
bandwidth for a per-byte factor, 1 for a residual). A platform field reached by several parameters is
their product (shared cycles / clock x the machine's residual). :func:`fit_joint` fits the vector to
measured points of any number of sources with :func:`tcpsim.calibration.fit.fit_log_vector`.
"""

from __future__ import annotations

import math
import statistics
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Optional, Sequence

from ..errors import ConfigError
from ..platform import Platform
from .fit import PARAMS, fit_log_vector, predict_points, predict_points_at
from .mapping import platform_ids
from .tables import Point

__all__ = ["Target", "SharedParam", "JointModel", "JointFit", "fit_joint"]


@dataclass(frozen=True)
class Target:
    """One platform field a shared parameter sets: ``field = value * scale`` (times other parameters' terms)."""

    platform_id: str
    field: str
    """A name of :data:`tcpsim.calibration.fit.PARAMS`, e.g. ``cpu.per_packet_tx_s``."""
    scale: float = 1.0


@dataclass(frozen=True)
class SharedParam:
    """A free parameter of the joint fit, its physical bounds, its start and what it means."""

    name: str
    lo: float
    hi: float
    start: float
    meaning: str
    targets: tuple[Target, ...]
    prior_sigma: Optional[float] = None
    """Log-normal spread of the prior around :attr:`start` (0.7: about a factor of two); None: flat within the
    bounds. A residual of one machine has one, so the shared terms carry what the machines have in common."""
    kind: str = ""
    """What the number is (``packet_tx_cycles``): parameters of one kind are comparable across machines."""
    borrow: str = ""
    """When no fitted point constrains this parameter, it takes the geometric mean of the fitted parameters
    of this kind ("" = keeps :attr:`unconstrained`, or its start)."""
    unconstrained: Optional[float] = None
    """Its value when no point constrains it and there is nothing to borrow (None: the start)."""

    def __post_init__(self) -> None:
        if not 0 < self.lo <= self.start <= self.hi:
            raise ConfigError(f"{self.name}.start", self.start, f"between the bounds {self.lo:g} and {self.hi:g}")
        for t in self.targets:
            if t.field not in PARAMS:
                raise ConfigError(f"{self.name}.field", t.field, "a name of tcpsim.calibration.fit.PARAMS")

    @property
    def platform_ids(self) -> frozenset[str]:
        return frozenset(t.platform_id for t in self.targets)


@dataclass(frozen=True)
class JointModel:
    """Shared parameters over base platforms; :meth:`platforms` composes them for a value vector."""

    params: tuple[SharedParam, ...]
    base: Mapping[str, Platform]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def platforms(self, values: Sequence[float] | None = None) -> dict[str, Platform]:
        """The base platforms with every targeted field set to the product of its parameters' terms."""
        values = [p.start for p in self.params] if values is None else values
        fields: dict[tuple[str, str], float] = {}
        for prm, v in zip(self.params, values):
            for t in prm.targets:
                fields[(t.platform_id, t.field)] = fields.get((t.platform_id, t.field), 1.0) * v * t.scale
        out = dict(self.base)
        for (pid, name), v in fields.items():
            out[pid] = PARAMS[name].set(out[pid], v)
        return out

    def constraining(self, param: SharedParam, points: Sequence[Point]) -> list[Point]:
        """The points that run on a platform ``param`` sets: the measurements that constrain it."""
        return [pt for pt in points if param.platform_ids & set(filter(None, platform_ids(pt)))]

    def touches(self, point: Point) -> bool:
        """Whether ``point`` runs on a machine some parameter sets."""
        return any(p.platform_ids & set(filter(None, platform_ids(point))) for p in self.params)

    def free(self, points: Sequence[Point]) -> tuple[int, ...]:
        """Indices of the parameters some of ``points`` constrain; the others keep their starts in a fit."""
        return tuple(i for i, p in enumerate(self.params) if self.constraining(p, points))

    def with_values(self, values: Sequence[float]) -> "JointModel":
        """The same model starting from ``values``."""
        return JointModel(tuple(replace(p, start=v) for p, v in zip(self.params, values)), self.base)


@dataclass(frozen=True)
class JointFit:
    """A joint fit's result: the parameters, the composed platforms, and how well they fit."""

    model: JointModel
    """The model at the fitted values (its parameters' ``start``)."""
    free: tuple[int, ...]
    """Indices of the parameters that were fitted; the others kept their starts."""
    start: tuple[float, ...]
    platforms: dict
    n_points: int
    median_abs_rel_error: float
    n_evaluations: int
    objective: float
    start_objective: float
    message: str
    n_jacobians: int = 0


def fit_joint(model: JointModel, points: Sequence[Point], executor: Optional[Executor] = None, max_nfev: int = 40,
              polish_nfev: int = 0, loss: str = "soft_l1", progress: Optional[Callable[[str], None]] = None,
              cache: Optional[dict] = None, broyden: bool = False) -> JointFit:
    """Fit the parameters of ``model`` that ``points`` constrain to ``points``; the others keep their starts.

    Points on machines no parameter sets are left out of the fit (they would only add a constant).

    A parameter no point constrains is not fitted to anything (validation/README.md, the cross-validation
    rule): its value is the catalog's, and the fit's report says so (:attr:`JointFit.free`).

    ``cache`` (scenario -> result, :func:`tcpsim.calibration.batch.run_all`) may be shared between fits: the
    engine is deterministic, so fits that start from the same values share their first runs.
    """
    points = [p for p in points if model.touches(p)]  # the others cannot move
    free = model.free(points)
    measured = [p.value_si for p in points]

    def full(values: Sequence[float]) -> list[float]:
        out = [p.start for p in model.params]
        for i, v in zip(free, values):
            out[i] = v
        return out

    cache = {} if cache is None else cache  # a parameter of one machine re-runs only that machine's points

    def predict(values: Sequence[float]) -> list[Optional[float]]:
        return predict_points(points, model.platforms(full(values)), executor, cache)

    def jacobian(vectors: Sequence[Sequence[float]]) -> list[list[Optional[float]]]:
        return predict_points_at(points, model.platforms(full(vectors[0])),
                                 [model.platforms(full(v)) for v in vectors], executor, cache)

    vf = fit_log_vector(predict, measured, [model.params[i].start for i in free],
                        [(model.params[i].lo, model.params[i].hi) for i in free],
                        max_nfev=max_nfev, polish_nfev=polish_nfev, loss=loss, progress=progress,
                        prior_sigma=[model.params[i].prior_sigma for i in free], jacobian=jacobian,
                        broyden=broyden)
    errs = [abs(v / m - 1.0) for v, m in zip(vf.predicted, measured) if math.isfinite(v)]
    fitted = model.with_values(_unconstrained(model, free, full(vf.values)))
    return JointFit(model=fitted, free=free, start=tuple(p.start for p in model.params),
                    platforms=fitted.platforms(), n_points=len(points),
                    median_abs_rel_error=statistics.median(errs) if errs else math.nan,
                    n_evaluations=vf.n_evaluations, objective=vf.objective, start_objective=vf.start_objective,
                    message=vf.message, n_jacobians=vf.n_jacobians)


def _unconstrained(model: JointModel, free: Sequence[int], values: Sequence[float]) -> list[float]:
    """``values`` with every parameter no point constrained set by its ``borrow`` or ``unconstrained`` rule."""
    out = list(values)
    for i, prm in enumerate(model.params):
        if i in free:
            continue
        donors = [values[j] for j in free if model.params[j].kind == prm.borrow] if prm.borrow else []
        if donors:
            out[i] = min(max(math.exp(statistics.fmean(math.log(v) for v in donors)), prm.lo), prm.hi)
        elif prm.unconstrained is not None:
            out[i] = prm.unconstrained
    return out
