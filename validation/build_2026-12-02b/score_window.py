"""Score the rule "The lab's largest window table on the seventh build" (validation/README.md) once.

    python score_window.py --json scores_window.json

``largest/t_window_1.json`` (the rule's ``window_t.json``, moved): the lab's ``window`` table (50 rows) once, placed by
``tcpsim lab``'s default. Its window-limited runs (measured below 80 % of the shaped rate) as ``tcpsim lab --platform lab_vm`` predicts each beside its run, on
this build's pinned probe (``pathprobe_relay0.json``) and on the committed ``RELAY``; the runs that reordered or
retransmitted, and those above 15 %.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "build_2026-12-02"))

from score_relay import predicted_bps, summary  # noqa: E402  (the sixth build's scoring, unchanged)
from tcpsim.lab.pathprobe import read_relay_path  # noqa: E402
from tcpsim.lab.scenario import RELAY  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    runs = json.loads((HERE / "largest" / "t_window_1.json").read_text())
    limited = [r for r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
    out: dict = {"runs": len(runs),
                 "reordered_runs": sum(1 for r in runs if r["measured"]["receiver_counters"].get("TCPOFOQueue")),
                 "retransmitting_runs": sum(1 for r in runs if r["measured"]["retransmits"]), "scores": {}}
    print(f"{out['runs']} runs, {out['reordered_runs']} reordered, {out['retransmitting_runs']} retransmitted")
    with ProcessPoolExecutor(2) as ex:
        for name, relay in (("probe", read_relay_path(str(HERE / "pathprobe_relay0.json"))), ("RELAY", RELAY)):
            preds = list(ex.map(predicted_bps, limited, [asdict(relay)] * len(limited)))
            errors = [p / r["measured"]["goodput_bps"] - 1 for p, r in zip(preds, limited)]
            above = [(r["row"], round(e, 4)) for r, e in zip(limited, errors) if abs(e) > 0.15]
            out["scores"][name] = {"window_limited": summary(errors), "above_15": above,
                                   "rows": [{"row": r["row"], "measured_bps": r["measured"]["goodput_bps"], "error": e}
                                            for r, e in zip(limited, errors)]}
            w = out["scores"][name]["window_limited"]
            print(f"on {name}: {w['n']} window-limited {w['median']:.1%} (max {w['max']:.1%}, signed "
                  f"{w['signed_median']:+.1%}), {len(above)} above 15 %")
            for row, e in above:
                print(f"   {e:+.1%}  {row}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
