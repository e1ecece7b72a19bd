"""Rule 172 ("Step 2 from the short idles' latency, asked again on the eleventh machine", validation/README.md), once,
root, nothing else running: rule 162's held-out tables ``lab/rr2`` and ``lab/cpu9``, unchanged, in three pinned
passes each on this machine; nothing the runs measure is printed.

    python3 -P measure_rule172.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/cpu9/pass*.json --runs cpu9_median.json`` and
``OUT_DIR/rr2/rr2_passes.json`` copied here.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "zen4_2026-12-02" / "iperf3"))
from measure_rule161 import measure_tables  # noqa: E402
from measure_rule162 import TABLES  # noqa: E402

if __name__ == "__main__":
    measure_tables(sys.argv[1], TABLES)
