"""Window probe: the receive window the real kernel computes, read from its own state (Linux 6.11+).

``python -m tcpsim.lab.winprobe --mtu 9000 --rcvbuf 16384 --rtt 2ms`` (root) sends bulk data between the two
namespaces of a :class:`~tcpsim.lab.testbed.Testbed` for ``--duration`` seconds and prints, as JSON, the
median of the receiver's ``TCP_WINDOW_CLAMP`` (``tcp_win_from_space(sk_rcvbuf)`` with the measured
``scaling_ratio``), so the ratio itself (clamp x 256 / SO_RCVBUF), ``TCP_INFO`` ``rcv_ssthresh``,
``rcv_wnd``, ``rcv_mss``, the sender's ``snd_wnd`` and its segment size, and the sender's ``TCP_INFO`` right
after ``connect`` (``start_*``: pacing rate, RTT, min RTT, MSS, cwnd: what its first write finds), and its send buffer
(``SO_SNDBUF``, the kernel's ``sk_sndbuf``) right after ``connect`` and at the end, with the largest cwnd seen
(``--rcvbuf 0``: neither socket sets a buffer). validation/README.md ("The receive path's skb", "An autotuned send
buffer as Linux sizes it") has what it showed on the lab VM; those figures set ``lab_vm``'s receive-path truesize and
its send buffer's head room.
"""

from __future__ import annotations

import json
import select
import socket
import statistics
import subprocess
import sys
import time
from typing import Optional

from ..cliutil import OneLineParser, typed
from ..units import UNSHAPED_RATE_BPS, parse_duration, parse_link_rate, parse_number, parse_size
from ._proc import die_with_parent
from .tcpinfo import congestion_control, set_congestion_control, tcp_info

__all__ = ["probe_window", "main"]

_TCP_WINDOW_CLAMP = getattr(socket, "TCP_WINDOW_CLAMP", 10)
_PORT = 5299


_COUNTERS = ("TCPRcvCoalesce", "TCPBacklogCoalesce", "TCPRcvCollapsed")


def _tcp_ext() -> dict[str, int]:
    """This namespace's ``TcpExt`` counters named in :data:`_COUNTERS` (/proc/net/netstat)."""
    try:
        with open("/proc/self/net/netstat", encoding="ascii") as f:
            lines = f.read(1 << 16).splitlines()
    except OSError:
        return {}
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], values.split()[1:]))
            return {k: int(table[k]) for k in _COUNTERS if k in table}
    return {}


def _receiver(rcvbuf: int, duration_s: float, read_delay_s: float = 0.0, cc: str = "") -> dict:
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    set_congestion_control(ls, cc)
    if rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind(("0.0.0.0", _PORT))
    ls.listen(1)
    ls.settimeout(duration_s + 10)
    print("ready", flush=True)
    c, _ = ls.accept()
    c.settimeout(0.5)
    buf = bytearray(1 << 20)
    t0 = time.monotonic()
    nxt = t0 + 0.25  # after slow start
    rows = []
    got = counted = 0
    before = _tcp_ext()
    while time.monotonic() - t0 < duration_s:
        if read_delay_s > 0:  # a reader that runs late: wait until readable, then spin before reading
            if not select.select([c], [], [], 0.5)[0]:
                continue
            until = time.perf_counter() + read_delay_s
            while time.perf_counter() < until:
                pass
        try:
            n = c.recv_into(buf)
            if n == 0:
                break
            got += n
            if time.monotonic() - t0 >= 0.25:
                counted += n
        except socket.timeout:
            pass
        if time.monotonic() >= nxt:
            nxt += 0.02
            ti = tcp_info(c) or {}
            rows.append({"clamp": c.getsockopt(socket.IPPROTO_TCP, _TCP_WINDOW_CLAMP),
                         "sk_rcvbuf": c.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
                         **{k: ti.get(k, 0) for k in ("rcv_ssthresh", "rcv_wnd", "rcv_mss")}})
    elapsed = time.monotonic() - t0 - 0.25
    after = _tcp_ext()
    return {**_medians(rows), "goodput_bps": counted * 8 / elapsed if elapsed > 0 else 0.0, "read_delay_s": read_delay_s,
            **{k: after[k] - before[k] for k in after if k in before}}


def _sender(addr: str, duration_s: float, cc: str = "") -> dict:
    s = socket.socket()
    set_congestion_control(s, cc)
    s.settimeout(10)
    s.connect((addr, _PORT))
    ti = tcp_info(s) or {}  # the state the first write finds: the handshake's RTT and pacing rate
    start = {"start_" + k: ti.get(k, 0) for k in ("pacing_rate", "rtt_us", "min_rtt_us", "snd_mss", "snd_cwnd")}
    start["congestion_control"] = congestion_control(s)
    start["start_sk_sndbuf"] = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)  # after tcp_init_buffer_space
    data = b"x" * 131072
    t0 = time.monotonic()
    nxt = t0 + 0.25
    rows = []
    cwnd_max = 0
    while time.monotonic() - t0 < duration_s:
        s.send(data)
        if time.monotonic() >= nxt:
            nxt += 0.02
            ti = tcp_info(s) or {}
            rows.append({"snd_wnd": ti.get("snd_wnd", 0), "snd_mss": ti.get("snd_mss", 0)})
            cwnd_max = max(cwnd_max, ti.get("snd_cwnd", 0))
    end = {"end_sk_sndbuf": s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF), "max_snd_cwnd": cwnd_max}
    s.close()
    return {**_medians(rows), **start, **end}


def _medians(rows: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]} if rows else {}


def probe_window(rate_bps: float, rtt_s: float, mtu_bytes: int, rcvbuf_bytes: int,
                 duration_s: float = 1.5, read_delay_s: float = 0.0, cc: str = "cubic") -> dict:
    """One probe run (needs root): the kernel's window state as medians over the run after 0.25 s, and the
    goodput the receiver read then; with ``read_delay_s`` its reader runs that late after each wake-up. Both
    sockets run congestion control ``cc``, the lab sweep's (the namespaces default to the host's, BBR on the
    lab VM, which starts pacing at 2.885 x 0.99 the rate of cwnd over the handshake's RTT where CUBIC starts at
    2 x; the starting pacing rate sizes the first skb, whose truesize sets the receiver's ratio)."""
    from .testbed import Testbed

    with Testbed(0.0 if rate_bps >= UNSHAPED_RATE_BPS else rate_bps, rtt_s, mtu_bytes) as tb:
        me = [sys.executable, "-m", "tcpsim.lab.winprobe", "--cc", cc]
        rcv = tb.spawn(tb.ns_b, [*me, "--role", "recv", "--rcvbuf", str(rcvbuf_bytes), "--duration", str(duration_s),
                                 "--read-delay", f"{read_delay_s:g}s"],
                       "winprobe-recv", stdout=subprocess.PIPE)
        if not rcv.stdout or not rcv.stdout.readline().startswith("ready"):
            raise RuntimeError("the probe's receiver did not start")
        snd = tb.spawn(tb.ns_a, [*me, "--role", "send", "--connect", tb.receiver_addr, "--duration",
                                 str(duration_s - 0.1)], "winprobe-send", stdout=subprocess.PIPE)
        sent = json.loads(snd.communicate(timeout=duration_s + 20)[0] or "{}")
        got = json.loads(rcv.communicate(timeout=20)[0] or "{}")
        out = {"mtu_bytes": mtu_bytes, "rcvbuf_requested_bytes": rcvbuf_bytes, "rtt_s": rtt_s,
               "delay_line": tb.delay_line, **got, **sent}
    if out.get("sk_rcvbuf"):
        out["scaling_ratio"] = round(out["clamp"] * 256 / out["sk_rcvbuf"], 1)
    return out


def main(argv: Optional[list[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.winprobe", description=__doc__.splitlines()[0])
    p.add_argument("--role", choices=("probe", "recv", "send"), default="probe")
    p.add_argument("--rate", type=typed(parse_link_rate, "rate"), default="1gbit")
    p.add_argument("--rtt", type=typed(parse_duration, "rtt", lo_s=0.0, hi_s=1.0), default="0")
    p.add_argument("--mtu", type=typed(parse_size, "mtu", decimal=True), default="1500")
    p.add_argument("--rcvbuf", type=typed(parse_size, "rcvbuf"), default="16384")
    p.add_argument("--duration", type=typed(parse_number, "duration", lo=0.1, hi=60.0), default=1.5,
                   help="seconds of traffic (default 1.5, at most 60)")
    p.add_argument("--connect", default="")
    p.add_argument("--read-delay", type=typed(parse_duration, "read_delay", lo_s=0.0, hi_s=0.01), default="0",
                   help="the reader spins this long after each wake-up (0..10 ms)")
    p.add_argument("--cc", default="cubic", help="TCP_CONGESTION of both sockets (default cubic, the sweep's)")
    a = p.parse_args(argv)
    if a.role == "recv":
        die_with_parent()
        print(json.dumps(_receiver(a.rcvbuf, a.duration, a.read_delay, a.cc)), flush=True)
    elif a.role == "send":
        die_with_parent()
        print(json.dumps(_sender(a.connect, a.duration, a.cc)), flush=True)
    else:
        print(json.dumps(probe_window(a.rate, a.rtt, a.mtu, a.rcvbuf, a.duration, a.read_delay, a.cc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
