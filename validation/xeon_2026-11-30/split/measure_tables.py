"""This Xeon's held-out tables ``cpu16`` to ``cpu18``, each fixed by its rule in validation/README.md before it was
measured, three pinned passes (root; ../measure_passes.py). The rules name one script a table (``measure_cpu16.py``
...); they are this one's tables.

    python3 measure_tables.py cpu16 OUT_DIR

then ``python -m tcpsim.lab.dataset ../data/lab --median-of OUT_DIR/pass*.json --runs cpu16_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

TABLES = {
    # "The receive work divides at the socket's lock"
    "cpu16": rows(((1500, 1792, 1), (1500, 4608, 1), (1500, 26624, 1), (1500, 114688, 1), (1500, 8192, 3),
                   (1500, 65536, 2), (9000, 1536, 1), (9000, 14336, 1), (9000, 57344, 1), (9000, 32768, 2))),
    # "The check at its instant"
    "cpu17": rows(((1500, 1280, 1), (1500, 7680, 1), (1500, 163840, 1), (1500, 4096, 3), (1500, 24576, 2),
                   (9000, 2560, 1), (9000, 9216, 1), (9000, 98304, 1), (9000, 12288, 2), (1500, 40960, 2))),
    # "A modern core's copy from the other modern machine"
    "cpu18": rows(((1500, 896, 1), (1500, 2304, 1), (1500, 11264, 1), (1500, 61440, 1), (1500, 147456, 1),
                   (1500, 229376, 1), (1500, 12288, 2), (9000, 3584, 1), (9000, 18432, 1), (9000, 114688, 1))),
}

if __name__ == "__main__":
    measure(sys.argv[2], sys.argv[1], TABLES[sys.argv[1]])
