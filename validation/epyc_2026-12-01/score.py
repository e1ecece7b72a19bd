"""Scores of "The EPYC's own gaps, measured on its machine" (validation/README.md), as its rule fixed them: N
(``lab_vm`` as committed) and GE (``lab_vm_ge.toml``) on ``lab/cpu4`` and on the lab source's other points; G0 (the
gaps alone, N's costs) and A (``parts.toml``) on ``lab/cpu4``; GE's ``lab/cpu4`` over seeds 0-4. Compiled, seed 0,
each file in ``lab_vm``'s place, as ``tcpsim validate --data DIR --platform lab_vm=FILE`` scores a lab table.

    python score.py --json scores.json
"""

import argparse
import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from tcpsim.calibration.batch import run_all
from tcpsim.calibration.mapping import platforms_for_point, predicted_value, scenario_for
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import _unmodelled, evaluate, given_platforms

HERE = Path(__file__).resolve().parent
FILES = {"N": "lab_vm", "GE": "lab_vm_ge.toml", "G0": "lab_vm_gaps.toml", "A": "parts.toml"}
DECIDING = ("N", "GE")


def _platforms(spec, points):
    path = str(HERE / spec) if spec.endswith(".toml") else spec
    return given_platforms([f"lab_vm={path}"], points)


def _median(errors):
    return statistics.median(abs(e) for e in errors) if errors else None


def seed_medians(points, spec, ex, seeds=5):
    """Each row's relative error of its median prediction over seeds ``0 .. seeds - 1`` with ``spec`` as lab_vm."""
    plats = _platforms(spec, points)
    sims = [p for p in points if _unmodelled(p) is None]
    base = [scenario_for(p, platforms_for_point(p, plats)) for p in sims]
    scenarios = [replace(sc, seed=s) for sc in base for s in range(seeds)]
    results = run_all(scenarios, ex)
    out = []
    for i, p in enumerate(sims):
        preds = [predicted_value(p, scenarios[i * seeds + k], results[i * seeds + k]) for k in range(seeds)]
        out.append(statistics.median(preds) / p.value_si - 1.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    cpu4 = [p for p in load_points(HERE / "data") if p.source_id == "lab"]
    others = [p for p in load_points() if p.source_id == "lab"]
    out: dict = {"cpu4_rows": [p.row for p in cpu4], "cpu4_measured_bps": [p.value_si for p in cpu4]}
    with ProcessPoolExecutor(2) as ex:
        for name, spec in FILES.items():
            res = evaluate(cpu4, ex, _platforms(spec, cpu4))
            out[name] = {"cpu4_errors": [o.error for o in res], "cpu4_median": _median([o.error for o in res]),
                         "cpu4_limited_by": [o.limited_by for o in res]}
            if name == "N":
                calc = [o.naive / o.point.value_si - 1 for o in res]
                out["calculator"] = {"cpu4_errors": calc, "cpu4_median": _median(calc)}
            if name in DECIDING:
                rest = evaluate(others, ex, _platforms(spec, others))
                errs = [o.error for o in rest if o.error is not None]
                by_table: dict = {}
                for o in rest:
                    if o.error is not None:
                        by_table.setdefault(o.point.table_id, []).append(o.error)
                out[name].update(others_n=len(errs), others_median=_median(errs),
                                 others_by_table={t: _median(v) for t, v in sorted(by_table.items())})
        ge_seeds = seed_medians(cpu4, FILES["GE"], ex)
        out["GE"].update(cpu4_seed_median_errors=ge_seeds, cpu4_seed_median=_median(ge_seeds))
    g = {n: out[n]["cpu4_median"] for n in FILES}
    print("lab/cpu4 median |error|: " + ", ".join(f"{n} {100 * v:.1f} %" for n, v in g.items())
          + f", calculator {100 * out['calculator']['cpu4_median']:.1f} %")
    print(f"GE over seeds 0-4: {100 * out['GE']['cpu4_seed_median']:.1f} %")
    for n in DECIDING:
        print(f"{n}: the lab source's other {out[n]['others_n']} points {100 * out[n]['others_median']:.2f} %")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
