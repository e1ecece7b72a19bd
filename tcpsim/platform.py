"""What a machine is: its CPUs and their costs, its NIC, its I/O bus and its OS's TCP behaviour.

A :class:`Platform` is the physical half of a host; calibrated cost parameters live here and are shared by
every scenario that runs on that platform. Profiles ship as TOML files in ``tcpsim/profiles``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from collections.abc import Iterator, Mapping, Sequence
from typing import Optional

from .errors import ConfigError
from .fields import check_types
from .piecewise import from_zero, held_below, quantile_at
from .protocol.framing import TIMESTAMP_OPTION_BYTES
from .protocol.linux_window import (DEFAULT_RATIO_6_6, DEFAULT_RATIO_6_8, IP_TCP_HEADER_BYTES, rx_truesize,
                                     scaling_ratio, win_from_space)

__all__ = [
    "CpuCost", "Nic", "Bus", "OsTcp", "Provenance", "Platform",
    "BUS_PRESETS", "bus_preset", "DELACK_RULES", "OS_FAMILIES", "CONGESTION_CONTROLS", "os_defaults",
    "mid_quantiles", "quantile_at", "MAX_CPUS",
]


def _check_range(name: str, value: float, lo: float, hi: float = math.inf, text: str | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (lo <= value <= hi) \
            or (isinstance(value, float) and math.isnan(value)):
        raise ConfigError(name, value, text or (f">= {lo}" if hi == math.inf else f"in {lo}..{hi}"))


MAX_CPUS = 1024
"""The most CPUs a host has (``CpuCost.n_cpus``, ``--cpus``, ``plan cpus --max-cpus``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CpuCost:
    """CPU time charged per unit of work, in seconds; zero everywhere means an infinitely fast host.

    The split follows the classic per-packet / per-byte model (Chu, "Zero-Copy TCP in Solaris", 1996,
    the Sun blueprint's ref. [7]): a fixed cost per system call, per packet and per ACK, plus per-byte
    copy and checksum costs.
    """

    n_cpus: int = 1
    per_syscall_s: float = 0.0
    per_syscall_rx_s: Optional[float] = None
    """A receive call's fixed cost where it differs from a send's (None = the same): what a reader pays per call
    besides the copy (a tool's own loop around its ``recv``, iperf3's ``select`` before each ``read``)."""
    per_byte_copy_s: float = 0.0
    """CPU seconds per byte copied between user and kernel (on receive too, unless the next is set)."""
    per_byte_copy_rx_s: Optional[float] = None
    """Receive-side copy (kernel to user) where it costs other than the send side's (None = the same)."""
    per_byte_csum_s: float = 0.0
    per_packet_tx_s: float = 0.0
    per_packet_rx_s: float = 0.0
    per_ack_tx_s: float = 0.0
    per_ack_rx_s: float = 0.0
    per_interrupt_s: float = 0.0
    per_push_s: float = 0.0
    """CPU seconds to hand received data up to the socket where the OS batches it (Solaris: the STREAMS
    ``putnext`` to the stream head and the reader's wakeup, once per push of TCP's receive list). Where the
    OS wakes the reader for every segment (BSD ``sorwakeup``, Linux ``sk_data_ready``) that work is part
    of ``per_packet_rx_s`` and this stays 0."""
    per_stream_frac: float = 0.0
    """Extra fraction of per-packet cost for each additional active stream (cache and lock contention)."""
    interrupts_on_one_cpu: bool = True
    """All NIC interrupts go to CPU 0 (the Itanium boxes' asymmetric I/O); else spread over CPUs."""
    wake_cost_s: float | tuple[tuple[float, float], ...] = 0.0
    """CPU seconds that making a blocked application runnable costs the CPU that does it (``try_to_wake_up``,
    the inter-processor interrupt and, on a VM, its exits): charged to the CPU whose delivery of a segment
    wakes a reader that found nothing to read, or of an ACK wakes a writer that found no room (``python -m
    tcpsim.lab.wakeprobe --waker`` measures it; validation/README.md, "Waking a process costs the CPU that
    wakes it"). One figure, or (time since the application's previous wake-up s, cost s) points, linear
    between them and flat beyond both ends: on a VM a wake-up soon after the last is cheaper, the wakee not
    yet asleep again or its vCPU not yet halted ("A wake-up's cost by how long since the last")."""
    wake_latency_s: tuple[tuple[float, float], ...] = ()
    """How late a blocked application runs after the event that makes it runnable, by how long it idled:
    (idle gap s, latency s) points, linear between them from (0, 0) and flat after the last; empty, on
    time. A virtual machine's halted vCPU wakes later the longer it slept (``python -m
    tcpsim.lab.wakeprobe`` measures it). Not CPU time: the CPU is free meanwhile."""
    wake_latency_spread: tuple[float, ...] = ()
    """How a wake-up's latency spreads about :attr:`wake_latency_s`: the quantiles, at the middles of equal steps of
    probability (2.5, 7.5, ..., 97.5 % for 20), of the latency over its idle gap's median, each wake-up's latency
    that median times a factor drawn from the run's seeded generator, linear between the quantiles (the ends held at
    the first and last). Over wake-ups no later than 1 ms; the later ones are the stalls (``python -m
    tcpsim.lab.schedtrace`` measures both; validation/README.md, "A wake-up's latency varies as measured"). Empty:
    each wake-up is its median late."""
    wake_stall_frac: float = 0.0
    """The fraction of wake-ups of a blocked application that come milliseconds late (a VM's vCPU not running
    when it is made runnable): each such wake-up runs :attr:`wake_stall_s` late, on top of
    :attr:`wake_latency_s`, drawn from the run's seeded generator (``python -m tcpsim.lab.wakeprobe --tail``;
    validation/README.md, "A blocked process now and then wakes milliseconds late"). 0: never, as every shipped
    profile has it: a streaming process does not meet the probe's tail, whose stalls are the vCPU stopping, under a
    stream mostly while the process holds its socket (validation/README.md, "A streaming process does not meet the
    wake-up probe's stalls"); set it only to ask what such stalls would do."""
    wake_stall_s: float = 0.0
    """How late a stalled wake-up runs (the mean of the probe's wake-ups later than 1 ms)."""
    preempt_per_s: float = 0.0
    """How often a running CPU is taken from its work for a short gap (the timer tick, other interrupts, a VM's
    exits to its hypervisor): gaps a second, coming as a Poisson process; 0, never (every shipped profile). With
    :attr:`preempt_s`, each CPU of a modelled host loses them, from a generator of its own seeded by the run's seed,
    the host and the CPU: work queued on it waits out a gap that begins before it is done. They take about 1 % of a
    VM's CPU, nothing for a rate, but they break the lockstep of a CPU-bound pipeline, whose one delayed ACK moves it
    to the state the kernel runs in (``python -m tcpsim.lab.gapprobe`` measures both; validation/README.md, "A running
    CPU loses short gaps to the system, as measured")."""
    preempt_s: tuple[float, ...] = ()
    """The gaps' lengths in seconds: quantiles at the middles of equal steps of probability (2.5, 7.5, ..., 97.5 % for
    20), each gap drawn between them (the ends held at the first and last). Empty: no gaps."""

    rx_tcp_frac: float = 1.0
    """TCP's share of a received frame's stack work (``per_packet_rx_s`` and the checksum for data, ``per_ack_rx_s``
    for an ACK); the rest, the driver, IP and ``tcp_v4_rcv`` up to ``sock_owned_by_user``, runs on the CPU that takes
    the frame in whatever the socket's state, and TCP's part (``tcp_v4_do_rcv``) after it, there or, when the socket's
    application owns the socket at that check, on the owner's CPU from its backlog (``tcp_add_backlog``,
    ``__release_sock``). 1.0, every shipped profile: the whole work goes one way, by the socket's state when the frame
    arrives. ``python -m tcpsim.lab.perfparts`` measures it (``perf`` call chains; validation/README.md, "The receive
    work divides at the socket's lock")."""

    def __post_init__(self) -> None:
        check_types(self)
        _check_range("n_cpus", self.n_cpus, 1, MAX_CPUS)
        object.__setattr__(self, "wake_latency_s", _wake_points("wake_latency_s", self.wake_latency_s))
        object.__setattr__(self, "wake_latency_spread", _spread_points(self.wake_latency_spread))
        object.__setattr__(self, "preempt_s", _spread_points(self.preempt_s, "preempt_s", 1.0,
                                                              "a list of gap lengths in 0..1 s, never falling"))
        _check_range("preempt_per_s", self.preempt_per_s, 0.0, 1e6)
        if isinstance(self.wake_cost_s, (list, tuple)):
            object.__setattr__(self, "wake_cost_s", _wake_points("wake_cost_s", self.wake_cost_s, at_least=1))
        else:
            _check_range("wake_cost_s", self.wake_cost_s, 0.0, 1.0)
        for name in ("per_syscall_s", "per_byte_copy_s", "per_byte_csum_s", "per_packet_tx_s",
                     "per_packet_rx_s", "per_ack_tx_s", "per_ack_rx_s", "per_interrupt_s", "per_push_s"):
            _check_range(name, getattr(self, name), 0.0, 1.0)
        _check_range("per_stream_frac", self.per_stream_frac, 0.0, 10.0)
        _check_range("wake_stall_frac", self.wake_stall_frac, 0.0, 1.0)
        _check_range("wake_stall_s", self.wake_stall_s, 0.0, 1.0)
        _check_range("rx_tcp_frac", self.rx_tcp_frac, 0.0, 1.0)
        for name in ("per_byte_copy_rx_s", "per_syscall_rx_s"):
            if getattr(self, name) is not None:
                _check_range(name, getattr(self, name), 0.0, 1.0)

    def wake_latency_after_s(self, idle_s: float) -> float:
        """The wake-up latency after ``idle_s`` of idling (:attr:`wake_latency_s`)."""
        return from_zero(self.wake_latency_s, idle_s)

    def wake_latency_factor(self, draw: float) -> float:
        """The factor on a wake-up's median latency for a uniform ``draw`` in [0, 1) (:attr:`wake_latency_spread`,
        its inverse distribution function); 1 without a spread."""
        q = self.wake_latency_spread
        return quantile_at(q, draw) if q else 1.0

    def preempt_length_s(self, draw: float) -> float:
        """A gap's length for a uniform ``draw`` in [0, 1) (:attr:`preempt_s`, its inverse distribution function)."""
        return quantile_at(self.preempt_s, draw)

    @property
    def gaps(self) -> bool:
        """Whether a running CPU here loses short gaps (:attr:`preempt_per_s` and :attr:`preempt_s` both set)."""
        return self.preempt_per_s > 0.0 and bool(self.preempt_s)

    def wake_cost_after_s(self, since_s: float) -> float:
        """What a wake-up ``since_s`` after the application's previous one costs the waking CPU
        (:attr:`wake_cost_s`)."""
        return held_below(self.wake_cost_table, since_s)

    @property
    def wake_cost_table(self) -> tuple[tuple[float, float], ...]:
        """:attr:`wake_cost_s` as a table of (gap, cost) pairs: a single cost is one pair, held at every gap."""
        table = self.wake_cost_s
        return table if isinstance(table, tuple) else ((1.0, float(table)),)

    @property
    def copy_rx_s(self) -> float:
        """CPU seconds per byte a ``recv`` copies to the application."""
        return self.per_byte_copy_s if self.per_byte_copy_rx_s is None else self.per_byte_copy_rx_s

    @property
    def syscall_rx_s(self) -> float:
        """CPU seconds a ``recv`` call costs besides its copy."""
        return self.per_syscall_s if self.per_syscall_rx_s is None else self.per_syscall_rx_s

    @property
    def wake_draws(self) -> bool:
        """Whether a wake-up here takes a draw of the run's seeded generator (a latency spread or stalls)."""
        return bool(self.wake_latency_s and self.wake_latency_spread) or self.stalls

    @property
    def stalls(self) -> bool:
        """Whether a wake-up here now and then stalls (both :attr:`wake_stall_frac` and :attr:`wake_stall_s` set)."""
        return self.wake_stall_frac > 0.0 and self.wake_stall_s > 0.0

    @property
    def is_free(self) -> bool:
        """True when every cost is zero: the engine then skips the host model entirely."""
        return not any((self.per_syscall_s, self.syscall_rx_s, self.per_byte_copy_s, self.copy_rx_s,
                        self.per_byte_csum_s, self.per_packet_tx_s, self.per_packet_rx_s, self.per_ack_tx_s,
                        self.per_ack_rx_s, self.per_interrupt_s, self.per_push_s, self.wake_cost_s,
                        self.wake_latency_s, self.stalls))


def _wake_points(name: str, points, at_least: int = 0) -> tuple[tuple[float, float], ...]:
    """A wake-up table (``CpuCost.wake_latency_s``, ``wake_cost_s``) checked: pairs of numbers, gaps rising in
    (0, 1] s, values in 0..1 s, at least ``at_least`` of them."""
    allowed = ("a number in 0..1 or " if at_least else "") + \
        "a list of [gap_s, seconds] pairs, gap_s rising in (0, 1], seconds in 0..1"
    try:
        out = tuple((float(gap), float(value)) for gap, value in points)
    except (TypeError, ValueError):
        raise ConfigError(name, points, allowed) from None
    gaps = [gap for gap, _ in out]
    if (len(out) < at_least or any(not (0 < gap <= 1) or not (0 <= value <= 1) for gap, value in out)
            or gaps != sorted(set(gaps))):
        raise ConfigError(name, points, allowed)
    return out


def _spread_points(points, name: str = "wake_latency_spread", top: float = 100.0,
                   allowed: str = "a list of factors in 0..100, never falling (quantiles of latency over its median)"
                   ) -> tuple[float, ...]:
    """Quantiles checked (``CpuCost.wake_latency_spread``, ``preempt_s``): numbers in 0..``top``, never falling."""
    try:
        out = tuple(float(q) for q in points)
    except (TypeError, ValueError):
        raise ConfigError(name, points, allowed) from None
    if any(not (0 <= q <= top) for q in out) or list(out) != sorted(out):
        raise ConfigError(name, points, allowed)
    return out


def mid_quantiles(values: Sequence[float], steps: int) -> list[float]:
    """The quantiles of ``values`` at the middles of ``steps`` equal steps of probability (2.5, 7.5, ..., 97.5 % for
    20), linear between the sorted values, the ends held: the form :func:`quantile_at` draws from (the probes write
    ``CpuCost.preempt_s`` and ``wake_latency_spread`` so)."""
    xs = sorted(values)
    if not xs:
        return []
    out = []
    for k in range(steps):
        pos = (k + 0.5) / steps * len(xs) - 0.5
        i = min(max(int(pos), 0), len(xs) - 1)
        j = min(i + 1, len(xs) - 1)
        out.append(xs[i] + (xs[j] - xs[i]) * min(max(pos - i, 0.0), 1.0))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Nic:
    """Network interface card and driver: rings, receive backlog, interrupt coalescing, offload."""

    tx_ring_packets: int = 256
    """Transmit descriptors (ixgb ``TxDescriptors``): frames posted to the NIC and not yet on the wire.
    When the ring is full the driver stops its queue and the frame waits in the OS queue (the qdisc)
    until a frame leaves; it is delayed, not dropped (unless ``Link.queue_packets`` is reached)."""
    rx_ring_packets: int = 256
    """Receive descriptors: frames the NIC holds until their interrupt hands them to the driver; a frame
    that finds the ring full is dropped (ixgb ``RxDescriptors``)."""
    backlog_packets: int = 1000
    """Receive backlog (Linux ``net.core.netdev_max_backlog``); a full backlog drops the packet."""
    coalesce_packets: int = 1
    """Packets per receive interrupt at most (1 = an interrupt per packet)."""
    coalesce_delay_s: float = 0.0
    """Receive interrupt delay (ixgb ``RxIntDelay``): how long the NIC waits for more packets."""
    tx_checksum_offload: bool = False
    """The NIC computes the TCP checksum of frames it sends (ixgb ``XsumTX``); else the CPU pays per byte."""
    rx_checksum_offload: bool = False
    """The NIC verifies the TCP checksum of frames it receives (ixgb ``XsumRX``)."""
    drain_ring: bool = False
    """The interrupt handler takes every frame that reaches the ring while it runs (a driver's receive
    loop, or NAPI polling), so under load frames share interrupts; False = one interrupt per coalesced batch."""
    coalesce_idle_timer: bool = False
    """The delay counts from the latest frame, not the first (a packet timer, e1000 ``RDTR``): during a
    burst the NIC raises no interrupt until ``coalesce_packets`` frames wait or the line goes quiet."""
    gso_whole: bool = False
    """The path hands the sender's TSO/GSO aggregates to the receiver's TCP whole (a veth pair, a TUN device
    with ``IFF_VNET_HDR``, ``tbf``): the receiver takes each as one skb. Set on the sending host; only a
    versioned Linux sender builds aggregates (:mod:`tcpsim.components.sender`)."""
    port_rate_bps: float = 0.0
    """The port's line rate (the NIC part's ``port_rate_bps``): ``build_scenario`` refuses a faster link.
    0 = not known (a profile of runtime values, the ideal host): no limit."""

    def __post_init__(self) -> None:
        check_types(self)
        _check_range("port_rate_bps", self.port_rate_bps, 0.0, 1e13)
        _check_range("tx_ring_packets", self.tx_ring_packets, 1, 1 << 20)
        _check_range("rx_ring_packets", self.rx_ring_packets, 1, 1 << 20)
        _check_range("backlog_packets", self.backlog_packets, 1, 1 << 24)
        _check_range("coalesce_packets", self.coalesce_packets, 1, 4096)
        _check_range("coalesce_delay_s", self.coalesce_delay_s, 0.0, 0.1)

    @property
    def checksum_offload(self) -> bool:
        """Checksums offloaded both ways."""
        return self.tx_checksum_offload and self.rx_checksum_offload


@dataclass(frozen=True, slots=True, kw_only=True)
class Bus:
    """A shared I/O bus (PCI, PCI-X, PCIe) between host memory and the NIC.

    Raw bandwidth is width x clock; ``efficiency_frac`` is the share left after arbitration and
    protocol overhead, and ``per_transaction_s`` the fixed set-up time of one DMA burst, so small frames
    cost more than their bytes. Both directions and every card on the bus share it.
    """

    kind: str = "none"
    width_bits: int = 64
    clock_hz: float = 0.0
    efficiency_frac: float = 1.0
    per_transaction_s: float = 0.0
    other_load_frac: float = 0.0
    """Share of the bus taken by other cards (0 = the NIC has it alone)."""

    def __post_init__(self) -> None:
        check_types(self, "bus.")
        _check_range("bus.width_bits", self.width_bits, 1, 4096)
        _check_range("bus.clock_hz", self.clock_hz, 0.0, 1e12)
        _check_range("bus.efficiency_frac", self.efficiency_frac, 0.01, 1.0)
        _check_range("bus.per_transaction_s", self.per_transaction_s, 0.0, 1e-3)
        _check_range("bus.other_load_frac", self.other_load_frac, 0.0, 0.99)

    @property
    def raw_bps(self) -> float:
        """Width x clock, in bit/s (inf for no bus)."""
        return math.inf if self.clock_hz == 0 else self.width_bits * self.clock_hz

    @property
    def ceiling_bps(self) -> float:
        """Sustained DMA bandwidth left for the NIC, in bit/s (before per-transaction overhead)."""
        return self.raw_bps * self.efficiency_frac * (1.0 - self.other_load_frac)

    def transfer_s(self, size_bytes: int) -> float:
        """Time the bus is held to move one frame of ``size_bytes``."""
        if self.clock_hz == 0:
            return 0.0
        return self.per_transaction_s + size_bytes * 8.0 / self.ceiling_bps

    def with_clock(self, clock_hz: float) -> "Bus":
        """The same bus run at another clock (a slower card forces the whole bus down to its clock)."""
        return replace(self, clock_hz=clock_hz, kind=f"{self.kind}@{clock_hz / 1e6:.0f}MHz")


class _BusPresets(Mapping[str, Bus]):
    """Every bus the part catalog names, as the engine's :class:`Bus` with a typical NIC on it (16-byte
    descriptors, one per frame, one port). The efficiency comes from the bus's transactions
    (:mod:`tcpsim.machine.bus`), built on first use: the part catalog sits above this module."""

    def _table(self) -> dict[str, Bus]:
        global _BUS_TABLE
        if _BUS_TABLE is None:
            from .machine.bus import preset_buses

            _BUS_TABLE = preset_buses()
        return _BUS_TABLE

    def __getitem__(self, name: str) -> Bus:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


_BUS_TABLE: Optional[dict[str, Bus]] = None
BUS_PRESETS: Mapping[str, Bus] = _BusPresets()
"""Bus presets by name: PCI 32/64-bit at 33/66 MHz, PCI-X 66 to 533, PCIe gen1-gen5 x1-x16, and none.
Calibrated profiles keep their own fitted efficiency as a residual (``tcpsim machine show``)."""


def bus_preset(name: str) -> Bus:
    """The preset called ``name`` (see :data:`BUS_PRESETS`)."""
    try:
        return BUS_PRESETS[name]
    except (KeyError, TypeError):  # TypeError: a list or a dict, which no name is
        raise ConfigError("bus", name, "one of " + ", ".join(BUS_PRESETS)) from None


DELACK_RULES = ("bsd", "bsd44", "linux", "solaris", "off")
OS_FAMILIES = ("bsd", "linux", "solaris")
CONGESTION_CONTROLS = ("reno", "cubic")
_VERSION = re.compile(r"[0-9]+\.[0-9]+(\.[0-9]+)?")


@dataclass(frozen=True, slots=True, kw_only=True)
class OsTcp:
    """The TCP behaviour of an OS family and its defaults (values a tuning file can change).

    ``family`` picks the rule sets: segmentation (Solaris builds a segment from whole application
    messages and does not split one to fill the MSS, per the Sun blueprint; BSD and Linux fill segments
    to the MSS), the delayed-ACK rules, and how a socket-buffer request becomes a kernel buffer.
    """

    family: str = "bsd"
    name: str = "generic BSD"
    default_sndbuf_bytes: int = 65536
    default_rcvbuf_bytes: int = 65536
    max_sockbuf_bytes: int = 1 << 30
    """Cap on a requested buffer (``kern.ipc.maxsockbuf``, ``net.core.[rw]mem_max``, ``tcp_max_buf``)."""
    max_sndbuf_bytes: Optional[int] = None
    """Separate cap for the send side where the OS has one (Linux ``wmem_max``); None = ``max_sockbuf_bytes``."""
    setsockopt_doubles: bool = False
    """Linux stores twice the requested value (socket(7)) and advertises only part of it."""
    adv_win_scale: int = 0
    """Linux ``tcp_adv_win_scale``: window = buffer - buffer / 2**scale (0 = all of it is window)."""
    delack: str = "bsd"
    delack_timeout_s: float = 0.2
    deferred_acks_max: int = 2
    """Segments a receiver may hold before it must ACK (RFC 1122: 2; Solaris ``tcp_deferred_acks_max``)."""
    quickack_segments: int = 0
    """Linux: segments ACKed at once at the start of a connection (quick-ACK mode)."""
    timestamps: bool = False
    sack: bool = False
    limited_transmit: Optional[bool] = None
    """RFC 3042: a new segment on each of the first two duplicate ACKs (FreeBSD ``net.inet.tcp.rfc3042``).
    None = the family's way: Linux does it in effect (each duplicate ACK lowers ``tcp_packets_in_flight``),
    4.4BSD, Tru64 5.1 and Solaris 8 predate it."""
    window_scaling: bool = True
    initial_cwnd_segments: int = 2
    min_rto_s: float = 1.0
    """Lower bound of the retransmission timeout: 1 s in 4.4BSD (``TCPTV_MIN``) and RFC 6298 §2.4. It must
    exceed the delayed-ACK timeout, or a lone segment's ACK loses the race to a spurious retransmission."""
    maxpsz_multiplier: int = 0
    """Solaris ``tcp_maxpsz_multiplier``: MSS-sized segments moved per kernel pass (0 = no limit modelled)."""
    naglim_bytes: Optional[int] = None
    """Solaris ``tcp_naglim_def``: Nagle holds data below this many bytes (None = the MSS; 1 disables Nagle)."""
    sndbuf_autotune_max_bytes: int = 0
    """Linux ``tcp_wmem[2]``: an unset send buffer grows with cwnd up to this (``tcp_new_space``; 0 = none)."""
    rcvbuf_autotune_max_bytes: int = 0
    """Linux ``tcp_rmem[2]`` with ``tcp_moderate_rcvbuf`` (2.6.7+): an unset receive buffer grows up to this
    (``tcp_rcv_space_adjust``; 0 = none)."""
    rcv_push_wait_bytes: int = 0
    """Solaris ``tcp_rcv_push_wait`` (16384): in-order data waits in TCP's receive list until a segment
    with PSH arrives or this much is queued, then goes up to the socket in one hand-off (0 = every
    segment is readable at once, as BSD and Linux)."""
    version: str = ""
    """Linux kernel version whose receive-window rules apply ("6.12", "2.6.32"; see
    :mod:`tcpsim.protocol.linux_window` and :mod:`tcpsim.os_versions`). "" = the simpler window model the
    calibrated profiles were fitted with: the buffer's share given by ``adv_win_scale``, RFC 1122 SWS
    avoidance, no MSS rounding."""
    congestion_control: str = "reno"
    """``reno`` (RFC 5681 with NewReno recovery) or ``cubic`` (RFC 9438, Linux's default since 2.6.19)."""
    autocorking: bool = False
    """Linux ``net.ipv4.tcp_autocorking`` (on by default from 3.14): small writes coalesce while the socket's
    earlier segments are still in the host's transmit path."""
    rx_skb_overhead_bytes: int = 832
    """What a received full-sized segment's skb charges to the receive buffer beyond its payload
    (``skb->truesize - skb->len``): the skb and shared-info structures (576 bytes on x86-64) and a
    256-byte head. Linux 6.6+ turns it into the window's share of the buffer (``scaling_ratio``): 0.633
    at a 1448-byte payload, 0.914 at 8948. Used only with a :attr:`version`."""
    tx_skb_overhead_bytes: int = 832
    """What each skb of the send queue charges to the send buffer beyond its payload (``sk_wmem_queued``;
    ``tcp_stream_alloc_skb``: ``SKB_TRUESIZE`` of its header room), so a writer meets a full buffer sooner than
    its payload says: 832 bytes on x86-64 (``ss -tmi`` of a sending socket on the lab VM's 6.18: ``w`` is the
    payload plus 832 for each skb). Used only with a :attr:`version`."""
    rx_skb_page_bytes: int = 0
    """The receive path holds a packet that does not fit one page in whole pages of this size, as the TUN
    driver does (:func:`tcpsim.protocol.linux_window.rx_truesize`); 0 = a buffer sized to the segment
    (:attr:`rx_skb_overhead_bytes` beyond its payload). Used only with a :attr:`version`."""
    tx_skb_head_bytes: int = 640
    """Linux 3.14+: ``MAX_TCP_HEADER`` plus ``SKB_DATA_ALIGN(sizeof(struct skb_shared_info))``, the head room an
    autotuned send buffer counts for each segment before rounding it to a power of two
    (:func:`tcpsim.protocol.linux_sndbuf.per_mss_bytes`): 320 + 320 on a distribution's x86-64 kernel
    (``LL_MAX_HEADER`` 128 and tunnels built), 192 + 320 on a minimal one (``LL_MAX_HEADER`` 32). A property of the
    kernel's build; used only with a :attr:`version`."""
    limit_output_bytes: int = 0
    """Linux ``net.ipv4.tcp_limit_output_bytes``, the cap of TCP small queues (3.6 on): the bytes a socket may
    have in the host's transmit path (``tcp_small_queue_check``); 0 = no TSQ. Used only with a :attr:`version`
    (defaults by version: :func:`tcpsim.os_versions.tsq_default_bytes`)."""

    fq_qdisc: bool = False
    """Linux: the host's egress qdisc is ``fq`` (``net.core.default_qdisc = fq``, or ``tc qdisc ... fq``), which paces
    every TCP flow at its pacing rate (3.12 on; :mod:`tcpsim.protocol.pacing`). Used only with a :attr:`version`."""

    hz: int = 250
    """Linux's tick rate (``CONFIG_HZ``: 250 in Debian's and Ubuntu's generic kernels, 1000 in Fedora's and RHEL's; 0 =
    a continuous clock): CUBIC counts its time in these ticks (``tcp_jiffies32``, :mod:`tcpsim.protocol.cubic`). Used
    only with a :attr:`version`."""

    tso_win_divisor: int = 3
    """Linux ``net.ipv4.tcp_tso_win_divisor``: a sender holding a partial TSO skb for the next ACK sends it once
    1/N of min(window, cwnd) may go (``tcp_tso_should_defer``); 0 = once more than three segments may. Used
    only with a :attr:`version` of 4.1 on (:mod:`tcpsim.protocol.tso_defer`)."""

    comp_sack_nr: int = 44
    """Linux ``net.ipv4.tcp_comp_sack_nr`` (4.18 on): at most this many SACKs of out-of-order data are compressed into
    one before an ACK goes at once; 0 = no SACK compression. Used only with a :attr:`version`
    (:func:`tcpsim.protocol.delack.comp_sack_delay_s`)."""
    comp_sack_delay_s: float = 1e-3
    """Linux ``net.ipv4.tcp_comp_sack_delay_ns``, in seconds: the longest a compressed SACK waits."""
    comp_sack_slack_s: float = 1e-4
    """Linux ``net.ipv4.tcp_comp_sack_slack_ns`` (5.8 on; 0 before), in seconds: the compression timer's slack, after
    which it fires on a quiet CPU."""
    comp_sack_rtt_percent: int = 5
    """The compressed SACK's wait as a share of the round trip, in percent: 5 until 6.18, Linux
    ``net.ipv4.tcp_comp_sack_rtt_percent`` from 6.19 (default 100)."""

    def __post_init__(self) -> None:
        check_types(self, "os.")
        if self.family not in OS_FAMILIES:
            raise ConfigError("os.family", self.family, "one of " + ", ".join(OS_FAMILIES))
        if self.congestion_control not in CONGESTION_CONTROLS:
            raise ConfigError("os.congestion_control", self.congestion_control,
                              "one of " + ", ".join(CONGESTION_CONTROLS))
        if self.version and (self.family != "linux" or not _VERSION.fullmatch(self.version)):
            raise ConfigError("os.version", self.version, 'a Linux kernel version such as "6.12" (family linux)')
        _check_range("os.rx_skb_overhead_bytes", self.rx_skb_overhead_bytes, 0, 1 << 20)
        _check_range("os.tx_skb_overhead_bytes", self.tx_skb_overhead_bytes, 0, 1 << 20)
        _check_range("os.limit_output_bytes", self.limit_output_bytes, 0, (1 << 31) - 1)
        _check_range("os.tx_skb_head_bytes", self.tx_skb_head_bytes, 0, 1 << 16)
        _check_range("os.tso_win_divisor", self.tso_win_divisor, 0, (1 << 31) - 1)
        _check_range("os.comp_sack_nr", self.comp_sack_nr, 0, 255)
        _check_range("os.comp_sack_delay_s", self.comp_sack_delay_s, 0.0, 1.0)
        _check_range("os.comp_sack_slack_s", self.comp_sack_slack_s, 0.0, 1.0)
        _check_range("os.comp_sack_rtt_percent", self.comp_sack_rtt_percent, 1, 1000)
        _check_range("os.hz", self.hz, 0, 10000,
                     "0 (a continuous clock) or the kernel's CONFIG_HZ: 100, 250, 300, 1000")
        if self.rx_skb_page_bytes not in (0, 4096, 16384, 65536):
            raise ConfigError("os.rx_skb_page_bytes", self.rx_skb_page_bytes,
                              "0 (no paging) or a page size: 4096, 16384, 65536")
        if self.delack not in DELACK_RULES:
            raise ConfigError("os.delack", self.delack, "one of " + ", ".join(DELACK_RULES))
        _check_range("os.default_sndbuf_bytes", self.default_sndbuf_bytes, 1, 1 << 31)
        _check_range("os.default_rcvbuf_bytes", self.default_rcvbuf_bytes, 1, 1 << 31)
        _check_range("os.max_sockbuf_bytes", self.max_sockbuf_bytes, 1, 1 << 31)
        _check_range("os.adv_win_scale", self.adv_win_scale, -31, 31)
        _check_range("os.delack_timeout_s", self.delack_timeout_s, 1e-6, 10.0)
        _check_range("os.deferred_acks_max", self.deferred_acks_max, 1, 1024)
        _check_range("os.quickack_segments", self.quickack_segments, 0, 1 << 20)
        _check_range("os.initial_cwnd_segments", self.initial_cwnd_segments, 1, 1000)
        _check_range("os.min_rto_s", self.min_rto_s, 1e-6, 60.0)
        _check_range("os.maxpsz_multiplier", self.maxpsz_multiplier, 0, 100)
        _check_range("os.sndbuf_autotune_max_bytes", self.sndbuf_autotune_max_bytes, 0, 1 << 31)
        _check_range("os.rcvbuf_autotune_max_bytes", self.rcvbuf_autotune_max_bytes, 0, 1 << 31)
        _check_range("os.rcv_push_wait_bytes", self.rcv_push_wait_bytes, 0, 1 << 20)

    @property
    def whole_message_segments(self) -> bool:
        """Solaris does not split an application message to fill the MSS (Sun blueprint, Figure 8)."""
        return self.family == "solaris"

    def kernel_buffer(self, requested_bytes: int, send: bool) -> int:
        """The kernel buffer a ``setsockopt(SO_SNDBUF/SO_RCVBUF, requested)`` yields.

        Linux caps at ``[wr]mem_max`` then doubles (socket(7)); BSD, Tru64 and Solaris cap and keep it.
        """
        cap = self.max_sockbuf_bytes
        if send and self.max_sndbuf_bytes is not None:
            cap = self.max_sndbuf_bytes
        value = min(requested_bytes, cap)
        return 2 * value if self.setsockopt_doubles else value

    @property
    def version_tuple(self) -> tuple[int, ...]:
        """:attr:`version` as numbers, () when unversioned."""
        return tuple(int(x) for x in self.version.split(".")) if self.version else ()

    @property
    def ignores_adv_win_scale(self) -> bool:
        """Linux 6.6 on sizes the window by the measured skb truesize ratio (commit dfa2f0483360)."""
        return bool(self.version) and self.version_tuple >= (6, 6)

    def window_bytes(self, rcvbuf_bytes: int, payload_bytes: int = 1448) -> int:
        """The part of a receive buffer advertised as window (Linux keeps 1/2**adv_win_scale for overhead;
        6.6 on, the share of a segment of ``payload_bytes`` in its truesize, which the endpoint refines
        with its MSS)."""
        if self.ignores_adv_win_scale:
            if self.version_tuple >= (6, 11):
                packet = payload_bytes + IP_TCP_HEADER_BYTES + TIMESTAMP_OPTION_BYTES
                truesize = rx_truesize(payload_bytes, packet, self.rx_skb_overhead_bytes, self.rx_skb_page_bytes)
                ratio = scaling_ratio(payload_bytes, truesize)
            else:
                ratio = DEFAULT_RATIO_6_8 if self.version_tuple >= (6, 8) else DEFAULT_RATIO_6_6
            return win_from_space(rcvbuf_bytes, 0, ratio)
        if self.adv_win_scale > 0:
            return rcvbuf_bytes - (rcvbuf_bytes >> self.adv_win_scale)
        if self.adv_win_scale < 0:
            return rcvbuf_bytes >> -self.adv_win_scale
        return rcvbuf_bytes


def os_defaults(family: str) -> OsTcp:
    """Textbook defaults of an OS family when no platform profile is given."""
    if family == "linux":
        # Linux 2.6: tcp_rmem default 87380, tcp_wmem 16384, adv_win_scale 2, delayed-ACK timer >= 40 ms,
        # quick-ACK at start, timestamps and SACK on; buffers of sockets that set none autotune up to
        # tcp_[rw]mem[2], 4 MiB on a machine with 1 GB or more (2.6.17+ tcp_init).
        return OsTcp(family="linux", name="Linux 2.6", default_sndbuf_bytes=16384, default_rcvbuf_bytes=87380,
                     max_sockbuf_bytes=131071, setsockopt_doubles=True, adv_win_scale=2, delack="linux",
                     delack_timeout_s=0.04, deferred_acks_max=2, quickack_segments=16, timestamps=True,
                     sack=True, initial_cwnd_segments=2, min_rto_s=0.2, sndbuf_autotune_max_bytes=4194304,
                     rcvbuf_autotune_max_bytes=4194304)
    if family == "solaris":
        # Solaris 8: tcp_xmit_hiwat = tcp_recv_hiwat = 24576, tcp_deferred_acks_max 8,
        # tcp_deferred_ack_interval 100 ms, tcp_maxpsz_multiplier 2 (Sun blueprint); tcp_naglim_def 4095,
        # tcp_rcv_push_wait 16384 (Solaris tcp.c).
        return OsTcp(family="solaris", name="Solaris 8", default_sndbuf_bytes=24576, default_rcvbuf_bytes=24576,
                     max_sockbuf_bytes=1 << 20, delack="solaris", delack_timeout_s=0.1, deferred_acks_max=8,
                     initial_cwnd_segments=4, min_rto_s=0.4, maxpsz_multiplier=2, naglim_bytes=4095,
                     rcv_push_wait_bytes=16384)
    if family == "bsd":
        return OsTcp()
    raise ConfigError("os", family, "one of " + ", ".join(OS_FAMILIES))


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """Where a platform's description and numbers come from."""

    source: str = ""
    hardware: str = ""
    os: str = ""
    notes: str = ""

    def __post_init__(self) -> None:
        check_types(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class Platform:
    """A machine: CPU costs, NIC, bus and OS TCP behaviour, with provenance and fit record."""

    name: str = "ideal"
    cpu: CpuCost = field(default_factory=CpuCost)
    nic: Nic = field(default_factory=Nic)
    bus: Bus = field(default_factory=Bus)
    os: OsTcp = field(default_factory=OsTcp)
    provenance: Provenance = field(default_factory=Provenance)
    fit: tuple[tuple[str, float], ...] = ()
    """Calibration record, (key, value) pairs as written by ``tcpsim calibrate``."""
    cost_basis: str = ""
    """Where its per-packet CPU costs come from: ``measurements`` (fitted to measurements of this machine),
    ``hand`` (set by hand from physical reasoning), ``catalog`` (the parts catalog's cycles shared across
    machines, nothing of its own), ``given`` (values a file gives without a calibration record); "" not
    known (a Platform built in code). ``tcpsim predict`` cautions on ``hand`` and ``catalog``."""

    def __post_init__(self) -> None:
        check_types(self)

    @property
    def host_model_on(self) -> bool:
        """False for an ideal host (no CPU cost and no bus): the engine's fast path."""
        return not self.cpu.is_free or self.bus.clock_hz > 0 or self.nic.coalesce_delay_s > 0
