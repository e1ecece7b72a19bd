"""Rule 168's check 2: rule 167's paths 1-4 (seen) and this rule's paths 5-7 (``measure.sh``), each predicted by the
tcpsim on ``sys.path`` against the kernel's median pass (rule 167's ``score.score``). Run it with the build before the
change and after: ``PYTHONPATH=<checkout> python score.py LABEL``."""

import importlib.util
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(label: str) -> None:
    spec = importlib.util.spec_from_file_location("rule167_score", HERE.parent / "rule167_2026-12-03" / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    errors = mod.score(label, sorted((HERE.parent / "rule167_2026-12-03").glob("path*.json"))
                       + sorted(HERE.glob("path*.json")))
    new = [abs(errors[k]) for k in ("path5", "path6", "path7")]
    print(f"{label} median |error| over paths 5-7: {statistics.median(new):.1%}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tcpsim")
