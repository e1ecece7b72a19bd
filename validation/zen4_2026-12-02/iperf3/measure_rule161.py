"""Rule 161 ("The wake-up latency after short idles", validation/README.md), once, root, nothing else running:
the spinning wake-up probe (``python -m tcpsim.lab.wakeprobe --spin``) and A10S from it, then the held-out tables
``lab/rr`` and ``lab/cpu8`` in three pinned passes each (../../xeon_2026-11-30/measure_passes.py); nothing the
runs measure is printed.

    python3 measure_rule161.py OUT_DIR

then ``python -m tcpsim.lab.dataset data/lab --median-of OUT_DIR/cpu8/pass*.json --runs cpu8_median.json``.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "xeon_2026-11-30"))
from measure_passes import measure, rows  # noqa: E402
from write_cost.measure_cpu13 import messages  # noqa: E402

RR_BYTES = (16, 256, 1024, 4096, 16384, 65536)
TABLES = {
    "rr": [["--rr", str(n)] for n in RR_BYTES],
    "cpu8": (messages((55, False), (140, False), (320, False), (110, True), (260, True))
             + rows(((1500, 5120, 1), (1500, 14336, 1), (1500, 36864, 2), (9000, 3072, 1), (9000, 53248, 1)))),
}


def with_latency(text: str, table: list) -> str:
    """A machine file's text with its ``wake_latency_s`` line replaced by ``table``."""
    line = re.compile(r"^wake_latency_s\s*=.*$", re.M)
    if len(line.findall(text)) != 1:
        raise ValueError("wake_latency_s: the file must set it once")
    cells = ", ".join(f"[{g:g}, {v:.3g}]" for g, v in table)
    return line.sub(f"wake_latency_s = [{cells}]", text, count=1)


def main(out: str) -> None:
    probe = subprocess.run([sys.executable, "-P", "-m", "tcpsim.lab.wakeprobe", "--spin"], capture_output=True,
                           text=True, timeout=600, check=True)
    (HERE / "wake_spin.json").write_text(probe.stdout)
    table = json.loads(probe.stdout)["wake_latency_s"]
    note = ("# A10S (rule 161): parts_lat.toml with wake_latency_s from python -m tcpsim.lab.wakeprobe --spin "
            "(wake_spin.json)\n")
    (HERE / "parts_spin.toml").write_text(note + with_latency((HERE / "parts_lat.toml").read_text(), table))
    measure_tables(out, TABLES)


def measure_tables(out: str, tables: dict) -> None:
    """Each of ``tables`` (kind: its rows' ``tcpsim lab`` arguments) in three pinned passes, in ``OUT/kind``."""
    for kind, row_args in tables.items():
        measure(str(Path(out) / kind), kind, row_args)


if __name__ == "__main__":
    main(sys.argv[1])
