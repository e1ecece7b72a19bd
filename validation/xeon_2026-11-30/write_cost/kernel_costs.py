"""Each pinned CPU's busy share as a sum of per-event costs, fitted by non-negative least squares over the Xeon's
pinned RTT-0 one-stream runs: the kernel's own shares against its own counters (writes and reads from the goodput
and the write size, the sender's interface units and ACKs), and, with ``--platform FILE``, tcpsim's shares against
its own counters for the same runs, so the two sets of costs can be set side by side (validation/README.md, "What
each event costs the kernel's CPUs, from its own shares").

    python kernel_costs.py [--platform FILE] [--json OUT]
"""

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

HERE = Path(__file__).resolve().parent.parent
FILES = (["runs_median.json"] + [f"cpu{n}_median.json" for n in range(4, 9)]
         + ["gaps/cpu9_median.json", "gaps/cpu10_median.json", "streams/cpu11_median.json",
            "streams/calib_extra_median.json"]
         + [f"write_cost/{t}_median.json" for t in ("cpu12", "calib_nagle", "cpu13", "cpu14")])
EVENTS = ("writes", "units", "bytes", "acks")
"""Per second: writes (one read each: iperf3 reads its block), units the sending interface counted (a GSO aggregate
once), payload bytes, ACKs the sending interface took in."""


def kernel_rows():
    out = []
    for f in FILES:
        for r in json.loads((HERE / f).read_text()):
            sc, m = r["scenario"], r["measured"]
            if not sc.get("pin_cpus") or not m.get("cpu_shares") or sc.get("rtt_s") or sc["n_streams"] != 1:
                continue
            busy = [1 - m["cpu_shares"][f"cpu{n}"]["idle"] for n in sc["pin_cpus"]]
            b = m["goodput_bps"] / 8
            out.append({"file": f, "row": r.get("row", ""), "snd": busy[0], "rcv": busy[1],
                        "writes": b / sc["write_bytes"], "units": m["tx_units_per_s"] or 0.0, "bytes": b,
                        "acks": m["rx_units_per_s"] or 0.0})
    return out


def _simulated(args):
    case, platform = args
    from tcpsim.api import simulate
    from tcpsim.lab.predict import host_platform, lab_path_platform, lab_simulation

    plat = host_platform(case.sysctls, platform=lab_path_platform(platform), os_name=None, delay_line=case.delay_line)
    r = simulate(lab_simulation(case.scenario, plat, case.delay_line, tool=case.tool, tool_version=case.tool_version))
    u = r.cpu_utilization_frac
    b = r.goodput_bps / 8
    return {"snd": max(u["sender"]), "rcv": max(u["receiver"]), "writes": b / case.scenario.write_bytes,
            "units": r.data_skbs_per_s, "bytes": b, "acks": r.ack_packets_per_s}


def model_rows(platform, rows):
    from tcpsim.calibration.own import lab_cases

    cases = {(f, c.label): c for f in FILES for c in lab_cases([str(HERE / f)])}
    with ProcessPoolExecutor(2) as ex:
        sims = list(ex.map(_simulated, [(cases[r["file"], r["row"]], platform) for r in rows]))
    return [{**r, **s} for r, s in zip(rows, sims)]


def fit(rows, side):
    a = np.array([[r[e] for e in EVENTS] for r in rows])
    y = np.array([r[side] for r in rows])
    x, _ = nnls(a, y)
    rel = np.abs(a @ x - y) / y
    return {"costs_s": dict(zip(EVENTS, (float(f"{v:.4g}") for v in x))), "rows": len(rows),
            "median_abs_rel_error": round(float(np.median(rel)), 4), "max_abs_rel_error": round(float(rel.max()), 4)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--platform", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = kernel_rows()
    out = {"kernel": {side: fit(rows, side) for side in ("snd", "rcv")}}
    if a.platform:
        out[a.platform] = {side: fit(model_rows(a.platform, rows), side) for side in ("snd", "rcv")}
    for who, sides in out.items():
        for side, f in sides.items():
            costs = ", ".join(f"{e} {v * 1e9:.3g} ns" for e, v in f["costs_s"].items())
            print(f"{who} {side}: {costs} ({f['rows']} runs, median |error| {f['median_abs_rel_error']:.1%})")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
