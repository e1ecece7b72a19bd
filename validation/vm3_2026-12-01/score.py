"""Score the rule "A third machine never seen" (validation/README.md) once: this machine's tables under its parts
file (A3), its two calibrated files (B3, P3), the Xeon's calibrated file (W') and ``lab_vm`` borrowed, and the BDP
calculator; with the limit named on the held-out rows the pinned shares decide.

    python score.py --json scores.json
    python score.py --files A3=parts_flags.toml B3=fit.toml --json scores_flags.json
    python score.py --table cpu4 --files A3=parts_flags.toml A3rx=parts_rx.toml B3=fit.toml --json scores_cpu4.json
    python score.py --table cpu5 --files A3=parts_flags.toml A3rw=parts_rw.toml A3rx=parts_rx.toml B3=fit.toml \
        --json scores_cpu5.json
    python score.py --table cpu6 --files A3=parts_flags.toml A3rw=parts_rw.toml B3=fit.toml --json scores_cpu6.json

The fourth machine's folder is scored by the same script (its rule, "A fourth machine: the first Xeon's core at
another clock")::

    python score.py --folder ../vm4_2026-12-01 --files A4=parts.toml B4n=fit_rw.toml B4d=fit_default.toml \
        "W'=../xeon_2026-11-30/split/xeon_fit_split.toml" "W'c=wprime_clock.toml" \
        X1=../xeon_2026-11-30/xeon_parts.toml lab_vm=lab_vm --json ../vm4_2026-12-01/scores.json

The first scored the files as the rule made them (A3 as detect first wrote it, ``parts_as_detected.toml``); the second
A3 as detect wrote it once "A core's flags bound its microarchitecture from below" was built (``parts_flags.toml``);
the last three judged a rule each on a held-out table, its g and n. ``parts.toml`` is A3rw's values as detect writes
them since the last of those rules.
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
FILES = {"A3": "parts_as_detected.toml", "B3": "fit.toml", "P3": "fit_prior.toml",
         "W'": "../xeon_2026-11-30/split/xeon_fit_split.toml", "lab_vm": "lab_vm"}
HELD_OUT_RTT0 = ("messages_nagle", "messages2", "messages3", "cpu2", "cpu3", "unshaped")
"""The 37 held-out rows without a delay line, as in the Xeon's study."""


def window_limited(p) -> bool:
    """A window6 row whose measured goodput is below 80 % of its shaped rate (``tcpsim validate``'s class)."""
    return p.table_id == "window6" and p.value_si < 0.8 * float(p.get("rate_bps"))


def summary(errors: list[float]) -> dict:
    return {"n": len(errors), "median": statistics.median(map(abs, errors)), "max": max(map(abs, errors)),
            "signed_median": statistics.median(errors)} if errors else {"n": 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--files", nargs="*", metavar="NAME=PATH", help="files to score (default A3, B3, P3, W', lab_vm)")
    ap.add_argument("--folder", default=str(HERE), metavar="DIR",
                    help="the machine's folder: data/, runs_median.json, files relative to it (default this one)")
    ap.add_argument("--table", default=None, help="a held-out table judged: its median |error| and the limit named on "
                    "its pinned runs (TABLE_median.json)")
    a = ap.parse_args()
    files = dict(f.split("=", 1) for f in a.files) if a.files else FILES
    here = Path(a.folder).resolve()
    points = [p for p in load_points(here / "data") if p.source_id == "lab"]
    held_cases = lab_cases([str(here / "runs_median.json")], "holdout")
    out: dict = {}
    with ProcessPoolExecutor(2) as ex:
        for name, spec in files.items():
            path = str((here / spec).resolve()) if spec.endswith(".toml") else spec
            outcomes = evaluate(points, ex, given_platforms([f"lab_vm={path}"], points))
            scored = [o for o in outcomes if o.error is not None]
            by_table = defaultdict(list)
            for o in scored:
                by_table[o.point.table_id].append(o.error)
            held = [o.error for o in scored if o.point.table_id in HELD_OUT_RTT0]
            checks = limit_checks(held_cases, lab_path_platform(path), ex)
            decided = [c for c in checks if c.agrees is not None]
            out[name] = {
                "file": spec, "held_out_rtt0": summary(held),
                "window_limited": summary([o.error for o in scored if window_limited(o.point)]),
                "limit_right": sum(1 for c in decided if c.agrees), "limit_decided": len(decided),
                "tables": {t: summary(v) for t, v in sorted(by_table.items())},
                "rows": [{"table": o.point.table_id, "row": o.point.row, "measured_bps": o.point.value_si,
                          "error": o.error} for o in scored],
            }
            if "calculator" not in out:
                calc = defaultdict(list)
                for o in outcomes:
                    if o.naive:
                        calc[o.point.table_id].append(o.naive / o.point.value_si - 1)
                out["calculator"] = {
                    "held_out_rtt0": summary([e for t in HELD_OUT_RTT0 for e in calc[t]]),
                    "window_limited": summary([o.naive / o.point.value_si - 1 for o in outcomes
                                               if o.naive and window_limited(o.point)]),
                    "tables": {t: summary(v) for t, v in sorted(calc.items())}}
            if a.table:
                judged = [o.error for o in scored if o.point.table_id == a.table]
                tchecks = limit_checks(lab_cases([str(here / f"{a.table}_median.json")]), lab_path_platform(path), ex)
                tdecided = [c for c in tchecks if c.agrees is not None]
                out[name]["judged"] = {"table": a.table, **summary(judged),
                                       "limit_right": sum(1 for c in tdecided if c.agrees),
                                       "limit_decided": len(tdecided)}
                j = out[name]["judged"]
                print(f"{name}: {a.table} g {j['median']:.1%} (max {j['max']:.1%}), limit named {j['limit_right']} "
                      f"of {j['limit_decided']}")
            h = out[name]["held_out_rtt0"]
            print(f"{name}: the {h['n']} held-out RTT-0 rows {h['median']:.1%} (max {h['max']:.1%}), limit named "
                  f"{out[name]['limit_right']} of {len(decided)}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
