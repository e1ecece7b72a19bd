"""The rule "After calibrating from the new parts, or the parts alone" (validation/README.md): this machine's held-out
table ``cpu7``, three pinned passes (root; ../xeon_2026-11-30/measure_passes.py).

    python3 measure_cpu7.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu7_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

ROWS = (messages((45, False), (130, False), (700, False), (90, True), (450, True))
        + rows(((1500, 1280, 1), (1500, 7168, 1), (1500, 8192, 3), (9000, 1536, 1), (9000, 28672, 1))))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu7", ROWS)
