"""What a lab run sets up: :class:`LabScenario`, from the same human units as ``tcpsim predict``."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Optional

from ..config import MAX_LOSS_FRAC
from ..platform import CONGESTION_CONTROLS
from ..errors import ConfigError
from ..units import (UNSHAPED_RATE_BPS, parse_duration, parse_fraction, parse_int, parse_rate, parse_size,
                     parse_switch)

__all__ = ["LabScenario", "lab_scenario", "tool_read_bytes", "tool_one_process", "iperf3_threaded", "tbf_burst_bytes",
           "path_rtt_s",
           "relay_link_fields", "lab_link_fields", "receives_on_sending_cpu",
           "UNSHAPED_STANDIN_BPS", "VETH_RTT_S", "RELAY_EXCESS_FIXED_S", "RELAY_EXCESS_FRACTION", "RELAY_PACKET_S",
           "RELAY_BYTE_S", "RELAY_LATENCY_BYTE_S", "RelayPath", "RELAY", "relay_cpu_arg", "MAX_DURATION_S", "MAX_LOSS_FRAC",
           "GENERATOR_READ_BYTES",
           "measured_duration_s"]

UNSHAPED_STANDIN_BPS = UNSHAPED_RATE_BPS
"""The line rate tcpsim is given for an unshaped veth (``--rate 0``): what ``tcpsim predict --rate 0`` means
too (:data:`tcpsim.units.UNSHAPED_RATE_BPS`, 10 Tbit/s). A veth has no line rate, it moves frames at memory
speed, so a link far faster than the hosts leaves the CPU costs as the limit."""

VETH_RTT_S = 40e-6
"""The round trip ideal hosts are given when no delay is added: a veth pair's (25-50 us measured with TCP_INFO
min_rtt on a 2-core VM, 6-9 us with the tools pinned), kept fixed so a prediction does not depend on one run's
noise. Modelled hosts get none: there the round trip is their work, which tcpsim simulates (:func:`lab_link_fields`)."""

RELAY_EXCESS_FIXED_S = 15.0e-6
RELAY_EXCESS_FRACTION = 0.00098
"""What the user-space delay line (:mod:`tcpsim.lab.relay`) adds to a round trip beyond its nominal RTT and
its work on the packets (below): ``RELAY_EXCESS_FIXED_S + RELAY_EXCESS_FRACTION x RTT``. The relay counts
each packet's delay from when it reads it, so its wake-up from ``select`` comes on top, and it wakes later
the longer it slept."""

RELAY_PACKET_S = 3.80e-6
RELAY_BYTE_S = 0.108e-9
RELAY_LATENCY_BYTE_S = 0.429e-9
"""The relay's work on each packet it passes (a GSO aggregate is one): served in ``RELAY_PACKET_S`` plus
``RELAY_BYTE_S`` a byte by the one relay process both directions share, then ``RELAY_LATENCY_BYTE_S`` a byte
more before it comes out (:attr:`tcpsim.config.Link.relay_packet_s`). These five constants are one
least-squares fit to the path probe (:func:`tcpsim.lab.pathprobe.relay_fit`: ICMP echoes, no TCP, 0.2-4 ms,
MTU 1500 and 9000, 56 B to 32 KB; validation/lab_path_probe*_2026-11-29.json, measured again on the unpaced
lab sweep's day: on 2026-11-27, a slower day, they were 32.6 us, 0.0273, 8.20 us, 0.694 and 0.865 ns)."""


@dataclass(frozen=True)
class RelayPath:
    """The user-space delay line's five constants (:data:`RELAY_EXCESS_FIXED_S` ... :data:`RELAY_LATENCY_BYTE_S`):
    :data:`RELAY` as fitted on the lab tables' build, or this machine's from its own path probe
    (:func:`tcpsim.lab.pathprobe.relay_path`, ``tcpsim lab --path-probe FILE``): the relay's latency is the build's
    as much as the hosts' costs are (validation/README.md, "What the counters gave")."""

    fixed_s: float = RELAY_EXCESS_FIXED_S
    fraction: float = RELAY_EXCESS_FRACTION
    packet_s: float = RELAY_PACKET_S
    byte_s: float = RELAY_BYTE_S
    latency_byte_s: float = RELAY_LATENCY_BYTE_S

    def excess_s(self, rtt_s: float) -> float:
        """What the relay adds to a round trip of nominal ``rtt_s`` beyond its work on the packets."""
        return self.fixed_s + self.fraction * rtt_s

    def link_fields(self) -> dict[str, float]:
        """The relay stage's :class:`tcpsim.config.Link` fields."""
        return {"relay_packet_s": self.packet_s, "relay_byte_s": self.byte_s,
                "relay_latency_byte_s": self.latency_byte_s}

    def to_text(self) -> str:
        """The five constants as a lab table's ``relay_path`` cell (``fixed_s=1.96e-05 fraction=0.0114 ...``)."""
        return " ".join(f"{k}={v:.4g}" for k, v in asdict(self).items())

    @classmethod
    def from_text(cls, text: str) -> "RelayPath":
        """The constants of a ``relay_path`` cell (:meth:`to_text`); one line naming the cell otherwise."""
        expected = ("the delay line's five constants, fixed_s=S fraction=F packet_s=S byte_s=S latency_byte_s=S "
                    "(seconds, and a share of the RTT), each in 0..1")
        pairs = [part.split("=", 1) for part in str(text).split()]
        try:
            values = {k: float(v) for k, v in pairs}
        except ValueError:
            raise ConfigError("relay_path", text, expected) from None
        if sorted(values) != sorted(_RELAY_FIELDS) or not all(0 <= v < 1 for v in values.values()):
            raise ConfigError("relay_path", text, expected)
        return cls(**values)


_RELAY_FIELDS = ("fixed_s", "fraction", "packet_s", "byte_s", "latency_byte_s")


RELAY = RelayPath()
"""The committed delay line, the one ``tcpsim validate`` scores the lab tables on."""

MAX_DURATION_S = 60.0
MAX_RTT_S = 0.2
_LOSS_RANGE = f"0..{MAX_LOSS_FRAC:g} (a fraction, or a percentage such as 1%)"
_LOSS_NEEDS_DELAY = "0 without an added delay (the delay line draws the loss: give --rtt)"

GENERATOR_READ_BYTES = 131072
"""The built-in generator's ``recv`` size (``python -m tcpsim.lab.generator --read``)."""


def measured_duration_s(value: Any, where: str) -> float:
    """A measured run's duration in seconds from a number or its text (a CSV cell, a JSON field), the field
    named ``where`` in the one line an out-of-range or non-numeric value gets."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(where, value, "a number of seconds") from None
    return parse_duration(seconds, where, lo_s=1e-3, hi_s=3600.0)


def tbf_burst_bytes(rate_bps: float, mtu_bytes: int) -> int:
    """The bucket of the ``tbf`` a lab run shapes with (``testbed``): 1 ms of the rate, at least 64 KiB and two
    frames. tcpsim predicts a shaped run on that bucket (:attr:`tcpsim.config.Link.burst_bytes`): a window
    smaller than it crosses at the veth's speed, and the rate binds only over longer spans."""
    return max(65536, int(rate_bps / 8 * 1e-3), 2 * mtu_bytes)


def path_rtt_s(rtt_s: float, delay_line: Optional[str], relay: RelayPath = RELAY) -> float:
    """The round trip of a lab path with nominal ``rtt_s``: the relay's adds its own latency (see
    :data:`RELAY_EXCESS_FIXED_S`; its work per packet is :func:`relay_link_fields`); ``netem`` and the bare
    veth (``none``) add nothing measured here."""
    if delay_line == "relay" and rtt_s > 0:
        return rtt_s + relay.excess_s(rtt_s)
    return rtt_s


def relay_link_fields(delay_line: Optional[str], relay: RelayPath = RELAY) -> dict[str, float]:
    """:class:`tcpsim.config.Link` fields of the relay stage on a path through ``delay_line`` (none but the
    user-space relay's)."""
    return relay.link_fields() if delay_line == "relay" else {}


def receives_on_sending_cpu(delay_line: Optional[str]) -> bool:
    """Whether the run's path hands each frame to the receiving stack on the sending CPU
    (:attr:`tcpsim.config.Link.rx_on_sending_cpu`): a bare veth pair, shaped by ``tbf`` or delayed by
    ``netem`` (both release frames from the sending CPU's qdisc), yes; through the TUN delay line
    (``relay``) the receiver's stack runs in the relay's write, on neither host's CPU, so no; between real
    hosts' NICs (``nic``), no."""
    return delay_line in ("none", "netem")


def lab_link_fields(rate_bps: Optional[float], rtt_s: Optional[float], mtu_bytes: int,
                    delay_line: Optional[str], hosts_modelled: bool = False,
                    relay: RelayPath = RELAY) -> dict[str, Any]:
    """:class:`tcpsim.config.Link` fields of a lab path, the one place a dataset row and ``tcpsim lab``'s
    prediction both take them from. A rate of 0 is an unshaped veth (:data:`UNSHAPED_STANDIN_BPS`), any other
    the ``tbf`` with its bucket (:func:`tbf_burst_bytes`); the RTT is the path's through ``delay_line``
    (:func:`path_rtt_s`), with the receive placement (:func:`receives_on_sending_cpu`) and the relay stage
    (:func:`relay_link_fields`). A side given as None is left out (the link keeps its own).

    A bare veth (RTT 0, no delay line) has no propagation delay: Linux ``veth_xmit`` -> ``__netif_rx`` queues the
    frame on the sending CPU, whose softirq takes it in before the sending call returns. Between ``hosts_modelled``
    (both with CPU costs) the round trip is their work; ideal hosts get the :data:`VETH_RTT_S` stand-in
    (validation/README.md, "A veth's round trip is the hosts' work, a second time")."""
    fields: dict[str, Any] = {}
    if rate_bps is not None:
        fields.update(rate_bps=rate_bps or UNSHAPED_STANDIN_BPS,
                      burst_bytes=tbf_burst_bytes(rate_bps, mtu_bytes) if rate_bps else 0)
    if rtt_s is not None:
        path_s = path_rtt_s(rtt_s, delay_line, relay)
        if not path_s and not (hosts_modelled and delay_line in (None, "none")):
            path_s = VETH_RTT_S
        fields.update(one_way_delay_s=path_s / 2,
                      rx_on_sending_cpu=receives_on_sending_cpu(delay_line), **relay_link_fields(delay_line, relay))
    return fields


def tool_read_bytes(tool: Optional[str], write_bytes: int) -> Optional[int]:
    """Bytes the measuring tool's receiver asks for per ``read``: iperf3 reads its block (``-l``, the same
    length as its writes; ``iperf_tcp_recv`` reads ``blksize``), the built-in generator
    :data:`GENERATOR_READ_BYTES`; None for any other tool: the reader's default, reads of the receive window
    as it stood when the connection was built (:class:`tcpsim.components.app.Reader`; netperf's receive size is
    its socket buffer)."""
    if tool == "iperf3":
        return write_bytes
    if tool == "builtin":
        return GENERATOR_READ_BYTES
    return None


IPERF3_THREADED_SINCE = (3, 16)
"""The first iperf3 release whose streams each have a thread of their own (iperf-3.16, 2023-11-30: "Multiple test
streams started with -P/--parallel will now be serviced by different threads", esnet/iperf PR 1591)."""


def iperf3_threaded(version: str) -> bool:
    """Whether the iperf3 that reported ``version`` (its ``-J`` ``start.version``: "iperf 3.12", "iperf 3.17.1") runs
    a thread a stream (``iperf_send_mt``, ``iperf_recv_mt``) rather than one thread over all (``iperf_send``,
    ``iperf_recv``): 3.16 and later, and the multi-threaded previews ("3.15-mt-beta1"). Unknown (empty): not."""
    m = re.search(r"(\d+)\.(\d+)", version or "")
    if m is None:
        return False
    return (int(m.group(1)), int(m.group(2))) >= IPERF3_THREADED_SINCE or "-mt" in version


def tool_one_process(tool: Optional[str], version: str = "") -> bool:
    """Whether the measuring tool runs every stream of a host in one process (``Workload.one_process``): iperf3
    before 3.16 (3.12 measured every lab run) is one thread, a ``select`` over all its sockets (``iperf_recv`` and
    ``iperf_send`` serve each ready one in turn); iperf3 3.16 and later (``version``, :func:`iperf3_threaded`) and
    the built-in generator's client write from a thread a stream."""
    return tool == "iperf3" and not iperf3_threaded(version)


_PACING_MIN_BPS, _PACING_MAX_BPS = 8.0, 8.0 * 0xFFFFFFFE
"""``SO_MAX_PACING_RATE`` as iperf3 and the socket option take it: 32-bit bytes per second (~0U means none)."""
_PACING_RANGE = "0 (none) or 8 bit/s..34 Gbit/s (SO_MAX_PACING_RATE is 32-bit bytes per second)"


@dataclass(frozen=True)
class LabScenario:
    """One measurement on the real kernel: path, sockets, workload and how long to run."""

    rate_bps: float = 1e9
    """Shaped rate of each direction (tbf); 0 = the veth unshaped."""
    rtt_s: float = 0.0
    """Added round-trip delay, half each way (0 = the veth's own, tens of microseconds)."""
    mtu_bytes: int = 1500
    sndbuf_bytes: Optional[int] = None
    """SO_SNDBUF request on both ends (None: the kernel's autotuning)."""
    rcvbuf_bytes: Optional[int] = None
    write_bytes: int = 131072
    nodelay: bool = False
    n_streams: int = 1
    rr_bytes: Optional[int] = None
    """Request size of a request/response run (None: bulk transfer)."""
    response_bytes: Optional[int] = None
    duration_s: float = 3.0
    congestion_control: str = "cubic"
    max_pacing_rate_bps: float = 0.0
    """``SO_MAX_PACING_RATE`` on the sending sockets in bit/s (iperf3 ``--fq-rate``; 0: none): TCP paces them."""
    loss_frac: float = 0.0
    """Each frame's loss probability on the path, both ways, drawn by the delay line (:mod:`tcpsim.lab.frames`);
    tcpsim's :attr:`tcpsim.config.Link.loss_frac` the same. Needs an added delay (the relay draws it)."""
    sack: bool = True
    """False: neither end offers SACK (``net.ipv4.tcp_sack=0`` in both namespaces; tcpsim's ``sack="off"``)."""
    pin_cpus: Optional[tuple[int, int]] = None
    """The CPUs the sending and the receiving tool run on (``taskset``; None: where the scheduler puts them). On
    a small VM the placement decides a CPU-bound row: two ends on one CPU do their work in turn but wake each
    other without an inter-processor interrupt (validation/README.md, "Where the two tools run")."""
    relay_cpu: Optional[int] = None
    """The CPU the user-space delay line runs on (``taskset``; None: where the scheduler puts it). A relay that moves
    between CPUs can hand two packets to two CPUs' backlogs, and the later one may go up the stack first: one segment
    out of order sends most of a small window again (validation/README.md, "One segment out of order, a window sent
    again")."""

    def __post_init__(self) -> None:
        def bad(name: str, value: Any, allowed: str) -> ConfigError:
            return ConfigError(name, value, allowed)

        if not (self.rate_bps == 0 or 1e6 <= self.rate_bps <= 100e9):
            raise bad("rate", self.rate_bps, "0 (unshaped) or 1mbit..100gbit")
        if not 0 <= self.rtt_s <= MAX_RTT_S:
            raise bad("rtt", self.rtt_s, f"0..{MAX_RTT_S * 1e3:.0f} ms")
        if not 576 <= self.mtu_bytes <= 65535:
            raise bad("mtu", self.mtu_bytes, "576..65535 bytes (a veth's range)")
        for name in ("sndbuf_bytes", "rcvbuf_bytes"):
            v = getattr(self, name)
            if v is not None and not 1 <= v <= 1 << 30:
                raise bad(name.replace("_bytes", ""), v, "1 byte..1 GiB")
        if not 1 <= self.write_bytes <= 1 << 24:
            raise bad("write", self.write_bytes, "1 byte..16 MiB")
        if not 1 <= self.n_streams <= 64:
            raise bad("streams", self.n_streams, "1..64")
        if self.rr_bytes is not None and not 1 <= self.rr_bytes <= 1 << 20:
            raise bad("rr", self.rr_bytes, "1 byte..1 MiB")
        if self.response_bytes is not None and self.rr_bytes is None:
            raise bad("response", self.response_bytes, "left out without --rr (a reply answers a request)")
        if self.response_bytes is not None and not 1 <= self.response_bytes <= 1 << 20:
            raise bad("response", self.response_bytes, "1 byte..1 MiB")
        if self.congestion_control not in CONGESTION_CONTROLS:  # the kernel may have more (bbr) tcpsim cannot predict
            raise bad("cc", self.congestion_control, "one of " + ", ".join(CONGESTION_CONTROLS)
                      + " (what tcpsim predicts beside the run)")
        if self.max_pacing_rate_bps and not _PACING_MIN_BPS <= self.max_pacing_rate_bps <= _PACING_MAX_BPS:
            raise bad("max_pacing_rate", self.max_pacing_rate_bps, _PACING_RANGE)
        if not 0.0 <= self.loss_frac <= MAX_LOSS_FRAC:
            raise bad("loss", self.loss_frac, _LOSS_RANGE)
        if self.loss_frac and not self.rtt_s:
            raise bad("loss", self.loss_frac, _LOSS_NEEDS_DELAY)
        if not 0.5 <= self.duration_s <= MAX_DURATION_S:
            raise bad("duration", self.duration_s, f"0.5..{MAX_DURATION_S:.0f} s (every run is bounded)")
        if self.pin_cpus is not None:
            pins = tuple(self.pin_cpus) if isinstance(self.pin_cpus, (list, tuple)) else ()
            if len(pins) != 2 or not all(type(c) is int and 0 <= c < 4096 for c in pins):
                raise bad("pin", self.pin_cpus, "two CPU numbers, the sender's and the receiver's (0,1)")
            object.__setattr__(self, "pin_cpus", pins)  # a JSON list read back (tcpsim calibrate --lab)
        if self.relay_cpu is not None and not (type(self.relay_cpu) is int and 0 <= self.relay_cpu < 4096):
            raise bad("relay_cpu", self.relay_cpu, "a CPU number (0, 1 ...)")
        if self.relay_cpu is not None and not self.rtt_s:
            raise bad("relay_cpu", self.relay_cpu, "left out without an added delay (--rtt): no relay runs then")

    @property
    def sockbuf_bytes(self) -> Optional[int]:
        return self.sndbuf_bytes if self.sndbuf_bytes == self.rcvbuf_bytes else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def read_bytes(self, tool: Optional[str]) -> Optional[int]:
        """What the receiving application asks for per read when ``tool`` measures this scenario (None: all
        that is queued; a request/response run reads whole messages)."""
        return None if self.rr_bytes else tool_read_bytes(tool, self.write_bytes)

    def link_fields(self, delay_line: Optional[str] = None, hosts_modelled: bool = False,
                    relay: RelayPath = RELAY) -> dict[str, Any]:
        """The path's :class:`tcpsim.config.Link` fields through ``delay_line`` (:func:`lab_link_fields`)."""
        return lab_link_fields(self.rate_bps, self.rtt_s, self.mtu_bytes, delay_line, hosts_modelled, relay)

    def predict_kwargs(self, tool: Optional[str] = None, delay_line: Optional[str] = None) -> dict[str, Any]:
        """Keywords of :func:`tcpsim.api.build_scenario` for the same scenario (platform and OS left out), its
        receiver reading as ``tool`` does (:func:`tool_read_bytes`), its path the one through ``delay_line``
        (:meth:`link_fields`; the relay stage has no keyword, :func:`tcpsim.lab.predict.lab_simulation` adds it)."""
        link = self.link_fields(delay_line)
        kw: dict[str, Any] = dict(rate=link["rate_bps"], rtt=2 * link["one_way_delay_s"], veth=link["rx_on_sending_cpu"],
                                  mtu=self.mtu_bytes, sndbuf=self.sndbuf_bytes, rcvbuf=self.rcvbuf_bytes,
                                  write=self.write_bytes, nodelay=self.nodelay, streams=self.n_streams)
        if self.max_pacing_rate_bps:
            kw["max_pacing_rate"] = self.max_pacing_rate_bps
        if self.loss_frac:
            kw["loss"] = self.loss_frac
        if not self.sack:
            kw["sack"] = "off"
        if link["burst_bytes"]:
            kw["burst"] = link["burst_bytes"]
        if self.rr_bytes:
            kw.update(rr=self.rr_bytes, response=self.response_bytes or self.rr_bytes)
        return dict(kw, read=self.read_bytes(tool))


def lab_scenario(*, rate: Any = "1gbit", rtt: Any = None, delay: Any = None, mtu: Any = 1500, sockbuf: Any = None,
                 sndbuf: Any = None, rcvbuf: Any = None, write: Any = "128k", message: Any = None,
                 nodelay: bool = False, streams: int = 1, rr: Any = None, response: Any = None,
                 duration: Any = "3s", cc: str = "cubic", pin: Any = None,
                 max_pacing_rate: Any = None, loss: Any = None, relay_cpu: Any = None, sack: Any = "on") -> LabScenario:
    """A :class:`LabScenario` from human units (``rate="1gbit", rtt="1ms", sockbuf="64k"``)."""
    if rtt is not None and delay is not None:
        raise ConfigError("delay", delay, "left out when --rtt is given (one of --delay, --rtt)")
    rtt_s = parse_duration(rtt, "rtt") if rtt is not None else 2 * parse_duration(delay, "delay") if delay else 0.0
    unshaped = str(rate).strip().lower() in ("0", "unshaped", "none")
    rate_bps = 0.0 if unshaped else parse_rate(rate, "rate")
    sock = None if sockbuf is None else parse_size(sockbuf, "sockbuf")
    snd = parse_size(sndbuf, "sndbuf") if sndbuf is not None else sock
    rcv = parse_size(rcvbuf, "rcvbuf") if rcvbuf is not None else sock
    if message is not None and rr is not None:
        raise ConfigError("message", message, "left out with --rr (a request/response run sends --rr bytes a request)")
    w = parse_size(message if message is not None else write, "message" if message is not None else "write")
    loss_frac = 0.0 if loss is None else parse_fraction(loss, "loss", hi=MAX_LOSS_FRAC)
    if loss_frac and not rtt_s:  # name the loss as the user wrote it
        raise ConfigError("loss", loss, _LOSS_NEEDS_DELAY)
    pacing_bps = 0.0 if max_pacing_rate is None else parse_rate(max_pacing_rate, "max_pacing_rate")
    if pacing_bps and not _PACING_MIN_BPS <= pacing_bps <= _PACING_MAX_BPS:  # name the rate as the user wrote it
        raise ConfigError("max_pacing_rate", max_pacing_rate, _PACING_RANGE)
    return LabScenario(rate_bps=rate_bps, rtt_s=rtt_s, mtu_bytes=parse_size(mtu, "mtu"), sndbuf_bytes=snd,
                       rcvbuf_bytes=rcv, write_bytes=w, nodelay=bool(nodelay), n_streams=int(streams),
                       rr_bytes=None if rr is None else parse_size(rr, "rr"),
                       response_bytes=None if response is None else parse_size(response, "response"),
                       duration_s=parse_duration(duration, "duration"), congestion_control=cc,
                       pin_cpus=None if _unplaced(pin) else _pins(pin),
                       max_pacing_rate_bps=pacing_bps,
                       loss_frac=loss_frac, sack=parse_switch(sack, "sack"),
                       relay_cpu=relay_cpu_arg(relay_cpu))


def _unplaced(value: Any) -> bool:
    """A placement left to the scheduler: not given, or ``none`` (which overrides ``tcpsim lab``'s default,
    :func:`tcpsim.lab.measure.default_placement`)."""
    return value is None or str(value).strip().lower() == "none"


def relay_cpu_arg(value: Any) -> Optional[int]:
    """``--relay-cpu`` as a CPU number, or None for the scheduler's placement (not given, or ``none``)."""
    return None if _unplaced(value) else parse_int(value, "relay_cpu", lo=0, hi=4095)


def _pins(pin: Any) -> tuple[int, int]:
    """``"0,1"`` (the sender's CPU, the receiver's) as two CPU numbers."""
    parts = str(pin).split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ConfigError("pin", pin, "two CPU numbers, the sender's and the receiver's (0,1)")
    return int(parts[0]), int(parts[1])
