"""lab/cpu8 of "A streaming process does not meet the wake-up probe's stalls" (validation/README.md): three pinned
passes of its 8 rows, written as cpu8_passes.json; prints nothing of what it measures (root, about 2.5 minutes).

    python3 measure_cpu8.py OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import json
import subprocess
import sys
from pathlib import Path

ROWS = [(["--write", str(w), "--mtu", str(mtu)] + (["--streams", "2"] if streams == 2 else []))
        for mtu, w, streams in ((1500, 2560, 1), (1500, 6144, 1), (1500, 10240, 1), (1500, 24576, 1),
                                (1500, 131072, 1), (9000, 6144, 1), (9000, 24576, 1), (1500, 6144, 2))]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    passes = []
    for i in range(3):
        runs = []
        for row in ROWS:
            cmd = [sys.executable, "-P", "-m", "tcpsim", "lab", "--rate", "0", *row, "--pin", "0,1",
                   "--duration", "3s", "--json"]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)
            d = json.loads(done.stdout)
            d["kind"] = "cpu8"
            d["row"] = " ".join(row)
            runs.append(d)
            print(f"pass {i + 1}: {' '.join(row)} done", file=sys.stderr)
        (out / f"pass{i + 1}.json").write_text(json.dumps(runs))
        passes.append(runs)
    (out / "cpu8_passes.json").write_text(json.dumps(passes))


if __name__ == "__main__":
    main(sys.argv[1])
