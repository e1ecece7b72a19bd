"""From a measured point's test conditions to a :class:`~tcpsim.config.Scenario`, and back to a number.

Each source's set-up is stated once here (its link, switch, tools and what its throughput counts), so a
table row only carries what varies: platforms, OS tuning, MTU, buffers, write size, streams, direction,
Nagle, delayed ACK, CPUs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Optional

from ..config import Budget, Host, Link, Scenario, TcpOptions, Workload
from ..errors import ConfigError
from ..platform import Platform
from ..result import Result
from ..lab.predict import through_tun
from ..lab.scenario import measured_duration_s, tool_one_process, tool_read_bytes
from .tables import Point

__all__ = ["SOURCE_SETUPS", "SourceSetup", "scenario_for", "tool_duration_s", "predicted_value", "platform_ids",
           "CALIBRATION_BUDGET", "platforms_for_point"]

CALIBRATION_BUDGET = Budget(rel_tol=0.03, max_sim_time_s=1.0, max_events=20_000_000, max_wall_s=600.0)
"""Every point ends on convergence or on one simulated second (a lab row: on its measured duration,
:func:`scenario_for`), so a prediction is the same on any machine; the wall-clock limit is only a backstop
(the slowest point takes about 10 s on a 2-core machine)."""


@dataclass(frozen=True)
class SourceSetup:
    """The fixed part of one source's test bed."""

    link: Link
    counts_interface_bytes: bool = False
    """True when the tool counts interface bytes both ways (the 10 GbE report reads /proc/net/dev)."""
    default_sockbuf_bytes: Optional[int] = None
    default_write_bytes: int = 65536
    note: str = ""


SOURCE_SETUPS: dict[str, SourceSetup] = {
    "tru64": SourceSetup(
        link=Link(rate_bps=1e9, one_way_delay_s=2e-6, switch_hops=1),
        note="two ES40s through an Alteon ACEswitch 180 (one store-and-forward hop), netperf TCP_STREAM"),
    "sunfire": SourceSetup(
        link=Link(rate_bps=1e9, one_way_delay_s=2e-6, switch_hops=1), default_sockbuf_bytes=65536,
        note="Sun Fire 6800 domains through a gigabit switch, MC-Netperf; 64 KB socket buffers after FIGURE 1"),
    "tengbe": SourceSetup(
        link=Link(rate_bps=10e9, one_way_delay_s=0.5e-6, switch_hops=0), counts_interface_bytes=True,
        default_sockbuf_bytes=262144,
        note="back to back, GenSink; throughput is rx+tx bytes of /proc/net/dev on one host (headers, ACKs, "
             "both directions)"),
    "vbox": SourceSetup(
        link=Link(rate_bps=1e9, one_way_delay_s=10e-6, switch_hops=0),
        note="two VirtualBox VMs with emulated Intel Pro/1000 NICs on one host, iperf -n 900M"),
    "gignic": SourceSetup(
        link=Link(rate_bps=1e9, one_way_delay_s=2e-6, switch_hops=1),
        note="two Pentium 4 servers through a gigabit switch, ttcp"),
    "lab": SourceSetup(
        link=Link(rate_bps=1e9, one_way_delay_s=20e-6, switch_hops=0), default_write_bytes=131072,
        note="tcpsim lab on one Linux VM: two namespaces joined by veth, tbf rate and a delay line per row "
             "(columns rate_bps, rtt_s), iperf3; each namespace's host is one of the VM's CPUs"),
}

_CPU_HOSTS = ("sender", "receiver", "both")
"""Which host a point's ``n_cpus`` applies to (``n_cpus_host``; empty = both). Sun TABLE 4: "The server
only transmits and only one CPU is enabled", so only the sender runs one CPU."""

_TRUE = ("on", "yes", "true", "1", "enabled")
_FALSE = ("off", "no", "false", "0", "disabled")


def platform_ids(point: Point) -> tuple[Optional[str], Optional[str]]:
    """Sender and receiver platform ids of a point."""
    return point.get("platform_sender"), point.get("platform_receiver")


def platforms_for_point(point: Point, given: Mapping[str, Platform] | None = None) -> dict[str, Platform]:
    """The platforms of a point, each with the point's tuning level applied when its profile has that level.

    ``given`` overrides the shipped profiles (a calibration candidate); tuning is applied on top, so a
    level's knobs (``RxIntDelay=0``, buffer caps) win over the candidate's untuned values.
    """
    from ..profiles import load_platform, tune

    level = point.get("tuning")
    out: dict[str, Platform] = {}
    for pid in platform_ids(point):
        if not pid or pid in out:
            continue
        tuned = bool(level) and level in _levels(pid)
        base = (given or {}).get(pid)
        if base is None:
            out[pid] = load_platform(pid, level if tuned else None)
        else:
            out[pid] = tune(base, pid, level) if tuned else base
    return out


_LEVELS_CACHE: dict[str, list[str]] = {}


def _levels(pid: str) -> list[str]:
    if pid not in _LEVELS_CACHE:
        from ..profiles import tuning_levels

        try:
            _LEVELS_CACHE[pid] = tuning_levels(pid)
        except ValueError:
            _LEVELS_CACHE[pid] = []
    return _LEVELS_CACHE[pid]


def _both_ways(point: Point) -> bool:
    d = (point.get("direction") or "").replace(" ", "").lower()
    return d in ("both", "<->", "a<->b", "bidirectional")


def _row_link(point: Point, link: Link, hosts_modelled: bool) -> Link:
    """A row's own rate and RTT where its table varies them (the lab sweep's ``rate_bps``, ``rtt_s`` columns),
    on the path its ``delay_line`` column names, with the delay line its ``relay_path`` column gives (its build's
    probe; the committed ``RELAY`` without one): the same Link fields ``tcpsim lab`` predicts with
    (:func:`tcpsim.lab.scenario.lab_link_fields`: the ``tbf`` bucket, the delay line's latency and relay
    stage, the veth's receive placement and stand-ins for rate 0, and for RTT 0 unless ``hosts_modelled``). A row
    without the column is on the bare veth when its RTT is 0."""
    rate, rtt = point.get("rate_bps"), point.get("rtt_s")
    if rate is None and rtt is None:
        return link
    from ..lab.scenario import RELAY, RelayPath, lab_link_fields

    line = point.get("delay_line") or ("none" if rtt is not None and not float(rtt) else None)
    probed = point.get("relay_path")
    relay = RELAY if probed is None else RelayPath.from_text(probed)
    return replace(link, **lab_link_fields(None if rate is None else float(rate), None if rtt is None else float(rtt),
                                           link.mtu_bytes, line, hosts_modelled, relay=relay))


def tool_duration_s(point: Point) -> Optional[float]:
    """The measured run's duration of a row whose tool averaged from the connection's cold start (the lab
    sweep's ``duration_s``: iperf3's ``end.sum_received``); None for a steady-state figure."""
    value = point.get("duration_s")
    if value is None:
        return None
    return measured_duration_s(value, f"duration_s ({point.source_id}/{point.table_id}: {point.row})")


def scenario_for(point: Point, platforms: Mapping[str, Platform], budget: Optional[Budget] = None) -> Scenario:
    """The scenario that reproduces ``point``'s test conditions, on the given platform objects; ``budget``
    (default validate's, :data:`CALIBRATION_BUDGET`, which a row with a :func:`tool_duration_s` may run to the
    end of)."""
    if budget is None:
        duration = tool_duration_s(point)
        budget = CALIBRATION_BUDGET if duration is None else replace(CALIBRATION_BUDGET, max_sim_time_s=duration)
    setup = SOURCE_SETUPS[point.source_id]
    snd_id, rcv_id = platform_ids(point)
    snd = platforms[snd_id]
    rcv = platforms[rcv_id or snd_id]
    n_cpus = point.get_int("n_cpus")
    on = point.get("n_cpus_host", "both")
    if on not in _CPU_HOSTS:
        raise ConfigError("n_cpus_host", on, "one of " + ", ".join(_CPU_HOSTS))
    if n_cpus is not None and on in ("sender", "both"):
        snd = replace(snd, cpu=replace(snd.cpu, n_cpus=n_cpus))
    if n_cpus is not None and on in ("receiver", "both"):
        rcv = replace(rcv, cpu=replace(rcv.cpu, n_cpus=n_cpus))
    line = point.get("delay_line")
    if line is not None:  # a lab row: the TUN delay line's paged skbs only on a row that went through it
        snd, rcv = through_tun(snd, line), through_tun(rcv, line)
    link = setup.link
    mtu = point.get_int("mtu_bytes")
    if mtu is not None:
        link = replace(link, mtu_bytes=mtu)
    link = _row_link(point, link, snd.host_model_on and rcv.host_model_on)
    loss = point.get("loss_frac")  # the lab's rows with loss drawn on the delay line
    if loss:
        link = replace(link, loss_frac=float(loss))
    sockbuf = point.get_int("sockbuf_bytes", setup.default_sockbuf_bytes)
    pacing = float(point.get("max_pacing_rate_bps") or 0.0)  # the lab's SO_MAX_PACING_RATE rows
    nagle = (point.get("nagle") or "").lower()
    nodelay = nagle in _FALSE
    delack = (point.get("delack") or "").lower()
    dam = point.get_int("deferred_acks_max")

    def tcp(p: Platform) -> TcpOptions:
        over = {}
        if delack in _FALSE:
            over["delack"] = "off"
            over["deferred_acks_max"] = 1
        if dam is not None:
            over["deferred_acks_max"] = dam
            if dam == 1:
                over["delack"] = "off"
        return TcpOptions.for_os(p.os, sockbuf_bytes=sockbuf, nodelay=nodelay, max_pacing_rate_bps=pacing, **over)

    message = point.get_int("message_bytes")
    write = point.get_int("write_bytes", setup.default_write_bytes)
    streams = point.get_int("n_streams", 1)
    if point.metric == "transactions":
        workload = Workload(kind="rr", write_bytes=message or write, n_streams=streams,
                            response_bytes=point.get_int("response_bytes"))
    else:
        workload = Workload(write_bytes=message or write, n_streams=streams, bidirectional=_both_ways(point),
                            read_bytes=tool_read_bytes(point.get("tool"), message or write),
                            one_process=tool_one_process(point.get("tool"), point.get("tool_version") or ""))
    return Scenario(sender=Host(platform=snd, tcp=tcp(snd)), receiver=Host(platform=rcv, tcp=tcp(rcv)),
                    link=link, workload=workload, budget=budget)


def _cpu_pct(point: Point, scenario: Scenario, result: Result) -> Optional[float]:
    what = f"{point.row} {point.note} {point.table}".lower()
    if "copy" in what:
        # Share of the sender's CPU time spent copying user data into the kernel (one CPU in this test).
        copy_s_per_s = result.goodput_bps / 8.0 * scenario.sender.platform.cpu.per_byte_copy_s
        return copy_s_per_s / scenario.sender.platform.cpu.n_cpus
    return None  # user-mode time of the benchmark itself is not modelled


def predicted_value(point: Point, scenario: Scenario, result: Result) -> Optional[float]:
    """The model's value for ``point``'s metric, in the SI unit of ``point.value_si`` (None: not modelled)."""
    metric = point.metric
    if metric == "throughput":
        if SOURCE_SETUPS[point.source_id].counts_interface_bytes:
            return sum(result.interface_bps.values())
        duration = tool_duration_s(point)
        return result.goodput_bps if duration is None else result.run_average_bps(duration)
    if metric == "packet_rate":
        return result.data_packets_per_s
    if metric == "transactions":
        return result.transactions_per_s
    if metric == "cpu_pct":
        return _cpu_pct(point, scenario, result)
    if metric == "cpus_busy":
        host = "receiver" if "receiv" in f"{point.row} {point.note}".lower() else "sender"
        return sum(result.cpu_utilization_frac.get(host, []))
    return None
