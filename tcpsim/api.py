"""The public entry points: :func:`simulate` a scenario, :func:`predict` from human units, :func:`sweep`."""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Optional

from .config import MAX_LOSS_FRAC, Budget, Host, Link, Scenario, TcpOptions, Workload
from .errors import ConfigError
from .platform import CONGESTION_CONTROLS, Platform
from .result import Result
from .units import (parse_duration, parse_fraction, parse_int, parse_link_rate, parse_number, parse_rate, parse_size,
                    parse_switch)

__all__ = ["simulate", "predict", "build_scenario", "scenario_inputs", "check_keywords", "with_changes"]


def simulate(scenario: Scenario) -> Result:
    """Run ``scenario`` until its goodput estimate converges (or a budget ends it).

    Returns a :class:`~tcpsim.result.Result` with the closed-form ceilings attached, so the simulated
    answer can be read beside what the window, the line, the bus and the CPUs would allow, and the
    validation's cautions for it (:attr:`~tcpsim.result.Result.cautions`).
    """
    from . import ceilings, engine

    if not isinstance(scenario, Scenario):
        raise ConfigError("scenario", type(scenario).__name__, "a tcpsim.Scenario (tcpsim.build_scenario(...) makes "
                          "one; tcpsim.predict(...) takes its keywords)")
    return _explained(scenario, replace(engine.run(scenario), ceilings_bps=ceilings.ceilings(scenario)))


def _explained(scenario: Scenario, result: Result) -> Result:
    """``result`` with the scenario's inputs, the validation's cautions and the advice attached."""
    from .confidence import cautions
    from .report_text import advice
    from .stopping import lossy_interval_caution

    run = lossy_interval_caution(scenario.link.loss_frac, result.limited_by, result.goodput_halfwidth_bps)
    said = cautions(scenario) + ([run] if run else [])
    result = replace(result, inputs=scenario_inputs(scenario), cautions=tuple(said))
    return replace(result, advice=advice(scenario, result))


def scenario_inputs(sc: Scenario) -> dict[str, Any]:
    """The main inputs of a scenario as a flat dict with unit-suffixed keys."""
    wl = sc.workload
    return {
        "sender_platform": sc.sender.platform.name,
        "receiver_platform": sc.receiver.platform.name,
        "rate_bps": sc.link.rate_bps,
        "one_way_delay_s": sc.link.one_way_delay_s,
        "mtu_bytes": sc.link.mtu_bytes,
        "sndbuf_bytes": sc.sender.tcp.sndbuf_bytes,
        "rcvbuf_bytes": sc.receiver.tcp.rcvbuf_bytes,
        "sndbuf_autotune_max_bytes": sc.sender.tcp.sndbuf_autotune_max_bytes,
        "rcv_window_autotune_max_bytes": sc.receiver.tcp.rcv_window_autotune_max_bytes,
        "workload": wl.kind,
        "write_bytes": wl.write_bytes,
        "n_streams": wl.n_streams,
        "bidirectional": wl.bidirectional,
        "nodelay": sc.sender.tcp.nodelay,
        "sack": sc.sender.tcp.sack and sc.receiver.tcp.sack,
        "limited_transmit": sc.sender.tcp.limited_transmit,
        "delack": sc.receiver.tcp.delack,
        "deferred_acks_max": sc.receiver.tcp.deferred_acks_max if sc.receiver.tcp.delack == "solaris" else None,
        "congestion_control": sc.sender.tcp.congestion_control,
        "max_pacing_rate_bps": sc.sender.tcp.max_pacing_rate_bps,
        "os_name": sc.sender.platform.os.name,
        "seed": sc.seed,
    }


def _platform(spec: Platform | str | None, tuning: Optional[str]) -> Platform | None:
    if spec is None or isinstance(spec, Platform):
        return spec
    from .profiles import load_platform

    return load_platform(spec, tuning=tuning)


@contextmanager
def _as_given(derived: dict[str, tuple[str, Any, str]]) -> Iterator[None]:
    """Errors about a derived field name the argument the caller gave instead (issue 24).

    ``derived`` maps a field a check names (``write_bytes``) to (argument, the caller's value, a prefix for
    the accepted range): ``--message nan`` reads ``message='nan': ...``, not ``write_bytes``. Errors that
    carry their own place (a file and line) pass unchanged.
    """
    try:
        yield
    except ConfigError as exc:
        given = derived.get(exc.field)
        if given is None or type(exc) is not ConfigError or given[0] == exc.field and given[2] == "":
            raise
        name, value, how = given
        raise ConfigError(name, value, how + exc.allowed) from None


def _check_port_rate(rate_bps: float, rate: Any, sender: Platform, receiver: Platform) -> None:
    """Refuse a link faster than either host's NIC port (``nic.port_rate_bps``).

    Ethernet runs a link at its slower end's speed, so a 1 Gbit/s card on a 10 Gbit/s path sends at
    1 Gbit/s; tcpsim says so rather than quietly running another path than the one asked for. A card
    with several ports is one port per link (its other active ports load the bus, ``nic.active_ports``).
    An unshaped link (a veth pair, :data:`~tcpsim.units.UNSHAPED_RATE_BPS`) has no port to respect.
    """
    from .units import UNSHAPED_RATE_BPS, format_rate

    if rate_bps == UNSHAPED_RATE_BPS:
        return
    for role, p in (("sender", sender), ("receiver", receiver)):
        port = p.nic.port_rate_bps
        if port and rate_bps > port * (1 + 1e-9):
            raise ConfigError("rate", rate, f"at most {format_rate(port)}, the port rate of the {role}'s NIC "
                              f"({p.name}; one port per link): a faster nic part, a slower rate, or 'unshaped'")


def build_scenario(*, rate: Any = "1gbit", delay: Any = None, rtt: Any = None, mtu: Any = 1500,
                   sockbuf: Any = None, sndbuf: Any = None, rcvbuf: Any = None, write: Any = "64k",
                   message: Any = None, rr: Any = None, response: Any = None, read: Any = None,
                   streams: int = 1, bidir: bool = False, nodelay: bool = False, delack: Optional[str] = None,
                   deferred_acks_max: Optional[int] = None, os: Optional[str] = None,
                   platform: Platform | str | None = None, sender: Platform | str | None = None,
                   receiver: Platform | str | None = None, tuning: Optional[str] = None,
                   cpus: Optional[int] = None, bus: Optional[str] = None, machine: Optional[str] = None,
                   cpu: Optional[str] = None, cpu_ghz: Any = None, memory_bw: Any = None, nic: Optional[str] = None,
                   queue: Optional[int] = None, burst: Any = None, veth: bool = False,
                   loss: float = 0.0, message_rate: Any = None, sack: Optional[bool] = None,
                   limited_transmit: Optional[bool] = None, cc: Optional[str] = None,
                   max_pacing_rate: Any = None, seed: int = 0, budget: Optional[Budget] = None) -> Scenario:
    """A :class:`Scenario` from human quantities (``"512k"``, ``"1gbit"``, ``"100us"``), as the CLI takes them.

    The path's propagation delay is ``delay`` one way or ``rtt`` both ways, one of the two (50 us one way when
    neither is given; :func:`with_changes` puts one in place of the other).
    ``sockbuf`` is what the application asks for with ``setsockopt`` on both ends; the OS of each host
    turns it into a kernel buffer (Linux doubles it and caps it at ``rmem_max``). ``os`` names an OS
    version (:func:`tcpsim.os_versions.os_version`: ``linux`` = Linux 6.12, ``linux-2.6`` ... ``linux-6.12``, any
    Linux release from 2.6.32 to 7.x (``linux-6.18``),
    ``solaris-8``, ``freebsd-5``, ``tru64-5`` ...); ``machine`` (a machine file), ``cpu``, ``cpu_ghz``,
    ``cpus``, ``memory_bw``, ``bus`` and ``nic`` change parts of both hosts' platforms, or build one from
    parts alone (:func:`tcpsim.machine.spec.platform_for` has the rules; ``tcpsim machine show`` explains
    a result). ``burst`` makes the rate a token bucket of that size (``tc tbf``, as ``tcpsim lab`` shapes;
    :attr:`tcpsim.config.Link.burst_bytes`). ``veth`` makes the path a veth pair between two namespaces, on
    which each frame's receive work runs on the sending host's CPU (:attr:`tcpsim.config.Link.rx_on_sending_cpu`,
    as on ``tcpsim lab``'s path without the delay line). ``sack`` turns
    selective acknowledgment (RFC 2018, with RFC 6675 recovery) on or off on both ends, ``limited_transmit``
    (RFC 3042) too, ``cc`` picks the congestion control (``reno`` or ``cubic``); None keeps each OS's default.
    ``max_pacing_rate`` is ``SO_MAX_PACING_RATE`` on every socket (iperf3 ``--fq-rate``: ``"300mbit"``), which a
    Linux of 4.13 on paces it to (:mod:`tcpsim.protocol.pacing`).
    """
    bidir, nodelay, veth = (parse_switch(v, n) for v, n in ((bidir, "bidir"), (nodelay, "nodelay"), (veth, "veth")))
    if rtt is not None and delay is not None:
        raise ConfigError("delay", delay, "left out when rtt is given (one of delay, rtt)")
    delay = DEFAULT_DELAY if delay is None else delay
    if rtt is not None and parse_duration(rtt, "rtt") > 20.0:  # Link's one-way delay of at most 10 s, both ways
        raise ConfigError("rtt", rtt, "in 0..20 s (twice a one-way delay of at most 10 s)")
    delay_given = ("rtt", rtt, "twice a one-way delay ") if rtt is not None else ("delay", delay, "")
    with _as_given({"one_way_delay_s": delay_given, "rate_bps": ("rate", rate, ""), "mtu_bytes": ("mtu", mtu, ""),
                    "queue_packets": ("queue", queue, ""), "loss_frac": ("loss", loss, ""),
                    "burst_bytes": ("burst", burst, ""), "rx_on_sending_cpu": ("veth", veth, "")}):
        delay_s = parse_duration(rtt, "rtt") / 2 if rtt is not None else parse_duration(delay, "delay")
        link = Link(rate_bps=parse_link_rate(rate, "rate"), one_way_delay_s=delay_s,
                    mtu_bytes=parse_size(mtu, "mtu", decimal=True, allowed="in 68..65535"),
                    queue_packets=None if queue is None else parse_int(queue, "queue"),
                    loss_frac=parse_fraction(loss, "loss", hi=MAX_LOSS_FRAC),
                    burst_bytes=0 if burst is None else parse_size(burst, "burst"), rx_on_sending_cpu=veth)
    streams = parse_int(streams, "streams")
    if bidir and rr is not None:
        raise ConfigError("bidir", bidir, "left out with rr (a request/response stream already runs both ways)")
    if response is not None and rr is None:
        raise ConfigError("response", response, "left out without rr (the response size of a request/response workload)")
    for name, value in (("message", message), ("read", read), ("message_rate", message_rate)):
        if value is not None and rr is not None:
            raise ConfigError(name, value, "left out with rr (a request/response workload sizes its own writes and reads)")
    if cc is not None and cc not in CONGESTION_CONTROLS:
        raise ConfigError("cc", cc, "one of " + ", ".join(CONGESTION_CONTROLS))
    from .machine.spec import platform_for

    parts = dict(tuning=tuning, machine=machine, cpu=cpu, cpu_ghz=cpu_ghz, memory_bw=memory_bw, bus=bus, nic=nic,
                 os=os, cpus=None if cpus is None else parse_int(cpus, "cpus"))
    hosts = []
    for role in (sender, receiver):
        spec, name = (role, "sender" if role is sender else "receiver") if role is not None else (platform, "platform")
        with _as_given({"platform": (name, spec, ""), "n_cpus": ("cpus", cpus, ""),
                        "cpu.n_cpus": ("cpus", cpus, "")}):
            hosts.append(platform_for(spec, **parts) or Platform())
    snd_platform, rcv_platform = hosts
    _check_port_rate(link.rate_bps, rate, snd_platform, rcv_platform)

    pacing_bps = 0.0 if max_pacing_rate is None else parse_rate(max_pacing_rate, "max_pacing_rate")

    def tcp_for(p: Platform) -> TcpOptions:
        over: dict[str, Any] = {}
        if delack is not None:
            over["delack"] = delack
        if deferred_acks_max is not None:
            over["deferred_acks_max"] = parse_int(deferred_acks_max, "deferred_acks_max")
        if sack is not None:
            over["sack"] = parse_switch(sack, "sack")
        if limited_transmit is not None:
            over["limited_transmit"] = parse_switch(limited_transmit, "limited_transmit")
        if cc is not None:
            over["congestion_control"] = cc
        with _as_given({"sockbuf_bytes": ("sockbuf", sockbuf, ""), "sndbuf_bytes": ("sndbuf", sndbuf, ""),
                        "rcvbuf_bytes": ("rcvbuf", rcvbuf, ""), "congestion_control": ("cc", cc, ""),
                        "max_pacing_rate_bps": ("max_pacing_rate", max_pacing_rate, "")}):
            return TcpOptions.for_os(
                p.os,
                sockbuf_bytes=None if sockbuf is None else parse_size(sockbuf, "sockbuf", allowed="in 1..2**31 bytes"),
                sndbuf_bytes=None if sndbuf is None else parse_size(sndbuf, "sndbuf", allowed="in 1..2**31 bytes"),
                rcvbuf_bytes=None if rcvbuf is None else parse_size(rcvbuf, "rcvbuf", allowed="in 1..2**31 bytes"),
                nodelay=nodelay, max_pacing_rate_bps=pacing_bps, **over)

    written = ("rr", rr, "") if rr is not None else ("message", message, "") if message is not None \
        else ("write", write, "")
    with _as_given({"write_bytes": written, "response_bytes": ("response", response, ""),
                    "read_bytes": ("read", read, ""), "n_streams": ("streams", streams, ""),
                    "message_rate_hz": ("message_rate", message_rate, "")}):
        if rr is not None:
            size = parse_size(rr, "rr")
            workload = Workload(kind="rr", write_bytes=size,
                                response_bytes=parse_size(response, "response") if response else size,
                                n_streams=streams)
        else:
            write_bytes = parse_size(written[1], written[0])
            rate_hz = None if message_rate is None else parse_number(message_rate, "message_rate")
            workload = Workload(kind="bulk", write_bytes=write_bytes, n_streams=streams, bidirectional=bidir,
                                read_bytes=None if read is None else parse_size(read, "read"),
                                message_rate_hz=rate_hz)
    if budget is not None and not isinstance(budget, Budget):
        raise ConfigError("budget", budget, "a tcpsim.config.Budget or None")
    snd_tcp, rcv_tcp = tcp_for(snd_platform), tcp_for(rcv_platform)
    _check_deferred_acks(deferred_acks_max, snd_tcp, rcv_tcp)
    return Scenario(sender=Host(platform=snd_platform, tcp=snd_tcp), receiver=Host(platform=rcv_platform, tcp=rcv_tcp),
                    link=link, workload=workload, seed=seed, budget=budget or Budget())


def _check_deferred_acks(given: Any, *tcps: TcpOptions) -> None:
    """``deferred_acks_max`` is Solaris's ``tcp_deferred_acks_max``: refused where no host ACKs by the solaris rule,
    whose count it is (:class:`tcpsim.protocol.delack.SolarisDelayedAck`), rather than dropped without a word."""
    rules = sorted({t.delack for t in tcps})
    if given is not None and "solaris" not in rules:
        raise ConfigError("deferred_acks_max", given, "left out unless a host's delayed-ACK rule is solaris (here: "
                          f"{', '.join(rules)}, which has no such count); add delack='solaris' (--delack solaris)")


DEFAULT_DELAY = "50us"
"""The one-way propagation delay of a path given neither ``delay`` nor ``rtt``."""
_PATH_DELAY = {"delay": "rtt", "rtt": "delay"}


def with_changes(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`build_scenario` keywords ``base`` with ``changes`` over them, as ``compare``'s what-ifs and ``sweep``'s
    grid points apply theirs: a changed ``rtt`` replaces the base's ``delay`` and a changed ``delay`` its ``rtt``
    (both set the one propagation delay)."""
    out = {k: v for k, v in base.items() if not (_PATH_DELAY.get(k) in changes and k not in changes)}
    out.update(changes)
    return out


def check_keywords(kw: Mapping[str, Any]) -> None:
    """A ConfigError naming the first key of ``kw`` that :func:`build_scenario` does not take (``sweep`` and
    ``compare`` take its keywords as dicts, where Python would only raise a TypeError naming none)."""
    allowed = inspect.signature(build_scenario).parameters
    for key, value in kw.items():
        if key not in allowed:
            raise ConfigError(key, value, "a keyword of tcpsim.build_scenario")


def predict(*, method: str = "simulate", **kwargs: Any) -> Result:
    """Answer "what throughput will I get, and what limits it?" from human-unit inputs.

    Takes the keyword arguments of :func:`build_scenario` (``mtu="9000", sockbuf="512k",
    platform="es40_tru64"``...). ``method="ceilings"`` skips the simulation and returns the closed-form
    bound alone, or on a lossy link Mathis et al.'s estimate where it is lower (instant, but blind to
    Nagle, delayed ACK and queueing).
    """
    check_keywords(kwargs)
    scenario = build_scenario(**kwargs)
    if method == "simulate":
        return simulate(scenario)
    if method == "ceilings":
        from . import ceilings

        bounds = ceilings.ceilings(scenario)
        name, bps = ceilings.binding_ceiling(scenario)
        lossy = ceilings.loss_estimate_bps(scenario)
        if lossy < bps:  # random loss holds the congestion window below every bound
            name, bps = "cwnd", lossy
        result = Result(goodput_bps=bps, interface_bps={}, data_packets_per_s=float("nan"),
                        ack_packets_per_s=float("nan"), transactions_per_s=None, payload_histogram={},
                        rtt_s=ceilings.base_rtt_s(scenario), limited_by=name, utilization_frac={},
                        cpu_utilization_frac={}, retransmits=0, drops={}, streams=(), termination="closed_form",
                        converged=True, sim_time_s=0.0, measure_time_s=0.0, events=0, wall_s=0.0, ceilings_bps=bounds)
        return _explained(scenario, result)
    raise ConfigError("method", method, "'simulate' or 'ceilings'")
