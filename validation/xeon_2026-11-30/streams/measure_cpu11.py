"""The rule "The calibration runs weigh the receiving side" (validation/README.md): its three extra calibration
runs and its held-out table ``cpu11``, each three pinned passes (root; ../measure_passes.py).

    python3 measure_cpu11.py calib_extra OUT_DIR   # the write-size kind: calibration runs
    python3 measure_cpu11.py cpu11 OUT_DIR         # the held-out table

then, for each, ``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs MEDIAN.json``
(validation/README.md, "Reproduce").
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

TABLES = {
    "writes": rows(((1500, 16384, 2), (9000, 8192, 1), (9000, 65536, 1))),
    "cpu11": rows(((1500, 3072, 2), (1500, 10240, 2), (1500, 49152, 2), (1500, 12288, 3), (1500, 6144, 1),
                   (1500, 30720, 1), (9000, 5120, 1), (9000, 20480, 1), (9000, 20480, 2), (9000, 81920, 1))),
}
KINDS = {"calib_extra": "writes", "cpu11": "cpu11"}

if __name__ == "__main__":
    kind = KINDS[sys.argv[1]]
    measure(sys.argv[2], kind, TABLES[kind])
