"""tcpsim's prediction for a lab scenario: the same path and sockets, on a Linux host with this kernel's buffer limits."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional

from ..result import Result
from .scenario import RELAY, LabScenario, RelayPath, receives_on_sending_cpu, tool_one_process

__all__ = ["predict_lab", "host_platform", "lab_path_platform", "lab_path_parts", "as_lab_vm", "through_tun",
           "LAB_NIC_PART", "lab_simulation", "tool_goodput_bps", "receives_on_sending_cpu", "path_note", "BUFFER_SYSCTLS", "DEFAULT_OS",
           "TUN_PAGE_BYTES"]

DEFAULT_OS = "linux"
"""tcpsim's Linux (``--os linux``, :data:`tcpsim.os_versions.DEFAULT_LINUX`): the prediction a user gets
without naming a platform."""

BUFFER_SYSCTLS = ("net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
                  "net.ipv4.tcp_limit_output_bytes")
"""The sysctls passed to the prediction: facts about the buffer limits of the kernel measured (the socket
buffers, and TCP small queues' cap on the bytes in the host, as validate's ``lab_vm`` takes them). Others
(``tcp_adv_win_scale``, which Linux 6.6+ ignores; the congestion control) are recorded, not applied:
how the kernel uses them is the OS model's business, not the run's."""


TUN_PAGE_BYTES = 4096
"""The x86-64 page the TUN driver holds a large packet in (``tun_alloc_skb`` -> ``alloc_skb_with_frags``):
``lab_vm``'s ``rx_skb_page_bytes``, measured through the delay line (validation/README.md, the lab section)."""


LAB_NIC_PART = "veth"
"""The catalog NIC of the lab's path: ``tcpsim lab`` joins its namespaces by a veth pair (``drivers/net/veth.c``)."""


def lab_path_platform(spec: Any) -> Any:
    """``spec`` (a profile name, machine file or Platform; None = tcpsim's ideal host) as a host on the lab's
    path: a machine made of parts is composed with the catalog's veth as its NIC part, as ``--nic veth`` would
    (the runs never touch the network its own file names, such as the virtio-net ``machine detect`` reads off
    the default route; validation/README.md, "On the lab's path a machine's interface is the veth it runs
    over"), and every host hands its GSO aggregates to the receiver whole (``nic.gso_whole``, the veth's)."""
    from ..api import _platform
    from ..machine.spec import platform_for
    from ..platform import Platform

    parts = lab_path_parts(spec)
    base = platform_for(spec, **parts) if parts else (_platform(spec, None) or Platform())
    return replace(base, nic=replace(base.nic, gso_whole=True))


def as_lab_vm(spec: Any) -> Any:
    """``spec`` standing in for ``lab_vm`` on validate's lab rows (``tcpsim validate --platform lab_vm=FILE``): on
    the lab's path (:func:`lab_path_platform`) and placed as ``lab_vm`` is, one CPU a side (validation/README.md,
    "A machine on the lab's path is placed as the lab places it"); a row through the delay line then pages its
    receive skbs (:func:`through_tun`), a row without one keeps the file's own ("A user's machine on a lab row
    without the delay line keeps its own receive skbs")."""
    base = lab_path_platform(spec)
    return replace(base, cpu=replace(base.cpu, n_cpus=1))


def through_tun(platform: Any, delay_line: str) -> Any:
    """``platform`` on a lab run's path ``delay_line``: through the TUN delay line ("relay") a Linux receiver holds
    each packet in the TUN driver's pages (``tun_get_user``: ``rx_skb_page_bytes`` = :data:`TUN_PAGE_BYTES`); with
    no added delay or with netem there is no TUN (``veth_xmit`` hands the sender's skb to ``__netif_rx``) and the
    host's own value stands. ``tcpsim lab``, ``calibrate --lab`` and ``tcpsim validate`` all place a run so."""
    if delay_line == "relay" and platform.os.family == "linux":
        return replace(platform, os=replace(platform.os, rx_skb_page_bytes=TUN_PAGE_BYTES))
    return platform


def lab_path_parts(spec: Any) -> dict[str, str]:
    """The parts the lab's path replaces in ``spec``: ``{"nic": "veth"}`` for a machine made of parts whose NIC is
    another, else none (a profile of runtime values, a Platform, a machine already on a veth)."""
    from ..machine.spec import is_machine_spec, load_machine

    if is_machine_spec(spec) and load_machine(spec).parts.nic.name != LAB_NIC_PART:
        return {"nic": LAB_NIC_PART}
    return {}


def host_platform(sysctls: Mapping[str, str], platform: Optional[Any] = None, os_name: Optional[str] = DEFAULT_OS,
                  delay_line: str = "none"):
    """The predicted host: ``platform`` (a profile name, path or Platform; default tcpsim's ideal host) with
    the OS ``os_name`` (``linux``, ``linux-6.8`` ...) when no platform is named, then the kernel's buffer
    sysctls applied, on the lab's path.

    The path is always a veth pair (with ``tbf`` and the TUN delay line when shaped or delayed), which hands
    the sender's GSO aggregates to the receiver whole (``nic.gso_whole``, as ``lab_vm``'s veth has it for
    ``tcpsim validate``): a path fact, not the host's, so it holds whatever platform is named. Where the run
    went through the TUN delay line (``delay_line`` "relay", the measured run's), the receiver's skbs are
    the TUN driver's, paged as ``lab_vm``'s (``rx_skb_page_bytes`` = :data:`TUN_PAGE_BYTES`); without it (no
    added delay, or netem) there is no TUN and a named platform's own value stands (:func:`path_note`).
    ``delay_line`` "nic" is no lab path at all but two real hosts' NICs (``tcpsim calibrate --iperf3``): the
    NIC segments every aggregate on the wire, so the host's own NIC settings stand; on every lab path the
    host's NIC is the veth (:func:`lab_path_platform`)."""
    from ..api import _platform
    from ..os_versions import os_version
    from ..platform import Platform
    from ..tuning import apply_tuning, parse_tuning

    base = (_platform(platform, None) or Platform()) if delay_line == "nic" else lab_path_platform(platform)
    if platform is None and os_name:
        base = replace(base, os=os_version(os_name))
    base = through_tun(base, delay_line)
    text = "\n".join(f"{k} = {sysctls[k]}" for k in BUFFER_SYSCTLS if k in sysctls)
    if text and base.os.family == "linux":
        base = apply_tuning(base, parse_tuning(text, "<lab sysctls>"), "<lab sysctls>").platform
    return base


def lab_simulation(sc: LabScenario, host: Any, delay_line: str, seed: int = 0, tool: Optional[str] = None,
                   tool_version: str = "", relay: RelayPath = RELAY):
    """The :class:`tcpsim.config.Scenario` of lab scenario ``sc`` on ``host`` (a platform on the lab's path,
    :func:`host_platform`), with the path's receive placement and round trip and ``tool``'s read size; its
    run lasts at most the measured run's duration (:func:`tool_goodput_bps`). A run whose tools were pinned to
    two CPUs (``--pin 0,1``) gives each side one of them: its tool, its calls and the stack work its segments
    cause run there (validation/README.md, "A machine on the lab's path is placed as the lab places it"). ``host``
    may also be a profile's name or path, read as ``tcpsim predict --platform`` reads it. ``tool_version`` (iperf3's
    own, as its ``-J`` reports it) says whether its streams share one thread (:func:`tool_one_process`). ``relay`` is
    the delay line's constants (the committed ones unless this machine's path probe gives its own)."""
    from ..api import _platform, build_scenario

    if isinstance(host, str):
        host = _platform(host, None)
    if host is not None and sc.pin_cpus is not None and len(set(sc.pin_cpus)) == 2:
        host = replace(host, cpu=replace(host.cpu, n_cpus=1))
    built = build_scenario(platform=host, seed=seed, **sc.predict_kwargs(tool, delay_line))
    modelled = built.sender.platform.host_model_on and built.receiver.platform.host_model_on
    return replace(built, link=replace(built.link, **sc.link_fields(delay_line, modelled, relay)),
                   workload=replace(built.workload, one_process=tool_one_process(tool, tool_version)),
                   budget=replace(built.budget, max_sim_time_s=sc.duration_s if built.budget.max_sim_time_s is None
                                  else min(built.budget.max_sim_time_s, sc.duration_s)))


def tool_goodput_bps(sc: LabScenario, result: Result, duration_s: Optional[float] = None) -> float:
    """The goodput the run's tool reports of ``result``: iperf3 and the built-in generator count the bytes
    read from the connection's cold start over the run's duration (``duration_s``, the measured one; default
    the scenario's), :meth:`tcpsim.result.Result.run_average_bps`, not the steady state after the transient
    (``result.goodput_bps``; validation/README.md, "A lab row is predicted as the run its tool measured").
    A request/response run reports transactions: its goodput stays the steady state's."""
    if sc.rr_bytes:
        return result.goodput_bps
    return result.run_average_bps(duration_s if duration_s else sc.duration_s)


def path_note(delay_line: str) -> str:
    """One line for the output: how the predicted host's receive path compares with ``lab_vm``'s, the host
    ``tcpsim validate`` scores the lab rows on."""
    if delay_line == "relay":
        return ("predicted host on the lab's path as validate's lab_vm: GSO aggregates carried whole, the TUN "
                f"delay line's paged skbs ({TUN_PAGE_BYTES}-byte pages), its measured latency and relay stage "
                "(python -m tcpsim.lab.pathprobe)")
    veth = "; the receiving stack runs on the sending CPU, as on a veth" if receives_on_sending_cpu(delay_line) else ""
    return (f"predicted host with GSO aggregates carried whole and its own receive skbs: this run's path "
            f"({delay_line}) has no TUN delay line to page them, as validate scores such a row (lab_vm's own profile "
            f"pages every row){veth}")


def predict_lab(sc: LabScenario, sysctls: Mapping[str, str], platform: Optional[Any] = None,
                os_name: Optional[str] = DEFAULT_OS, seed: int = 0, delay_line: str = "none",
                tool: Optional[str] = None, tool_version: str = "", relay: RelayPath = RELAY) -> Result:
    """Simulate ``sc`` as ``tcpsim predict`` would, with the measured kernel's buffer limits, on the path the
    run took (``delay_line``: the measured run's, :func:`host_platform`), read as the run's ``tool`` (of
    ``tool_version``) reads."""
    from ..api import simulate

    host = host_platform(sysctls, platform, os_name, delay_line)
    return simulate(lab_simulation(sc, host, delay_line, seed, tool, tool_version, relay))
