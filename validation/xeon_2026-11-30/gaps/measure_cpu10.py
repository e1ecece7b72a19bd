"""lab/cpu10 of "The gaps with the refit started from the committed costs" (validation/README.md): three pinned
passes of its 9 rows (root, about 3 minutes; ../measure_passes.py).

    python3 measure_cpu10.py OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 7168, 1), (1500, 18432, 1), (1500, 40960, 1), (1500, 53248, 1), (1500, 73728, 1),
             (9000, 7168, 1), (9000, 36864, 1), (1500, 36864, 2), (1500, 7168, 3)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu10", ROWS)
