"""The held-out table of "The EPYC's own gaps, measured on its machine" (validation/README.md): ``lab/cpu4`` of the lab
source, three pinned passes of its 11 rows (root, about 3 minutes; ../xeon_2026-11-30/measure_passes.py).

    python3 measure_tables.py cpu4 OUT_DIR
    python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs cpu4_median.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

TABLES = {
    "cpu4": (messages((120, True), (500, True))
             + rows(((1500, 2048, 1), (1500, 10240, 1), (1500, 24576, 1), (1500, 49152, 1), (1500, 98304, 1),
                     (9000, 12288, 1), (9000, 61440, 1), (1500, 20480, 2), (1500, 5120, 3)))),
}

if __name__ == "__main__":
    measure(sys.argv[2], sys.argv[1], TABLES[sys.argv[1]])
