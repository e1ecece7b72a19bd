"""lab/cpu9 of "A running CPU loses short gaps to the system, as measured" (validation/README.md): three pinned
passes of its 9 rows, written as cpu9_passes.json; prints nothing of what it measures (root, about 2.5 minutes).

    python3 measure_cpu9.py OUT_DIR   # then: python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json
"""

import json
import subprocess
import sys
from pathlib import Path

ROWS = [(["--write", str(w), "--mtu", str(mtu)] + (["--streams", "2"] if streams == 2 else []))
        for mtu, w, streams in ((1500, 3584, 1), (1500, 14336, 1), (1500, 28672, 1), (1500, 36864, 1),
                                (1500, 45056, 1), (1500, 57344, 1), (9000, 28672, 1), (9000, 45056, 1),
                                (1500, 14336, 2))]


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
            d["kind"] = "cpu9"
            d["row"] = " ".join(row)
            runs.append(d)
            print(f"pass {i + 1}: {' '.join(row)} done", file=sys.stderr)
        (out / f"pass{i + 1}.json").write_text(json.dumps(runs))
        passes.append(runs)
    (out / "cpu9_passes.json").write_text(json.dumps(passes))


if __name__ == "__main__":
    main(sys.argv[1])
