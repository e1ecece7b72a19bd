"""lab/cpu9 of "A running CPU loses short gaps to the system, as measured" (validation/README.md): three pinned
passes of its 9 rows (root, about 3 minutes; ../measure_passes.py).

    python3 measure_cpu9.py OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 3584, 1), (1500, 14336, 1), (1500, 28672, 1), (1500, 36864, 1), (1500, 45056, 1),
             (1500, 57344, 1), (9000, 28672, 1), (9000, 45056, 1), (1500, 14336, 2)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu9", ROWS)
