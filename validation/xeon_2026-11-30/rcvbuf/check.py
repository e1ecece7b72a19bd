"""Rule "Linux 6.16's receive-buffer growth" (validation/README.md): of the growth steps between two polls of the
receiver's `ss -tim`, how many each formula reproduces to within 64 bytes; A 4.16-6.15 (16 advmss), B 6.16 on."""
import json
ADVMSS = 1448
def rb_of(c, old, r, extra):
    rcvwin = 2 * c + extra
    grow = rcvwin * (c - old) // old
    rcvwin += grow << 1
    return (rcvwin << 8) // r
runs = json.load(open(__file__.rsplit('/', 1)[0] + '/check_runs.json'))
tot = {"A": 0, "B": 0}; cases = 0
for run in runs:
    polls = [(p[0], p[2], int(p[4]['rcv_space']), int(p[4]['rcv_ssthresh'])) for p in run['rb']
             if p[4].get('rcv_space') and p[4].get('rcv_ssthresh')]
    n = {"A": 0, "B": 0}; k = 0
    for (t0, rb0, s0, _), (t1, rb1, s1, ss1) in zip(polls, polls[1:]):
        if rb1 > rb0 and s1 != s0 and s0 > 0:
            k += 1
            for name, extra in (("A", 16 * ADVMSS), ("B", 0)):
                if any(abs(rb_of(s1, s0, r, extra) - rb1) <= 64 and ss1 <= (rb1 * r) >> 8 for r in range(64, 256)):
                    n[name] += 1
    print(run['rtt'], round(run['goodput_bps'] / 1e6, 1), "polls", len(polls), "cases", k, n)
    cases += k; tot["A"] += n["A"]; tot["B"] += n["B"]
print("total cases", cases, tot)
