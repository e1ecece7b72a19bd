"""Score rule 161 ("The wake-up latency after short idles", validation/README.md) once: ``lab/rr``'s six rows on
transactions a second, each row its median run of three passes (``rr_passes.json``), predicted as ``tcpsim lab
--platform FILE`` predicts a run beside it (its scenario, sysctls, delay line and tool, seed 0); ``lab/cpu8`` on
goodput with ``../../vm3_2026-12-01/score.py --table cpu8``; g over the 16 rows and over cpu8's ten. Rule 162 scores
its tables the same way (``--rr rr2 --cpu cpu9``; the JSON's keys are the tables' names).

    python -P score_rule161.py --json scores_rule161.json
    python -P score_rule161.py --rr rr2 --cpu cpu9 --files B10S=fit_spin.toml B10L=fit_lat.toml \
        A10S=parts_spin.toml A10L=parts_lat.toml --json scores_rule162.json

``--folder DIR`` scores another machine's folder the same way (rule 172: ``../../xeon167_2026-12-03``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tcpsim.machine.detect import linux_version_part
from tcpsim.lab.predict import predict_lab
from tcpsim.lab.scenario import LabScenario

HERE = Path(__file__).resolve().parent
FILES = {"A10S": "parts_spin.toml", "A10L": "parts_lat.toml", "B10L": "fit_lat.toml"}


def median_runs(passes: list[list[dict]]) -> list[dict]:
    """Each row's run of median transactions a second over the passes."""
    return [sorted(runs, key=lambda r: r["measured"]["transactions_per_s"])[len(runs) // 2]
            for runs in zip(*passes)]


def predicted_tps(run: dict, path: str, os_name: str) -> float:
    d, m = run["scenario"], run["measured"]
    sc = LabScenario(**{**d, "pin_cpus": tuple(d["pin_cpus"]) if d.get("pin_cpus") else None})
    r = predict_lab(sc, run["sysctls"], platform=path, os_name=os_name, delay_line=run["delay_line"],
                    tool=m["tool"], tool_version=m.get("tool_version") or "")
    return r.transactions_per_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    ap.add_argument("--rr", default="rr", help="the request/response table (rule 162: rr2)")
    ap.add_argument("--cpu", default="cpu8", help="the goodput table (rule 162: cpu9)")
    ap.add_argument("--files", nargs="*", default=None, metavar="NAME=PATH")
    ap.add_argument("--folder", default=str(HERE), help="the machine's folder: its tables and files (default: this one)")
    a = ap.parse_args()
    folder = Path(a.folder).resolve()
    files = dict(f.split("=", 1) for f in a.files) if a.files else FILES
    runs = median_runs(json.loads((folder / f"{a.rr}_passes.json").read_text()))
    os_name = linux_version_part(runs[0]["kernel"])[0]  # the measured kernel's rules, wherever this runs
    out: dict = {a.rr: {}, a.cpu: {}, "g16": {}, "tables": [a.rr, a.cpu]}
    with ProcessPoolExecutor(2) as ex:
        for name, f in files.items():
            preds = list(ex.map(predicted_tps, runs, [str(folder / f)] * len(runs), [os_name] * len(runs)))
            out[a.rr][name] = [{"rr_bytes": r["scenario"]["rr_bytes"], "measured_tps": r["measured"]["transactions_per_s"],
                                "predicted_tps": p, "error": p / r["measured"]["transactions_per_s"] - 1}
                               for r, p in zip(runs, preds)]
    subprocess.run([sys.executable, "-P", str(HERE.parent.parent / "vm3_2026-12-01" / "score.py"), "--folder", str(folder),
                    "--files", *[f"{n}={f}" for n, f in files.items()], "--table", a.cpu,
                    "--json", str(folder / f"scores_{a.cpu}.json")], check=True, stdout=subprocess.DEVNULL)
    gp = json.loads((folder / f"scores_{a.cpu}.json").read_text())
    for name in files:
        errs = [r["error"] for r in gp[name]["rows"] if r["table"] == a.cpu and r["error"] is not None]
        out[a.cpu][name] = {"n": len(errs), "g": statistics.median(map(abs, errs)), "errors": errs}
        both = errs + [r["error"] for r in out[a.rr][name]]
        out["g16"][name] = {"n": len(both), "g": statistics.median(map(abs, both)),
                            "g_rr": statistics.median(abs(r["error"]) for r in out[a.rr][name])}
    calc = gp["calculator"]["tables"].get(a.cpu)
    out[a.cpu]["calculator"] = calc and calc["median"]
    for name in files:
        g = out["g16"][name]
        print(f"{name}: g16 {g['g']:.1%} (n {g['n']}), {a.rr} {g['g_rr']:.1%}, {a.cpu} {out[a.cpu][name]['g']:.1%}")
        print("   rr: " + ", ".join(f"{r['rr_bytes']} B {r['measured_tps']:,.0f}/s {r['error']:+.0%}" for r in out[a.rr][name]))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
