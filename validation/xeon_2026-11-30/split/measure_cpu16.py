"""The rule "The receive work divides at the socket's lock" (validation/README.md): its held-out table ``cpu16``,
three pinned passes (root; ../measure_passes.py), measured after W' (``xeon_fit_split.toml``) was fitted.

    python3 measure_cpu16.py OUT_DIR

then ``python -m tcpsim.lab.dataset ../data/lab --median-of OUT_DIR/pass*.json --runs cpu16_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure, rows  # noqa: E402

ROWS = rows(((1500, 1792, 1), (1500, 4608, 1), (1500, 26624, 1), (1500, 114688, 1), (1500, 8192, 3),
             (1500, 65536, 2), (9000, 1536, 1), (9000, 14336, 1), (9000, 57344, 1), (9000, 32768, 2)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu16", ROWS)
