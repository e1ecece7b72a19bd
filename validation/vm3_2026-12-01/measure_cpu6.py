"""The rule "The tools' own costs judged again, the goodput first" (validation/README.md): this machine's held-out
table ``cpu6``, three pinned passes (root; ../xeon_2026-11-30/measure_passes.py).

    python3 measure_cpu6.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu6_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

ROWS = (messages((35, False), (90, False), (160, False), (70, True), (350, True))
        + rows(((1500, 2560, 1), (1500, 20480, 1), (1500, 32768, 2), (9000, 6144, 1), (9000, 40960, 1))))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu6", ROWS)
