"""Where a pinned ``tcpsim lab`` run's CPU time goes, by part of the path, from ``perf`` call chains.

    sudo python perf_parts.py "--rate 0 --write 16k" [more scenarios ...] > parts.json

Each scenario runs ``tcpsim lab ... --pin 0,1 --duration 4s`` while ``perf record -e cpu-clock -a -g -C 0,1`` samples
both CPUs for 2 s of its steady state (from 1.5 s on); only the samples of the traffic's own processes and of the
kernel count (the lab's Python, which predicts after the run, does not). Each sample goes to the innermost frame that
marks a part, so a segment taken in inside another's processing (a veth delivers within the sending call) counts as
its own part: the receive work before TCP (driver, IP, ``tcp_v4_rcv`` up to the socket's lock, ``tcp_add_backlog``),
TCP's part (``tcp_v4_do_rcv``) in the softirq or from the owner's backlog (``__release_sock``), the transmit
(``tcp_write_xmit`` down to ``veth_xmit``), the rest of the send and receive calls, iperf3's ``select`` over its
sockets, idle and other.
validation/README.md, "How the kernel's receive work divides at the socket's lock".
"""
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

PRE = {"net_rx_action", "process_backlog", "__netif_receive_skb", "__netif_receive_skb_core",
       "__netif_receive_skb_one_core", "netif_receive_skb", "ip_rcv", "ip_rcv_core", "ip_rcv_finish",
       "ip_local_deliver", "ip_local_deliver_finish", "ip_protocol_deliver_rcu", "tcp_v4_rcv", "tcp_add_backlog"}
TCP = {"tcp_v4_do_rcv", "tcp_rcv_established", "tcp_rcv_state_process"}
XMIT = {"tcp_write_xmit", "__tcp_transmit_skb", "tcp_send_ack", "__tcp_send_ack", "ip_queue_xmit",
        "__dev_queue_xmit", "veth_xmit"}
CALLS = {"tcp_sendmsg": "send call, the rest", "tcp_recvmsg": "receive call, the rest"}
SELECT = {"do_select", "core_sys_select", "__x64_sys_pselect6", "__x64_sys_select", "tcp_poll", "sock_poll"}
IDLE = {"pv_native_safe_halt", "default_idle", "cpuidle_idle_call"}
OWN = {"python", "perf", "sleep"}  # the measuring side's processes


def part(frames: list) -> str:
    for i, f in enumerate(frames):  # innermost first
        if f in IDLE:
            return "idle"
        if f in TCP:
            outer = next((g for g in frames[i + 1:] if g in ("__release_sock", "tcp_v4_rcv")), "")
            return "receive, TCP, from the owner's backlog" if outer == "__release_sock" else \
                "receive, TCP, in the softirq"
        if f in PRE:
            return "receive, before TCP"
        if f in XMIT:
            return "transmit"
        if f in CALLS:
            return CALLS[f]
        if f in SELECT:
            return "select (iperf3's loop)"
    return "other"


def parts(script: str) -> dict:
    counts, total, skip, cpu, frames = Counter(), Counter(), False, None, []

    def flush():
        if cpu is not None and not skip:
            total[cpu] += 1
            counts[cpu, part(frames)] += 1

    for line in script.splitlines():
        head = re.match(r"\s*(\S+)\s+\[(\d+)\]", line)
        if head:
            flush()
            skip, cpu, frames = head.group(1) in OWN, int(head.group(2)), []
        elif line.strip():
            bits = line.split()
            if len(bits) >= 2:
                frames.append(bits[1].split("+")[0])
    flush()
    out = {f"cpu{c}": {k: round(n / total[c], 4) for (cc, k), n in sorted(counts.items()) if cc == c}
           for c in sorted(total)}
    pre = sum(n for (c, k), n in counts.items() if k == "receive, before TCP")
    tcp = sum(n for (c, k), n in counts.items() if k.startswith("receive, TCP"))
    backlog = sum(n for (c, k), n in counts.items() if k == "receive, TCP, from the owner's backlog")
    out["receive_before_tcp_frac"] = round(pre / max(pre + tcp, 1), 3)
    out["tcp_part_from_backlog_frac"] = round(backlog / max(tcp, 1), 3)
    out["samples"] = sum(total.values())
    return out


def measure(lab_args: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        data, result = Path(tmp) / "perf.data", Path(tmp) / "lab.json"
        with open(result, "w") as f:
            lab = subprocess.Popen([sys.executable, "-m", "tcpsim", "lab", *lab_args.split(), "--pin", "0,1",
                                    "--duration", "4s", "--json"], stdout=f, stderr=subprocess.DEVNULL)
            time.sleep(2.0)  # namespaces set up, iperf3 connected, past its start
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-a", "-g", "-C", "0,1",
                            "-o", str(data), "--", "sleep", "2"], check=True, timeout=30)
            lab.wait(timeout=120)
        script = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,cpu,ip,sym"], capture_output=True,
                                text=True, timeout=300).stdout
        run = json.loads(result.read_text())
    return {"scenario": lab_args, "goodput_bps": run["measured"]["goodput_bps"],
            "units_per_s": run["measured"]["tx_units_per_s"], **parts(script)}


if __name__ == "__main__":
    print(json.dumps([measure(a) for a in sys.argv[1:]], indent=1))
