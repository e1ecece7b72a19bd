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
validation/README.md, "How the kernel's receive work divides at the socket's lock". The classification is
``tcpsim.lab.perfparts``'s (moved there from this script unchanged, but for ``python3`` counted as the measuring side);
``python -m tcpsim.lab.perfparts`` is the class's probe of ``CpuCost.rx_tcp_frac``.
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tcpsim.lab.perfparts import parts  # the parts and their rule, packaged since (python -m tcpsim.lab.perfparts)


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
