"""Rule 175 ("tcpsim lab predicts for the machine it runs on, on lossless paths too", validation/README.md), scored
once after the runs are committed: ``window9``'s window-limited rows (each its median run) and the smallest example's
five runs, each predicted from its own JSON as ``tcpsim lab`` predicts it, on ideal hosts (I) and on this build's
detected parts (D); ``lab_vm``, A11S and B11S beside.

    python -P score_rule175.py > scores_rule175.json
"""

import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tcpsim.calibration.own_runs import lab_cases
from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.machine.detect import linux_version_part

HERE = Path(__file__).resolve().parent
HOSTS = {"I": None, "D": str(HERE / "detected.toml"), "lab_vm": "lab_vm",
         "A11S": str(HERE.parent / "parts_spin.toml"), "B11S": str(HERE.parent / "fit_spin.toml")}


def predicted_bps(job):
    path, i, host, os_name = job
    case = lab_cases([path])[i]
    r = predict_lab(case.scenario, case.sysctls, platform=host, os_name=os_name, seed=0, delay_line=case.delay_line,
                    tool=case.tool, tool_version=case.tool_version)
    return tool_goodput_bps(case.scenario, r, case.duration_s or None)


def main() -> None:
    window = HERE / "window9_median.json"
    smallest = sorted((HERE / "smallest").glob("u_*.json"))
    runs = [(str(window), i) for i in range(len(json.loads(window.read_text())))] + [(str(p), 0) for p in smallest]
    cases = [lab_cases([p])[i] for p, i in runs]
    os_name = linux_version_part(json.loads(smallest[0].read_text())["kernel"])[0]
    jobs = [(p, i, host, os_name) for host in HOSTS.values() for p, i in runs]
    with ProcessPoolExecutor(2) as ex:
        got = list(ex.map(predicted_bps, jobs))
    out = {"rows": [], "summary": {}}
    for k, ((p, i), case) in enumerate(zip(runs, cases)):
        row = {"run": f"{Path(p).name}[{i}]" if p == str(window) else Path(p).name, "label": case.label,
               "measured_bps": case.goodput_bps, "rate_bps": case.scenario.rate_bps,
               "window_limited": p == str(window) and case.goodput_bps < 0.8 * case.scenario.rate_bps}
        for h, name in enumerate(HOSTS):
            pred = got[h * len(runs) + k]
            row[name] = {"predicted_bps": pred, "error": pred / case.goodput_bps - 1}
        out["rows"].append(row)
    for name in HOSTS:
        win = [abs(r[name]["error"]) for r in out["rows"] if r["window_limited"]]
        small = [abs(r[name]["error"]) for r in out["rows"] if r["run"].startswith("u_")]
        out["summary"][name] = {"g": statistics.median(win), "m": max(win), "n": len(win),
                                "s": statistics.median(small)}
    g, s = out["summary"], out["summary"]
    out["decision"] = {"g": g["D"]["g"] <= g["I"]["g"] - 0.01, "m": g["D"]["m"] <= g["I"]["m"] + 0.02,
                       "s": s["D"]["s"] < s["I"]["s"]}
    out["decision"]["adopt_D"] = all(out["decision"].values())
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
