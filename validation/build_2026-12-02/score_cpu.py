"""Score the rule "A relay on one CPU" (validation/README.md) once.

    python score_cpu.py --json scores_cpu.json
    python score_cpu.py --runs cpu_runs2 --probes R=pathprobe_relay0.json T=pathprobe_relay0.json \
        --json scores_cpu2.json

    python score_cpu.py --runs cpu_runs3 --probes T=pathprobe_relay0.json --json scores_cpu3.json

The second is the rule "The tools pinned beside the relay": R against T (``--relay-cpu 0 --pin 0,1``), in
``cpu_runs2/`` (``r_window2_1.json``, ``t_window2_1.json`` ...); the third "The pinned lab on its largest window
table", T alone on ``window``'s 50 rows (``cpu_runs3/``).

The runs of ``cpu_runs/`` (``window2`` and ``window3``, four passes each in the order U, R, U, R: ``u_window2_1.json``
...), per instrument: U with the relay where the scheduler puts it, R with ``--relay-cpu 0``. For each, the runs with
a segment queued out of order at the receiver and the runs that retransmitted; and the window-limited runs (measured
below 80 % of the shaped rate) as ``tcpsim lab --platform lab_vm`` predicts each beside its run, U on this build's
unpinned probe (``pathprobe_fit2.json``), R on its pinned one (``pathprobe_relay0.json``).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from score_relay import predicted_bps, summary
from tcpsim.lab.pathprobe import read_relay_path

HERE = Path(__file__).resolve().parent
PROBES = {"U": "pathprobe_fit2.json", "R": "pathprobe_relay0.json"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--runs", default="cpu_runs", metavar="DIR", help="the runs' folder (default cpu_runs)")
    ap.add_argument("--probes", nargs="*", metavar="NAME=FILE", help="each instrument's probe (default U and R)")
    a = ap.parse_args()
    probes = dict(x.split("=", 1) for x in a.probes) if a.probes else PROBES
    out: dict = {}
    with ProcessPoolExecutor(2) as ex:
        for name, probe in probes.items():
            runs = [r for path in sorted((HERE / a.runs).glob(f"{name.lower()}_*.json"))
                    for r in json.loads(path.read_text())]
            relay = asdict(read_relay_path(str(HERE / probe)))
            limited = [r for r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
            preds = list(ex.map(predicted_bps, limited, [relay] * len(limited)))
            errors = [p / r["measured"]["goodput_bps"] - 1 for p, r in zip(preds, limited)]
            out[name] = {
                "probe": probe, "relay": relay, "runs": len(runs),
                "reordered_runs": sum(1 for r in runs
                                      if r["measured"].get("receiver_counters", {}).get("TCPOFOQueue")),
                "retransmitting_runs": sum(1 for r in runs if r["measured"]["retransmits"]),
                "retransmits": sum(r["measured"]["retransmits"] for r in runs),
                "window_limited": summary(errors),
                "rows": [{"row": r["row"], "measured_bps": r["measured"]["goodput_bps"], "error": e,
                          "retransmits": r["measured"]["retransmits"],
                          "ofo": r["measured"].get("receiver_counters", {}).get("TCPOFOQueue")}
                         for r, e in zip(limited, errors)],
            }
            o, w = out[name], out[name]["window_limited"]
            print(f"{name}: {o['runs']} runs, {o['reordered_runs']} reordered, {o['retransmitting_runs']} "
                  f"retransmitted ({o['retransmits']} segments); {w['n']} window-limited {w['median']:.1%} "
                  f"(max {w['max']:.1%}, signed {w['signed_median']:+.1%})")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
