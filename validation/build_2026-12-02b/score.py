"""Score the rule "The pinned lab as the default, decided on a seventh build" (validation/README.md) once.

    python score.py --json scores.json

The runs of ``runs/`` (``window2`` and ``window3``, four passes each in the order U, T, U, T: ``u_window2_1.json``
...), per instrument: U with no placement flag, T with ``--relay-cpu 0 --pin 0,1``. For each, the runs with a segment
queued out of order at the receiver and the runs that retransmitted; the window-limited runs (measured below 80 % of
the shaped rate) as ``tcpsim lab --platform lab_vm`` predicts each beside its run, on the committed ``RELAY`` and,
for T, on this build's pinned probe (``pathprobe_relay0.json``); and README's smallest example (``smallest/``, six
runs in the order U, T, U, T, U, T) against the bare command's prediction each run carries.
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

from score_relay import predicted_bps, summary  # noqa: E402  (the sixth build's scoring, unchanged)
from tcpsim.lab.pathprobe import read_relay_path  # noqa: E402
from tcpsim.lab.scenario import RELAY  # noqa: E402

CASES = (("U", "RELAY"), ("T", "RELAY"), ("T", "pathprobe_relay0.json"))


def _limited(runs: list[dict]) -> list[dict]:
    return [r for r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    runs = {name: [r for path in sorted((HERE / "runs").glob(f"{name.lower()}_*.json"))
                   for r in json.loads(path.read_text())] for name in ("U", "T")}
    out: dict = {"instruments": {}, "scores": {}, "smallest": {}}
    for name, rs in runs.items():
        o = out["instruments"][name] = {
            "runs": len(rs),
            "reordered_runs": sum(1 for r in rs if r["measured"].get("receiver_counters", {}).get("TCPOFOQueue")),
            "retransmitting_runs": sum(1 for r in rs if r["measured"]["retransmits"]),
            "retransmits": sum(r["measured"]["retransmits"] for r in rs),
            "placement": sorted({(str(r["scenario"]["pin_cpus"]), str(r["scenario"]["relay_cpu"])) for r in rs}),
        }
        print(f"{name}: {o['runs']} runs, {o['reordered_runs']} reordered, {o['retransmitting_runs']} retransmitted "
              f"({o['retransmits']} segments)")
    with ProcessPoolExecutor(2) as ex:
        for name, probe in CASES:
            relay = asdict(RELAY if probe == "RELAY" else read_relay_path(str(HERE / probe)))
            limited = _limited(runs[name])
            preds = list(ex.map(predicted_bps, limited, [relay] * len(limited)))
            errors = [p / r["measured"]["goodput_bps"] - 1 for p, r in zip(preds, limited)]
            key = f"{name} on {probe}"
            out["scores"][key] = {
                "relay": relay, "window_limited": summary(errors),
                **{t: summary([e for e, r in zip(errors, limited) if r["kind"] == t]) for t in ("window2", "window3")},
                "above_15": sum(1 for e in errors if abs(e) > 0.15),
                "rows": [{"row": r["row"], "measured_bps": r["measured"]["goodput_bps"], "error": e,
                          "retransmits": r["measured"]["retransmits"],
                          "ofo": r["measured"].get("receiver_counters", {}).get("TCPOFOQueue")}
                         for r, e in zip(limited, errors)]}
            w = out["scores"][key]["window_limited"]
            print(f"{key}: {w['n']} window-limited {w['median']:.1%} (max {w['max']:.1%}, signed "
                  f"{w['signed_median']:+.1%}), {out['scores'][key]['above_15']} above 15 %")
    for name in ("U", "T"):
        rs = [json.loads(p.read_text()) for p in sorted((HERE / "smallest").glob(f"{name.lower()}_*.json"))]
        errors = [d["predicted"]["goodput_bps"] / d["measured"]["goodput_bps"] - 1 for d in rs]
        out["smallest"][name] = {"measured_bps": [d["measured"]["goodput_bps"] for d in rs],
                                 "predicted_bps": [d["predicted"]["goodput_bps"] for d in rs],
                                 "errors": errors, "median_abs": statistics.median(map(abs, errors)),
                                 "reordered_runs": sum(1 for d in rs if d["measured"].get("receiver_counters", {})
                                                       .get("TCPOFOQueue")),
                                 "placement": sorted({(str(d["scenario"]["pin_cpus"]), str(d["scenario"]["relay_cpu"]))
                                                      for d in rs})}
        s = out["smallest"][name]
        print(f"smallest example {name}: " + ", ".join(f"{e:+.1%}" for e in errors)
              + f"; median |error| {s['median_abs']:.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
