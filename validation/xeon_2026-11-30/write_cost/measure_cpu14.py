"""The rule "A fit that weighs the limit named beside the goodput" (validation/README.md): its held-out table
``cpu14``, three pinned passes (root; ../measure_passes.py), measured after the candidate files L and EL were fitted.

    python3 measure_cpu14.py OUT_DIR

then ``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json --runs cpu14_median.json``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_cpu13 import messages, writes  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from measure_passes import measure  # noqa: E402

ROWS = (messages((35, False), (130, False), (120, True), (300, True))
        + writes((1500, 640), (1500, 1536), (1500, 5120)) + [["--write", "1024", "--mtu", "1500", "--streams", "2"]]
        + writes((9000, 2048), (9000, 12288)))

if __name__ == "__main__":
    measure(sys.argv[1], "cpu14", ROWS)
