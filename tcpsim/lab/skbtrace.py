"""Packet trace of a lab run at the receiver: the skbs its TCP takes in and the ACKs it sends.

``python -m tcpsim.lab.skbtrace --rate 1gbit --rtt 2ms --sockbuf 32k`` (root) streams iperf3 (the built-in
generator where iperf3 is missing) between the two namespaces of a :class:`~tcpsim.lab.testbed.Testbed` for
``--duration`` and reads, from a packet socket on the receiver's veth (headers only, kernel timestamps; a GSO
aggregate carried whole is one skb there), every data skb in and every ACK out. It prints, as JSON: the skbs by
size (whole segments or not; the runts that came alone, and those small enough for the small-head cache, which a
Linux receiver charges the least truesize); the windows the receiver offered, each with when it first did; its
ACKs a round trip; and each lone runt that found everything before it acknowledged (an empty queue), with the
window offered before and after it: where ``tcp_grow_window`` gets its room (validation/README.md, "Where the
2 ms, 32 KiB row's window comes from"). Traffic stays between the run's own namespaces; the capture is bounded in
packets and seconds, and the namespaces go on every exit.

``--model`` prints the same summary of tcpsim's run of the scenario instead (no root needed): ``lab_vm`` on the
lab's path, as ``tcpsim lab`` predicts it, for ``--duration``, from the packets its receiver took in and sent
(``Budget.skb_log_limit``), so a rule about skbs can be checked on both sides in the same terms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections import Counter
from typing import Any, Iterable, Optional, Sequence

from ..cliutil import OneLineParser
from ..errors import ConfigError
from ..protocol.framing import mss_bytes, tcp_option_bytes
from ..protocol.linux_window import IP_TCP_HEADER_BYTES, rx_truesize
from .predict import TUN_PAGE_BYTES
from .scenario import lab_scenario
from .iperf3 import client_args
from .testbed import LabUnavailable, Testbed, install_signal_handlers, missing_requirement

__all__ = ["Packet", "parse_frame", "capture", "summarize", "small_head_payload_bytes", "model_run", "main",
           "MAX_PACKETS"]

MAX_PACKETS = 500_000
"""Most packets one capture keeps; it stops early with what it has."""
MAX_SECONDS = 60.0
_PORT = 5301
_ETH_P_ALL, _ETH_P_IP = 0x0003, 0x0800
_PACKET_OUTGOING = 4
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_SNAP_BYTES = 128

Packet = tuple[float, bool, int, int, int, int, int, bool, int]
"""(time_s, outgoing, peer port, seq, payload_bytes, ack, window_field, syn, wscale option or -1): one TCP packet."""


def parse_frame(frame: bytes, port: int) -> Optional[tuple[bool, int, int, int, int, int, bool, int]]:
    """The TCP fields of an Ethernet frame to or from ``port`` (None for anything else): (from the port, the
    peer's port, seq, payload bytes by the IP header's total length, so a GSO aggregate counts whole, ack,
    window field, SYN, window scale option or -1)."""
    if len(frame) < 14 + 20 + 20 or struct.unpack_from("!H", frame, 12)[0] != _ETH_P_IP:
        return None
    ihl = (frame[14] & 0x0F) * 4
    total, proto = struct.unpack_from("!H", frame, 16)[0], frame[23]
    t = 14 + ihl
    if proto != 6 or len(frame) < t + 20:
        return None
    sport, dport, seq, ack, off_flags, window = struct.unpack_from("!HHIIHH", frame, t)
    if port not in (sport, dport):
        return None
    thl = (off_flags >> 12) * 4
    syn = bool(off_flags & 0x02)
    wscale = -1
    if syn:
        opts, i = frame[t + 20:t + thl], 0
        while i < len(opts) and opts[i] != 0:
            if opts[i] == 1:
                i += 1
                continue
            if i + 1 >= len(opts) or opts[i + 1] < 2:
                break
            if opts[i] == 3 and i + 2 < len(opts):
                wscale = opts[i + 2]
            i += opts[i + 1]
    return sport == port, dport if sport == port else sport, seq, max(total - ihl - thl, 0), ack, window, syn, wscale


def capture(dev: str, port: int, seconds: float, max_packets: int = MAX_PACKETS) -> list[Packet]:
    """TCP packets to and from ``port`` on ``dev`` for ``seconds`` (at most ``max_packets``), timestamped by the
    kernel; outgoing = sent by this namespace."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(_ETH_P_ALL))
    try:
        sock.bind((dev, 0))
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        sock.settimeout(0.2)
        out: list[Packet] = []
        end = time.monotonic() + min(seconds, MAX_SECONDS)
        while time.monotonic() < end and len(out) < max_packets:
            try:
                data, anc, _, addr = sock.recvmsg(_SNAP_BYTES, socket.CMSG_SPACE(16))
            except socket.timeout:
                continue
            fields = parse_frame(data, port)
            if fields is None:
                continue
            stamp = time.time()
            for level, kind, raw in anc:
                if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(raw) >= 16:
                    sec, nsec = struct.unpack("qq", raw[:16])
                    stamp = sec + nsec * 1e-9
            outgoing = addr[2] == _PACKET_OUTGOING
            out.append((stamp, outgoing, *fields[1:]))
        return out
    finally:
        sock.close()


def small_head_payload_bytes(mss: int, overhead_bytes: int = 832, page_bytes: int = TUN_PAGE_BYTES) -> int:
    """The largest segment payload the receive path charges less truesize than a full segment (``rx_truesize``,
    the TUN path's smaller heads; IP and TCP headers with timestamps): a lone runt of at most this, on an empty
    queue, leaves ``tcp_grow_window`` more room than any full segment can."""
    headers = IP_TCP_HEADER_BYTES + tcp_option_bytes(True)
    full = rx_truesize(mss, mss + headers, overhead_bytes, page_bytes)
    return max((p for p in range(1, mss) if rx_truesize(p, p + headers, overhead_bytes, page_bytes) < full),
               default=0)


def summarize(packets: Iterable[Packet], mss: int, rtt_s: float, duration_s: float) -> dict[str, Any]:
    """What the receiver took in and offered on its busiest connection, from its packets (``outgoing`` = its ACKs):
    see the module docstring."""
    pkts = sorted(packets)
    busiest = Counter(p[2] for p in pkts if not p[1] and p[4] > 0).most_common(1)
    pkts = [p for p in pkts if busiest and p[2] == busiest[0][0]]
    if not pkts:
        return {"data_skbs": 0, "acks": 0}
    shift = next((p[8] for p in pkts if p[1] and p[7] and p[8] >= 0), 0)
    small = small_head_payload_bytes(mss)
    sizes: Counter = Counter()
    windows: dict[int, list] = {}
    lone: Counter = Counter()
    on_empty: list[dict[str, Any]] = []
    acks = 0
    last_ack = last_window = None
    pending: Optional[tuple[float, int]] = None
    for t, outgoing, _, seq, length, ack, window, syn, _ in pkts:
        if syn:
            continue
        if outgoing:
            acks += 1
            wnd = window << shift
            windows.setdefault(wnd, [round(t - pkts[0][0], 6), 0])[1] += 1
            if pending is not None:
                on_empty.append({"t_s": round(pending[0] - pkts[0][0], 6), "bytes": pending[1],
                                 "window_before": last_window, "window_after": wnd})
                pending = None
            last_ack, last_window = ack, wnd
            continue
        if length <= 0:
            continue
        sizes["whole" if length % mss == 0 else "runt"] += 1
        pending = None
        if length < mss:
            lone[length] += 1
            if length <= small and seq == last_ack:
                pending = (t, length)
    data = sizes["whole"] + sizes["runt"]
    return {"data_skbs": data, "skbs_with_a_runt": sizes["runt"], "lone_runts": sum(lone.values()),
            "lone_runts_small_head": sum(n for size, n in lone.items() if size <= small),
            "small_head_payload_bytes": small, "lone_runt_sizes": dict(sorted(lone.items())),
            "lone_small_runts_on_empty_queue": on_empty, "acks": acks,
            "acks_per_round_trip": round(acks * rtt_s / duration_s, 3) if rtt_s > 0 and duration_s > 0 else None,
            "windows_offered": [{"bytes": w, "first_s": first, "acks": n}
                                for w, (first, n) in sorted(windows.items(), key=lambda kv: kv[1][0])],
            "window_scale": shift}


def model_run(rate: str = "1gbit", rtt: str = "2ms", mtu: int = 1500, sockbuf: Optional[str] = "32k",
              write: str = "128k", nodelay: bool = False, duration: str = "3s", seed: int = 0) -> dict[str, Any]:
    """:func:`summarize` of tcpsim's run of the scenario: ``lab_vm`` on the lab's TUN delay line path, read as
    iperf3 reads, for the whole ``duration`` (no stop on convergence), seed ``seed``."""
    from dataclasses import replace

    from .. import __version__
    from ..api import simulate
    from .predict import host_platform, lab_simulation, tool_goodput_bps

    sc = lab_scenario(rate=rate, rtt=rtt, mtu=mtu, sockbuf=sockbuf, write=write, nodelay=nodelay, duration=duration)
    sim = lab_simulation(sc, host_platform({}, "lab_vm", None, "relay"), "relay", seed, "iperf3")
    sim = replace(sim, budget=replace(sim.budget, rel_tol=1e-6, min_sim_time_s=sc.duration_s,
                                      max_sim_time_s=sc.duration_s, skb_log_limit=MAX_PACKETS))
    r = simulate(sim)
    return {"scenario": _scenario_record(sc),
            "model": f"tcpsim {__version__}, lab_vm, seed {seed}",
            "goodput_bps": tool_goodput_bps(sc, r),
            **summarize(r.skb_log, mss_bytes(sc.mtu_bytes, True), sc.rtt_s, r.sim_time_s)}


def _scenario_record(sc: Any) -> dict[str, Any]:
    """The scenario of a trace (a :class:`~tcpsim.lab.scenario.LabScenario`), as its JSON prints it."""
    return {"rate_bps": sc.rate_bps, "rtt_s": sc.rtt_s, "mtu_bytes": sc.mtu_bytes, "sockbuf_bytes": sc.sndbuf_bytes,
            "write_bytes": sc.write_bytes, "nodelay": sc.nodelay, "duration_s": sc.duration_s}


def _run(args: argparse.Namespace) -> dict[str, Any]:
    install_signal_handlers()
    sc = lab_scenario(rate=args.rate, rtt=args.rtt, mtu=args.mtu, sockbuf=args.sockbuf or None,
                      write=args.write, nodelay=args.nodelay, duration=args.duration)
    duration_s, rtt_s, sockbuf, write = sc.duration_s, sc.rtt_s, sc.sndbuf_bytes, sc.write_bytes
    with Testbed(sc.rate_bps, rtt_s, sc.mtu_bytes, cc="cubic") as tb:
        srv = tb.spawn(tb.ns_b, ["iperf3", "-s", "-1", "-B", tb.receiver_addr, "-p", str(_PORT)], "srv",
                       stdout=subprocess.DEVNULL)
        cap = tb.spawn(tb.ns_b, [sys.executable, "-m", "tcpsim.lab.skbtrace", "--capture", tb.dev_b,
                                 "--seconds", f"{duration_s + 2:g}"], "cap", stdout=subprocess.PIPE)
        time.sleep(0.5)
        cli = tb.spawn(tb.ns_a, client_args(tb.receiver_addr, _PORT, duration_s, sockbuf=sockbuf, write_bytes=write,
                                            nodelay=sc.nodelay, n_streams=1, interval_s=1, cc="cubic"),
                       "cli", stdout=subprocess.PIPE)
        out, _ = cli.communicate(timeout=duration_s + 30)
        packets = [tuple(p) for p in json.loads(cap.communicate(timeout=duration_s + 30)[0] or "[]")]
        srv.wait(timeout=10)
    if args.packets:
        with open(args.packets, "w", encoding="utf-8") as f:
            json.dump(packets, f)
    run = json.loads(out)
    measured_s = float(run["end"]["sum_received"]["seconds"])
    summary = summarize(packets, mss_bytes(sc.mtu_bytes, True), rtt_s, measured_s)
    return {"scenario": _scenario_record(sc),
            "kernel": os.uname().release,
            "goodput_bps": float(run["end"]["sum_received"]["bits_per_second"]), **summary}


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.skbtrace", description=__doc__.split("\n\n")[0])
    p.add_argument("--rate", default="1gbit")
    p.add_argument("--rtt", default="2ms")
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--sockbuf", default="32k")
    p.add_argument("--write", default="128k")
    p.add_argument("--nodelay", action="store_true")
    p.add_argument("--duration", default="3s")
    p.add_argument("--packets", metavar="FILE", help="also write every packet captured (JSON: see Packet)")
    p.add_argument("--model", action="store_true", help="the same summary of tcpsim's run of the scenario instead")
    p.add_argument("--seed", type=int, default=0, help="with --model: the run's seed")
    p.add_argument("--capture", metavar="DEV", help=argparse.SUPPRESS)  # the child in the receiver's namespace
    p.add_argument("--seconds", type=float, default=5.0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    try:
        if args.capture:
            print(json.dumps(capture(args.capture, _PORT, args.seconds)))
            return 0
        if args.model:
            print(json.dumps(model_run(args.rate, args.rtt, args.mtu, args.sockbuf or None, args.write, args.nodelay,
                                       args.duration, args.seed), indent=1))
            return 0
        missing = missing_requirement() or (None if shutil.which("iperf3") else "it needs iperf3 on PATH")
        if missing:
            print(f"python -m tcpsim.lab.skbtrace: {missing}", file=sys.stderr)
            return 2
        print(json.dumps(_run(args), indent=1))
    except (ConfigError, LabUnavailable) as e:
        print(f"python -m tcpsim.lab.skbtrace: {e}", file=sys.stderr)
        return 2
    except (subprocess.TimeoutExpired, ValueError, KeyError) as e:  # a run that hung or gave no JSON result
        print(f"python -m tcpsim.lab.skbtrace: the run gave no result ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
