"""The rule "A modern core's copy from the other modern machine" (validation/README.md): its held-out table
``cpu18``, three pinned passes (root; ../measure_passes.py), measured after A* (``xeon_parts_copy.toml``) was written.

    python3 measure_cpu18.py OUT_DIR

then ``python -m tcpsim.lab.dataset ../data/lab --median-of OUT_DIR/pass*.json --runs cpu18_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 896, 1), (1500, 2304, 1), (1500, 11264, 1), (1500, 61440, 1), (1500, 147456, 1),
             (1500, 229376, 1), (1500, 12288, 2), (9000, 3584, 1), (9000, 18432, 1), (9000, 114688, 1)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu18", ROWS)
