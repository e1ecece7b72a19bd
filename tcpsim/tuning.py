"""Read the tuning files users already have and map each knob onto the model, with its OS's semantics.

Accepted, in any mix: ``sysctl.conf`` lines (``net.core.rmem_max = 4194304``), ``sysctl -w name=value``,
Solaris ``ndd -set /dev/tcp name value``, Tru64 ``sysconfig -r inet name=value ...``, FreeBSD sysctl
names, Windows registry values (``TcpWindowSize = 131400``), ``ifconfig IF mtu N`` and an Intel ``ixgb``
``modprobe`` line. Shell noise from the sources' scripts (``#!``, ``rmmod``, ``ifup``, ``ifconfig IF
up|down``) is skipped; any other unknown line is an error naming its line number.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Optional

from .errors import TuningFileError
from .platform import Platform

__all__ = ["Knob", "TuningResult", "parse_tuning", "apply_tuning", "KNOWN_KNOBS", "IGNORED_KNOBS"]


@dataclass(frozen=True)
class Knob:
    """One setting from a tuning file."""

    name: str
    value: str
    line_no: int
    text: str


@dataclass(frozen=True)
class TuningResult:
    """A platform with the knobs applied, the MTU if a line set one, and what each knob did."""

    platform: Platform
    mtu_bytes: Optional[int]
    effects: tuple[str, ...]


def _ints(value: str) -> list[int]:
    return [int(float(v)) for v in value.replace(",", " ").split()]


def _one(value: str) -> int:
    nums = _ints(value)
    if len(nums) != 1:
        raise ValueError("expects one number")
    return nums[0]


Setter = Callable[[Platform, str], tuple[Platform, str]]


def _set_os(field: str, convert=_one, what: str = "") -> Setter:
    def apply(p: Platform, value: str) -> tuple[Platform, str]:
        v = convert(value)
        return replace(p, os=replace(p.os, **{field: v})), f"{field} = {v}{what}"
    return apply


def _set_nic(field: str, convert=_one, what: str = "") -> Setter:
    def apply(p: Platform, value: str) -> tuple[Platform, str]:
        v = convert(value)
        return replace(p, nic=replace(p.nic, **{field: v})), f"nic.{field} = {v}{what}"
    return apply


def _linux_triple(field: str) -> Setter:
    """``tcp_rmem``/``tcp_wmem`` "min default max": the default is what an unset socket gets.

    With one number it is taken as the default; with two (as the 10 GbE report's kernel script writes
    them) as min and default.
    """
    def apply(p: Platform, value: str) -> tuple[Platform, str]:
        nums = _ints(value)
        if not 1 <= len(nums) <= 3:
            raise ValueError("expects 1 to 3 numbers")
        default = nums[0] if len(nums) == 1 else nums[1]
        return replace(p, os=replace(p.os, **{field: default})), f"{field} = {default} (tcp_[rw]mem default)"
    return apply


def _flag(field: str) -> Setter:
    def apply(p: Platform, value: str) -> tuple[Platform, str]:
        v = _one(value) != 0
        return replace(p, os=replace(p.os, **{field: v})), f"{field} = {v}"
    return apply


def _both_buffers(p: Platform, value: str) -> tuple[Platform, str]:
    v = _one(value)
    return replace(p, os=replace(p.os, default_sndbuf_bytes=v, default_rcvbuf_bytes=v)), f"default buffers = {v}"


def _ms(value: str) -> float:
    return _one(value) / 1000.0


def _rx_int_delay(value: str) -> float:
    return _one(value) * 1.024e-6  # ixgb RxIntDelay is in units of 1.024 us


def _tcp1323(p: Platform, value: str) -> tuple[Platform, str]:
    v = _one(value)
    os = replace(p.os, window_scaling=bool(v & 1), timestamps=bool(v & 2))
    return replace(p, os=os), f"window_scaling = {bool(v & 1)}, timestamps = {bool(v & 2)}"


def _naglim(value: str) -> int:
    return _one(value)


KNOWN_KNOBS: dict[str, Setter] = {
    # Linux (socket(7), tcp(7))
    "net.core.rmem_max": _set_os("max_sockbuf_bytes", what=" (cap on SO_RCVBUF)"),
    "net.core.wmem_max": _set_os("max_sndbuf_bytes", what=" (cap on SO_SNDBUF)"),
    "net.ipv4.tcp_rmem": _linux_triple("default_rcvbuf_bytes"),
    "net.ipv4.tcp_wmem": _linux_triple("default_sndbuf_bytes"),
    "net.ipv4.tcp_adv_win_scale": _set_os("adv_win_scale"),
    "net.ipv4.tcp_sack": _flag("sack"),
    "net.ipv4.tcp_timestamps": _flag("timestamps"),
    "net.ipv4.tcp_window_scaling": _flag("window_scaling"),
    "net.core.netdev_max_backlog": _set_nic("backlog_packets"),
    # Solaris ndd /dev/tcp
    "tcp_xmit_hiwat": _set_os("default_sndbuf_bytes"),
    "tcp_recv_hiwat": _set_os("default_rcvbuf_bytes"),
    "tcp_max_buf": _set_os("max_sockbuf_bytes"),
    "tcp_naglim_def": _set_os("naglim_bytes", convert=_naglim),
    "tcp_deferred_acks_max": _set_os("deferred_acks_max"),
    "tcp_local_dacks_max": _set_os("deferred_acks_max"),
    "tcp_deferred_ack_interval": _set_os("delack_timeout_s", convert=_ms),
    "tcp_local_dack_interval": _set_os("delack_timeout_s", convert=_ms),
    "tcp_maxpsz_multiplier": _set_os("maxpsz_multiplier"),
    # Tru64 sysconfig inet
    "tcp_sendspace": _set_os("default_sndbuf_bytes"),
    "tcp_recvspace": _set_os("default_rcvbuf_bytes"),
    # FreeBSD
    "kern.ipc.maxsockbuf": _set_os("max_sockbuf_bytes"),
    "net.inet.tcp.sendspace": _set_os("default_sndbuf_bytes"),
    "net.inet.tcp.recvspace": _set_os("default_rcvbuf_bytes"),
    "net.inet.tcp.rfc1323": _flag("window_scaling"),
    # Windows (HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters)
    "TcpWindowSize": _both_buffers,
    "Tcp1323Opts": _tcp1323,
    # Intel ixgb driver module options
    "RxIntDelay": _set_nic("coalesce_delay_s", convert=_rx_int_delay),
    "RxDescriptors": _set_nic("rx_ring_packets"),
    "TxDescriptors": _set_nic("tx_ring_packets"),
    "XsumRX": _set_nic("checksum_offload", convert=lambda v: _one(v) != 0),
    "XsumTX": _set_nic("checksum_offload", convert=lambda v: _one(v) != 0),
}

IGNORED_KNOBS: dict[str, str] = {
    "net.core.rmem_default": "the tcp_rmem default overrides it for TCP sockets",
    "net.core.wmem_default": "the tcp_wmem default overrides it for TCP sockets",
    "net.core.optmem_max": "ancillary buffers: no effect on a TCP stream",
    "net.ipv4.tcp_mem": "global memory pressure limits: not reached in these runs",
    "net.ipv4.tcp_tw_recycle": "TIME-WAIT handling: no effect on an open connection",
    "net.ipv4.tcp_tw_reuse": "TIME-WAIT handling: no effect on an open connection",
    "kern.ipc.nmbclusters": "mbuf pool size: not modelled (assumed large enough)",
    "ForwardBufferMemory": "router forwarding buffers: not on the path of a host's TCP stream",
    "NumForwardPackets": "router forwarding buffers: not on the path of a host's TCP stream",
}

_SHELL_NOISE = re.compile(r"^(#!|rmmod\b|ifup\b|ifdown\b|modprobe\s+\S+\s*$|ifconfig\s+\S+\s+(up|down)\s*$)")
_SYSCTL = re.compile(r"^(?:sysctl\s+(?:-w\s+)?)?([A-Za-z0-9_.]+)\s*=\s*\"?([^\"]*)\"?\s*$")
_NDD = re.compile(r"^ndd\s+-set\s+/dev/(?:tcp|ip)\s+(\S+)\s+(\S+)\s*$")
_IFCONFIG_MTU = re.compile(r"^ifconfig\s+\S+\s+(?:ip)?mtu\s+(\d+)")


def _split_statements(line: str) -> list[str]:
    return [s.strip() for s in line.split(";") if s.strip()]


def parse_tuning(text: str, path: str = "<tuning>") -> list[Knob]:
    """The knobs a tuning file sets, in order; unknown lines raise :class:`TuningFileError`."""
    knobs: list[Knob] = []
    pending = ""
    pending_no = 0
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if pending:
            line = pending + " " + line
            line_no = pending_no
            pending = ""
        if not line or (line.startswith("#") and not line.startswith("#!")):
            continue
        if line.count('"') % 2 == 1:  # a quoted value continued on the next line
            pending, pending_no = line, line_no
            continue
        for stmt in _split_statements(line):
            knobs.extend(_parse_statement(stmt, line_no, path))
    if pending:
        raise TuningFileError(path, pending_no, pending, "unterminated quote")
    return knobs


def _parse_statement(stmt: str, line_no: int, path: str) -> list[Knob]:
    if _SHELL_NOISE.match(stmt):
        return []
    m = _IFCONFIG_MTU.match(stmt)
    if m:
        return [Knob("mtu", m.group(1), line_no, stmt)]
    if stmt.startswith("ifconfig"):
        return []
    m = _NDD.match(stmt)
    if m:
        return [_known(Knob(m.group(1), m.group(2), line_no, stmt), path)]
    if stmt.startswith("sysconfig"):
        words = shlex.split(stmt)
        pairs = [w for w in words[3:] if "=" in w]
        if len(words) < 4 or words[1] != "-r" or not pairs:
            raise TuningFileError(path, line_no, stmt, "expected 'sysconfig -r SUBSYSTEM name=value ...'")
        return [_known(Knob(n, v, line_no, stmt), path) for n, v in (p.split("=", 1) for p in pairs)]
    if stmt.startswith("modprobe"):
        words = shlex.split(stmt)
        return [_known(Knob(n, v, line_no, stmt), path) for n, v in (w.split("=", 1) for w in words[2:] if "=" in w)]
    if re.match(r"^[A-Z][A-Za-z0-9]+=\S+(\s+[A-Z][A-Za-z0-9]+=\S+)*$", stmt) and " " in stmt:
        return [_known(Knob(n, v, line_no, stmt), path) for n, v in (w.split("=", 1) for w in stmt.split())]
    m = _SYSCTL.match(stmt)
    if m:
        return [_known(Knob(m.group(1), m.group(2).strip(), line_no, stmt), path)]
    raise TuningFileError(path, line_no, stmt, "not a sysctl, ndd, sysconfig, modprobe, ifconfig or registry line")


def _known(knob: Knob, path: str) -> Knob:
    if knob.name not in KNOWN_KNOBS and knob.name not in IGNORED_KNOBS:
        raise TuningFileError(path, knob.line_no, knob.text, f"unknown knob {knob.name!r}")
    return knob


def apply_tuning(platform: Platform, knobs: Iterable[Knob], path: str = "<tuning>") -> TuningResult:
    """``platform`` with every knob applied in order (later lines win), and what each did."""
    effects: list[str] = []
    mtu = None
    for k in knobs:
        if k.name == "mtu":
            mtu = int(k.value)
            effects.append(f"line {k.line_no}: MTU = {mtu}")
            continue
        if k.name in IGNORED_KNOBS:
            effects.append(f"line {k.line_no}: {k.name} ignored: {IGNORED_KNOBS[k.name]}")
            continue
        try:
            platform, what = KNOWN_KNOBS[k.name](platform, k.value)
        except (ValueError, TypeError) as exc:
            raise TuningFileError(path, k.line_no, k.text, f"bad value for {k.name}: {exc}") from None
        effects.append(f"line {k.line_no}: {k.name}: {what}")
    return TuningResult(platform=platform, mtu_bytes=mtu, effects=tuple(effects))
