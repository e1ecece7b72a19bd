"""lab/cpu8 of "A streaming process does not meet the wake-up probe's stalls" (validation/README.md): three pinned
passes of its 8 rows (root, about 2.5 minutes; ../measure_passes.py).

    python3 measure_cpu8.py OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 2560, 1), (1500, 6144, 1), (1500, 10240, 1), (1500, 24576, 1), (1500, 131072, 1),
             (9000, 6144, 1), (9000, 24576, 1), (1500, 6144, 2)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu8", ROWS)
