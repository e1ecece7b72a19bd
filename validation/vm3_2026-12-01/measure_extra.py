"""The Xeon's three extra calibration runs (two streams of 16 KiB writes; 8 and 64 KiB writes at MTU 9000), three
pinned passes on this machine (root; ../xeon_2026-11-30/measure_passes.py; kind "writes", as the Xeon's were), for
the rule "A third machine never seen" (validation/README.md).

    python3 measure_extra.py OUT_DIR
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 16384, 2), (9000, 8192, 1), (9000, 65536, 1)))

if __name__ == "__main__":
    measure(sys.argv[1], "writes", ROWS)
