"""What stops a socket buffer from growing, and the tuning-file lines that move it.

Advice to raise a buffer is only useful if the OS lets the buffer grow: a ``setsockopt`` request is capped
(Linux ``[rw]mem_max``, Solaris ``tcp_max_buf`` ...), a buffer left to autotuning stops at its maximum
(Linux ``tcp_[rw]mem[2]``, FreeBSD ``net.inet.tcp.{send,recv}buf_max``), and without window scaling no
buffer opens the window past 64 KiB (RFC 7323 §2.2). :func:`buffer_plan` names what is in the way on each
end, as lines a ``--sysctl`` file takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Host, Scenario
from ..platform import OsTcp
from .knobs import KNOBS

__all__ = ["BufferPlan", "buffer_plan", "cap_knob", "knob_line"]

_MAX_BUFFER_BYTES = 1 << 31
"""The largest buffer a knob takes (an int in the kernels' sysctl tables)."""


def cap_knob(os: OsTcp, send: bool) -> str:
    """The knob that caps a ``setsockopt`` buffer request on ``os`` (``send``: ``SO_SNDBUF``)."""
    name = os.name.lower()
    if os.family == "linux":
        return "net.core.wmem_max" if send else "net.core.rmem_max"  # sock_setsockopt
    if name.startswith("hp-ux"):
        return "tcp_xmit_hiwater_max" if send else "tcp_recv_hiwater_max"
    if os.family == "solaris":
        return "tcp_max_buf"
    if "tru64" in name:
        return "sb_max"
    if "windows" in name:
        return "GlobalMaxTcpWindowSize"
    return "kern.ipc.maxsockbuf"  # sbreserve


def knob_line(key: str, value: object) -> str:
    """The tuning-file statement setting ``key`` to ``value`` (``key = value`` for a knob tcpsim does not read)."""
    spec = KNOBS.get(key)
    return spec.line(value) if spec is not None else f"{key} = {value}"


def _scaling_line(os: OsTcp) -> str | None:
    """The statement that turns window scaling on, where ``os`` has one tcpsim reads."""
    name = os.name.lower()
    if os.family == "linux":
        return knob_line("net.ipv4.tcp_window_scaling", 1)
    if "windows" in name:
        return None if "nt" in name.split() else knob_line("Tcp1323Opts", 1)
    if "freebsd" in name or name == "generic bsd":
        return knob_line("net.inet.tcp.rfc1323", 1)
    return None


def _autotune_line(os: OsTcp, send: bool, max_bytes: int) -> str:
    """The statement that lets an autotuned buffer grow to ``max_bytes`` (Linux keeps min and default as given)."""
    if os.family == "linux":
        default = os.default_sndbuf_bytes if send else os.default_rcvbuf_bytes
        return knob_line("net.ipv4.tcp_wmem" if send else "net.ipv4.tcp_rmem", (4096, default, max_bytes))
    return knob_line("net.inet.tcp.sendbuf_max" if send else "net.inet.tcp.recvbuf_max", max_bytes)


def _buffer_for_window(os: OsTcp, window_bytes: int) -> int:
    """The smallest power-of-two kernel buffer whose advertised share is at least ``window_bytes``
    (:meth:`OsTcp.window_bytes`: Linux keeps part of it for overhead)."""
    size = 1 << max(12, (window_bytes - 1).bit_length())
    while size < _MAX_BUFFER_BYTES and os.window_bytes(size) < window_bytes:
        size <<= 1
    return min(size, _MAX_BUFFER_BYTES)


def _size_word(size_bytes: int) -> str:
    """A power-of-two size as a flag takes it, in its largest whole unit (``1G``, ``16M``, ``512k``)."""
    for unit, shift in (("G", 30), ("M", 20)):
        if size_bytes >= 1 << shift and size_bytes % (1 << shift) == 0:
            return f"{size_bytes >> shift}{unit}"
    return f"{size_bytes // 1024}k"


@dataclass(frozen=True, slots=True)
class BufferPlan:
    """How to give a connection buffers of a size: the flag to request them (or "" when autotuning is left to grow
    them), the tuning-file lines to apply first, and what no line can change."""

    size_bytes: int
    """The buffers planned for: the size asked, or 64 KiB where an end cannot scale its window."""
    flag: str
    lines: tuple[str, ...]
    notes: tuple[str, ...]


def _requested(host: Host, send: bool) -> bool:
    """Whether the buffer is fixed (requested, or the OS does not autotune it) rather than left to autotuning."""
    tcp = host.tcp
    return tcp.sndbuf_autotune_max_bytes is None if send else tcp.rcv_window_autotune_max_bytes is None


def buffer_plan(sc: Scenario, size_bytes: int) -> BufferPlan:
    """What lets the sender's buffer and the receiver's window reach ``size_bytes``: for a requested (or fixed)
    buffer, ``--sndbuf``/``--rcvbuf`` (``--sockbuf`` for both) and the cap on requests raised where it is below;
    for one left to autotuning, its maximum raised; window scaling turned on where it is off."""
    lines: list[str] = []
    notes: list[str] = []
    if size_bytes > 65535:
        for host in (sc.sender, sc.receiver):
            os = host.platform.os
            if host.tcp.window_scaling:
                continue
            line = _scaling_line(os)
            if line is None:
                note = (f"{os.name} does not scale its window (RFC 7323), so 64 KiB is the most any buffer opens "
                        "it to: only a newer OS goes further")
                if note not in notes:
                    notes.append(note)
            elif line not in lines:
                lines.append(line)
        if notes:
            size_bytes = 65536
    need = 65535 if notes else size_bytes  # the largest window a 16-bit field carries
    flags = []
    snd, rcv = sc.sender, sc.receiver
    for host, send, have in ((snd, True, snd.tcp.sndbuf_limit_bytes),
                             (rcv, False, rcv.tcp.rcv_window_autotune_max_bytes or rcv.tcp.max_window_bytes)):
        if have >= need:
            continue
        os = host.platform.os
        if not _requested(host, send):
            autotune_max = need if send else _buffer_for_window(os, need)
            lines.append(_autotune_line(os, send, autotune_max))
            continue
        flags.append("snd" if send else "rcv")
        cap = os.max_sndbuf_bytes if send and os.max_sndbuf_bytes is not None else os.max_sockbuf_bytes
        if need > cap:
            line = knob_line(cap_knob(os, send), need)
            if line not in lines:
                lines.append(line)
    size = _size_word(size_bytes)
    flag = {("snd", "rcv"): f"--sockbuf {size}", ("snd",): f"--sndbuf {size}", ("rcv",): f"--rcvbuf {size}"}.get(
        tuple(flags), "")
    return BufferPlan(size_bytes=size_bytes, flag=flag, lines=tuple(lines), notes=tuple(notes))
