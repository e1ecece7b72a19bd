"""Speed of validation and of the joint fit: what `tcpsim validate` and `validate --cross` spend their time on.

Run: ``python -P benchmarks/bench_validate.py [--workers 2] [--no-jacobian]`` (compiled build: the default
install; an editable install runs pure Python, three times slower). Figures, not assertions: speed goals
live here, not in tests (issue 21: `validate` within 15 s and `validate --cross` within 5 minutes on two
cores). Prints:

1. the wall time of every point of the sources run once on ``--workers`` processes (what `tcpsim validate`
   does before it prints), and the CPU seconds of each distinct scenario run serially, by table, with the
   costliest runs (so the bound set by the longest run and by the total over the workers can be read off);
2. for the joint fit over the calibration tables of the four fitted machines: one full evaluation, and one
   Jacobian (every free parameter's column in one batch) with the runs stopped at
   ``tcpsim.calibration.fit.FD_HORIZON_S`` against the same with runs as long as the full ones.
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

from tcpsim.components import hot_path_label


def validate_wall_s(workers: int) -> tuple[float, int]:
    from tcpsim.calibration.tables import load_user_points
    from tcpsim.calibration.validate import evaluate

    points = load_user_points(None, None)
    t = time.perf_counter()
    with ProcessPoolExecutor(workers) as ex:
        evaluate(points, ex)
    return time.perf_counter() - t, len(points)


def cpu_by_table(top: int = 8) -> None:
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_user_points
    from tcpsim.calibration.validate import _unmodelled
    from tcpsim.engine import run

    seen, rows = set(), []
    for p in load_user_points(None, None):
        if _unmodelled(p) is not None:
            continue
        sc = scenario_for(p, platforms_for_point(p, None))
        if sc in seen:
            continue
        seen.add(sc)
        t = time.process_time()
        r = run(sc)
        rows.append((time.process_time() - t, f"{p.source_id}/{p.table_id}", p.row, r.termination, r.sim_time_s))
    total = sum(r[0] for r in rows)
    print(f"{len(rows)} distinct scenarios, {total:.1f} CPU-s run serially; the longest {max(r[0] for r in rows):.2f} s")
    by: dict[str, float] = {}
    for r in rows:
        by[r[1]] = by.get(r[1], 0.0) + r[0]
    print("  by table: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v >= 0.3))
    for cpu, key, row, term, sim in sorted(rows, reverse=True)[:top]:
        print(f"  {cpu:5.2f} CPU-s  {key:16s} {row[:48]:48s} {term} after {sim:.3f} s simulated")


def jacobian_costs(workers: int) -> None:
    from tcpsim.calibration.calibrate import fittable
    from tcpsim.calibration.fit import FD_HORIZON_S, FD_STEP, predict_points, predict_points_at
    from tcpsim.calibration.shared import joint_model
    from tcpsim.calibration.tables import load_points

    model = joint_model()
    points = [p for p in load_points() if fittable(p) and model.touches(p)]
    free = model.free(points)
    x0 = [p.start for p in model.params]
    base = model.platforms(x0)
    variants = [base]
    for i in free:
        v = list(x0)
        v[i] *= math.exp(FD_STEP)
        variants.append(model.platforms(v))
    with ProcessPoolExecutor(workers) as ex:
        cache: dict = {}
        t = time.perf_counter()
        predict_points(points, base, ex, cache)
        print(f"joint fit: {len(points)} calibration points, {len(free)} free parameters; "
              f"one full evaluation {time.perf_counter() - t:.1f} s")
        for horizon in (FD_HORIZON_S, 10.0):
            t = time.perf_counter()
            predict_points_at(points, base, variants, ex, dict(cache), horizon_s=horizon)
            what = f"runs stopped at {horizon:g} s simulated" if horizon < 1 else "runs as long as the full ones"
            print(f"  one Jacobian ({len(free)} columns in one batch), {what}: {time.perf_counter() - t:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-jacobian", action="store_true", help="skip the joint fit's figures")
    args = ap.parse_args()
    print("hot path:", hot_path_label())
    wall, n = validate_wall_s(args.workers)
    print(f"validate: {n} points in {wall:.1f} s on {args.workers} worker(s)")
    cpu_by_table()
    if not args.no_jacobian:
        jacobian_costs(args.workers)


if __name__ == "__main__":
    main()
