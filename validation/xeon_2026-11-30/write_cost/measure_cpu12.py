"""The rule "The Xeon's write cost from the kernel's timestamps" (validation/README.md): its held-out table ``cpu12``,
three pinned passes (root; ../measure_passes.py), measured after the candidate files E and Q were fitted.

    python3 measure_cpu12.py OUT_DIR

then ``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs cpu12_median.json``
(validation/README.md, "Reproduce").
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure  # noqa: E402

MESSAGES = [["--rate", "1gbit", "--write", str(w)] + (["--nodelay"] if nodelay else [])
            for w, nodelay in ((30, False), (70, False), (250, False), (50, True), (250, True))]
WRITES = [["--write", str(w), "--mtu", str(mtu)] for mtu, w in ((1500, 512), (1500, 3072), (1500, 12288),
                                                                  (9000, 3072), (9000, 24576))]

if __name__ == "__main__":
    measure(sys.argv[1], "cpu12", MESSAGES + WRITES)
