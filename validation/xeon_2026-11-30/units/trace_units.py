"""One pinned iperf3 run on the lab's shaped veth (no delay line): the sender's veth counters (units and ACKs, as
``tcpsim lab`` counts them) and, in the same run, ``tcpsim.lab.skbtrace``'s capture at the receiver's veth.

    sudo python trace_units.py 1gbit 700 nodelay 3s > run.json          # NOCAP=1: without the capture

validation/README.md, "The units of a line-rate no-delay row are the run's own"; ``runs_700_nodelay.json`` holds the
runs of 2026-12-01. Traffic stays between the run's namespaces, which go on every exit (``Testbed``).
"""
import json
import os
import statistics
import subprocess
import sys
import time

from tcpsim.lab.skbtrace import _PORT
from tcpsim.lab.scenario import lab_scenario
from tcpsim.lab.iperf3 import client_args
from tcpsim.lab.testbed import Testbed, install_signal_handlers

def main(rate, write, nodelay, duration, pin):
    install_signal_handlers()
    sc = lab_scenario(rate=rate, rtt=None, mtu=1500, sockbuf=None, write=write, nodelay=nodelay, duration=duration)
    snd_cpu, rcv_cpu = pin
    with Testbed(sc.rate_bps, 0.0, sc.mtu_bytes, cc="cubic") as tb:
        srv = tb.spawn(tb.ns_b, ["iperf3", "-s", "-1", "-B", tb.receiver_addr, "-p", str(_PORT)], "srv", cpu=rcv_cpu,
                       stdout=subprocess.DEVNULL)
        cap = None if os.environ.get("NOCAP") else tb.spawn(
            tb.ns_b, [sys.executable, "-m", "tcpsim.lab.skbtrace", "--capture", tb.dev_b,
                      "--seconds", f"{sc.duration_s + 2:g}"], "cap", stdout=subprocess.PIPE)
        time.sleep(0.5)
        a0, b0 = tb.link_stats(tb.ns_a, tb.dev_a), tb.link_stats(tb.ns_b, tb.dev_b)
        args = client_args(tb.receiver_addr, _PORT, sc.duration_s, sockbuf=None, write_bytes=sc.write_bytes,
                           nodelay=sc.nodelay, n_streams=1, interval_s=0.5, cc="cubic")
        cli = tb.spawn(tb.ns_a, args, "cli", cpu=snd_cpu, stdout=subprocess.PIPE)
        out, _ = cli.communicate(timeout=sc.duration_s + 30)
        a1, b1 = tb.link_stats(tb.ns_a, tb.dev_a), tb.link_stats(tb.ns_b, tb.dev_b)
        packets = json.loads(cap.communicate(timeout=sc.duration_s + 30)[0] or "[]") if cap else []
        srv.wait(timeout=10)
        qd = subprocess.run(["tc", "-n", tb.ns_a, "-s", "qdisc", "show", "dev", tb.dev_a],
                            capture_output=True, text=True).stdout
    run = json.loads(out)
    secs = float(run["end"]["sum_received"]["seconds"])
    data = [p for p in packets if not p[1] and p[4] > 0]
    acks = [p for p in packets if p[1]]
    d = {k: a1[k] - a0[k] for k in a0}
    e = {k: b1[k] - b0[k] for k in b0}
    return {"goodput_bps": float(run["end"]["sum_received"]["bits_per_second"]), "seconds": secs,
           "dev_a": d, "dev_b": e,
           "capture_data_skbs": len(data), "capture_acks": len(acks),
           "capture_mean_skb_bytes": statistics.mean(p[4] for p in data) if data else None,
           "capture_median_skb_bytes": statistics.median(p[4] for p in data) if data else None,
           "intervals": [(round(i["sum"]["end"], 2), round(i["sum"]["bits_per_second"] / 1e6, 1),
                          i["streams"][0].get("snd_cwnd"), i["streams"][0].get("rtt")) for i in run["intervals"]],
           "qdisc": qd}


if __name__ == "__main__":
    r = main(sys.argv[1], sys.argv[2], sys.argv[3] == "nodelay", sys.argv[4], (0, 1))
    print(json.dumps(r, indent=1))
