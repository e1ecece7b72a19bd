"""Bins of a traced unshaped lab run (validation/README.md, "The kernel enters and leaves the receiver-bound state
on its own"): per bin the data skbs the receiver's socket took (count, mean size, share above 8 KB, share processed
in softirq and on CPU 1), the ACKs the sender took (count, least peer window, how many below 64 KB, largest
flight) and the goodput; then the tools' off-CPU gaps longer than 0.5 ms.

    python3 parse_bins.py TRACE.txt [BIN_S]   # the trace of ktrace.sh (tcp:tcp_probe, iperf3's sched_switch)
"""

import collections
import re
import sys

PROBE = re.compile(r"\[(\d+)\] (\S+) +([\d.]+): tcp_probe: .*src=[\d.]+:(\d+) .*data_len=(\d+) snd_nxt=0x(\w+) "
                   r"snd_una=0x(\w+) snd_cwnd=(\d+) .*snd_wnd=(\d+) srtt=(\d+) rcv_wnd=(\d+)")
SWITCH = re.compile(r"\[(\d+)\] \S+ +([\d.]+): sched_switch: prev_comm=(\S+) prev_pid=(\d+) .*prev_state=(\S+) "
                    r"==> next_comm=(\S+) next_pid=(\d+)")


def main(path, bin_s=0.01, port="5301"):
    bins = collections.defaultdict(lambda: dict(rx=0, rxb=0, big=0, ack=0, minw=10**12, zw=0, flight=0, soft=0,
                                                cpu1=0))
    t0, gaps, off = None, [], {}
    for line in open(path):
        m = PROBE.search(line)
        if m:
            cpu, flags, t, sport, dl, nxt, una, _cw, wnd, _srtt, _rw = m.groups()
            t = float(t)
            t0 = t if t0 is None else t0
            b = bins[int((t - t0) / bin_s)]
            if sport == port and int(dl) > 0:
                b["rx"] += 1
                b["rxb"] += int(dl)
                b["big"] += int(dl) > 8000
                b["soft"] += "s" in flags
                b["cpu1"] += cpu == "001"
            elif sport != port:
                b["ack"] += 1
                b["minw"] = min(b["minw"], int(wnd))
                b["zw"] += int(wnd) < 65536
                b["flight"] = max(b["flight"], (int(nxt, 16) - int(una, 16)) % 2**32)
            continue
        m = SWITCH.search(line)
        if m and t0 is not None:
            cpu, t, prev, prev_pid, _state, nxt, next_pid = m.groups()
            t = float(t)
            if prev == "iperf3":
                off[prev_pid] = t
            if nxt == "iperf3" and next_pid in off and t - off[next_pid] > 5e-4:
                gaps.append((round(t - t0, 4), next_pid, cpu, round((t - off.pop(next_pid)) * 1e3, 2)))
    print("bin t | rx skbs, mean KB, >8KB share, softirq share, on cpu1 | acks, min snd_wnd KB, wnd<64K acks, "
          "max flight KB | goodput")
    for k in sorted(bins):
        b = bins[k]
        if b["rx"]:
            print(f"{k * bin_s:6.3f} {b['rx']:6d} {b['rxb'] / b['rx'] / 1e3:6.1f} {b['big'] / b['rx']:.2f} "
                  f"{b['soft'] / b['rx']:.2f} {b['cpu1'] / b['rx']:.2f} | {b['ack']:5d} {b['minw'] / 1e3:7.0f} "
                  f"{b['zw']:4d} {b['flight'] / 1e3:6.0f}  {b['rxb'] * 8 / bin_s / 1e9:5.2f}G")
    print("off-CPU gaps > 0.5 ms (t, pid, cpu, ms):", gaps)


if __name__ == "__main__":
    main(sys.argv[1], *(float(a) for a in sys.argv[2:3]))
