"""Summarize a probe_tcp.sh trace: the data skbs the receiving socket took in (by length), the window the sender
saw on each ACK it took in, and the read and write calls. Usage: python3 summarize.py TRACE > SUMMARY.json"""
import collections
import json
import re
import sys

LINE = re.compile(r"\[(\d+)\].{7}([\d.]+): (\w+): (.*)")
lens, wnds, calls = collections.Counter(), collections.Counter(), collections.Counter()
t0 = t1 = None
for line in open(sys.argv[1]):
    m = LINE.search(line)
    if not m:
        continue
    t = float(m.group(2))
    t0, t1 = (t if t0 is None else t0), t
    ev, rest = m.group(3), m.group(4)
    if ev == "tcp_probe":
        kv = dict(x.split("=", 1) for x in rest.split() if "=" in x)
        if kv["src"].endswith(":5301"):  # the receiving (server) socket took in a segment: data
            lens[int(kv["data_len"])] += 1
        else:  # the sending socket took in an ACK: the window it now has
            wnds["zero" if kv["snd_wnd"] == "0" else "open"] += 1
    else:
        calls[ev, re.search(r"length = (-?\d+)", rest).group(1)] += 1
span = t1 - t0
print(json.dumps({"trace": sys.argv[1], "span_s": round(span, 6),
                  "data_skbs_per_s": round(sum(lens.values()) / span),
                  "data_bytes_per_skb": round(sum(k * v for k, v in lens.items()) / max(sum(lens.values()), 1)),
                  "data_len_counts": dict(lens.most_common(8)),
                  "acks_at_sender_window": dict(wnds),
                  "calls_per_s": {f"{e} {n}": round(c / span) for (e, n), c in calls.most_common(4)}}, indent=1))
