"""The held-out tables of the gap rules (validation/README.md, "A running CPU loses short gaps to the system, as
measured": ``cpu9``; "The gaps with the refit started from the committed costs": ``cpu10``): three pinned passes of
a table's 9 rows (root, about 3 minutes; ../measure_passes.py).

    python3 measure_tables.py cpu9 OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

TABLES = {
    "cpu9": rows(((1500, 3584, 1), (1500, 14336, 1), (1500, 28672, 1), (1500, 36864, 1), (1500, 45056, 1),
                  (1500, 57344, 1), (9000, 28672, 1), (9000, 45056, 1), (1500, 14336, 2))),
    "cpu10": rows(((1500, 7168, 1), (1500, 18432, 1), (1500, 40960, 1), (1500, 53248, 1), (1500, 73728, 1),
                   (9000, 7168, 1), (9000, 36864, 1), (1500, 36864, 2), (1500, 7168, 3))),
}

if __name__ == "__main__":
    measure(sys.argv[2], sys.argv[1], TABLES[sys.argv[1]])
