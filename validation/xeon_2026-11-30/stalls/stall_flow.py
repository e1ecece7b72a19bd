"""Check 1b of "A streaming process does not meet the wake-up probe's stalls" (validation/README.md).

Reads a tracefs text trace (``tcp:tcp_probe`` and the iperf3 processes' ``sched:sched_switch``) of one pinned
``tcpsim lab`` run and its ``--json`` record; prints, as JSON, the reader's wake-ups (switch-outs in state S), its
off-CPU gaps longer than 1 ms, and which of those are stalls with flow: more than half of what the run's mean goodput
delivers in the gap reached the reader's socket meanwhile (the summed ``data_len`` of its ``tcp_probe`` events).

    python3 stall_flow.py TRACE.txt RUN.json [PORT]
"""

import bisect
import json
import re
import sys
from collections import Counter

EVENT = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\] (\S+) +([\d.]+): (\w+): (.*)$")
DATA = re.compile(r"src=[\d.]+:(\d+) .*?data_len=(\d+) ")


def main(trace_path, run_path, port="5301"):
    run = json.load(open(run_path))
    goodput_bps = run["measured"]["goodput_bps"]
    events, arrivals, backlog_pids, outs = [], [], Counter(), Counter()
    header = ""
    with open(trace_path) as f:
        for line in f:
            if line.startswith("#"):
                header += line if "entries-in-buffer" in line else ""
                continue
            m = EVENT.match(line)
            if not m:
                continue
            comm, pid, cpu, flags, t, name, rest = m.groups()
            t = float(t)
            events.append((t, pid, name, rest))
            if name == "tcp_probe":
                d = DATA.search(rest)
                if d and d.group(1) == port and int(d.group(2)) > 0:
                    arrivals.append((t, int(d.group(2))))
                    if "s" not in flags and comm == "iperf3":
                        backlog_pids[pid] += 1
            elif name == "sched_switch" and "prev_comm=iperf3" in rest and "prev_state=S " in rest:
                outs[re.search(r"prev_pid=(\d+)", rest).group(1)] += 1
    reader = backlog_pids.most_common(1)[0][0] if backlog_pids else outs.most_common(1)[0][0]
    times = [a[0] for a in arrivals]
    cum = [0]
    for _, n in arrivals:
        cum.append(cum[-1] + n)
    wakeups, gaps, out_t = 0, [], None
    for t, pid, name, rest in events:
        mine = pid == reader or (name == "sched_switch" and f"next_pid={reader} " in rest + " ")
        if not mine:
            continue
        if out_t is not None:
            gaps.append((out_t, t))
            out_t = None
        if name == "sched_switch" and f"prev_pid={reader} " in rest and "prev_state=S " in rest:
            wakeups += 1
            out_t = t
    t0, t1 = times[0], times[-1]
    long_gaps = []
    for a, b in gaps:
        if b - a <= 1e-3 or a < t0 or b > t1:  # the run's start and end are not wake-ups under flow
            continue
        got = cum[bisect.bisect(times, b)] - cum[bisect.bisect(times, a)]
        expected = goodput_bps / 8 * (b - a)
        long_gaps.append({"at_s": round(a - t0, 6), "gap_s": round(b - a, 6), "arrived_bytes": got,
                          "mean_rate_bytes": round(expected), "with_flow": got > expected / 2})
    print(json.dumps({"trace": trace_path, "buffer": header.strip("# \n"), "reader_pid": reader,
                      "goodput_bps": goodput_bps, "reader_wakeups": wakeups,
                      "stalls_with_flow": sum(g["with_flow"] for g in long_gaps), "gaps_over_1ms": long_gaps},
                     indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])
