"""Capacity planning: inverse questions answered by root finding over the simulator.

``smallest_sockbuf("900mbit", rtt="1ms")`` bisects on log2(buffer size); ``smallest_cpus`` doubles the
CPU count, then bisects; ``jumbo_frames_help`` runs MTU 1500 and 9000 side by side. Each takes the
keyword arguments of :func:`tcpsim.build_scenario` for everything else and returns a small frozen
answer with a one-line ``reason``. Goodput is assumed to grow with the buffer and the CPU count (it
does in the model: more of either never removes capacity), which is what makes bisection valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .platform import MAX_CPUS
from .report_text import limit_name
from .units import format_rate, format_size, parse_rate

__all__ = ["CpusAnswer", "JumboAnswer", "SockbufAnswer", "jumbo_frames_help", "smallest_cpus", "smallest_sockbuf"]


class _Answer:
    """What every planning answer shares: a one-line ``reason``, and ``cautions`` where tcpsim's validation
    misses the regime of the question (:func:`tcpsim.confidence.cautions`); ``text`` and ``str()`` give both."""

    __slots__ = ()
    reason: str
    cautions: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join([self.reason] + [f"caution: {c}" for c in self.cautions])

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        n = len(self.cautions)
        return f"<{type(self).__name__}: {self.reason}{f' ({n} caution{chr(115) * (n > 1)})' if n else ''}>"

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(f"<li>caution: {escape(c)}</li>" for c in self.cautions)
        return f"<div><b>{escape(self.reason)}</b>{'<ul>' + rows + '</ul>' if rows else ''}</div>"

    def to_dict(self) -> dict[str, Any]:
        """The answer's fields (JSON-ready) and its text."""
        from dataclasses import asdict

        return asdict(self)  # type: ignore[call-overload]


def _cautions(*runs: dict[str, Any]) -> tuple[str, ...]:
    """The validation's cautions for the scenarios of ``runs`` (build_scenario keywords), without repeats."""
    from .api import build_scenario
    from .confidence import cautions

    out: list[str] = []
    for kw in runs:
        for c in cautions(build_scenario(**kw)):
            if c not in out:
                out.append(c)
    return tuple(out)


@dataclass(frozen=True, slots=True, repr=False)
class SockbufAnswer(_Answer):
    """The smallest socket buffer (``setsockopt`` on both ends) that reaches ``target_bps``."""

    target_bps: float
    sockbuf_bytes: int | None
    """None when no buffer up to the search limit reaches the target."""
    goodput_bps: float
    """Goodput at ``sockbuf_bytes`` (or at the largest buffer tried when unreachable)."""
    limited_by: str
    reason: str
    cautions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, repr=False)
class CpusAnswer(_Answer):
    """The fewest CPUs per host that reach ``target_bps``."""

    target_bps: float
    n_cpus: int | None
    """None when ``max_cpus`` is not enough."""
    goodput_bps: float
    limited_by: str
    reason: str
    cautions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, repr=False)
class JumboAnswer(_Answer):
    """MTU 1500 against MTU 9000 on the same hosts and path."""

    helps: bool
    """True when MTU 9000 gives at least 5 % more goodput."""
    gain_frac: float
    """goodput(9000) / goodput(1500) - 1."""
    goodput_1500_bps: float
    goodput_9000_bps: float
    limited_by_1500: str
    limited_by_9000: str
    reason: str
    cautions: tuple[str, ...] = ()


def _run(**kw: Any) -> tuple[float, str]:
    from .api import predict

    r = predict(**kw)
    return r.goodput_bps, r.limited_by


def _target(target: Any) -> float:
    bps = parse_rate(target, "target")
    if not bps > 0:
        raise ConfigError("target", target, "a rate above 0 (e.g. 900mbit)")
    return bps


def smallest_sockbuf(target: Any, lo_bytes: int = 4096, hi_bytes: int = 64 << 20, rel_tol: float = 0.02,
                     **kw: Any) -> SockbufAnswer:
    """Smallest socket buffer, both ends, that reaches ``target`` goodput (bisection on log2 of the size).

    The search starts at the buffer whose window carries the target over the unloaded round trip and grows
    it (by target / goodput once, then doubling) until a run reaches the target; below, no buffer whose
    window is short of target x propagation round trip is tried, since none can reach it.

    The answer is rounded up to a whole KiB and re-checked. It is the size the application asks for; the
    OS turns it into a kernel buffer (Linux doubles it and caps it at ``rmem_max``), so a cap can make a
    target unreachable at any size: the reason then says so. Ref: RFC 9293 §3.8.6 (window / RTT).
    """
    from .api import build_scenario
    from .ceilings import base_rtt_s

    target_bps = _target(target)
    if not 0 < lo_bytes < hi_bytes:
        raise ConfigError("lo_bytes", lo_bytes, f"above 0 and below hi_bytes={hi_bytes}")
    kw.pop("sockbuf", None)
    sc = build_scenario(**kw)
    flows = sc.workload.n_flows
    need = target_bps / flows * base_rtt_s(sc) / 8  # bytes in flight per connection, window / RTT
    # A connection moves at most one window per round trip, and no round trip is shorter than the
    # propagation delay there and back (RFC 9293 §3.8.6): no buffer whose largest window is below this
    # reaches the target, so none needs a run.
    floor_bytes = target_bps / flows * 2 * sc.link.one_way_delay_s / 8

    def kernel_bytes(request: int, window: bool = False) -> int:
        """The kernel buffer a request gives (with ``window``: the largest window it can carry)."""
        k = build_scenario(sockbuf=request, **kw)
        snd, rcv = k.sender.tcp, k.receiver.tcp
        if window:
            return min(snd.sndbuf_limit_bytes, rcv.window_limit_bytes)
        return min(snd.sndbuf_bytes, rcv.rcvbuf_bytes)

    def window_bytes(request: int) -> int:
        return kernel_bytes(request, window=True)

    def first_reaching(window: float) -> tuple[int, int] | None:
        """Requests (a, b = a + 1) where the largest window first reaches ``window``: a's is under it, b's
        is not (b = hi_bytes when none is); None when lo_bytes's already is."""
        a, b = lo_bytes, hi_bytes
        if window_bytes(a) >= window:
            return None
        if window_bytes(b) < window:
            return b, b
        while b - a > 1:
            m = (a + b) // 2
            a, b = (m, b) if window_bytes(m) < window else (a, m)
        return a, b

    # First try the buffer whose window carries the target over the unloaded round trip (with the
    # tolerance to spare), then grow it: in the window-limited case the answer is usually just above.
    start = first_reaching(need * (1 + rel_tol))
    if start is not None and window_bytes(start[1]) < need:  # the OS caps the window short of it
        start = first_reaching(window_bytes(hi_bytes))
    upper = min(hi_bytes, max(2 * lo_bytes, start[1] if start else 0))
    below = lo_bytes
    while True:
        g_hi, lim_hi = _run(sockbuf=upper, **kw)
        if g_hi >= target_bps:
            break
        capped = kernel_bytes(min(2 * upper, hi_bytes)) <= kernel_bytes(upper)
        if upper >= hi_bytes or capped or lim_hi not in ("window", "cwnd", "sndbuf", "loss_recovery"):
            kernel = kernel_bytes(upper)
            cap = (f"; the OS caps the buffer at {format_size(kernel)}: " + _cap_lines(kw, upper, need)
                   + _autotune_note(sc, need) if capped and upper < hi_bytes else "")
            return SockbufAnswer(target_bps=target_bps, sockbuf_bytes=None, goodput_bps=g_hi, limited_by=lim_hi,
                                 reason=f"not reachable: {format_size(upper)} buffers give {format_rate(g_hi)}, "
                                        f"limited by {limit_name(lim_hi)}{cap}")
        # A window-limited near miss needs about target / goodput times the window: try that once, then double.
        grow = 2.0 if below > lo_bytes or g_hi <= 0 else min(2.0, target_bps / g_hi * (1 + rel_tol))
        below, upper = upper, min(hi_bytes, int(math.ceil(upper * grow / 1024)) * 1024)
    floor = first_reaching(floor_bytes)
    if floor is not None and floor[0] < upper:
        below = max(below, floor[0])
    elif below == lo_bytes:
        g_lo, lim_lo = _run(sockbuf=lo_bytes, **kw)
        if g_lo >= target_bps:
            return SockbufAnswer(target_bps=target_bps, sockbuf_bytes=lo_bytes, goodput_bps=g_lo, limited_by=lim_lo,
                                 reason=f"{format_size(lo_bytes)} (the smallest size tried) already gives "
                                        f"{format_rate(g_lo)}, limited by {limit_name(lim_lo)}: the buffer is not the issue")
    lo, hi = math.log2(below), math.log2(upper)  # invariant: goodput(2**lo) < target <= goodput(2**hi)
    while hi - lo > math.log2(1 + rel_tol):
        mid = (lo + hi) / 2
        g, _ = _run(sockbuf=int(round(2 ** mid)), **kw)
        lo, hi = (mid, hi) if g < target_bps else (lo, mid)
    size = int(math.ceil(2 ** hi / 1024)) * 1024
    g, lim = _run(sockbuf=size, **kw)
    while g < target_bps and size < upper:  # rounding noise: step up by KiB until it holds
        size += 1024
        g, lim = _run(sockbuf=size, **kw)
    auto = _autotune_note(sc, kernel_bytes(size))
    return SockbufAnswer(target_bps=target_bps, sockbuf_bytes=size, goodput_bps=g, limited_by=lim,
                         cautions=_cautions(dict(kw, sockbuf=size)),
                         reason=f"smallest socket buffer for {format_rate(target_bps)}: {format_size(size)} "
                                f"(--sockbuf {size // 1024}k gives {format_rate(g)}; then limited by {limit_name(lim)})"
                                f"{auto}")


def _cap_lines(kw: dict[str, Any], request_bytes: int, needed_bytes: float) -> str:
    """The tuning lines that let a request carrying ``needed_bytes`` of window through the OS's cap
    (:func:`tcpsim.tuning.advice.buffer_plan`), for a ``--sysctl`` file."""
    from .api import build_scenario
    from .tuning.advice import buffer_plan

    size = 1 << max(12, math.ceil(math.log2(max(needed_bytes * 1.25, 4096))))
    plan = buffer_plan(build_scenario(sockbuf=request_bytes, **kw), size)
    if not plan.lines:
        return "raise its limit with a tuning file (--sysctl)"
    lines = ", ".join(repr(line) for line in plan.lines)
    return f"a --sysctl file of {lines} lets a request of {format_size(size)} through"


def _autotune_note(sc: Any, needed_bytes: float) -> str:
    """Where the OS autotunes buffers an application leaves unset (Linux ``tcp_new_space``,
    ``tcp_rcv_space_adjust``) far enough for ``needed_bytes``: say that setting none is the other answer."""
    snd_auto, rcv_auto = sc.sender.tcp.sndbuf_autotune_max_bytes, sc.receiver.tcp.rcv_window_autotune_max_bytes
    if not (snd_auto and rcv_auto) or min(snd_auto, rcv_auto) < needed_bytes:
        return ""
    return (f"; or set none: this OS autotunes unset buffers up to {format_size(snd_auto)} (send) and a "
            f"{format_size(rcv_auto)} window (receive)")


def smallest_cpus(target: Any, max_cpus: int = 64, **kw: Any) -> CpusAnswer:
    """Fewest CPUs per host (both hosts) that reach ``target`` goodput: doubling, then bisection.

    More CPUs help only while the work spreads: with interrupts on one CPU, that CPU stays the limit.
    """
    target_bps = _target(target)
    if isinstance(max_cpus, bool) or not isinstance(max_cpus, int) or not 1 <= max_cpus <= MAX_CPUS:
        raise ConfigError("max_cpus", max_cpus, f"a whole number in 1..{MAX_CPUS} (the most CPUs a host has)")
    kw.pop("cpus", None)
    runs: dict[int, tuple[float, str]] = {}

    def run(n: int) -> tuple[float, str]:
        if n not in runs:
            runs[n] = _run(cpus=n, **kw)
        return runs[n]

    n, prev = 1, 0
    while run(n)[0] < target_bps:
        if n >= max_cpus:
            g, lim = run(n)
            return CpusAnswer(target_bps=target_bps, n_cpus=None, goodput_bps=g, limited_by=lim,
                              reason=f"not reachable with up to {max_cpus} CPUs per host: {format_rate(g)}, "
                                     f"limited by {limit_name(lim)}")
        prev, n = n, min(2 * n, max_cpus)
    lo, hi = prev, n  # goodput(lo) < target <= goodput(hi); lo = 0 means one CPU is enough
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if run(mid)[0] < target_bps else (lo, mid)
    g, lim = run(hi)
    return CpusAnswer(target_bps=target_bps, n_cpus=hi, goodput_bps=g, limited_by=lim,
                      cautions=_cautions(dict(kw, cpus=hi)),
                      reason=f"{hi} CPU{'s per host reach' if hi > 1 else ' per host reaches'} {format_rate(target_bps)} "
                             f"(--cpus {hi} gives {format_rate(g)}; then limited by {limit_name(lim)})")


def jumbo_frames_help(threshold_frac: float = 0.05, **kw: Any) -> JumboAnswer:
    """Whether MTU 9000 beats MTU 1500 on these hosts by at least ``threshold_frac``, and why.

    Jumbo frames cut the per-packet work (CPU, interrupts, bus transactions) about six-fold for the same
    bytes; they hardly change the line-rate goodput (a few %) and do nothing for a window limit.
    Ref: 10 GbE report 003 (Tables 2-5), Tru64 best practice 000 (Tables 2-3).
    """
    kw.pop("mtu", None)
    g1, w1 = _run(mtu=1500, **kw)
    g9, w9 = _run(mtu=9000, **kw)
    gain = g9 / g1 - 1 if g1 > 0 else math.inf
    helps = gain >= threshold_frac
    both = (f"MTU 1500 gives {format_rate(g1)} (limited by {limit_name(w1)}), "
            f"MTU 9000 gives {format_rate(g9)} (limited by {limit_name(w9)})")
    if helps and (w1.startswith("cpu_") or w1.startswith("bus_") or w1 == "receiver_drops"):
        why = "six times fewer packets for the same bytes relieve the per-packet cost"
    elif helps:
        why = "larger segments move more per round trip and per packet"
    elif w1 in ("window", "cwnd", "sndbuf"):
        why = "the window limits both: raise the socket buffers (tcpsim plan sockbuf) instead"
    elif w1 == "nagle_delack":
        why = "Nagle and delayed ACK set the pace: TCP_NODELAY (--nodelay) is the fix"
    elif w1 == "line":
        why = "the line is already full: larger frames only save header bytes"
    elif w1 == "application":
        why = "the application does not offer more data"
    elif w1 == "loss_recovery":
        why = "loss recovery sets the pace: fewer losses (or SACK) are the fix"
    else:
        why = f"{limit_name(w1)} does not depend on the frame size"
    verdict = "jumbo frames help" if helps else ("jumbo frames hurt" if gain < -threshold_frac
                                                 else "jumbo frames do not help much")
    return JumboAnswer(helps=helps, gain_frac=gain, goodput_1500_bps=g1, goodput_9000_bps=g9,
                       limited_by_1500=w1, limited_by_9000=w9,
                       reason=f"{verdict} ({gain:+.0%}): {both}; {why}",
                       cautions=_cautions(dict(kw, mtu=1500), dict(kw, mtu=9000)))
