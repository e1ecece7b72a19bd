"""Score the rule "The delay line measured on its own build" (validation/README.md) once.

    python score_relay.py --json scores_relay.json

Every row of ``window4_runs.json`` and ``window5_runs.json`` (and ``window6_runs.json``, seen) predicted as ``tcpsim
lab --platform lab_vm`` predicts it beside its run: the run's sysctls, delay line, tool and version, seed 0, the
tool's goodput over the run's duration; once with the committed delay line (C, ``RELAY``) and once with this build's
(P, ``read_relay_path("pathprobe_fit2.json")``: the rule's probe taken once more, as it said, because the fit of the
first, ``pathprobe_fit.json``, was refused with a negative constant). The window-limited rows (measured below 80 % of
the shaped rate) are scored under each.
"""

from __future__ import annotations

import argparse
import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from tcpsim.lab.pathprobe import read_relay_path
from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import RELAY, LabScenario, RelayPath

HERE = Path(__file__).resolve().parent
JUDGED, SEEN = ("window4", "window5"), ("window6",)


def _scenario(d: dict) -> LabScenario:
    return LabScenario(**{**d, "pin_cpus": tuple(d["pin_cpus"]) if d.get("pin_cpus") else None})


def predicted_bps(run: dict, relay: dict) -> float:
    sc, m = _scenario(run["scenario"]), run["measured"]
    result = predict_lab(sc, run["sysctls"], platform="lab_vm", delay_line=run["delay_line"], tool=m["tool"],
                         tool_version=m.get("tool_version") or "", relay=RelayPath(**relay))
    return tool_goodput_bps(sc, result, m["duration_s"])


def summary(errors: list[float]) -> dict:
    return {"n": len(errors), "median": statistics.median(map(abs, errors)), "max": max(map(abs, errors)),
            "signed_median": statistics.median(errors)} if errors else {"n": 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    files = {"C": asdict(RELAY), "P": asdict(read_relay_path(str(HERE / "pathprobe_fit2.json")))}
    runs = [(t, r) for t in JUDGED + SEEN for r in json.loads((HERE / f"{t}_runs.json").read_text())]
    limited = [(t, r) for t, r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
    out: dict = {"relay": files, "rows": []}
    with ProcessPoolExecutor(2) as ex:
        preds = {name: list(ex.map(predicted_bps, [r for _, r in limited], [relay] * len(limited)))
                 for name, relay in files.items()}
    for i, (t, r) in enumerate(limited):
        measured = r["measured"]["goodput_bps"]
        out["rows"].append({"table": t, "row": r["row"], "measured_bps": measured,
                            "retransmits": r["measured"]["retransmits"],
                            **{f"error_{n}": preds[n][i] / measured - 1 for n in files}})
    for n in files:
        judged = [x[f"error_{n}"] for x in out["rows"] if x["table"] in JUDGED]
        seen = [x[f"error_{n}"] for x in out["rows"] if x["table"] in SEEN]
        out[n] = {"judged": summary(judged), "window6_seen": summary(seen),
                  **{t: summary([x[f"error_{n}"] for x in out["rows"] if x["table"] == t]) for t in JUDGED}}
        j = out[n]["judged"]
        print(f"{n}: window4 and window5, {j['n']} window-limited rows: {j['median']:.1%} (max {j['max']:.1%}, "
              f"signed {j['signed_median']:+.1%}); window6 (seen) {out[n]['window6_seen']['median']:.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
