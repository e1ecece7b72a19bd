"""The rule "A calibration run the kernel's reader limits" (validation/README.md): its two calibration runs and its
held-out table ``cpu13``, each three pinned passes (root; ../measure_passes.py).

    python3 measure_cpu13.py calib_nagle OUT_DIR   # the two Nagle-on calibration runs, measured first
    python3 measure_cpu13.py cpu13 OUT_DIR         # the held-out table, after the three fits

then ``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs MEDIAN.json`` (the calibration runs'
median file with its runs' ``kind`` dropped, so ``--role calibration`` keeps them).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure  # noqa: E402


def messages(*sizes):
    """``tcpsim lab`` arguments of 1 Gbit/s message rows: (bytes, nodelay) each."""
    return [["--rate", "1gbit", "--write", str(w)] + (["--nodelay"] if nodelay else []) for w, nodelay in sizes]


def writes(*sizes):
    """Unshaped write rows: (MTU, write bytes) each."""
    return [["--write", str(w), "--mtu", str(mtu)] for mtu, w in sizes]


TABLES = {
    "calib_nagle": messages((45, False), (110, False)),
    "cpu13": messages((25, False), (90, False), (180, False), (80, True), (400, True))
    + writes((1500, 768), (1500, 2048), (1500, 6144), (9000, 6144), (9000, 40960)),
}

if __name__ == "__main__":
    measure(sys.argv[2], sys.argv[1], TABLES[sys.argv[1]])
