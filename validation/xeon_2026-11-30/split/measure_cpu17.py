"""The rule "The check at its instant" (validation/README.md): its held-out table ``cpu17``, three pinned passes
(root; ../measure_passes.py), measured after W'' (``xeon_fit_instant.toml``) was fitted.

    python3 measure_cpu17.py OUT_DIR

then ``python -m tcpsim.lab.dataset ../data/lab --median-of OUT_DIR/pass*.json --runs cpu17_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 1280, 1), (1500, 7680, 1), (1500, 163840, 1), (1500, 4096, 3), (1500, 24576, 2),
             (9000, 2560, 1), (9000, 9216, 1), (9000, 98304, 1), (9000, 12288, 2), (1500, 40960, 2)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu17", ROWS)
