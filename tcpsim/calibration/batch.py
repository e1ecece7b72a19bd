"""Run many scenarios once each: equal scenarios share one run, the costliest start first.

Two measured numbers of one test (a packet rate and a throughput, say) map to the same scenario;
running it once halves the work for such tables, and starting the longest runs first keeps every
worker busy to the end. Results come back in the order of the scenarios given.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Optional, Sequence

from ..config import Scenario
from ..result import Result

__all__ = ["run_all"]


def _cost(sc: Scenario) -> float:
    """A rough guess of a run's wall time: frames per simulated second, times streams and directions."""
    wl = sc.workload
    frames_per_s = sc.link.rate_bps / (8.0 * sc.link.mtu_bytes)
    return frames_per_s * wl.n_flows


def _run(sc: Scenario) -> Result:
    from ..engine import run

    return run(sc)


def run_all(scenarios: Sequence[Scenario], executor: Optional[Executor] = None,
            cache: Optional[dict] = None) -> list[Result]:
    """``engine.run`` of each scenario, each distinct scenario once; in the order given.

    ``cache`` (scenario -> result) is read and filled: a fit that changes one machine's parameters re-runs
    only the scenarios on that machine (the engine is deterministic, so a cached result is exact).
    """
    cache = {} if cache is None else cache
    todo = sorted((sc for sc in dict.fromkeys(scenarios) if sc not in cache), key=_cost, reverse=True)
    results = executor.map(_run, todo) if executor is not None else map(_run, todo)
    cache.update(zip(todo, results))
    return [cache[sc] for sc in scenarios]
