"""This machine's held-out tables ``cpu4`` to ``cpu7``, each fixed by its rule in validation/README.md before it was
measured, three pinned passes (root; ../xeon_2026-11-30/measure_passes.py). The rules name one script a table
(``measure_cpu4.py`` ...); they are this one's tables.

    python3 measure_tables.py cpu4 OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu4_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

TABLES = {
    # "A parts file's read as iperf3's saturated reader measures it"
    "cpu4": (messages((30, False), (50, False), (250, False), (50, True), (250, True))
             + rows(((1500, 768, 1), (1500, 24576, 1), (1500, 8192, 2), (9000, 4096, 1), (9000, 20480, 1)))),
    # "A parts file's read and write as iperf3's processes spend them"
    "cpu5": (messages((25, False), (70, False), (400, False), (30, True), (600, True))
             + rows(((1500, 1536, 1), (1500, 10240, 1), (1500, 16384, 3), (9000, 2560, 1), (9000, 98304, 1)))),
    # "The tools' own costs judged again, the goodput first"
    "cpu6": (messages((35, False), (90, False), (160, False), (70, True), (350, True))
             + rows(((1500, 2560, 1), (1500, 20480, 1), (1500, 32768, 2), (9000, 6144, 1), (9000, 40960, 1)))),
    # "After calibrating from the new parts, or the parts alone"
    "cpu7": (messages((45, False), (130, False), (700, False), (90, True), (450, True))
             + rows(((1500, 1280, 1), (1500, 7168, 1), (1500, 8192, 3), (9000, 1536, 1), (9000, 28672, 1)))),
}

if __name__ == "__main__":
    measure(sys.argv[2], sys.argv[1], TABLES[sys.argv[1]])
