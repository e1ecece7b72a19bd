"""The rule "A parts file's read as iperf3's saturated reader measures it" (validation/README.md): this machine's
held-out table ``cpu4``, three pinned passes (root; ../xeon_2026-11-30/measure_passes.py), measured after the read.

    python3 measure_cpu4.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu4_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

ROWS = (messages((30, False), (50, False), (250, False), (50, True), (250, True))
        + rows(((1500, 768, 1), (1500, 24576, 1), (1500, 8192, 2), (9000, 4096, 1), (9000, 20480, 1))))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu4", ROWS)
