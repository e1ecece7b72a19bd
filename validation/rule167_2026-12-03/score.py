"""Rule 167's check 2: tcpsim's prediction of each saved run (``path1.json`` .. ``path4.json``, ``measure.sh``) by
the tcpsim on ``sys.path``, against the kernel's median pass. Run it with the build before the change and after:
``PYTHONPATH=<checkout> python score.py LABEL``; each prints one line a path and the median |error| of paths 2-4."""

import json
import statistics
import sys
from pathlib import Path

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario


def score(label: str, files) -> dict[str, float]:
    """Each saved run of ``files`` predicted by the tcpsim on ``sys.path``: one line a run, and its error by name."""
    errors = {}
    for f in files:
        d = json.loads(f.read_text())
        m = d["measured"]
        sc = LabScenario(**d["scenario"])
        p = predict_lab(sc, d["sysctls"], os_name=d["predicted"]["os"], delay_line=d["delay_line"], tool=m["tool"],
                        tool_version=m.get("tool_version") or "")
        goodput = tool_goodput_bps(sc, p, m["duration_s"])  # as the tool counts it, start-up included (tcpsim lab)
        errors[f.stem] = goodput / m["goodput_bps"] - 1
        print(f"{label} {f.stem}: measured {m['goodput_bps'] / 1e6:7.2f} Mbit/s, predicted {goodput / 1e6:7.2f} "
              f"({errors[f.stem]:+.1%}; {p.retransmits} retransmits against {m['retransmits']})")
    return errors


def main(label: str) -> None:
    errors = score(label, sorted(Path(__file__).parent.glob("path*.json")))
    rest = [abs(e) for k, e in errors.items() if k != "path1"]
    print(f"{label} median |error| over paths 2-4: {statistics.median(rest):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tcpsim")
