"""tcpsim's units on a lab row with the Xeon's calibrated file (W), seeds 0-4, as ``tcpsim lab`` predicts the row:

    python model_units.py 700 nodelay 1gbit

validation/README.md, "The units of a line-rate no-delay row are the run's own".
"""
import sys
from pathlib import Path

from tcpsim.api import simulate
from tcpsim.lab.scenario import lab_scenario
from tcpsim.lab.predict import host_platform, lab_simulation, tool_goodput_bps
W = str(Path(__file__).resolve().parent.parent / "streams" / "xeon_fit_streams.toml")
write, nodelay, rate = sys.argv[1], sys.argv[2] == "nodelay", sys.argv[3]
sc = lab_scenario(rate=rate, rtt=None, write=write, nodelay=nodelay, duration="3s", pin="0,1")
for seed in range(5):
    sim = lab_simulation(sc, host_platform({}, W, None, "none"), "none", seed, "iperf3")
    r = simulate(sim)
    g = tool_goodput_bps(sc, r)
    busy = {k: [round(x, 2) for x in v] for k, v in r.cpu_utilization_frac.items()}
    print(seed, round(g / 1e6, 1), "skbs/s", round(r.data_skbs_per_s), "B/skb",
          round(r.goodput_bps / 8 / r.data_skbs_per_s), "acks/s", round(r.ack_packets_per_s), busy, r.termination)
