"""Score the rule "The receive work divides at the socket's lock" (validation/README.md) once: ``lab/cpu16`` and
every other Xeon table under W, W', A and A', and the limit named on ``cpu16``'s pinned runs; and so the rule "The
check at its instant" on ``lab/cpu17``, each file under the build it names (run once with each build installed).

    python score_split.py --json scores_split.json
    python score_split.py --table cpu17 --files "W'=xeon_fit_split.toml" A=../xeon_parts_as_detected.toml \
        --json old.json
    python score_split.py --table cpu17 --files "W''=xeon_fit_instant.toml" "A''=xeon_parts_split.toml" --json new.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tcpsim.calibration.own import lab_cases, limit_checks
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms
from tcpsim.lab.predict import lab_path_platform

HERE = Path(__file__).resolve().parent
XEON = HERE.parent
FILES = {"W": XEON / "streams" / "xeon_fit_streams.toml", "W'": HERE / "xeon_fit_split.toml",
         "A": XEON / "xeon_parts_as_detected.toml", "A'": HERE / "xeon_parts_split.toml"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--table", default="cpu16", help="the held-out table judged (default cpu16)")
    ap.add_argument("--files", nargs="*", metavar="NAME=PATH", help="files to score, paths from this folder "
                    "(default W, W', A and A')")
    a = ap.parse_args()
    files = {n: (HERE / p).resolve() for n, p in (f.split("=", 1) for f in a.files)} if a.files else FILES
    table = a.table
    points = [p for p in load_points(XEON / "data") if p.source_id == "lab"]
    out = {}
    with ProcessPoolExecutor(2) as ex:
        for name, path in files.items():
            outcomes = evaluate(points, ex, given_platforms([f"lab_vm={path}"], points))
            by_table = defaultdict(list)
            rows = []
            for o in outcomes:
                if o.error is not None:
                    by_table[o.point.table_id].append(abs(o.error))
                    rows.append({"table": o.point.table_id, "row": o.point.row, "measured_bps": o.point.value_si,
                                 "error": o.error})
            checks = limit_checks(lab_cases([str(HERE / f"{table}_median.json")]), lab_path_platform(str(path)), ex)
            decided = [c for c in checks if c.agrees is not None]
            held = by_table[table]
            out[name] = {
                "file": str(path.relative_to(XEON)),
                f"{table}_median": statistics.median(held), f"{table}_max": max(held),
                f"{table}_limit_right": sum(1 for c in decided if c.agrees), f"{table}_limit_decided": len(decided),
                "all_median": statistics.median([e for v in by_table.values() for e in v]),
                "tables": {t: statistics.median(v) for t, v in sorted(by_table.items())},
                "limits": [{"label": c.label, "busy_frac": c.busy_frac, "measured": c.measured,
                            "predicted": c.predicted, "predicted_busy_frac": c.predicted_busy_frac} for c in checks],
                "rows": [r for r in rows if r["table"] == table],
            }
            print(f"{name}: {table} g {statistics.median(held):.1%} (max {max(held):.1%}), limit named "
                  f"{out[name][f'{table}_limit_right']} of {len(decided)}; all {out[name]['all_median']:.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
