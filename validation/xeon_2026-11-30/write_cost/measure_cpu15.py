"""The rule "The kernel's per-event costs in the machine file" (validation/README.md): its held-out table ``cpu15``,
three pinned passes (root; ../measure_passes.py), measured after the candidate file K was fitted.

    python3 measure_cpu15.py OUT_DIR

then ``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs cpu15_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_cpu13 import messages, writes  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure  # noqa: E402

ROWS = (messages((50, False), (160, False), (60, True), (200, True))
        + writes((1500, 384), (1500, 2560), (1500, 20480), (9000, 1024), (9000, 6144), (9000, 49152)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu15", ROWS)
