"""Score the rule "The window rows' retransmissions, by cause, on a sixth build" (validation/README.md) once.

    python score.py --json scores.json

The window-limited rows of ``data/lab/window6.csv`` (measured below 80 % of the shaped rate, ``tcpsim validate``'s
class) under ``lab_vm`` as committed and the BDP calculator; over all of them and apart over the rows with and
without a retransmission; each row's retransmissions by cause and the relay's own drops (``window6_runs.json``); the
relay's share of each round trip of this build's path probe (``pathprobe.json``: its median and 90th percentile less
the RTT and less the bare veth's median) beside what ``tcpsim.lab.scenario``'s ``RELAY_*`` constants give. (The rule
asked for ``relay_fit`` of the probe; the sizes it fixed, 56 and 8000 bytes, make a fragment train at MTU 1500 only,
which leaves the fit's five constants four independent columns, so the probe is compared set by set instead.)
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from score_relay import summary
from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms
from tcpsim.lab import scenario
from tcpsim.lab.pathprobe import ip_packets

HERE = Path(__file__).resolve().parent
TIMERS = ("TCPLossProbes", "TCPTimeouts")


def relay_sets(sets: list[dict]) -> list[dict]:
    """Each relayed set's excess over its RTT and the bare veth's median, measured and as the constants give it."""
    bare = {(s["mtu_bytes"], s["size_bytes"]): s["median_s"] for s in sets if s["rtt_s"] == 0 and s.get("n")}
    out = []
    for s in sets:
        key = (s["mtu_bytes"], s["size_bytes"])
        if s["rtt_s"] > 0 and s.get("n") and key in bare:
            packets = ip_packets(s["size_bytes"], s["mtu_bytes"])
            model = (scenario.RELAY_EXCESS_FIXED_S + scenario.RELAY_EXCESS_FRACTION * s["rtt_s"]
                     + 2 * (len(packets) * scenario.RELAY_PACKET_S + scenario.RELAY_BYTE_S * sum(packets)
                            + scenario.RELAY_LATENCY_BYTE_S * packets[-1]))
            out.append({"rtt_s": s["rtt_s"], "mtu_bytes": s["mtu_bytes"], "size_bytes": s["size_bytes"],
                        "excess_median_s": s["median_s"] - s["rtt_s"] - bare[key],
                        "excess_p90_s": s["p90_s"] - s["rtt_s"] - bare[key], "excess_constants_s": model})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, metavar="FILE")
    a = ap.parse_args()
    runs = {r["row"]: r["measured"] for r in json.loads((HERE / "window6_runs.json").read_text())}
    points = [p for p in load_points(HERE / "data") if p.table_id == "window6"
              and p.value_si < 0.8 * float(p.get("rate_bps"))]
    with ProcessPoolExecutor(2) as ex:
        outcomes = evaluate(points, ex, given_platforms(["lab_vm=lab_vm"], points))
    rows = []
    for o in outcomes:
        m = runs[o.point.row]
        rows.append({"row": o.point.row, "measured_bps": o.point.value_si, "error": o.error,
                     "calculator_error": o.naive / o.point.value_si - 1 if o.naive else None,
                     "retransmits": m["retransmits"], "delay_line_drops": m.get("delay_line_drops"),
                     "causes": m.get("retransmit_causes", {}), "rtt_mean_measured_s": m.get("rtt_mean_s")})
    lossy = [r for r in rows if r["retransmits"]]
    retrans = sum(r["retransmits"] for r in lossy)
    drops = sum(r["delay_line_drops"] or 0 for r in lossy)
    timers = sum(r["causes"].get(k, 0) for r in lossy for k in TIMERS)
    probe = relay_sets(json.loads((HERE / "pathprobe.json").read_text()))
    out = {
        "lab_vm": {"window_limited": summary([r["error"] for r in rows]),
                   "with_retransmits": summary([r["error"] for r in lossy]),
                   "without_retransmits": summary([r["error"] for r in rows if not r["retransmits"]])},
        "calculator": {"window_limited": summary([r["calculator_error"] for r in rows if r["calculator_error"]
                                                  is not None])},
        "retransmitting_rows": len(lossy), "retransmits": retrans, "delay_line_drops": drops,
        "loss_probes_and_timeouts": timers,
        "causes": {k: sum(r["causes"].get(k, 0) for r in lossy)
                   for k in sorted({k for r in lossy for k in r["causes"]})},
        "relay_sets": probe, "rows": rows,
    }
    w = out["lab_vm"]["window_limited"]
    print(f"lab_vm: {w['n']} window-limited rows {w['median']:.1%} (max {w['max']:.1%}); {len(lossy)} retransmitted "
          f"{retrans} segments: {drops} relay drops, {timers} loss probes and timeouts")
    for r in probe:
        print(f"relay, rtt {r['rtt_s'] * 1e3:g} ms, MTU {r['mtu_bytes']}, {r['size_bytes']} B: excess "
              f"{r['excess_median_s'] * 1e6:.0f} us median, {r['excess_p90_s'] * 1e6:.0f} p90; constants "
              f"{r['excess_constants_s'] * 1e6:.0f}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
