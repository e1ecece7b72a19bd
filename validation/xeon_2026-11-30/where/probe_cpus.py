"""Which CPU takes each segment in, on the lab's veth path: one pinned ``tcpsim lab`` run per row (the sending tools on
CPU 0, the receiving ones on CPU 1) with ``tcp:tcp_probe``, ``sock:sk_data_ready`` and the sock length events traced
for 20 ms after its first 1.5 s (root, tracefs). ``tcp_probe`` fires in ``tcp_rcv_established`` for every segment a
socket takes in, on the CPU that runs it: the softirq of the CPU that transmitted the segment (veth), or the socket's
owner running its backlog (``__release_sock``). Counts per CPU, per socket (the receiving one's data, the sending one's
ACKs), and the read and write calls.

    python3 probe_cpus.py OUT.json "ROW ARGS" ["ROW ARGS" ...]
"""

import collections
import fcntl
import json
import re
import subprocess
import sys
import time
from pathlib import Path

T = Path("/sys/kernel/tracing")
EVENTS = ("tcp/tcp_probe", "sock/sk_data_ready", "sock/sock_recv_length", "sock/sock_send_length")
LINE = re.compile(r"\[(\d+)\].{7}([\d.]+): (\w+): (.*)")


def _w(path, text):
    (T / path).write_text(text)


def off():
    _w("tracing_on", "0")
    for e in EVENTS:
        _w(f"events/{e}/enable", "0")
    _w("trace", "")


def summarize(text, server_port="5301"):
    by = collections.Counter()
    t0 = t1 = None
    for line in text.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        cpu, t, ev, rest = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
        t0, t1 = (t if t0 is None else t0), t
        if ev == "tcp_probe":
            kv = dict(x.split("=", 1) for x in rest.split() if "=" in x)
            if kv.get("src", "").endswith(":" + server_port):
                by["data_in", cpu] += 1
                by["data_bytes_in", cpu] += int(kv.get("data_len", 0))
            elif kv.get("dest", "").endswith(":" + server_port):
                by["ack_in", cpu] += 1
        elif ev == "sk_data_ready":
            by["data_ready", cpu] += 1
        elif ev in ("sock_recv_length", "sock_send_length"):
            n = int(re.search(r"length = (-?\d+)", rest).group(1))
            by[ev.split("_")[1] + ("" if n > 0 else "_empty"), cpu] += 1
    span = (t1 - t0) if t0 is not None and t1 > t0 else float("nan")
    return {"span_s": round(span, 6), "per_s": {f"{k} cpu{c}": round(v / span) for (k, c), v in sorted(by.items())}}


def main():
    out, rows = sys.argv[1], sys.argv[2:]
    results = []
    with open("/tmp/tcpsim-tracefs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for row in rows:
                off()
                for e in EVENTS:
                    _w(f"events/{e}/enable", "1")
                _w("buffer_size_kb", "65536")
                cmd = [sys.executable, "-P", "-m", "tcpsim", "lab", "--rate", "0", *row.split(), "--pin", "0,1",
                       "--duration", "3s", "--json"]
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
                time.sleep(1.5)
                _w("tracing_on", "1")
                time.sleep(0.02)
                _w("tracing_on", "0")
                text = (T / "trace").read_text()
                run = json.loads(p.communicate(timeout=120)[0])
                m = run["measured"]
                results.append({"row": row, "goodput_bps": m["goodput_bps"], "cpu_shares": m.get("cpu_shares"),
                                "tx_units_per_s": m.get("tx_units_per_s"), "rx_units_per_s": m.get("rx_units_per_s"),
                                "trace": summarize(text)})
                print(row, json.dumps(results[-1]["trace"]), file=sys.stderr)
        finally:
            off()
    Path(out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
