"""The Linux host tcpsim runs on, written as a machine file: ``tcpsim machine detect``.

What the kernel says of its own hardware and settings becomes the parts of a machine file (README,
"Machines made of parts"): the processor from ``/proc/cpuinfo`` (:mod:`tcpsim.machine.cpuid`), its
clock from cpufreq, the network interface's driver, line rate, rings and interrupt coalescing from sysfs
and the ``SIOCETHTOOL`` ioctl (what ``ethtool -i/-g/-c`` print), its PCIe link from sysfs, the kernel's
version and TCP sysctls, and the memory's STREAM Copy measured (:mod:`tcpsim.machine.memprobe`). Each
value is written with where it came from. Nothing is fitted: the per-packet costs are the catalog's
shared ones for these parts, as far off as the cross-validation's machines left out (``predict`` says so);
``tcpsim calibrate --base FILE`` fits them to runs of this host.

Reading (:func:`read_host`) and writing (:func:`render`) are apart, so a test can write the file of any
host from its text alone.
"""

from __future__ import annotations

import array
import datetime
import os
import platform as _platform_mod
import re
import shutil
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Optional

from ..errors import ConfigError
from .cpuid import CpuReport, catalog_cpu_of, microarch_of, parse_cpuinfo

__all__ = ["NicReport", "HostReport", "read_host", "render", "linux_version_part", "pcie_bus_name",
           "default_interface", "NIC_PARTS", "SYSCTLS"]

NIC_PARTS = {"e1000": "e1000", "e1000e": "i219", "igb": "i210", "igc": "i225", "r8169": "rtl8111",
             "ixgb": "ixgb", "ixgbe": "ixgbe", "i40e": "x710", "ice": "e810", "mlx5_core": "connectx5",
             "virtio_net": "virtio-net", "bcmgenet": "genet", "veth": "veth", "tg3": "tg3", "s2io": "s2io"}
"""Linux driver name -> the catalog NIC a machine file starts from (its defaults; the device's own
line rate, rings and coalescing are then written over them)."""

_VIRTUAL = {"virtio_net", "veth", "vmxnet3", "hv_netvsc", "xen-netfront", "tun", "bridge", "bonding", "macvlan",
            "ipvlan", "wireguard", "802.1Q VLAN Support"}
"""Drivers of devices with no bus of their own a DMA crosses (a guest's, or software between namespaces)."""

_ITR_MODES = {"e1000", "e1000e", "igb", "igc"}
"""Drivers whose ``rx-usecs`` of 1-4 is a mode, not microseconds (``igb_get_coalesce``: the dynamic modes
report their number); for them a small value keeps the catalog's delay under bulk load."""

SYSCTLS = ("net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
           "net.ipv4.tcp_limit_output_bytes", "net.ipv4.tcp_autocorking", "net.ipv4.tcp_sack",
           "net.ipv4.tcp_timestamps", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_moderate_rcvbuf",
           "net.ipv4.tcp_tso_win_divisor", "net.ipv4.tcp_congestion_control", "net.core.netdev_max_backlog",
           "net.core.default_qdisc")
"""The sysctls read: those tcpsim's Linux model takes (tcpsim.tuning's knob table)."""

_SIOCETHTOOL = 0x8946
_ETHTOOL_GDRVINFO, _ETHTOOL_GCOALESCE, _ETHTOOL_GRINGPARAM = 0x03, 0x0E, 0x10
_MAX_SYSFS_BYTES = 4096


@dataclass(frozen=True, slots=True)
class NicReport:
    """What the kernel says of one network interface (None: it did not say)."""

    iface: str
    driver: Optional[str]
    speed_mbps: Optional[int]
    mtu: Optional[int]
    pcie_gts: Optional[float] = None
    """PCIe link speed in GT/s per lane (``current_link_speed``)."""
    pcie_width: Optional[int] = None
    rx_ring: Optional[int] = None
    tx_ring: Optional[int] = None
    rx_usecs: Optional[int] = None
    rx_frames: Optional[int] = None
    adaptive_rx: Optional[bool] = None
    rx_queues: Optional[int] = None
    """Receive queues (``queues/rx-*``): more than one, and the NIC spreads connections over CPUs (RSS)."""
    rps_cpus: int = 0
    """The most CPUs one queue's Receive Packet Steering mask names (``queues/rx-*/rps_cpus``; 0: RPS off)."""
    note: str = ""
    """What the file should say of the interface (a bond or VLAN read through its device, a wireless link)."""


@dataclass(frozen=True, slots=True)
class HostReport:
    """Everything :func:`render` needs: the processor, its clock and how it was read, the interface, the
    kernel, its sysctls, and the memory's STREAM Copy (None: not measured)."""

    cpu: CpuReport
    clock_hz: float
    clock_how: str
    nic: Optional[NicReport]
    kernel_release: str
    sysctls: dict[str, str] = field(default_factory=dict)
    copy_bw_Bps: Optional[float] = None
    probes: dict[str, Any] = field(default_factory=dict)
    """Runtime CPU costs the probes measured (``per_syscall_s``, ``wake_cost_s``, ``wake_latency_s``), for
    ``[fixed.cpu]``."""
    probe_notes: tuple[str, ...] = ()
    config_hz: Optional[int] = None
    """The kernel's ``CONFIG_HZ`` (its tick rate, which CUBIC counts time in), None where its config is not readable."""


def _read_small(path: str | Path) -> Optional[str]:
    """A sysfs or procfs file's text, or None where it does not exist or cannot be read."""
    return _read_small_sized(path, _MAX_SYSFS_BYTES)


def _read_small_sized(path: str | Path, limit_bytes: int) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit_bytes).decode("utf-8", "replace").strip()
    except OSError:
        return None


def _int_or_none(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def default_interface(route_text: str) -> Optional[str]:
    """The interface of the default IPv4 route in ``/proc/net/route``'s text (Destination 00000000)."""
    for line in route_text.splitlines()[1:]:
        cols = line.split()
        if len(cols) > 3 and cols[1] == "00000000" and int(cols[3], 16) & 1:
            return cols[0]
    return None


def _gts(speed_text: Optional[str]) -> Optional[float]:
    """GT/s a lane from sysfs's ``current_link_speed`` (``8.0 GT/s PCIe``); None if it says none."""
    m = re.match(r"\s*([0-9.]+)\s*GT/s", speed_text or "")
    return float(m[1]) if m else None


def _pcie(gts: Optional[float], width: Optional[int]) -> Optional[str]:
    """The catalog bus of a PCIe link of ``gts`` a lane and ``width`` lanes; None if unknown."""
    gen = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 5}.get(gts or 0.0)
    lanes = max((n for n in (1, 2, 4, 8, 16) if n <= (width or 0)), default=None)
    return f"pcie-gen{gen}-x{lanes}" if gen and lanes else None


def pcie_bus_name(speed_text: Optional[str], width_text: Optional[str]) -> Optional[str]:
    """The catalog bus of a PCIe link from sysfs (``8.0 GT/s PCIe``, ``4`` -> ``pcie-gen3-x4``); None if unknown."""
    return _pcie(_gts(speed_text), _int_or_none(width_text))


def linux_version_part(release: str) -> tuple[str, str]:
    """The OS part of kernel ``release`` and the reason: its own release (``6.18.4-arch1`` -> ``linux-6.18``,
    ``2.6.32-754.el6`` -> the named ``linux-2.6``; :func:`tcpsim.os_versions.linux_release`), or outside the range
    tcpsim takes, the newest of its named Linux versions not newer than it."""
    from ..os_versions import LINUX_VERSIONS, os_entry

    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", release)
    if not m:
        raise ConfigError("kernel release", release, "a Linux release such as 6.8.0-45-generic")
    host = (int(m[1]), int(m[2]))
    own = host + ((int(m[3]),) if m[3] and host < (3, 0) else ())  # 2.6's releases differ in the third number
    version = ".".join(map(str, own))
    named = {tcp.version: name for name, tcp in LINUX_VERSIONS.items()}
    name = named.get(version, f"linux-{version}")
    try:
        os_entry(name)
        return name, f"the running kernel's release ({release})"
    except ConfigError:
        pass
    known = sorted((tcp.version_tuple, name) for name, tcp in LINUX_VERSIONS.items())
    older = [name for ver, name in known if ver <= own]
    name = older[-1] if older else "linux-2.4"
    return name, f"tcpsim's newest Linux rules not newer than the running kernel {release}"


_MAX_KERNEL_CONFIG_BYTES = 4 << 20
"""A kernel's config is some 250 KB; more than this is not one."""


def config_hz(config_text: str) -> Optional[int]:
    """``CONFIG_HZ`` from a kernel config's text, or None where it is not set."""
    m = re.search(r"^CONFIG_HZ=(\d+)$", config_text, re.M)
    return int(m[1]) if m else None


def read_config_hz(release: str) -> Optional[int]:
    """The running kernel's ``CONFIG_HZ``: ``/proc/config.gz`` (``CONFIG_IKCONFIG_PROC``), else
    ``/boot/config-RELEASE``; None where neither is readable."""
    import gzip

    try:
        with gzip.open("/proc/config.gz", "rb") as fh:
            return config_hz(fh.read(_MAX_KERNEL_CONFIG_BYTES).decode("utf-8", "replace"))
    except (OSError, EOFError):
        pass
    text = _read_small_sized(f"/boot/config-{release}", _MAX_KERNEL_CONFIG_BYTES)
    return config_hz(text) if text else None


def _ethtool(iface: str, cmd: int, size_bytes: int) -> Optional[bytes]:
    """The ``SIOCETHTOOL`` answer to ``cmd`` for ``iface`` (None where the driver or the OS refuses)."""
    import fcntl
    import socket
    import struct

    buf = array.array("B", struct.pack("I", cmd) + bytes(size_bytes - 4))
    ifreq = struct.pack("16sP16x", iface.encode()[:15], buf.buffer_info()[0])
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            fcntl.ioctl(s.fileno(), _SIOCETHTOOL, ifreq)
    except OSError:
        return None
    return buf.tobytes()


def _u32s(data: Optional[bytes]) -> Optional[tuple[int, ...]]:
    import struct

    return struct.unpack(f"{len(data) // 4}I", data) if data else None


def read_nic(iface: str, sys_net: str = "/sys/class/net", _depth: int = 0) -> NicReport:
    """The :class:`NicReport` of ``iface`` on this host; ConfigError if there is no such interface. A bond, VLAN
    or bridge with no device of its own is read through its first lower device (``lower_*`` in sysfs)."""
    base = Path(sys_net) / iface
    if not iface or "/" in iface or not base.exists():
        have = sorted(p.name for p in Path(sys_net).iterdir()) if Path(sys_net).is_dir() else []
        raise ConfigError("iface", iface, "an interface of this host (" + ", ".join(have) + ")")
    lowers = sorted(p.name[len("lower_"):] for p in base.glob("lower_*"))
    if not (base / "device").exists() and lowers and _depth < 4:
        lower = read_nic(lowers[0], sys_net, _depth + 1)
        return replace(lower, note=f"{iface} has no device of its own: described by {lowers[0]}'s, under it"
                                   + (f"; {lower.note}" if lower.note else ""))
    wireless = (base / "wireless").exists() or (base / "phy80211").exists()
    driver = None
    link = base / "device" / "driver"
    if link.exists():
        driver = os.path.basename(os.readlink(link))
    info = _ethtool(iface, _ETHTOOL_GDRVINFO, 196)
    if driver is None and info:
        driver = info[4:36].split(b"\0")[0].decode("ascii", "replace") or None
    speed = _int_or_none(_read_small(base / "speed"))
    rings = _u32s(_ethtool(iface, _ETHTOOL_GRINGPARAM, 36))
    coal = _u32s(_ethtool(iface, _ETHTOOL_GCOALESCE, 92))
    dev = base / "device"
    gts, width = _gts(_read_small(dev / "current_link_speed")), _read_small(dev / "current_link_width")
    rx_queues, rps_cpus = _queues(base)
    return NicReport(iface=iface, driver=driver, speed_mbps=speed if speed and speed > 0 else None,
                     mtu=_int_or_none(_read_small(base / "mtu")), pcie_gts=gts,
                     pcie_width=_int_or_none(width),
                     rx_ring=rings[5] if rings and rings[5] else None, tx_ring=rings[8] if rings and rings[8] else None,
                     rx_usecs=coal[1] if coal else None, rx_frames=coal[2] if coal else None,
                     adaptive_rx=bool(coal[10]) if coal else None, rx_queues=rx_queues, rps_cpus=rps_cpus,
                     note="a wireless interface: tcpsim models a wired Ethernet link at the rate the card reports, "
                          "not the air's contention or retries" if wireless else "")


def _queues(base: Path) -> tuple[Optional[int], int]:
    """Receive queues of the interface at ``base`` and the most CPUs any queue's RPS mask steers to
    (``rps_cpus``, hexadecimal words separated by commas; ``net/core/net-sysfs.c``)."""
    rx = sorted((base / "queues").glob("rx-*")) if (base / "queues").is_dir() else []
    steered = 0
    for q in rx:
        mask = _read_small(q / "rps_cpus") or ""
        try:
            steered = max(steered, sum(bin(int(word, 16)).count("1") for word in mask.split(",") if word))
        except ValueError:
            continue
    return (len(rx) or None), steered


def _clock(cpu: CpuReport) -> tuple[float, str]:
    """The clock a busy core runs at: cpufreq's maximum where the kernel has cpufreq, else ``cpu MHz``."""
    khz = _int_or_none(_read_small("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
    if khz:
        return khz * 1e3, "cpufreq cpuinfo_max_freq (the clock a busy core reaches)"
    if cpu.clock_hz:
        return cpu.clock_hz, "/proc/cpuinfo cpu MHz (no cpufreq: a virtual machine's or a fixed clock)"
    return 2e9, "assumed: the kernel reports no clock (set [cpu] clock_hz)"


WAKE_GAPS_S = (1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 2e-3)
"""The waker's spin between writes for the wake-up cost table: ``lab_vm``'s gaps (validation/README.md, "A
wake-up's cost by how long since the last")."""


def measure_probes(count: int = 300, read_s: float = 1.0, latency: bool = True, spin: bool = False
                   ) -> tuple[dict[str, Any], list[str]]:
    """What needs no network and a few seconds: a system call (``tcpsim.lab.callprobe``'s EAGAIN ``send``:
    ``per_syscall_s``), a saturated reader's read (``tcpsim.lab.readprobe``: ``per_syscall_rx_s``, three passes of
    ``read_s``) and what waking a process costs the CPU that wakes it, by the time since the last wake-up
    (``tcpsim.lab.wakeprobe``'s ``--waker`` sets: ``wake_cost_s``); with ``latency``, how late the woken process runs
    (its latency sets: ``wake_latency_s``, about five seconds more; it helped a half-pace Zen 3 VM and a Xeon VM, and
    not a fast Zen 5 one: validation/README.md, "What the latency gave on a third core"), with notes for the file. Where
    root, network namespaces and iperf3 allow, the write and the read are then taken as iperf3's processes spend them
    (:func:`tcpsim.lab.rxtrace.iperf3_call_costs`, a 4-s lab run), which on a machine tcpsim never saw predicted
    better than the two probes' (validation/README.md, "The tools' own costs judged again, the goodput first").
    With ``spin`` the latency sets' waker spins each gap and waits for each wake-up, from 10 us of idle on
    (``wakeprobe --spin``): after step 2 it predicted request/response and CPU-bound rows better on a VM
    (validation/README.md, "What step 2 from the short idles gave"); from the parts alone it cost CPU-bound rows, so it
    is not the default (rule 161)."""
    from ..lab.callprobe import probe_calls
    from ..lab.readprobe import read_cost
    from ..lab.wakeprobe import LATENCY_GAPS_S, SPIN_LATENCY_GAPS_S, probe_wake, wake_table, waker_sets, waker_table

    calls = probe_calls(passes=3)
    out: dict[str, Any] = {"per_syscall_s": calls["send_s"]}
    notes = [f"per_syscall_s: python -m tcpsim.lab.callprobe's EAGAIN send ({calls['note']})"]
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return out, notes + ["per_syscall_rx_s, wake_cost_s and wake_latency_s not measured: this process may run "
                             "on one CPU only"]
    reads = read_cost(seconds=read_s)
    if reads["per_syscall_rx_s"] is not None:
        out["per_syscall_rx_s"] = reads["per_syscall_rx_s"]
    notes.append(f"per_syscall_rx_s: python -m tcpsim.lab.readprobe ({reads['note']})")
    table = waker_table(waker_sets(WAKE_GAPS_S, count, (cpus[0], cpus[1])))
    out["wake_cost_s"] = [[gap, float(f"{max(0.0, cost):.3g}")] for gap, cost in table]
    notes.append(f"wake_cost_s: python -m tcpsim.lab.wakeprobe --waker, {count} writes a placement and gap (by the "
                 "time since the last wake-up; the stall tail is not measured: README)")
    if latency:
        try:
            gaps = SPIN_LATENCY_GAPS_S if spin else LATENCY_GAPS_S
            late = wake_table([probe_wake(gap, count, (cpus[0], cpus[1]), spin) for gap in gaps])
        except (OSError, RuntimeError) as exc:  # a fork or pipe refused, or a reader that returned nothing
            notes.append(f"wake_latency_s not measured ({exc}): wake-ups run on time")
        else:
            out["wake_latency_s"] = [[gap, float(f"{lateness:.3g}")] for gap, lateness in late]
            how = (" --spin, the waker spinning each gap and waiting for each wake-up, from 10 us of idle" if spin
                   else "")
            notes.append(f"wake_latency_s: python -m tcpsim.lab.wakeprobe{how}, {count} wake-ups a gap (how late a "
                         "process blocked in read runs, woken from the other CPU: the median; its spread is not "
                         "measured)")
    else:
        notes.append("wake_latency_s not measured: wake-ups run on time (tcpsim machine detect --probes measures it "
                     "unless told --no-wake-latency; it helped two VMs of three: README)")
    tools, how = _iperf3_costs()
    if tools:
        out.update(tools)
        notes = [n for n in notes if not n.startswith(("per_syscall_s:", "per_syscall_rx_s:"))]
        notes.insert(0, f"per_syscall_s, per_syscall_rx_s: {how}")
    else:
        notes.append(f"per_syscall_s, per_syscall_rx_s are the probes', not iperf3's own: {how}")
    return out, notes


def _iperf3_costs() -> tuple[Optional[dict[str, float]], str]:
    """iperf3's write and read (:func:`tcpsim.lab.rxtrace.iperf3_call_costs`) where this host can run them, else
    None and what is missing."""
    from ..lab.rxtrace import iperf3_call_costs
    from ..lab.testbed import missing_requirement

    missing = missing_requirement() or (None if shutil.which("iperf3") else "iperf3 is not installed")
    if missing:
        return None, missing
    return iperf3_call_costs()


def read_host(iface: Optional[str] = None, *, measure_memory: bool = True, probes: bool = False,
              wake_latency: bool = True, spin: bool = False) -> HostReport:
    """This host's :class:`HostReport`: ``iface`` (default: the default route's interface, if any), the
    memory's STREAM Copy measured unless ``measure_memory`` is False (a few seconds), and with ``probes`` a system
    call's and a wake-up's costs (:func:`measure_probes`, some seconds more; ``wake_latency``: how late a woken
    process runs, too, after short idles as well with ``spin``)."""
    if _platform_mod.system() != "Linux":
        raise ConfigError("machine detect", _platform_mod.system(),
                          "run on Linux (it reads /proc and /sys); elsewhere write the machine file by hand (README)")
    cpu = parse_cpuinfo(_read_small_limited("/proc/cpuinfo"), _platform_mod.machine())
    clock_hz, how = _clock(cpu)
    if iface is None:
        iface = default_interface(_read_small_limited("/proc/net/route"))
    nic = read_nic(iface) if iface else None
    sysctls = {}
    for name in SYSCTLS:
        value = _read_small("/proc/sys/" + name.replace(".", "/"))
        if value is not None:
            sysctls[name] = " ".join(value.split())
    bw = None
    if measure_memory:
        from .memprobe import stream_copy_Bps

        bw = stream_copy_Bps()
    measured, notes = measure_probes(latency=wake_latency, spin=spin) if probes else ({}, [])
    release = _platform_mod.release()
    return HostReport(cpu=cpu, clock_hz=clock_hz, clock_how=how, nic=nic, kernel_release=release,
                      sysctls=sysctls, copy_bw_Bps=bw, probes=measured, probe_notes=tuple(notes),
                      config_hz=read_config_hz(release))


def _read_small_limited(path: str) -> str:
    from ..fileio import read_text_limited

    return read_text_limited(path, path)


# -- writing ---------------------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}" if "e" in f"{value:.6g}" or "." in f"{value:.6g}" else f"{value:.6g}.0"
    return str(value)


def _table(name: str, rows: list[tuple[str, Any, str]]) -> list[str]:
    out = [f"[{name}]"]
    for key, value, note in rows:
        line = f"{key} = {_toml(value)}"
        out.append(f"{line:<34s} # {note}" if note else line)
    return out + [""]


def _cpu_rows(h: HostReport) -> list[tuple[str, Any, str]]:
    """The ``[cpu]`` rows: the catalog's part where it has the model, with what this host reports otherwise."""
    from .lookup import cpu_part

    c = h.cpu
    clock_hz, clock_how = (h.clock_hz, h.clock_how) if 1e6 <= h.clock_hz <= 1e11 else (2e9, "assumed: the kernel's "
                                                                                      "figure is no clock")
    counts = [("sockets", min(c.sockets, 1024), "/proc/cpuinfo physical id"),
              ("cores_per_socket", min(c.cores_per_socket, 1024), "/proc/cpuinfo cpu cores (or processors / sockets)"),
              ("threads_per_core", min(c.threads_per_core, 16), "/proc/cpuinfo siblings / cpu cores")]
    known = catalog_cpu_of(c)
    if known:
        part = cpu_part(known)
        rows: list[tuple[str, Any, str]] = [("part", known, f"model {c.model_name!r}: the catalog's")]
        if abs(clock_hz - part.clock_hz) > 0.01 * part.clock_hz:
            rows.append(("clock_hz", float(f"{clock_hz:.4g}"), clock_how))
        return rows + [row for row in counts if row[1] != getattr(part, row[0])]
    arch, how = microarch_of(c)
    return [("isa", c.isa, "uname -m"), ("microarch", arch, how), ("clock_hz", float(f"{clock_hz:.4g}"), clock_how),
            *counts, ("source", f"detected: {c.model_name} ({c.logical_cpus} logical CPUs)", "")]


def _nic_rows(n: NicReport) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """The ``[nic]`` rows for the interface, and notes for the file's header."""
    from .lookup import nic_part, part_names

    notes: list[str] = [n.note] if n.note else []
    known = NIC_PARTS.get(n.driver or "")
    known = known if known in part_names("nic") else None
    rows: list[tuple[str, Any, str]] = []
    if known:
        base = nic_part(known)
        rows.append(("part", known, f"driver {n.driver}: the catalog's {known}; where this device differs, below"))
    else:
        base = None
        rows += [("driver_class", n.driver or "unknown",
                  f"driver {n.driver or 'not reported'}: not in the catalog; its per-packet costs are the OS row's")]
        notes.append(f"NIC driver {n.driver or '(none reported)'} is not in tcpsim's catalog: coalescing, rings and "
                     "offloads below are what the device reports or defaults")
    virtual = (n.driver or "") in _VIRTUAL
    if n.speed_mbps and not virtual and n.speed_mbps <= 10_000_000:  # a larger figure is no line rate
        rate = n.speed_mbps * 1e6
        if base is None or rate != base.port_rate_bps:
            rows.append(("port_rate_bps", rate, f"/sys/class/net/{n.iface}/speed (the negotiated line rate)"))
    elif base is None:
        rows.append(("port_rate_bps", 0.0 if virtual else 1e9,
                     "a software device: no line rate" if virtual else "assumed: the link reports no speed"))
    for key, value in (("rx_ring_packets", n.rx_ring), ("tx_ring_packets", n.tx_ring)):
        if value and (base is None or value != getattr(base, key)):
            rows.append((key, min(value, 1 << 20), "ethtool -g (SIOCETHTOOL): this device's ring"))
    rows += _coalesce_rows(n, base, virtual)
    rows += _spread_rows(n, base)
    return rows, notes


def _spread_rows(n: NicReport, base: Any) -> list[tuple[str, Any, str]]:
    """``interrupts_spread`` where the device says otherwise than its part: several receive queues spread
    connections over CPUs by their hash (RSS), an RPS mask of several CPUs spreads their stack work; one queue
    without RPS keeps every connection's receive work on the CPU its interrupt goes to."""
    if n.rx_queues is None:
        return []
    spread = n.rx_queues > 1 or n.rps_cpus > 1
    if base is not None and spread == base.interrupts_spread:
        return []
    said = f"/sys/class/net/{n.iface}/queues: {n.rx_queues} receive queue(s)" + (
        f", RPS over {n.rps_cpus} CPUs" if n.rps_cpus > 1 else ", RPS off" if n.rps_cpus == 0 else "")
    return [("interrupts_spread", spread, said)]


def _coalesce_rows(n: NicReport, base: Any, virtual: bool) -> list[tuple[str, Any, str]]:
    said = f"ethtool -c: rx-usecs {n.rx_usecs}, rx-frames {n.rx_frames}, adaptive-rx {'on' if n.adaptive_rx else 'off'}"
    if virtual:  # ethtool's 0 us / 1 frame on a virtio queue says nothing of NAPI's batching: the catalog's
        return [] if base is not None else [("coalesce_style", "none", "a software device: no interrupt timer")]
    if n.rx_usecs is None:
        if base is None:
            return [("coalesce_style", "per-packet", "assumed: the driver reports no coalescing")]
        return []
    if n.adaptive_rx or (n.driver in _ITR_MODES and 1 <= n.rx_usecs <= 4):
        if base is None:
            return [("coalesce_style", "absolute", said), ("coalesce_delay_s", 50e-6, "assumed under bulk load"),
                    ("coalesce_packets", 32, "assumed")]
        return [("coalesce_delay_s", base.coalesce_delay_s,
                 f"{said}: the driver picks the delay; the catalog's under bulk load")]
    if n.rx_usecs == 0 and (n.rx_frames or 0) <= 1:
        return [("coalesce_style", "per-packet", said), ("coalesce_delay_s", 0.0, said)]
    rows: list[tuple[str, Any, str]] = [("coalesce_delay_s", min(n.rx_usecs * 1e-6, 0.1), said)]
    if n.rx_frames:
        rows.append(("coalesce_packets", max(1, min(4096, n.rx_frames)), said))
    if base is None:
        rows.insert(0, ("coalesce_style", "absolute", said))
    return rows


def _bus_rows(n: Optional[NicReport]) -> list[tuple[str, Any, str]]:
    if n is None or (n.driver or "") in _VIRTUAL:
        return [("part", "none", "no physical bus between this interface and memory (a virtual device)"
                 if n else "no interface read")]
    name = _pcie(n.pcie_gts, n.pcie_width)
    if name is None:
        return [("part", "none", "no PCIe link reported (a device on the SoC, or not PCIe): no bus modelled")]
    return [("part", name, f"/sys/class/net/{n.iface}/device current_link_speed {n.pcie_gts} GT/s, "
                           f"width x{n.pcie_width} (the negotiated link)")]


def _os_rows(h: HostReport) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """The ``[os]`` rows: the version's part, then what this kernel's sysctls change of its defaults."""
    from ..os_versions import os_entry
    from ..platform import Platform
    from ..tuning import apply_tuning, parse_tuning

    name, why = linux_version_part(h.kernel_release)
    entry = os_entry(name)
    title = f"{entry.tcp.name}, this host's sysctls (kernel {h.kernel_release})"
    rows: list[tuple[str, Any, str]] = [("part", name, why), ("name", title, "")]
    if h.config_hz is not None and h.config_hz != entry.tcp.hz:
        rows.append(("hz", h.config_hz, "CONFIG_HZ (this kernel's config)"))
    text = "\n".join(f"{k} = {v}" for k, v in h.sysctls.items())
    notes: list[str] = []
    if not text:
        return rows, notes
    res = apply_tuning(replace(Platform(), os=entry.tcp), parse_tuning(text, "<host sysctls>"), "<host sysctls>")
    tcp = res.platform.os
    for f in fields(tcp):
        new, old = getattr(tcp, f.name), getattr(entry.tcp, f.name)
        if new != old and new is not None and f.name != "name":
            rows.append((f.name, new, "sysctl (this host)"))
    if res.platform.nic.backlog_packets != entry.backlog_packets:
        rows.append(("backlog_packets", res.platform.nic.backlog_packets, "net.core.netdev_max_backlog"))
    notes += [f"{k.text}: {effect}" for k, effect in res.effects if effect.startswith("ignored")]
    return rows, notes


VM_NOTE = ("a virtual machine (/proc/cpuinfo flag hypervisor): its vCPUs can run the kernel's work slower or faster "
           "than its clock says (three Xeon VMs of one core: validation/README.md, \"What the fourth machine gave\"); "
           "tcpsim machine show FILE sets a measured write beside the catalog's (per_syscall_s's residual), and "
           "tcpsim calibrate --base FILE fits the rest")
"""The header's note for a guest: the catalog's cycles at the clock the guest is told are a host's, not a vCPU's."""


def render(h: HostReport, name: str = "detected", today: Optional[datetime.date] = None) -> str:
    """The machine file (TOML text) of host report ``h``."""
    day = (today or datetime.date.today()).isoformat()
    nic_rows, nic_notes = _nic_rows(h.nic) if h.nic else ([("part", "modern-nic", "no interface read")], [])
    os_rows, os_notes = _os_rows(h)
    if h.copy_bw_Bps:
        probe = "python -m tcpsim.machine.memprobe: one thread's STREAM Copy"
        mem = [("copy_bw_Bps", float(f"{h.copy_bw_Bps:.3g}"), probe),
               ("source", f"measured on this host by tcpsim machine detect on {day}", "")]
    else:
        mem = [("part", "ddr4-server", "ASSUMED, not measured (detect --no-memory-probe): run "
                                       "python -m tcpsim.machine.memprobe and set copy_bw_Bps")]
    header = [f"# Written by tcpsim machine detect on {day} from what this host reports; nothing in it was fitted.",
              "# Its per-packet costs are the catalog's shared ones for these parts (tcpsim machine show FILE says",
              "# which); fit them to runs of this host with tcpsim calibrate --base FILE (README, \"Calibrate the",
              "# machine in front of you\"). Every value below can be edited; the comment says where it came from."]
    header += [f"# note: {n}" for n in nic_notes + os_notes + ([VM_NOTE] if "hypervisor" in h.cpu.flags else [])]
    iface = f"; interface {h.nic.iface}: {h.nic.driver or 'driver not reported'}" if h.nic else ""
    prov = [("hardware", f"{h.cpu.model_name}, {h.cpu.logical_cpus} logical CPUs{iface}", ""),
            ("os", f"Linux {h.kernel_release}", ""),
            ("source", "tcpsim machine detect (/proc/cpuinfo, cpufreq, /sys/class/net, SIOCETHTOOL, /proc/sys)", "")]
    lines = header + ["", f"name = {_toml(name)}", ""] + _table("provenance", prov) + _table("cpu", _cpu_rows(h))
    lines += _table("memory", mem) + _table("bus", _bus_rows(h.nic)) + _table("nic", nic_rows) + _table("os", os_rows)
    if h.probes:
        lines += ["# Measured on this host by tcpsim machine detect --probes, not fitted:"]
        lines += [f"# {n}" for n in h.probe_notes]
        lines += _table("fixed.cpu", [(k, v, "") for k, v in h.probes.items()])
    return "\n".join(lines).rstrip() + "\n"
