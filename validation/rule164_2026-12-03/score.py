"""Rule 164 ("A user's machine on a lab row without the delay line keeps its own receive skbs", validation/README.md):
every machine folder's lab rows without the delay line (the only rows the rule can move), scored under every machine
file in that folder as ``tcpsim validate --data FOLDER/data --platform lab_vm=FILE`` scores them, seed 0. Run once with
the build before the rule and once with the build after it; ``--compare BEFORE AFTER`` prints what moved.

    python -P score.py --json before.json      # with the build of ad8da9b
    python -P score.py --json after.json       # with the build of the rule
    python -P score.py --compare before.json.gz after.json.gz

The committed records are gzipped (``before.json.gz``, ``after.json.gz``); ``compare.txt`` is the comparison.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def folders() -> list[Path]:
    """Every machine folder with lab tables and machine files beside them."""
    return sorted(d.parent for d in ROOT.glob("**/data") if (d / "lab").is_dir() and any(d.parent.glob("*.toml")))


def machine_files(folder: Path) -> list[Path]:
    """The folder's machine files, and those of its subfolders that have no tables of their own (the Xeon's
    ``split/``)."""
    subs = [f for f in folder.glob("*/*.toml") if not (f.parent / "data").is_dir()]
    return sorted(folder.glob("*.toml")) + sorted(subs)


def score(out: str) -> None:
    from tcpsim.calibration.tables import load_points
    from tcpsim.calibration.validate import evaluate, given_platforms

    record: dict = {}
    with ProcessPoolExecutor(2) as ex:
        for folder in folders():
            points = [p for p in load_points(folder / "data") if p.source_id == "lab" and p.get("delay_line") == "none"]
            for f in machine_files(folder):
                try:
                    given = given_platforms([f"lab_vm={f}"], points)
                except ValueError as exc:  # a file that is no machine (a fit's settings, say)
                    print(f"skipped {f.relative_to(ROOT)}: {exc}")
                    continue
                outs = evaluate(points, ex, given)
                record[str(f.relative_to(ROOT))] = [
                    {"table": o.point.table_id, "row": o.point.row, "mtu": o.point.get("mtu_bytes"),
                     "predicted": o.predicted, "error": o.error} for o in outs]
                print(f"{f.relative_to(ROOT)}: {len(outs)} rows", flush=True)
    Path(out).write_text(json.dumps(record, indent=0))


def _median(rows: list[dict]) -> float:
    return statistics.median(abs(r["error"]) for r in rows)


def compare(before: str, after: str) -> None:
    def read(path: str) -> dict:
        raw = Path(path).read_bytes()
        return json.loads(gzip.decompress(raw) if path.endswith(".gz") else raw)

    a, b = read(before), read(after)
    moved_rows = 0
    for f in sorted(set(a) & set(b)):
        ra, rb = [r for r in a[f] if r["error"] is not None], [r for r in b[f] if r["error"] is not None]
        moved = [(x, y) for x, y in zip(ra, rb) if abs(y["predicted"] / x["predicted"] - 1) > 0.005]
        moved_rows += len(moved)
        tables = sorted({r["table"] for r in ra})
        lines = []
        for t in tables:
            ta, tb = [r for r in ra if r["table"] == t], [r for r in rb if r["table"] == t]
            if abs(_median(tb) - _median(ta)) >= 0.005:
                lines.append(f"{t} {_median(ta):.1%} -> {_median(tb):.1%}")
        print(f"{f}: {len(ra)} rows, median {_median(ra):.1%} -> {_median(rb):.1%}; {len(moved)} rows moved more than "
              f"0.5 %" + ("; " + ", ".join(lines) if lines else ""))
    print(f"rows moved more than 0.5 %: {moved_rows}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--compare", nargs=2)
    a = ap.parse_args()
    if a.compare:
        compare(*a.compare)
    else:
        score(a.json)
