"""Capacity planning: inverse questions answered by root finding over the simulator."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from .units import format_rate, format_size, parse_rate

__all__ = ["Answer", "smallest_sockbuf", "smallest_cpus", "jumbo_frames_help"]


@dataclass(frozen=True)
class Answer:
    value: Optional[float]
    text: str


def _goodput(**kw: Any) -> tuple[float, str]:
    from .api import predict

    r = predict(**kw)
    return r.goodput_bps, r.limited_by


def smallest_sockbuf(target: Any, lo_bytes: int = 4096, hi_bytes: int = 64 << 20, **kw: Any) -> Answer:
    """Smallest socket buffer (both ends) that reaches ``target`` goodput: bisection on log2(size)."""
    target_bps = parse_rate(target, "target")
    kw.pop("sockbuf", None)
    best, why = _goodput(sockbuf=hi_bytes, **kw)
    if best < target_bps:
        return Answer(None, f"not reachable: even {format_size(hi_bytes)} buffers give {format_rate(best)} "
                            f"(limited by {why})")
    lo, hi = math.log2(lo_bytes), math.log2(hi_bytes)
    for _ in range(12):
        mid = (lo + hi) / 2
        g, _ = _goodput(sockbuf=int(2 ** mid), **kw)
        lo, hi = (mid, hi) if g < target_bps else (lo, mid)
    size = int(math.ceil(2 ** hi / 1024) * 1024)
    g, why = _goodput(sockbuf=size, **kw)
    return Answer(size, f"smallest socket buffer for {format_rate(target_bps)}: {format_size(size)} "
                        f"(gives {format_rate(g)}, then limited by {why})")


def smallest_cpus(target: Any, max_cpus: int = 64, **kw: Any) -> Answer:
    """Fewest CPUs per host that reach ``target`` goodput."""
    target_bps = parse_rate(target, "target")
    kw.pop("cpus", None)
    for n in range(1, max_cpus + 1):
        g, why = _goodput(cpus=n, **kw)
        if g >= target_bps:
            return Answer(n, f"{n} CPU(s) per host reach {format_rate(target_bps)} (give {format_rate(g)}, "
                             f"limited by {why})")
    return Answer(None, f"not reachable with up to {max_cpus} CPUs ({format_rate(g)}, limited by {why})")


def jumbo_frames_help(**kw: Any) -> Answer:
    """Compare MTU 1500 and 9000 on this platform, with the reason."""
    kw.pop("mtu", None)
    g1, w1 = _goodput(mtu=1500, **kw)
    g9, w9 = _goodput(mtu=9000, **kw)
    gain = g9 / g1 - 1 if g1 > 0 else math.inf
    verdict = "help" if gain > 0.05 else "do not help much"
    return Answer(gain, f"jumbo frames {verdict}: MTU 1500 gives {format_rate(g1)} (limited by {w1}), "
                        f"MTU 9000 gives {format_rate(g9)} (limited by {w9}), {gain:+.0%}")
