"""Rule 174 ("The eleventh machine's files on a what-if", validation/README.md), once, root, nothing else running:
``lab/cpu10g``'s eight rows on a shaped 10 Gbit/s link in three pinned passes; nothing the runs measure is printed.

    python3 -P measure_rule174.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/pass*.json --runs cpu10g_median.json``.
"""

import json
import subprocess
import sys
from pathlib import Path

ROWS = [(1500, "2k", 1), (1500, "4k", 1), (1500, "8k", 1), (1500, "16k", 1), (1500, "4k", 2), (9000, "4k", 1),
        (9000, "16k", 1), (9000, "64k", 1)]


def main(out: str, passes: int = 3) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for i in range(passes):
        runs = []
        for mtu, write, streams in ROWS:
            row = ["--write", write, "--mtu", str(mtu)] + (["--streams", str(streams)] if streams > 1 else [])
            cmd = [sys.executable, "-P", "-m", "tcpsim", "lab", "--rate", "10gbit", *row, "--pin", "0,1",
                   "--duration", "3s", "--json"]
            d = json.loads(subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout)
            d["kind"], d["row"] = "cpu10g", " ".join(row)
            runs.append(d)
            print(f"pass {i + 1}: {' '.join(row)} done", file=sys.stderr)
        (folder / f"pass{i + 1}.json").write_text(json.dumps(runs))
        done.append(runs)
    (folder / "cpu10g_passes.json").write_text(json.dumps(done))


if __name__ == "__main__":
    main(sys.argv[1])
