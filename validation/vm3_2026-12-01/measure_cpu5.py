"""The rule "A parts file's read and write as iperf3's processes spend them" (validation/README.md): this machine's
held-out table ``cpu5``, three pinned passes (root; ../xeon_2026-11-30/measure_passes.py).

    python3 measure_cpu5.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu5_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

ROWS = (messages((25, False), (70, False), (400, False), (30, True), (600, True))
        + rows(((1500, 1536, 1), (1500, 10240, 1), (1500, 16384, 3), (9000, 2560, 1), (9000, 98304, 1))))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu5", ROWS)
