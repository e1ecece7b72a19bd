"""Three pinned passes of a table's unshaped rows on this machine (root), as ``lab/cpu8`` and ``lab/cpu9`` were
measured: each row one ``tcpsim lab --rate 0 ... --pin 0,1 --duration 3s --json`` run, nothing of what it measures
printed; ``OUT_DIR/pass{1,2,3}.json`` and ``OUT_DIR/{kind}_passes.json``. Then
``python -m tcpsim.lab.dataset DATA --median-of OUT_DIR/pass*.json`` writes the table, each row its median run.
"""

import json
import subprocess
import sys
from pathlib import Path


def rows(specs):
    """``tcpsim lab`` arguments of each (MTU, write bytes, streams) row."""
    return [["--write", str(w), "--mtu", str(mtu)] + (["--streams", str(n)] if n > 1 else []) for mtu, w, n in specs]


def measure(out, kind, row_args, passes=3):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    done_passes = []
    for i in range(passes):
        runs = []
        for row in row_args:
            cmd = [sys.executable, "-P", "-m", "tcpsim", "lab", "--rate", "0", *row, "--pin", "0,1",
                   "--duration", "3s", "--json"]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)
            d = json.loads(done.stdout)
            d["kind"] = kind
            d["row"] = " ".join(row)
            runs.append(d)
            print(f"pass {i + 1}: {' '.join(row)} done", file=sys.stderr)
        (out / f"pass{i + 1}.json").write_text(json.dumps(runs))
        done_passes.append(runs)
    (out / f"{kind}_passes.json").write_text(json.dumps(done_passes))
