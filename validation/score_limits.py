"""Score the limit tcpsim names on every committed median file of pinned lab runs (validation/README.md, "The limit
tcpsim names, scored where the kernel's is plain"): the EPYC's runs with the shipped ``lab_vm``, the Xeon's with its
calibrated file W. Prints each machine's count and misses and what tcpsim names where the shares do not decide;
``--json FILE`` writes every run's check.

    python validation/score_limits.py --json validation/limits_scored.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

from tcpsim.calibration.own import lab_cases, limit_checks
from tcpsim.lab.limits import limit_summary
from tcpsim.lab.predict import lab_path_platform

HERE = Path(__file__).resolve().parent
XEON = HERE / "xeon_2026-11-30"
MACHINES = {
    "EPYC (lab_vm)": ("lab_vm", [HERE / "lab_runs_pinned_median.json"]),
    "Xeon (W)": (str(XEON / "streams" / "xeon_fit_streams.toml"),
                 [XEON / "runs_median.json", *(XEON / f"cpu{n}_median.json" for n in range(4, 9)),
                  XEON / "gaps" / "cpu9_median.json", XEON / "gaps" / "cpu10_median.json",
                  XEON / "streams" / "cpu11_median.json", XEON / "streams" / "calib_extra_median.json"]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    out = {}
    with ProcessPoolExecutor(a.workers) as ex:
        for machine, (spec, files) in MACHINES.items():
            cases = [replace(c, label=f"{f.relative_to(HERE)}: {c.label}") for f in files for c in lab_cases([str(f)])]
            checks = limit_checks(cases, lab_path_platform(spec), ex)
            print(f"{machine}: {len(cases)} runs, {len(checks)} pinned")
            for line in limit_summary(checks):
                print("  " + line)
            undecided = Counter(c.predicted for c in checks if c.measured is None)
            print("  named where the shares do not decide: "
                  + ", ".join(f"{k} {v}" for k, v in undecided.most_common()))
            out[machine] = {"platform": spec, "files": [str(f.relative_to(HERE)) for f in files],
                            "checks": [{**asdict(c), "agrees": c.agrees} for c in checks]}
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
