"""The built-in traffic generator: a server and a client, each run inside one namespace of a lab run.

``python -m tcpsim.lab.generator server --bind ADDR --port P ...`` accepts ``--streams`` connections and
reads (bulk) or answers requests (``--rr``); ``... client --connect ADDR ...`` writes ``--write`` bytes per
call for ``--duration`` seconds on each stream (or sends ``--rr`` requests and waits for each response).
Both set SO_SNDBUF/SO_RCVBUF before connecting, as iperf3 ``-w`` and netperf ``-s/-S`` do, sample
TCP_INFO every ``--interval`` seconds, and print one JSON object on stdout at the end. Every run is
bounded: the client stops at ``--duration``, the server at ``--max-s`` (and with its parent).
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import sys
import threading
import time
from typing import Optional

from ..cliutil import OneLineParser
from ._proc import die_with_parent
from .scenario import GENERATOR_READ_BYTES
from .tcpinfo import set_congestion_control, tcp_info

__all__ = ["main"]

_SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)
"""asm-generic/socket.h; Python's socket module names it only on some builds."""


def _set_buffers(s: socket.socket, a: argparse.Namespace) -> None:
    if a.sndbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.sndbuf)
    if a.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    if a.nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if a.max_pacing_rate:  # bits/s, as iperf3 --fq-rate; the option takes bytes/s (socket(7))
        s.setsockopt(socket.SOL_SOCKET, _SO_MAX_PACING_RATE, a.max_pacing_rate // 8)
    set_congestion_control(s, a.cc)


class _Sampler(threading.Thread):
    """TCP_INFO of the given sockets every ``interval_s`` (time relative to ``t0``)."""

    def __init__(self, socks: list[socket.socket], t0: float, interval_s: float) -> None:
        super().__init__(daemon=True)
        self.socks, self.t0, self.interval_s = socks, t0, interval_s
        self.samples: list[dict] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.interval_s):
            self.take()

    def take(self) -> None:
        now = time.monotonic() - self.t0
        for i, s in enumerate(self.socks):
            info = tcp_info(s)
            if info is not None:
                self.samples.append({"t_s": round(now, 4), "stream": i, **info})


def _recv_exact(s: socket.socket, n: int, buf: bytearray) -> bool:
    view = memoryview(buf)
    got = 0
    while got < n:
        k = s.recv_into(view[got:n])
        if k == 0:
            return False
        got += k
    return True


def server(a: argparse.Namespace) -> dict:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    _set_buffers(ls, a)  # accepted sockets inherit the buffers, so the window scale fits them
    ls.bind((a.bind, a.port))
    ls.listen(a.streams)
    ls.settimeout(a.max_s)
    print("ready", flush=True)
    conns = []
    for _ in range(a.streams):
        c, _addr = ls.accept()
        conns.append(c)
    t0 = time.monotonic()
    sampler = _Sampler(conns, t0, a.interval)
    sampler.start()
    received = [0] * len(conns)
    last_rx = [t0] * len(conns)
    deadline = t0 + a.max_s
    if a.rr:
        threads = [threading.Thread(target=_answer, args=(c, a, received, i), daemon=True) for i, c in enumerate(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
    else:
        sel = selectors.DefaultSelector()
        for i, c in enumerate(conns):
            c.setblocking(False)
            sel.register(c, selectors.EVENT_READ, (i, c))
        buf = bytearray(max(a.read, 1))
        open_ = len(conns)
        while open_ and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=0.5):
                i, sock = key.data
                try:
                    k = sock.recv_into(buf)
                except BlockingIOError:
                    continue
                if k == 0:
                    sel.unregister(sock)
                    open_ -= 1
                else:
                    received[i] += k
                    last_rx[i] = time.monotonic()
    sampler.stop.set()
    sampler.take()
    for c in conns:
        c.close()
    return {"role": "server", "bytes": received, "last_rx_s": [t - t0 for t in last_rx], "samples": sampler.samples}


def _answer(c: socket.socket, a: argparse.Namespace, count: list, i: int) -> None:
    req, resp = bytearray(a.rr), b"r" * a.response
    while _recv_exact(c, a.rr, req):
        c.sendall(resp)
        count[i] += 1


def client(a: argparse.Namespace) -> dict:
    conns = []
    for _ in range(a.streams):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        _set_buffers(s, a)
        s.settimeout(10.0)
        s.connect((a.connect, a.port))
        conns.append(s)
    t0 = time.monotonic()
    sampler = _Sampler(conns, t0, a.interval)
    sampler.start()
    sent = [0] * len(conns)
    end = t0 + a.duration
    threads = [threading.Thread(target=_rr if a.rr else _bulk, args=(c, a, sent, i, end), daemon=True)
               for i, c in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(a.duration + 10.0)
    elapsed = time.monotonic() - t0
    sampler.stop.set()
    sampler.take()
    for c in conns:
        try:
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        c.close()
    return {"role": "client", "elapsed_s": elapsed, "sent": sent, "samples": sampler.samples}


def _bulk(s: socket.socket, a: argparse.Namespace, sent: list, i: int, end: float) -> None:
    data = b"x" * a.write
    check_every = max(1, (1 << 20) // a.write)  # ask the clock about once per MB written
    n = 0
    try:
        while True:
            sent[i] += s.send(data)
            n += 1
            if n % check_every == 0 and time.monotonic() >= end:
                return
    except (OSError, socket.timeout):
        return


def _rr(s: socket.socket, a: argparse.Namespace, done: list, i: int, end: float) -> None:
    req, resp = b"q" * a.rr, bytearray(a.response)
    try:
        while time.monotonic() < end:
            s.sendall(req)
            if not _recv_exact(s, a.response, resp):
                return
            done[i] += 1
    except (OSError, socket.timeout):
        return


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m tcpsim.lab.generator")
    p.add_argument("role", choices=("server", "client"))
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--connect", default=None)
    p.add_argument("--port", type=int, default=5301)
    p.add_argument("--streams", type=int, default=1)
    p.add_argument("--sndbuf", type=int, default=0)
    p.add_argument("--rcvbuf", type=int, default=0)
    p.add_argument("--nodelay", action="store_true")
    p.add_argument("--max-pacing-rate", type=int, default=0, help="SO_MAX_PACING_RATE in bits/s (0: none)")
    p.add_argument("--cc", default="", help="TCP_CONGESTION of every socket")
    p.add_argument("--write", type=int, default=65536)
    p.add_argument("--read", type=int, default=GENERATOR_READ_BYTES)
    p.add_argument("--rr", type=int, default=0, help="request size (request/response mode)")
    p.add_argument("--response", type=int, default=0)
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--max-s", type=float, default=60.0)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    die_with_parent()
    a = _parser().parse_args(argv)
    a.response = a.response or a.rr
    out = server(a) if a.role == "server" else client(a)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
