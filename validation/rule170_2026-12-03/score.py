"""Rule 170's check 2: the fourteen lossy paths (rules 167-170) predicted on ``lab_vm`` (rule 169) by the tcpsim on
``sys.path``, against the kernel's median pass: ``python score.py LABEL`` with the build before the change and after.
Prints one line a path and the median |error| over this rule's paths 12-14."""

import importlib.util
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(label: str) -> None:
    spec = importlib.util.spec_from_file_location("rule169_score", HERE.parent / "rule169_2026-12-03" / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    errors = {}
    for f in sorted(mod.FILES + sorted(HERE.glob("path*.json")), key=lambda f: int(f.stem[4:])):
        e, goodput, acks = mod.error(f, "lab_vm")
        m = json.loads(f.read_text())["measured"]
        errors[f.stem] = e
        print(f"{label} {f.stem:7s} measured {m['goodput_bps'] / 1e6:7.1f} Mbit/s, lab_vm {goodput / 1e6:7.1f} "
              f"({e:+6.1%}, {acks:6.0f} ACKs/s against {m['rx_units_per_s']:6.0f})")
    print(f"{label} median |error| over paths 12-14: "
          f"{statistics.median(abs(errors[k]) for k in ('path12', 'path13', 'path14')):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tcpsim")
