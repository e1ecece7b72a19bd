"""Rule 162 ("Step 2 from the short idles' latency", validation/README.md), once, root, nothing else running, after
``step4_spin.sh``: the held-out tables ``lab/rr2`` and ``lab/cpu9`` in three pinned passes each
(``measure_rule161.measure_tables``); nothing the runs measure is printed.

    python3 measure_rule162.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/cpu9/pass*.json --runs cpu9_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with python -P
from measure_rule161 import measure_tables, messages, rows  # noqa: E402

RR_BYTES = (32, 128, 512, 2048, 8192, 32768)
TABLES = {
    "rr2": [["--rr", str(n)] for n in RR_BYTES],
    "cpu9": (messages((65, False), (180, False), (380, False), (130, True), (300, True))
             + rows(((1500, 6144, 1), (1500, 18432, 1), (1500, 28672, 2), (9000, 4608, 1), (9000, 45056, 1)))),
}

if __name__ == "__main__":
    measure_tables(sys.argv[1], TABLES)
