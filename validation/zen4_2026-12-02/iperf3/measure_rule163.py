"""Rule 163 ("Step 2 with request/response runs among its calibration runs", validation/README.md), once, root,
nothing else running: ``python3 measure_rule163.py cal OUT_DIR`` measures the two request/response calibration runs
(three passes each) and writes ``rr_cal_median.json``, each its run of median transactions; after the fit
(``rule163.sh``), ``python3 measure_rule163.py tables OUT_DIR`` measures the held-out ``lab/rr3`` and ``lab/cpu10``
in three pinned passes each. Nothing the runs measure is printed.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with python -P, as the others are
from measure_rule161 import HERE, measure_tables, messages, rows  # noqa: E402
from score_rule161 import median_runs  # noqa: E402

CAL = {"rr_cal": [["--rr", "300"], ["--rr", "3000"]]}
TABLES = {
    "rr3": [["--rr", str(n)] for n in (24, 96, 384, 1536, 6144, 24576)],
    "cpu10": (messages((75, False), (200, False), (450, False), (150, True), (350, True))
              + rows(((1500, 4608, 1), (1500, 22528, 1), (1500, 45056, 2), (9000, 2048, 1), (9000, 36864, 1)))),
}

if __name__ == "__main__":
    step, out = sys.argv[1], Path(sys.argv[2])
    measure_tables(str(out), CAL if step == "cal" else TABLES)
    if step == "cal":
        passes = json.loads((out / "rr_cal" / "rr_cal_passes.json").read_text())
        (HERE / "rr_cal_passes.json").write_text(json.dumps(passes))
        # no "kind": calibrate --role calibration keeps a run of a sweep kind only if its table calibrates (the
        # extra runs' is "writes") and a run of none; with "rr_cal" the first fit dropped these two (rule 163)
        runs = [{k: v for k, v in r.items() if k != "kind"} for r in median_runs(passes)]
        (HERE / "rr_cal_median.json").write_text(json.dumps(runs))
