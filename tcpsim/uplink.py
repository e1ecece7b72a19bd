"""A shared uplink: many TCP flows through one bottleneck link with a bounded queue.

``share_uplink(40, uplink="1gbit", rtt="20ms")`` runs 40 bulk connections side by side over one link and
returns each flow's goodput, Jain's fairness index and the frames the queue dropped;
``flows_that_fit("20mbit", uplink="1gbit", rtt="20ms")`` answers how many flows get a target each.

What is modelled: ``n`` connections (Reno by default, CUBIC with ``os="linux"``, SACK on) between one
sender host and one receiver host,
over one link direction of the uplink's rate whose drop-tail queue holds ``queue`` frames; every flow has
the same round-trip time and options, and all start together. With the default platform (``ideal``,
hosts cost nothing) the link and its queue are the only thing the flows share, which is what ``n`` hosts
behind one switch uplink see. Not modelled: flows with different RTTs, flows arriving and leaving, BBR,
active queue management, hosts' own costs when a real platform is given (they would be one host's,
shared by all flows).

The default queue is one bandwidth-delay product of full frames (the classic rule of thumb; Appenzeller,
Keslassy and McKeown, SIGCOMM 2004, show BDP / sqrt(n) is enough for many flows). SACK is on unless
``sack=False`` is given. Runs last a fixed time (4 s or 200 RTTs; see :func:`_default_budget`, or pass
``budget=``) and measure the last three quarters: the shares need that long to mean something.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .plan import _Answer, _cautions
from .units import UNSHAPED_RATE_BPS, format_rate, parse_duration, parse_rate

__all__ = ["FlowsAnswer", "UplinkShare", "flows_that_fit", "jain_index", "share_uplink"]

_MAX_FLOWS = 1000


def jain_index(rates: Sequence[float]) -> float:
    """Jain's fairness index (Jain, Chiu and Hawe, DEC-TR-301, 1984): ``(sum x)^2 / (n * sum x^2)``, 1 when all
    shares are equal, ``1/n`` when one flow takes everything (1 for no traffic at all: nothing is unequal)."""
    xs = [float(x) for x in rates]
    square_sum = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * square_sum) if xs and square_sum > 0 else 1.0


@dataclass(frozen=True, slots=True)
class UplinkShare:
    """One run of ``n_flows`` flows through the uplink."""

    n_flows: int
    uplink_bps: float
    rtt_s: float
    """The path's round-trip propagation delay (queueing adds to it)."""
    queue_packets: int
    goodput_bps: float
    """All flows together."""
    flow_goodput_bps: tuple[float, ...]
    """Each flow's goodput, in stream order."""
    jain_index: float
    drops: int
    """Frames the uplink's queue dropped during the measurement."""
    retransmits: int
    termination: str
    measure_time_s: float

    @property
    def mean_bps(self) -> float:
        """The average flow's goodput (the fair share of what the flows got)."""
        return self.goodput_bps / self.n_flows

    @property
    def slowest_bps(self) -> float:
        return min(self.flow_goodput_bps, default=0.0)

    @property
    def text(self) -> str:
        return (f"{self.n_flows} flows share {format_rate(self.goodput_bps)} of a {format_rate(self.uplink_bps)} uplink: "
                f"{format_rate(self.mean_bps)} each on average, slowest {format_rate(self.slowest_bps)}, fastest "
                f"{format_rate(max(self.flow_goodput_bps, default=0.0))}; Jain's index {self.jain_index:.2f}; "
                f"{self.drops} frames dropped at the {self.queue_packets}-frame queue, {self.retransmits} "
                f"retransmitted, in {self.measure_time_s:.2f} s measured")

    def __str__(self) -> str:
        return self.text


def _default_budget(rtt_s: float) -> Any:
    """Run to a fixed time: the total goodput of a saturated uplink settles within a few round trips, long
    before the flows' shares do, so the stop rule would measure the shares over a fraction of a second.
    A quarter of the time is start-up (the engine's warm-up), the rest, 150 round trips or 3 s, is measured."""
    from .config import Budget

    return Budget(rel_tol=1e-6, min_sim_time_s=0.0, max_sim_time_s=max(4.0, 200 * rtt_s), max_wall_s=600.0)


def _scenario_kw(flows: int, uplink: Any, rtt: Any, queue: int | None, kw: dict[str, Any]) -> dict[str, Any]:
    if isinstance(flows, bool) or not isinstance(flows, int) or not 1 <= flows <= _MAX_FLOWS:
        raise ConfigError("flows", flows, f"a whole number in 1..{_MAX_FLOWS}")
    for key in ("streams", "rate", "bidir", "rr"):
        if kw.get(key) not in (None, False):
            raise ConfigError(key, kw[key], "left out: the uplink sets it")
    from .api import build_scenario

    rate_bps = parse_rate(uplink, "uplink")
    rtt_s = parse_duration(rtt, "rtt")
    out = {k: v for k, v in kw.items() if k not in ("streams", "rate", "bidir", "rr")}
    out.update(rate=rate_bps, rtt=f"{rtt_s!r}s", streams=flows)
    if queue is None:
        mtu = build_scenario(**out).link.mtu_bytes
        queue = max(10, math.ceil(rate_bps * rtt_s / 8 / mtu))
    out["queue"] = queue
    out.setdefault("budget", _default_budget(rtt_s))
    out.setdefault("sack", True)  # what today's hosts negotiate (Linux, Windows, macOS permit it by default)
    return out


def share_uplink(flows: int, uplink: Any = "1gbit", rtt: Any = "20ms", queue: int | None = None,
                 **kw: Any) -> UplinkShare:
    """Run ``flows`` bulk flows through an uplink of rate ``uplink`` with a ``queue``-frame drop-tail queue
    (default one bandwidth-delay product) on a path of round trip ``rtt``; other keywords as
    :func:`tcpsim.build_scenario` (``sockbuf``, ``os``, ``sack``, ``mtu``...)."""
    from .api import build_scenario, simulate

    skw = _scenario_kw(flows, uplink, rtt, queue, dict(kw))
    sc = build_scenario(**skw)
    r = simulate(sc)
    per_flow = tuple(s.goodput_bps for s in r.streams if s.direction == "forward")
    return UplinkShare(n_flows=flows, uplink_bps=sc.link.rate_bps, rtt_s=2 * sc.link.one_way_delay_s,
                       queue_packets=sc.link.queue_packets or 0, goodput_bps=r.goodput_bps,
                       flow_goodput_bps=per_flow, jain_index=jain_index(per_flow), drops=r.drops.get("link", 0),
                       retransmits=r.retransmits, termination=r.termination, measure_time_s=r.measure_time_s)


@dataclass(frozen=True, slots=True, repr=False)
class FlowsAnswer(_Answer):
    """How many flows get ``target_bps`` each through the uplink, with the run that decided it."""

    flows: int
    """Flows whose average goodput reaches the target (0: not even one)."""
    target_bps: float
    uplink_bps: float
    share: UplinkShare
    """The run at ``flows`` flows (at one flow when none fits)."""
    tried: tuple[int, ...]
    """The flow counts simulated, in order."""
    reason: str
    cautions: tuple[str, ...] = ()


def flows_that_fit(target: Any, uplink: Any = "1gbit", rtt: Any = "20ms", queue: int | None = None,
                   **kw: Any) -> FlowsAnswer:
    """The most flows that each get ``target`` on average through the uplink (see :func:`share_uplink`).

    Starts from the line-rate goodput divided by the target (no more can fit), simulates that many, and
    while their average falls short tries the count their total would carry, ``floor(total / target)``,
    strictly fewer each time. The answer is the first count whose average reaches the target; it also
    names the slowest flow and Jain's index, since TCP does not share evenly.
    """
    from .api import build_scenario
    from .protocol import framing

    target_bps = parse_rate(target, "target")
    if target_bps <= 0:
        raise ConfigError("target", target, "a rate above 0 (e.g. 20mbit)")
    sc = build_scenario(**_scenario_kw(1, uplink, rtt, queue, dict(kw)))
    if sc.link.rate_bps == UNSHAPED_RATE_BPS:
        raise ConfigError("uplink", uplink, "a rate such as 1gbit (an unshaped uplink has no capacity to share)")
    ts = sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps
    line_bps = framing.line_goodput_bps(sc.link.rate_bps, sc.link.mtu_bytes, ts, sc.link.skb_charged)
    n = min(_MAX_FLOWS, max(1, math.floor(line_bps / target_bps)))
    tried: list[int] = []
    while True:
        tried.append(n)
        share = share_uplink(n, uplink, rtt, queue, **kw)
        if share.mean_bps >= target_bps:
            fits = n
            break
        if n == 1:
            fits = 0
            break
        n = max(1, min(n - 1, math.floor(share.goodput_bps / target_bps)))
    up, tgt = format_rate(sc.link.rate_bps), format_rate(target_bps)
    if fits:
        most = math.floor(line_bps / target_bps)
        why = ("as many as the line carries" if fits == most
               else f"at most {_MAX_FLOWS} flows are simulated; the line would carry {most}" if fits == _MAX_FLOWS
               else f"the line carries {most} at most; with more, queue losses cut the total")
        reason = f"{fits} flows of {tgt} fit through a {up} uplink on average ({why}). Simulated: {share.text}"
        if share.slowest_bps < target_bps / 2:  # the average hides flows TCP starved
            reason += (f". Not every flow gets it: the slowest ran at {format_rate(share.slowest_bps)}, so with an even "
                       f"share required fewer fit")
    else:
        reason = f"not even one flow reaches {tgt} through a {up} uplink. Simulated: {share.text}"
    return FlowsAnswer(flows=fits, target_bps=target_bps, uplink_bps=sc.link.rate_bps, share=share, tried=tuple(tried),
                       reason=reason, cautions=_cautions(_scenario_kw(max(fits, 1), uplink, rtt, queue, dict(kw))))
