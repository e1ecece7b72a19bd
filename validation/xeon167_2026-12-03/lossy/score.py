"""Rule 173's score (validation/README.md, "`tcpsim lab` on a lossy path predicts for the machine it runs on"): each
saved path predicted as ``tcpsim lab`` predicts it on the ideal host (I), on the file ``--platform detect`` wrote before
the path's runs (D, the run's ``predicted.machine_file``), on this machine's calibrated file (B11S) and on ``lab_vm``,
against the kernel's median pass; g over the eight paths per host, the decision, and each host's median over seeds
0-4 beside. ``python -P score.py --json scores.json``."""

import argparse
import json
import statistics
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

HERE = Path(__file__).resolve().parent
PATHS = "abcdefgh"
HOSTS = ("I", "D", "B11S", "lab_vm")
SEEDS = range(5)


def _platform(host: str, d: dict, folder: str):
    """The ``platform`` argument of ``predict_lab`` for ``host`` on the saved run ``d``."""
    if host == "I":
        return None
    if host == "D":
        path = Path(folder) / "detected.toml"
        path.write_text(d["predicted"]["machine_file"])
        return str(path)
    return str(HERE.parent / "fit_spin.toml") if host == "B11S" else "lab_vm"


def predict(name: str, host: str, seed: int) -> tuple[float, float]:
    """``host``'s goodput (as the tool counts it) and ACKs a second on path ``name``, at ``seed``, under the running
    kernel's rules, as ``tcpsim lab --platform HOST`` predicts."""
    d = json.loads((HERE / f"{name}.json").read_text())
    m, sc = d["measured"], LabScenario(**{**d["scenario"], "pin_cpus": tuple(d["scenario"]["pin_cpus"] or ()) or None})
    with tempfile.TemporaryDirectory() as folder:
        p = predict_lab(sc, d["sysctls"], platform=_platform(host, d, folder),
                        os_name=d["predicted"]["os"], seed=seed,
                        delay_line=d["delay_line"], tool=m["tool"], tool_version=m.get("tool_version") or "")
    return tool_goodput_bps(sc, p, m["duration_s"]), p.ack_packets_per_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    jobs = [(n, h, s) for n in PATHS for h in HOSTS for s in SEEDS]
    with ProcessPoolExecutor(2) as ex:
        preds = dict(zip(jobs, ex.map(predict, *zip(*jobs))))
    out: dict = {"paths": {}, "g": {}, "g_seed_median": {}}
    for n in PATHS:
        d = json.loads((HERE / f"{n}.json").read_text())
        m = d["measured"]
        row = {"scenario": d["scenario"], "measured_bps": m["goodput_bps"], "passes_bps": d["passes_goodput_bps"],
               "acks_per_s": m["rx_units_per_s"], "lab_printed_D_bps": d["predicted"]["goodput_bps"]}
        for h in HOSTS:
            g0, acks = preds[n, h, 0]
            med = statistics.median(preds[n, h, s][0] for s in SEEDS)
            row[h] = {"bps": g0, "error": g0 / m["goodput_bps"] - 1, "acks_per_s": acks,
                      "seed_median_error": med / m["goodput_bps"] - 1}
        out["paths"][n] = row
        passes = ", ".join(f"{g / 1e6:.1f}" for g in d["passes_goodput_bps"])
        hosts = "; ".join(f"{h} {row[h]['error']:+6.1%} ({row[h]['acks_per_s']:5.0f}), "
                          f"seeds {row[h]['seed_median_error']:+6.1%}" for h in HOSTS)
        print(f"{n} {'SACK on ' if d['scenario'].get('sack', True) else 'SACK off'} measured "
              f"{m['goodput_bps'] / 1e6:7.1f} Mbit/s (passes {passes}), {m['rx_units_per_s']:5.0f} ACKs/s; {hosts}")
    for h in HOSTS:
        out["g"][h] = statistics.median(abs(out["paths"][n][h]["error"]) for n in PATHS)
        out["g_seed_median"][h] = statistics.median(abs(out["paths"][n][h]["seed_median_error"]) for n in PATHS)
        print(f"{h}: g {out['g'][h]:.1%} (over seeds 0-4: {out['g_seed_median'][h]:.1%})")
    worse = [n for n in PATHS if abs(out["paths"][n]["D"]["error"]) > abs(out["paths"][n]["I"]["error"]) + 0.05]
    out["adopted"] = out["g"]["D"] <= out["g"]["I"] - 0.05 and not worse
    print(f"paths more than 5 points worse on D: {worse or 'none'}; adopted: {out['adopted']}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
