"""Score the window rows and the smallest example of the rule "A seventh machine: a Zen 3 EPYC never seen"
(validation/README.md) once.

    python score_window.py --json scores_window.json

Every window-limited run of ``window6_runs.json`` and ``window_runs.json`` (measured below 80 % of the shaped rate) as
``tcpsim lab --platform lab_vm`` predicts it beside its run (``../build_2026-12-02/score_relay.py``, unchanged), on the
committed ``RELAY``; and README's smallest example, each run against its own prediction.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "build_2026-12-02"))

from score_relay import predicted_bps, summary  # noqa: E402
from tcpsim.lab.scenario import RELAY  # noqa: E402

TABLES = ("window6", "window")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    runs = [(t, r) for t in TABLES for r in json.loads((HERE / f"{t}_runs.json").read_text())]
    limited = [(t, r) for t, r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
    out: dict = {"runs": len(runs), "window_limited": len(limited),
                 "reordered_runs": sum(1 for _, r in runs if r["measured"].get("receiver_counters", {}).get("TCPOFOQueue")),
                 "retransmitting_runs": sum(1 for _, r in runs if r["measured"]["retransmits"]), "scores": {}}
    print(f"{out['runs']} runs, {len(limited)} window-limited, {out['reordered_runs']} reordered, "
          f"{out['retransmitting_runs']} retransmitted")
    paths = {"RELAY": RELAY}
    with ProcessPoolExecutor(2) as ex:
        for name, relay in paths.items():
            preds = list(ex.map(predicted_bps, [r for _, r in limited], [asdict(relay)] * len(limited)))
            errors = [p / r["measured"]["goodput_bps"] - 1 for p, (_, r) in zip(preds, limited)]
            above = [(t, r["row"], round(e, 4)) for (t, r), e in zip(limited, errors) if abs(e) > 0.15]
            out["scores"][name] = {
                "relay": asdict(relay), "window_limited": summary(errors), "above_15": above,
                "by_table": {t: summary([e for (tt, _), e in zip(limited, errors) if tt == t]) for t in TABLES},
                "rows": [{"table": t, "row": r["row"], "measured_bps": r["measured"]["goodput_bps"], "error": e}
                         for (t, r), e in zip(limited, errors)]}
            w = out["scores"][name]["window_limited"]
            print(f"on {name}: {w['n']} window-limited {w['median']:.1%} (max {w['max']:.1%}, signed "
                  f"{w['signed_median']:+.1%}), {len(above)} above 15 %")
            for t, row, e in above:
                print(f"   {e:+.1%}  {t}: {row}")
    smallest = {}
    for kind in ("u",):
        errs = []
        for f in sorted((HERE / "smallest").glob(f"{kind}_*.json")):
            d = json.loads(f.read_text())
            errs.append(d["predicted"]["goodput_bps"] / d["measured"]["goodput_bps"] - 1)
        smallest[kind] = {"errors": errs, "median_abs": statistics.median(map(abs, errs)) if errs else None}
        print("smallest example: " + ", ".join(f"{e:+.1%}" for e in errs))
    out["smallest"] = smallest
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
