"""The knob table: every sysctl, ndd, sysconfig, registry and driver option tcpsim reads, how its value
parses (and its range), and what it sets in the model under its OS family's semantics."""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Callable, Optional

from ..platform import CONGESTION_CONTROLS, Platform

__all__ = ["Knob", "KnobSpec", "KNOBS"]


@dataclass(frozen=True, slots=True)
class Knob:
    """One setting read from a tuning file, its value parsed, and what it changes in the model."""

    name: str
    """Knob key: ``net.core.rmem_max``, ``tcp_xmit_hiwat``, ``ixgb.RxIntDelay``, ``TcpWindowSize``, ``mtu``."""
    value: Any
    """Parsed value: an int, a bool, a tuple of ints (``tcp_rmem``) or a str (``tcp_congestion_control``)."""
    line_no: int
    target: str
    """The model input it changes (``os.max_sockbuf_bytes``, ``nic.backlog_packets``, ``link.mtu_bytes``) or ``ignored``."""
    note: str
    """The OS semantics applied, or why the knob is ignored."""
    text: str = ""
    """The statement as written (for error messages)."""

    @property
    def value_text(self) -> str:
        """The value as a tuning file writes it (a tuple's numbers separated by spaces)."""
        return _show(self.value)


def _show(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


# ---------------------------------------------------------------- value parsers (text -> value)

def _int_word(word: str) -> int:
    if not word.isascii():  # int() would take Arabic-Indic and other Unicode digits
        raise ValueError(f"{word!r} is not a whole number in ASCII digits")
    try:
        return int(word, 0) if word.lower().startswith("0x") else int(word, 10)
    except ValueError:
        raise ValueError(f"{word!r} is not a whole number") from None


def _ints(lo_n: int, hi_n: int, lo: int = 0, hi: int = 1 << 31) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        words = text.replace(",", " ").split()
        if not lo_n <= len(words) <= hi_n:
            raise ValueError(f"expects {lo_n}..{hi_n} whole numbers, got {len(words)}")
        values = tuple(_int_word(w) for w in words)
        for v in values:
            if not lo <= v <= hi:
                raise ValueError(f"{v} is outside {lo}..{hi}")
        return values
    return parse


def _int(lo: int, hi: int) -> Callable[[str], int]:
    many = _ints(1, 1, lo, hi)
    return lambda text: many(text)[0]


def _flag(text: str) -> bool:
    return _int(0, 1 << 31)(text) != 0


def _word(text: str) -> str:
    words = text.split()
    if len(words) != 1:
        raise ValueError("expects one word")
    return words[0]


# ---------------------------------------------------------------- setters (platform, value -> platform, effect)

Setter = Callable[[Platform, Any], "tuple[Platform, str]"]


def _os(field: str, why: str = "", convert: Callable[[Any], Any] = lambda v: v) -> Setter:
    def apply(p: Platform, value: Any) -> tuple[Platform, str]:
        new = convert(value)
        return replace(p, os=replace(p.os, **{field: new})), f"os.{field} = {new}" + (f" ({why})" if why else "")
    return apply


def _nic(field: str, why: str = "", convert: Callable[[Any], Any] = lambda v: v) -> Setter:
    def apply(p: Platform, value: Any) -> tuple[Platform, str]:
        new = convert(value)
        return replace(p, nic=replace(p.nic, **{field: new})), f"nic.{field} = {new}" + (f" ({why})" if why else "")
    return apply


def _rmem_max(p: Platform, value: int) -> tuple[Platform, str]:
    """A cap on receive buffers only (Linux ``rmem_max``, HP-UX ``tcp_recv_hiwater_max``): a platform without a send
    cap keeps its old one for sending."""
    pin = {} if p.os.max_sndbuf_bytes is not None else {"max_sndbuf_bytes": p.os.max_sockbuf_bytes}
    os = replace(p.os, max_sockbuf_bytes=value, **pin)
    rule = f"2 x min(n, {value})" if os.setsockopt_doubles else f"min(n, {value})"
    return replace(p, os=os), f"os.max_sockbuf_bytes = {value}: setsockopt(SO_RCVBUF, n) gives {rule}"


def _common_cap(p: Platform, value: int) -> tuple[Platform, str]:
    """One cap for both directions (Solaris ``tcp_max_buf``, FreeBSD ``kern.ipc.maxsockbuf``, Tru64 ``sb_max``)."""
    os = replace(p.os, max_sockbuf_bytes=value, max_sndbuf_bytes=None)
    rule = f"2 x min(n, {value})" if os.setsockopt_doubles else f"min(n, {value})"
    return replace(p, os=os), f"os.max_sockbuf_bytes = {value}: setsockopt(n) gives {rule}, both directions"


def _send_cap(p: Platform, value: int) -> tuple[Platform, str]:
    """The cap on send buffers (Linux ``wmem_max``, HP-UX ``tcp_xmit_hiwater_max``)."""
    rule = f"2 x min(n, {value})" if p.os.setsockopt_doubles else f"min(n, {value})"
    return (replace(p, os=replace(p.os, max_sndbuf_bytes=value)),
            f"os.max_sndbuf_bytes = {value}: setsockopt(SO_SNDBUF, n) gives {rule}")


def _linux_mem(field: str, auto_field: str) -> Setter:
    """``tcp_rmem``/``tcp_wmem`` "min default max": the kernel writes the numbers given, in order.

    One number changes the minimum only (no model effect); two (as the 10 GbE report's Appendix C
    writes them) change minimum and default and leave the maximum as it was. The default is a socket's
    starting buffer when the application sets none; the maximum is where autotuning of such a buffer
    stops, on kernels that autotune it (the profile says which). Ref: tcp(7); proc_dointvec.
    """
    def apply(p: Platform, value: tuple[int, ...]) -> tuple[Platform, str]:
        if len(value) < 2:
            return p, f"sets the minimum only; os.{field} stays {getattr(p.os, field)}"
        changes = {field: value[1]}
        what = f"os.{field} = {value[1]} (the middle value: the buffer of a socket that sets none)"
        if len(value) < 3:
            what += "; the maximum keeps its previous value (two numbers given)"
        elif getattr(p.os, auto_field):
            changes[auto_field] = max(value[2], value[1])
            what += f"; os.{auto_field} = {changes[auto_field]} (autotuning stops there)"
        else:
            what += "; the maximum only bounds autotuning, which this kernel does not do here"
        return replace(p, os=replace(p.os, **changes)), what
    return apply


def _moderate_rcvbuf(p: Platform, value: bool) -> tuple[Platform, str]:
    if not value:
        return (replace(p, os=replace(p.os, rcvbuf_autotune_max_bytes=0)),
                "os.rcvbuf_autotune_max_bytes = 0: receive buffers stay at their default or requested size")
    return p, ("receive autotuning stays as the profile has it "
               f"(os.rcvbuf_autotune_max_bytes = {p.os.rcvbuf_autotune_max_bytes}; 0 = a kernel before 2.6.7)")


def _adv_win_scale(p: Platform, value: int) -> tuple[Platform, str]:
    """Linux 6.6 on reads the window's share of the buffer from received skbs (commit dfa2f0483360)."""
    if p.os.ignores_adv_win_scale:
        return p, (f"ignored: Linux {p.os.version} takes the window's share of the buffer from the skb truesize "
                   "ratio it measures (6.6 on), not from tcp_adv_win_scale")
    return _os("adv_win_scale")(p, value)


def _since(version: tuple[int, ...], what: str, inner: Optional[Setter] = None, unmodelled: str = "") -> Setter:
    """A Linux knob that a kernel before ``version`` does not have: that versioned kernel ignores it (an
    unversioned profile takes it as written). ``inner`` None: tcpsim does not model it, for ``unmodelled``."""
    since = ".".join(map(str, version))

    def apply(p: Platform, value: Any) -> tuple[Platform, str]:
        v = p.os.version_tuple
        if v and v < version:
            return p, f"ignored: Linux {p.os.version} has no {what} ({since} on)"
        if inner is None:
            return p, f"ignored (not modelled): {unmodelled}"
        return inner(p, value)
    return apply


def _tsq(p: Platform, value: int) -> tuple[Platform, str]:
    """TCP small queues are a versioned Linux's sender rule (:attr:`tcpsim.config.TcpOptions.tsq_limit_bytes`)."""
    if not p.os.version:
        return p, "ignored: TCP small queues are modelled for a versioned Linux (os.version) only"
    return _os("limit_output_bytes")(p, value)


def _default_qdisc(p: Platform, value: str) -> tuple[Platform, str]:
    """``fq`` paces every TCP flow at its pacing rate (3.12 on, :mod:`tcpsim.protocol.pacing`); the other qdiscs
    queue without pacing, which tcpsim's hosts do as they are. Modelled for a versioned Linux."""
    v = p.os.version_tuple
    if not v:
        return p, "ignored: pacing is modelled for a versioned Linux (os.version) only"
    if value == "fq" and v < (3, 12):
        return p, f"ignored: Linux {p.os.version} has no fq qdisc (3.12 on)"
    fq = value == "fq"
    what = "every TCP flow is paced at its pacing rate" if fq else f"{value} does not pace"
    return replace(p, os=replace(p.os, fq_qdisc=fq)), f"os.fq_qdisc = {fq}: {what}"


def _tso_win_divisor(p: Platform, value: int) -> tuple[Platform, str]:
    """The TSO Nagle test is modelled for a versioned Linux from 4.1 (:attr:`tcpsim.config.TcpOptions.tso_defer_rule`)."""
    if not p.os.version or p.os.version_tuple < (4, 1):
        return p, "ignored (not modelled): tcpsim defers partial TSO skbs for a versioned Linux of 4.1 on only"
    return _os("tso_win_divisor")(p, value)


def _congestion_control(p: Platform, value: str) -> tuple[Platform, str]:
    if value in CONGESTION_CONTROLS:
        return _os("congestion_control")(p, value)
    return p, f"ignored: {value} is not modelled; {p.os.congestion_control} runs (reno and cubic are)"


def _autotune_max(field: str) -> Setter:
    """The most a buffer left to autotuning grows to (FreeBSD ``net.inet.tcp.sendbuf_max``/``recvbuf_max``, 7.0 on:
    ``tcp_output``, ``tcp_input``), on a kernel that autotunes it."""
    def apply(p: Platform, value: int) -> tuple[Platform, str]:
        if not getattr(p.os, field):
            return p, f"ignored: {p.os.name} does not autotune this buffer here"
        return replace(p, os=replace(p.os, **{field: value})), f"os.{field} = {value} (autotuning stops there)"
    return apply


def _autotune_switch(field: str) -> Setter:
    """FreeBSD ``net.inet.tcp.sendbuf_auto``/``recvbuf_auto``: 0 leaves a buffer at its default."""
    def apply(p: Platform, value: bool) -> tuple[Platform, str]:
        if value:
            return p, f"autotuning stays as {p.os.name} has it (os.{field} = {getattr(p.os, field)})"
        return replace(p, os=replace(p.os, **{field: 0})), f"os.{field} = 0: the buffer stays at its default"
    return apply


def _both_defaults(p: Platform, value: int) -> tuple[Platform, str]:
    os = replace(p.os, default_sndbuf_bytes=value, default_rcvbuf_bytes=value)
    return replace(p, os=os), f"os.default_sndbuf_bytes = os.default_rcvbuf_bytes = {value}"


def _rfc1323_bits(p: Platform, value: int) -> tuple[Platform, str]:
    ws, ts = bool(value & 1), bool(value & 2)
    return (replace(p, os=replace(p.os, window_scaling=ws, timestamps=ts)),
            f"os.window_scaling = {ws} (bit 0), os.timestamps = {ts} (bit 1)")


def _rfc1323_flag(p: Platform, value: bool) -> tuple[Platform, str]:
    return (replace(p, os=replace(p.os, window_scaling=value, timestamps=value)),
            f"os.window_scaling = os.timestamps = {value}")


def _delayed_ack(p: Platform, value: bool) -> tuple[Platform, str]:
    rule = p.os.family if value else "off"
    return replace(p, os=replace(p.os, delack=rule)), f"os.delack = {rule!r}"


# ---------------------------------------------------------------- the knob table

@dataclass(frozen=True, slots=True)
class KnobSpec:
    """How a knob is written, which OS family it belongs to, what it changes and how its value is read."""

    key: str
    syntax: str
    """``sysctl``, ``ndd``, ``system`` (/etc/system), ``sysconfig``, ``registry`` or ``modprobe``."""
    where: str
    """ndd device, sysconfig subsystem or driver module ("" when the syntax has none)."""
    family: Optional[str]
    """OS family whose semantics the knob has (None: any, e.g. a NIC driver or a Windows value)."""
    target: str
    note: str
    parse: Callable[[str], Any]
    apply: Optional[Setter] = None
    """None: accepted and ignored, for the reason in ``note``."""

    def line(self, value: Any) -> str:
        """The statement of a tuning file (what ``--sysctl`` reads) that sets this knob to ``value``."""
        name = self.key.split(".", 1)[1] if self.syntax == "modprobe" else self.key
        v = _show(value)
        return {"sysctl": f"{name} = {v}", "ndd": f"ndd -set {self.where} {name} {v}", "system": f"set {name} = {v}",
                "sysconfig": f"sysconfig -r {self.where} {name}={v}", "registry": f"{name} = {v}",
                "modprobe": f"modprobe {self.where} {name}={v}"}[self.syntax]

    @property
    def how(self) -> str:
        """How a line sets it, for error messages."""
        written = f"'{self.line('N')}'"
        if self.syntax == "sysctl":
            return f"'sysctl -w {self.key}=N' or {written}"
        return written + {"system": " in /etc/system", "registry": " (registry value)"}.get(self.syntax, "")


_BUF = (1, 1 << 31)
_S = KnobSpec
_SPECS = [
    # Linux: socket(7), tcp(7). setsockopt caps at [rw]mem_max then doubles (OsTcp.setsockopt_doubles).
    _S("net.core.rmem_max", "sysctl", "", "linux", "os.max_sockbuf_bytes",
       "cap on SO_RCVBUF requests (the kernel then doubles the request)", _int(*_BUF), _rmem_max),
    _S("net.core.wmem_max", "sysctl", "", "linux", "os.max_sndbuf_bytes",
       "cap on SO_SNDBUF requests (the kernel then doubles the request)", _int(*_BUF), _send_cap),
    _S("net.ipv4.tcp_rmem", "sysctl", "", "linux", "os.default_rcvbuf_bytes",
       "min default max: an unset socket's buffer and its autotuning limit; 1..3 numbers, written in order",
       _ints(1, 3, *_BUF), _linux_mem("default_rcvbuf_bytes", "rcvbuf_autotune_max_bytes")),
    _S("net.ipv4.tcp_wmem", "sysctl", "", "linux", "os.default_sndbuf_bytes",
       "min default max: an unset socket's buffer and its autotuning limit; 1..3 numbers, written in order",
       _ints(1, 3, *_BUF), _linux_mem("default_sndbuf_bytes", "sndbuf_autotune_max_bytes")),
    _S("net.ipv4.tcp_adv_win_scale", "sysctl", "", "linux", "os.adv_win_scale",
       "share of the receive buffer advertised as window (before Linux 6.6)", _int(-31, 31), _adv_win_scale),
    _S("net.ipv4.tcp_sack", "sysctl", "", "linux", "os.sack",
       "SACK option (RFC 2018): RFC 6675 recovery when both ends have it, else NewReno", _flag,
       _os("sack")),
    _S("net.ipv4.tcp_timestamps", "sysctl", "", "linux", "os.timestamps",
       "timestamp option, 12 bytes per segment (RFC 7323)", _flag, _os("timestamps")),
    _S("net.ipv4.tcp_window_scaling", "sysctl", "", "linux", "os.window_scaling",
       "window scale option (RFC 7323): without it the window stops at 65535", _flag, _os("window_scaling")),
    _S("net.core.netdev_max_backlog", "sysctl", "", "linux", "nic.backlog_packets",
       "receive backlog; a full backlog drops the packet", _int(1, 1 << 24), _nic("backlog_packets")),
    _S("net.core.rmem_default", "sysctl", "", "linux", "ignored",
       "TCP sockets start from tcp_rmem's middle value, not from this (tcp(7))", _int(*_BUF)),
    _S("net.core.wmem_default", "sysctl", "", "linux", "ignored",
       "TCP sockets start from tcp_wmem's middle value, not from this (tcp(7))", _int(*_BUF)),
    _S("net.core.optmem_max", "sysctl", "", "linux", "ignored",
       "ancillary-data buffers: no effect on a TCP stream", _int(*_BUF)),
    _S("net.ipv4.tcp_mem", "sysctl", "", "linux", "ignored",
       "system-wide memory pressure thresholds in pages: not reached by a few connections", _ints(1, 3, 0, 1 << 40)),
    _S("net.ipv4.tcp_tw_recycle", "sysctl", "", "linux", "ignored",
       "TIME-WAIT handling: no effect on an open connection", _flag),
    _S("net.ipv4.tcp_tw_reuse", "sysctl", "", "linux", "ignored",
       "TIME-WAIT handling: no effect on an open connection", _flag),
    _S("net.ipv4.tcp_moderate_rcvbuf", "sysctl", "", "linux", "os.rcvbuf_autotune_max_bytes",
       "receive autotuning of sockets that set no SO_RCVBUF (0 turns it off)", _flag, _moderate_rcvbuf),
    _S("net.ipv4.tcp_no_metrics_save", "sysctl", "", "linux", "ignored",
       "route metrics cache: each simulated run starts fresh anyway", _flag),
    _S("net.ipv4.tcp_autocorking", "sysctl", "", "linux", "os.autocorking",
       "small writes coalesce while the socket's earlier segments are still in the host (3.14 on)", _flag,
       _since((3, 14), "tcp_autocorking", _os("autocorking"))),
    _S("net.ipv4.tcp_limit_output_bytes", "sysctl", "", "linux", "os.limit_output_bytes",
       "TCP small queues: bytes a socket may have in the qdisc and device (3.6 on)", _int(0, (1 << 31) - 1),
       _since((3, 6), "TCP small queues", _tsq)),
    _S("net.ipv4.tcp_comp_sack_nr", "sysctl", "", "linux", "os.comp_sack_nr",
       "SACKs of out-of-order data compressed into one at most (4.18 on; 0: no compression)", _int(0, 255),
       _since((4, 18), "SACK compression", _os("comp_sack_nr"))),
    _S("net.ipv4.tcp_comp_sack_delay_ns", "sysctl", "", "linux", "os.comp_sack_delay_s",
       "the longest a compressed SACK waits, ns (4.18 on)", _int(0, 10**9),
       _since((4, 18), "SACK compression", _os("comp_sack_delay_s", convert=lambda ns: ns * 1e-9))),
    _S("net.ipv4.tcp_comp_sack_slack_ns", "sysctl", "", "linux", "os.comp_sack_slack_s",
       "the SACK compression timer's slack, ns: it fires this late on a quiet CPU (5.8 on)", _int(0, 10**9),
       _since((5, 8), "tcp_comp_sack_slack_ns", _os("comp_sack_slack_s", convert=lambda ns: ns * 1e-9))),
    _S("net.ipv4.tcp_comp_sack_rtt_percent", "sysctl", "", "linux", "os.comp_sack_rtt_percent",
       "a compressed SACK's wait as a share of the round trip, percent (6.19 on; 5 before)", _int(1, 1000),
       _since((6, 19), "tcp_comp_sack_rtt_percent", _os("comp_sack_rtt_percent"))),
    _S("net.ipv4.tcp_tso_win_divisor", "sysctl", "", "linux", "os.tso_win_divisor",
       "a partial TSO skb waits for the next ACK until 1/N of the window may go (tcp_tso_should_defer; 0: more "
       "than three segments)", _int(0, (1 << 31) - 1), _tso_win_divisor),
    _S("net.ipv4.tcp_notsent_lowat", "sysctl", "", "linux", "ignored",
       "unsent bytes above which the writer is not woken (3.12 on; 4294967295 = no limit)", _int(0, (1 << 32) - 1),
       _since((3, 12), "tcp_notsent_lowat", unmodelled="the writer wakes when a third of the send "
              "buffer is free (tcp_new_space), as with the default, which sets no limit")),
    _S("net.ipv4.tcp_slow_start_after_idle", "sysctl", "", "linux", "ignored",
       "restart from the initial window after an idle RTO (tcp_cwnd_restart)", _flag,
       _since((2, 6, 18), "tcp_slow_start_after_idle", unmodelled="the congestion window does not decay "
              "in idle periods (a bulk stream has none; paced messages and request/response may)")),
    _S("net.core.default_qdisc", "sysctl", "", "linux", "os.fq_qdisc",
       "the qdisc new devices get: fq paces every TCP flow, the others (pfifo_fast, fq_codel ...) do not", _word,
       _default_qdisc),
    _S("net.ipv4.tcp_ecn", "sysctl", "", "linux", "ignored",
       "ECN negotiation: no effect without a marking queue, which tcpsim's links have not", _int(0, 2)),
    _S("net.ipv4.tcp_mtu_probing", "sysctl", "", "linux", "ignored",
       "packetization-layer path MTU discovery: the path MTU is the link's, known from the start", _int(0, 2)),
    _S("net.ipv4.tcp_fastopen", "sysctl", "", "linux", "ignored",
       "data in the SYN: the handshake is not simulated", _int(0, 1 << 16)),
    _S("net.ipv4.tcp_syncookies", "sysctl", "", "linux", "ignored",
       "SYN flood defence: no effect on an open connection", _int(0, 2)),
    _S("net.ipv4.tcp_fin_timeout", "sysctl", "", "linux", "ignored",
       "FIN-WAIT-2 lifetime: no effect on an open connection", _int(0, 1 << 31)),
    _S("net.ipv4.tcp_keepalive_time", "sysctl", "", "linux", "ignored",
       "keepalive probes of idle connections: a simulated run is never idle that long", _int(0, 1 << 31)),
    _S("net.ipv4.tcp_max_syn_backlog", "sysctl", "", "linux", "ignored",
       "half-open connection queue: no effect on an open connection", _int(0, 1 << 31)),
    _S("net.core.somaxconn", "sysctl", "", "linux", "ignored",
       "listen backlog: no effect on an open connection", _int(0, 1 << 31)),
    _S("net.ipv4.tcp_congestion_control", "sysctl", "", "linux", "os.congestion_control",
       "reno (RFC 5681, 6582) or cubic (RFC 9438, with HyStart); other algorithms are not modelled", _word,
       _congestion_control),
    # Solaris ndd /dev/tcp (Sun blueprint; Solaris 9 uses the tcp_local_* names on a LAN).
    _S("tcp_xmit_hiwat", "ndd", "/dev/tcp", "solaris", "os.default_sndbuf_bytes",
       "default send buffer (Solaris 8: 24576)", _int(*_BUF), _os("default_sndbuf_bytes")),
    _S("tcp_recv_hiwat", "ndd", "/dev/tcp", "solaris", "os.default_rcvbuf_bytes",
       "default receive buffer and window (Solaris 8: 24576)", _int(*_BUF), _os("default_rcvbuf_bytes")),
    _S("tcp_max_buf", "ndd", "/dev/tcp", "solaris", "os.max_sockbuf_bytes",
       "largest buffer setsockopt may ask for (Solaris refuses larger requests; tcpsim caps them)",
       _int(*_BUF), _common_cap),
    # HP-UX 11i ndd /dev/tcp (its STREAMS TCP is Mentat's, as Solaris's): a cap per direction.
    _S("tcp_recv_hiwater_max", "ndd", "/dev/tcp", "solaris", "os.max_sockbuf_bytes",
       "HP-UX: largest receive buffer setsockopt may ask for", _int(*_BUF), _rmem_max),
    _S("tcp_xmit_hiwater_max", "ndd", "/dev/tcp", "solaris", "os.max_sndbuf_bytes",
       "HP-UX: largest send buffer setsockopt may ask for", _int(*_BUF), _send_cap),
    _S("tcp_naglim_def", "ndd", "/dev/tcp", "solaris", "os.naglim_bytes",
       "Nagle holds data below min(MSS, this); 1 disables Nagle", _int(1, 65535), _os("naglim_bytes")),
    _S("tcp_deferred_acks_max", "ndd", "/dev/tcp", "solaris", "os.deferred_acks_max",
       "segments held before an ACK is due; 0 and 1 both mean no deferral", _int(0, 16),
       _os("deferred_acks_max", convert=lambda v: max(v, 1))),
    _S("tcp_local_dacks_max", "ndd", "/dev/tcp", "solaris", "os.deferred_acks_max",
       "Solaris 9 name of tcp_deferred_acks_max for the local subnet (unit: packets)", _int(0, 16),
       _os("deferred_acks_max", convert=lambda v: max(v, 1))),
    _S("tcp_deferred_ack_interval", "ndd", "/dev/tcp", "solaris", "os.delack_timeout_s",
       "deferred-ACK timer in ms", _int(1, 60000), _os("delack_timeout_s", "ms -> s", lambda v: v / 1000.0)),
    _S("tcp_local_dack_interval", "ndd", "/dev/tcp", "solaris", "os.delack_timeout_s",
       "Solaris 9 name of tcp_deferred_ack_interval for the local subnet (ms)", _int(1, 60000),
       _os("delack_timeout_s", "ms -> s", lambda v: v / 1000.0)),
    _S("tcp_rcv_push_wait", "ndd", "/dev/tcp", "solaris", "os.rcv_push_wait_bytes",
       "bytes TCP queues before handing data without PSH up to the socket (16384)", _int(0, 131072),
       _os("rcv_push_wait_bytes")),
    _S("tcp_maxpsz_multiplier", "ndd", "/dev/tcp", "solaris", "os.maxpsz_multiplier",
       "MSS-sized segments copied per kernel pass (Solaris 8: 2)", _int(0, 100), _os("maxpsz_multiplier")),
    _S("tcp_xmit_lowat", "ndd", "/dev/tcp", "solaris", "ignored",
       "send low watermark: tcpsim wakes a blocked writer as soon as space frees", _int(*_BUF)),
    _S("ce:ce_taskq_disable", "system", "", "solaris", "ignored",
       "ce receive task queues: cpu.interrupts_on_one_cpu models where receive work runs", _flag),
    # Tru64 sysconfig (best practice 000): inet tcp_sendspace/tcp_recvspace; socket sb_max caps setsockopt.
    _S("tcp_sendspace", "sysconfig", "inet", "bsd", "os.default_sndbuf_bytes",
       "default send buffer (Tru64 5.x: 61440)", _int(*_BUF), _os("default_sndbuf_bytes")),
    _S("tcp_recvspace", "sysconfig", "inet", "bsd", "os.default_rcvbuf_bytes",
       "default receive buffer (Tru64 5.x: 61440)", _int(*_BUF), _os("default_rcvbuf_bytes")),
    _S("sb_max", "sysconfig", "socket", "bsd", "os.max_sockbuf_bytes",
       "largest socket buffer", _int(*_BUF), _common_cap),
    # FreeBSD (gigabit-NIC article 002)
    _S("kern.ipc.maxsockbuf", "sysctl", "", "bsd", "os.max_sockbuf_bytes",
       "largest socket buffer (FreeBSD counts mbuf overhead in it and refuses larger requests; tcpsim caps)",
       _int(*_BUF), _common_cap),
    _S("net.inet.tcp.sendspace", "sysctl", "", "bsd", "os.default_sndbuf_bytes",
       "default send buffer", _int(*_BUF), _os("default_sndbuf_bytes")),
    _S("net.inet.tcp.recvspace", "sysctl", "", "bsd", "os.default_rcvbuf_bytes",
       "default receive buffer", _int(*_BUF), _os("default_rcvbuf_bytes")),
    _S("net.inet.tcp.sendbuf_max", "sysctl", "", "bsd", "os.sndbuf_autotune_max_bytes",
       "FreeBSD 7 on: the most an unset send buffer grows to", _int(*_BUF), _autotune_max("sndbuf_autotune_max_bytes")),
    _S("net.inet.tcp.recvbuf_max", "sysctl", "", "bsd", "os.rcvbuf_autotune_max_bytes",
       "FreeBSD 7 on: the most an unset receive buffer grows to", _int(*_BUF),
       _autotune_max("rcvbuf_autotune_max_bytes")),
    _S("net.inet.tcp.sendbuf_auto", "sysctl", "", "bsd", "os.sndbuf_autotune_max_bytes",
       "FreeBSD 7 on: 0 turns send buffer autotuning off", _flag, _autotune_switch("sndbuf_autotune_max_bytes")),
    _S("net.inet.tcp.recvbuf_auto", "sysctl", "", "bsd", "os.rcvbuf_autotune_max_bytes",
       "FreeBSD 7 on: 0 turns receive buffer autotuning off", _flag, _autotune_switch("rcvbuf_autotune_max_bytes")),
    _S("net.inet.tcp.rfc1323", "sysctl", "", "bsd", "os.window_scaling",
       "RFC 1323 window scaling and timestamps, both", _flag, _rfc1323_flag),
    _S("net.inet.tcp.delayed_ack", "sysctl", "", "bsd", "os.delack", "0 turns delayed ACKs off", _flag, _delayed_ack),
    _S("net.inet.tcp.rfc3042", "sysctl", "", "bsd", "os.limited_transmit",
       "limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs", _flag,
       _os("limited_transmit")),
    _S("kern.ipc.nmbclusters", "sysctl", "", "bsd", "ignored",
       "mbuf cluster pool: assumed large enough", _int(*_BUF)),
    # Windows, HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters (article 002).
    _S("TcpWindowSize", "registry", "", None, "os.default_rcvbuf_bytes",
       "default window; taken for both buffers", _int(0, 0x3FFFFFFF), _both_defaults),
    _S("Tcp1323Opts", "registry", "", None, "os.window_scaling",
       "bit 0 window scaling, bit 1 timestamps", _int(0, 3), _rfc1323_bits),
    _S("ForwardBufferMemory", "registry", "", None, "ignored",
       "router forwarding buffers: a host's own TCP streams do not use them", _int(0, 0xFFFFFFFF)),
    _S("NumForwardPackets", "registry", "", None, "ignored",
       "router forwarding buffers: a host's own TCP streams do not use them", _int(0, 0xFFFFFFFF)),
    # Intel PRO/10GbE driver options (10 GbE report, Appendices D and E).
    _S("ixgb.RxIntDelay", "modprobe", "ixgb", None, "nic.coalesce_delay_s",
       "receive interrupt delay in units of 1.024 us", _int(0, 65535),
       _nic("coalesce_delay_s", "x 1.024 us", lambda v: v * 1.024e-6)),
    _S("ixgb.RxDescriptors", "modprobe", "ixgb", None, "nic.rx_ring_packets",
       "receive ring size", _int(64, 4096), _nic("rx_ring_packets")),
    _S("ixgb.TxDescriptors", "modprobe", "ixgb", None, "nic.tx_ring_packets",
       "transmit ring size", _int(64, 4096), _nic("tx_ring_packets")),
    _S("ixgb.XsumRX", "modprobe", "ixgb", None, "nic.rx_checksum_offload",
       "receive checksum offload", _flag, _nic("rx_checksum_offload")),
    _S("ixgb.XsumTX", "modprobe", "ixgb", None, "nic.tx_checksum_offload",
       "transmit checksum offload", _flag, _nic("tx_checksum_offload")),
]
KNOBS: MappingProxyType = MappingProxyType({s.key: s for s in _SPECS})
"""Every knob tcpsim reads, by key (sysctl and registry names as written, driver options as ``module.Option``)."""

_MTU = KnobSpec("mtu", "ifconfig", "", None, "link.mtu_bytes",
                "interface MTU: a scenario input (Link.mtu_bytes)", _int(68, 65535))
_FAMILY_NAMES = {"linux": "Linux", "solaris": "Solaris", "bsd": "BSD (Tru64, FreeBSD)"}
