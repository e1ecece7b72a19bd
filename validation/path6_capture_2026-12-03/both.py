"""Capture both ends of path 6 without SACK (diagnostic of 2026-12-03; results.txt): a 10-s iperf3 run through
tcpsim lab's testbed, captures of the sender's and the receiver's veth in /tmp/p6/snd.pcap and rcv.pcap, the
sender's timeout counters and interface rates. ``python both.py [0|1]`` sets net.ipv4.tcp_backlog_ack_defer in
both namespaces first. Then ``python ana2.py /tmp/p6/snd.pcap /tmp/p6/rcv.pcap N`` lists the stalls."""
import sys
from tcpsim.lab.scenario import lab_scenario
from tcpsim.lab.testbed import Testbed, install_signal_handlers
from tcpsim.lab import measure as M
install_signal_handlers()
sc = lab_scenario(rate="1gbit", rtt="1ms", loss="0.1%", sack="off", duration="10s")
sc = M.default_placement(sc, "auto")
with Testbed(sc.rate_bps, sc.rtt_s, sc.mtu_bytes, cc=sc.congestion_control, loss_frac=sc.loss_frac,
             relay_cpu=sc.relay_cpu, sack=sc.sack) as tb:
    if len(sys.argv) > 1:
        for ns in (tb.ns_a, tb.ns_b):
            tb._sysctl(ns, "net.ipv4.tcp_backlog_ack_defer=" + sys.argv[1])
    st0 = tb.link_stats(tb.ns_a, tb.dev_a)
    ca = M._start_capture(tb, "/tmp/p6/snd.pcap", sc.duration_s)
    cb = tb.spawn(tb.ns_b, [sys.executable, "-m", "tcpsim.lab.capture", "--dev", tb.dev_b, "--out", "/tmp/p6/rcv.pcap",
                            "--seconds", "20"], "capture b", stdout=M.subprocess.PIPE, stderr=M.subprocess.PIPE)
    M.time.sleep(0.3)
    mib0 = tb.tcp_counters()
    doc = M._run_iperf3(tb, sc)
    mib1, st1 = tb.tcp_counters(), tb.link_stats(tb.ns_a, tb.dev_a)
    print("frames and missed: sender", M._stop_capture(ca), "receiver", M._stop_capture(cb))
    print("ACKs in per s", (st1["rx_packets"] - st0["rx_packets"]) / sc.duration_s,
          "units out per s", (st1["tx_packets"] - st0["tx_packets"]) / sc.duration_s)
    print({k: mib1.get(k, 0) - mib0.get(k, 0) for k in M.RETRANSMIT_COUNTERS})
    print("goodput", doc["end"]["sum_received"]["bits_per_second"] / 1e6)
