"""Score the rule "The receive work divides at the socket's lock" (validation/README.md) once: ``lab/cpu16`` and
every other Xeon table under W, W', A and A', and the limit named on ``cpu16``'s pinned runs.

    python score_split.py --json scores_split.json
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
         "A": XEON / "xeon_parts.toml", "A'": HERE / "xeon_parts_split.toml"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    points = [p for p in load_points(XEON / "data") if p.source_id == "lab"]
    out = {}
    with ProcessPoolExecutor(2) as ex:
        for name, path in FILES.items():
            outcomes = evaluate(points, ex, given_platforms([f"lab_vm={path}"], points))
            by_table = defaultdict(list)
            rows = []
            for o in outcomes:
                if o.error is not None:
                    by_table[o.point.table_id].append(abs(o.error))
                    rows.append({"table": o.point.table_id, "row": o.point.row, "measured_bps": o.point.value_si,
                                 "error": o.error})
            checks = limit_checks(lab_cases([str(HERE / "cpu16_median.json")]), lab_path_platform(str(path)), ex)
            decided = [c for c in checks if c.agrees is not None]
            cpu16 = by_table["cpu16"]
            out[name] = {
                "file": str(path.relative_to(XEON)),
                "cpu16_median": statistics.median(cpu16), "cpu16_max": max(cpu16),
                "cpu16_limit_right": sum(1 for c in decided if c.agrees), "cpu16_limit_decided": len(decided),
                "all_median": statistics.median([e for v in by_table.values() for e in v]),
                "tables": {t: statistics.median(v) for t, v in sorted(by_table.items())},
                "limits": [{"label": c.label, "busy_frac": c.busy_frac, "measured": c.measured,
                            "predicted": c.predicted, "predicted_busy_frac": c.predicted_busy_frac} for c in checks],
                "rows": [r for r in rows if r["table"] == "cpu16"],
            }
            print(f"{name}: cpu16 g {statistics.median(cpu16):.1%} (max {max(cpu16):.1%}), limit named "
                  f"{out[name]['cpu16_limit_right']} of {len(decided)}; all {out[name]['all_median']:.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
