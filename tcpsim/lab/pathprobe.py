"""Path probe: the round trip of the lab's path itself, without TCP.

``python -m tcpsim.lab.pathprobe --rtt 0,0.2ms,1ms --mtu 1500,9000 --size 56,8000`` (root) builds a
:class:`~tcpsim.lab.testbed.Testbed` per RTT, MTU and size and times ICMP echoes from the sender's namespace
to the receiver's, in a closed loop: each request leaves as soon as the last reply is in, the client spins
on a non-blocking raw socket so its own wake-up stays out of the figure, and the receiver's kernel answers
in its softirq (no process wakes there). It prints, as JSON, the median and spread of each set; the median
less the nominal RTT and less the bare veth's median of the same MTU and size is what the delay line adds
to a round trip, which :func:`relay_fit` turns into ``tcpsim.lab.scenario``'s ``RELAY_*`` constants
(validation/README.md, "The delay line's own latency" and "The relay as a stage of its own").
Traffic stays between the namespaces the run creates; every set is bounded in count and wall time.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
from typing import Optional

from ..cliutil import OneLineParser
from ..errors import ConfigError, TcpsimError
from ..pcap import internet_checksum
from ..units import parse_duration, parse_size
from ._proc import die_with_parent
from .scenario import RelayPath

__all__ = ["probe_path", "ip_packets", "relay_fit", "relay_path", "read_relay_path", "spread", "PROBE_LIMIT_BYTES",
           "FIT_RTTS_S", "FIT_MTUS", "FIT_SIZES", "FIT_PASSES", "fit_probe", "cached_probe_file", "auto_relay_path",
           "main"]

MAX_EXCHANGES = 10_000
MAX_SET_S = 60.0
"""Wall-clock budget of one set: it stops with the echoes it has when this runs out."""
_WAIT_S = 0.5
"""An echo not answered within this is counted lost, and the set goes on."""
_WARMUP = 20
_IP_HEADER, _ICMP_HEADER = 20, 8


def _echoes(addr: str, size_bytes: int, count: int) -> list[float]:
    """Round trips (s) of ``count`` ICMP echoes of ``size_bytes`` to ``addr``, one at a time, spinning."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.setblocking(False)
    ident = os.getpid() & 0xFFFF
    payload = b"x" * size_bytes
    out: list[float] = []
    end = time.perf_counter() + MAX_SET_S
    for seq in range(count):
        if time.perf_counter() > end:
            break
        head = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        packet = struct.pack("!BBHHH", 8, 0, internet_checksum(head + payload), ident, seq) + payload
        t0 = time.perf_counter()
        sock.sendto(packet, (addr, 0))
        while time.perf_counter() - t0 < _WAIT_S:
            try:
                reply = sock.recv(65536)
            except BlockingIOError:
                continue
            ihl = (reply[0] & 15) * 4
            if reply[ihl] == 0 and struct.unpack("!HH", reply[ihl + 4:ihl + 8]) == (ident, seq):
                out.append(time.perf_counter() - t0)
                break
    sock.close()
    return out[_WARMUP:]


def spread(samples_s: list[float]) -> dict:
    """A set's count, median and 10th/90th percentiles (seconds), as the probes report them."""
    if not samples_s:
        return {"n": 0}
    s = sorted(samples_s)
    return {"n": len(s), "median_s": statistics.median(s), "p10_s": s[len(s) // 10], "p90_s": s[9 * len(s) // 10]}


def probe_path(rtt_s: float, mtu_bytes: int, size_bytes: int = 56, count: int = 400, rate_bps: float = 1e9,
               relay_cpu: Optional[int] = None) -> dict:
    """One set (needs root): the echo round trips through a testbed with this RTT and MTU, the relay on
    ``relay_cpu`` alone if given (``tcpsim lab --relay-cpu``: a probe for the runs' own delay line)."""
    from .testbed import Testbed

    with Testbed(rate_bps, rtt_s, mtu_bytes, relay_cpu=relay_cpu if rtt_s else None) as tb:
        client = tb.spawn(tb.ns_a, [sys.executable, "-m", "tcpsim.lab.pathprobe", "--role", "client", "--connect",
                                    tb.receiver_addr, "--size", str(size_bytes), "--count", str(count)],
                          "pathprobe", stdout=subprocess.PIPE)
        got = json.loads(client.communicate(timeout=MAX_SET_S + 30)[0] or "{}")
        return {"rtt_s": rtt_s, "mtu_bytes": mtu_bytes, "size_bytes": size_bytes, "delay_line": tb.delay_line, **got}


def ip_packets(size_bytes: int, mtu_bytes: int) -> list[int]:
    """IP packet lengths of an ICMP echo of ``size_bytes`` at ``mtu_bytes``: fragments carry a multiple of 8
    bytes of data each but the last (``ip_fragment``)."""
    data, step = size_bytes + _ICMP_HEADER, (mtu_bytes - _IP_HEADER) // 8 * 8
    out = []
    while data > mtu_bytes - _IP_HEADER:
        out.append(_IP_HEADER + step)
        data -= step
    return out + [_IP_HEADER + data]


def relay_fit(sets: list[dict]) -> dict[str, float]:
    """The delay line's constants (:mod:`tcpsim.lab.scenario`, ``RELAY_*``), fitted together by least squares
    to the probe's sets (validation/README.md, "The relay as a stage of its own"): the relay's share of a
    round trip, a set's median less its RTT and less the bare veth's of the same MTU and size, modelled as
    ``fixed + fraction x RTT + 2 x (n x packet + byte x total bytes + latency_byte x last packet's bytes)``
    for an echo of ``n`` IP packets each way. Each constant is a time and is kept at 0 or above (a bounded least
    squares, which is the plain one wherever that has no negative constant): a noisy probe can otherwise trade the
    two per-byte constants against each other into a negative one."""
    import numpy as np
    from scipy.optimize import lsq_linear

    bare: dict[tuple[int, int], list[float]] = {}
    for s in sets:
        if s["rtt_s"] == 0 and s.get("n"):
            bare.setdefault((s["mtu_bytes"], s["size_bytes"]), []).append(s["median_s"])
    rows, y = [], []
    for s in sets:
        key = (s["mtu_bytes"], s["size_bytes"])
        if s["rtt_s"] > 0 and s.get("n") and key in bare:
            packets = ip_packets(s["size_bytes"], s["mtu_bytes"])
            rows.append([1.0, s["rtt_s"], 2.0 * len(packets), 2.0 * sum(packets), 2.0 * packets[-1]])
            y.append(s["median_s"] - s["rtt_s"] - statistics.mean(bare[key]))
    if not rows or np.linalg.matrix_rank(np.array(rows)) < 5:
        raise ValueError("the fit needs relayed sets at two RTTs or more, of single packets of two sizes and of "
                         "fragment trains at two MTUs, each with a bare set of the same MTU and size")
    a = np.array(rows)
    scale = np.linalg.norm(a, axis=0)  # columns span 1 to 1e4: solve in unit columns, whose bounds are the same
    coef = lsq_linear(a / scale, np.array(y), bounds=(0.0, np.inf), method="bvls").x / scale
    return dict(zip(("fixed_s", "fraction", "packet_s", "byte_s", "latency_byte_s"), (float(c) for c in coef)))


PROBE_LIMIT_BYTES = 1 << 20
"""A path probe's JSON is a few kilobytes: 1 MiB reads thousands of sets."""

_FIT_SIZES = "--size 56,1400,8000,16000"
"""Sizes whose sets give :func:`relay_fit` its five columns at both MTUs (single packets of two sizes, fragment
trains at MTU 1500 and 9000)."""


FIT_RTTS_S, FIT_MTUS, FIT_SIZES, FIT_PASSES = (0.0, 0.5e-3, 2e-3), (1500, 9000), (56, 1400, 8000, 16000), 3
"""The probe README recommends and ``tcpsim lab --path-probe auto`` takes (about a minute): the sets
:func:`relay_fit` needs, three times over."""


def fit_probe(relay_cpu: Optional[int] = None, count: int = 400) -> list[dict]:
    """The sets of :data:`FIT_RTTS_S` x :data:`FIT_MTUS` x :data:`FIT_SIZES`, :data:`FIT_PASSES` times (root), the
    relay on ``relay_cpu`` alone if given."""
    return [probe_path(rtt, mtu, size, count, relay_cpu=relay_cpu) for _ in range(FIT_PASSES) for mtu in FIT_MTUS
            for rtt in FIT_RTTS_S for size in FIT_SIZES]


def cached_probe_file(relay_cpu: Optional[int]) -> str:
    """Where ``--path-probe auto`` keeps this build's probe: one file per kernel release and relay placement, under
    ``$XDG_CACHE_HOME/tcpsim`` (``~/.cache/tcpsim``). Delete it to probe again."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    where = "any" if relay_cpu is None else f"cpu{relay_cpu}"
    return os.path.join(base, "tcpsim", f"pathprobe-{os.uname().release}-relay-{where}.json")


def auto_relay_path(relay_cpu: Optional[int]) -> tuple[RelayPath, str, bool]:
    """This build's delay line for ``tcpsim lab --path-probe auto``: from its cached probe (:func:`cached_probe_file`),
    or from a probe run now (:func:`fit_probe`, root) and cached if its fit gives all five constants. The constants,
    the file and whether the probe ran now."""
    path = cached_probe_file(relay_cpu)
    if os.path.exists(path):
        return read_relay_path(path), path, False
    sets = fit_probe(relay_cpu)
    try:
        relay = relay_path(sets)  # a probe the fit refuses is not cached
    except ValueError as exc:
        raise ConfigError("path_probe", "auto", f"a probe of this build that gives the delay line's five constants "
                          f"({exc}); give --path-probe FILE, or leave it out for the lab tables' constants") from None
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as fh:
        json.dump(sets, fh, indent=1)
    os.replace(tmp, path)
    return relay, path, True


def relay_path(sets: list[dict]) -> RelayPath:
    """The delay line's constants of a probe's sets (:func:`relay_fit`) as a :class:`~tcpsim.lab.scenario.RelayPath`;
    ValueError where the sets cannot give them."""
    return RelayPath(**relay_fit(sets))


def read_relay_path(path: str) -> RelayPath:
    """The delay line's constants from the JSON ``python -m tcpsim.lab.pathprobe`` printed (``tcpsim lab
    --path-probe FILE``); one line naming the file and what it lacks otherwise."""
    from ..fileio import read_json_limited

    expected = (f"the JSON of python -m tcpsim.lab.pathprobe --rtt 0,0.5ms,2ms --mtu 1500,9000 {_FIT_SIZES} "
                "(a list of sets)")
    sets = read_json_limited(path, "path_probe", expected, PROBE_LIMIT_BYTES)
    if not isinstance(sets, list) or not all(isinstance(x, dict) for x in sets):
        raise ConfigError("path_probe", path, expected)
    try:
        return relay_path(sets)
    except (KeyError, TypeError) as exc:
        raise ConfigError("path_probe", path, f"{expected}; a set lacks {exc}") from None
    except ValueError as exc:
        raise ConfigError("path_probe", path, f"{expected}; {exc}") from None


def main(argv: Optional[list[str]] = None) -> int:
    p = OneLineParser(prog="python -m tcpsim.lab.pathprobe", description=__doc__.splitlines()[0])
    p.add_argument("--role", choices=("probe", "client"), default="probe")
    p.add_argument("--rtt", default="0,0.2ms,0.5ms,1ms,2ms,4ms", help="comma-separated RTTs (0: the bare veth)")
    p.add_argument("--mtu", default="1500,9000", help="comma-separated MTUs")
    p.add_argument("--size", default="56", help="comma-separated ICMP payload bytes (one set each)")
    p.add_argument("--count", type=int, default=400, help=f"echoes per set, at most {MAX_EXCHANGES}")
    p.add_argument("--passes", type=int, default=1, help="sets per RTT and MTU, at most 10")
    p.add_argument("--relay-cpu", default=None, metavar="N",
                   help="the relay on this CPU alone (tcpsim lab --relay-cpu; default: CPU 0 on a machine of two CPUs "
                        "or more, as tcpsim lab places it; none: where the scheduler puts it)")
    p.add_argument("--connect", default="")
    a = p.parse_args(argv)
    sizes = [parse_size(x, "size", decimal=True) for x in a.size.split(",")]
    if not 1 <= a.count <= MAX_EXCHANGES or not 1 <= a.passes <= 10 or not all(0 <= x <= 60000 for x in sizes):
        p.error(f"--count in 1..{MAX_EXCHANGES}, --passes in 1..10, --size in 0..60000")
    if a.role == "client":
        die_with_parent()
        print(json.dumps(spread(_echoes(a.connect, sizes[0], a.count))), flush=True)
        return 0
    from .measure import DEFAULT_RELAY_CPU, can_pin
    from .scenario import relay_cpu_arg
    from .testbed import checked_relay_cpu

    try:
        default = DEFAULT_RELAY_CPU if a.relay_cpu is None and can_pin() else None
        relay_cpu = checked_relay_cpu(default if a.relay_cpu is None else relay_cpu_arg(a.relay_cpu))
    except (ValueError, TcpsimError) as exc:
        p.error(str(exc))
    rtts = [parse_duration(x, "rtt") for x in a.rtt.split(",")]
    mtus = [parse_size(x, "mtu", decimal=True) for x in a.mtu.split(",")]
    sets = [probe_path(rtt, mtu, size, a.count, relay_cpu=relay_cpu) for _ in range(a.passes) for mtu in mtus
            for rtt in rtts for size in sizes]
    print(json.dumps(sets, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
