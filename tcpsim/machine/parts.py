"""The parts a machine is made of, each with the parameters a data sheet gives and a ``source`` line.

A part says what the hardware or the OS *is*; :mod:`tcpsim.machine.compose` turns five of them into the
runtime :class:`~tcpsim.platform.Platform` the engine uses. Parts are frozen: replacing one part of a
machine builds a new :class:`Parts` and leaves every other part as it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ..errors import ConfigError
from ..platform import OsTcp, _check_range

__all__ = ["Cpu", "Memory", "BusPart", "NicPart", "OsPart", "Parts", "PART_KINDS", "part_fields",
           "COALESCE_STYLES", "BUS_KINDS"]

COALESCE_STYLES = ("per-packet", "absolute", "idle", "none")
"""How a card interrupts for received frames: one interrupt each, batched from the first frame, batched by a packet
timer, or none at all (a software device such as a veth, whose frames the sending CPU's softirq takes in)."""
"""``per-packet``: an interrupt per frame; ``absolute``: the delay counts from the first frame of a batch
(ixgb ``RxIntDelay``, ce); ``idle``: a packet timer restarted by each frame (e1000 ``RDTR``)."""

BUS_KINDS = ("none", "pci", "pcix", "pcie")


def _check_name(kind: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{kind}.name", value, "a non-empty string")


@dataclass(frozen=True, slots=True, kw_only=True)
class Cpu:
    """A processor: instruction set, microarchitecture (which sets work done per cycle), clock, count."""

    name: str
    isa: str
    microarch: str
    clock_hz: float
    sockets: int = 1
    cores_per_socket: int = 1
    threads_per_core: int = 1
    source: str = ""

    def __post_init__(self) -> None:
        _check_name("cpu", self.name)
        _check_range("cpu.clock_hz", self.clock_hz, 1e6, 1e11, "in 1e6..1e11 Hz (1 MHz to 100 GHz)")
        _check_range("cpu.sockets", self.sockets, 1, 1024)
        _check_range("cpu.cores_per_socket", self.cores_per_socket, 1, 1024)
        _check_range("cpu.threads_per_core", self.threads_per_core, 1, 16)

    @property
    def n_cpus(self) -> int:
        """CPUs the OS schedules on (sockets x cores x hardware threads)."""
        return self.sockets * self.cores_per_socket * self.threads_per_core


@dataclass(frozen=True, slots=True, kw_only=True)
class Memory:
    """Main memory as one CPU copies through it: the STREAM ``Copy`` figure (bytes read plus bytes
    written per second), which sets the per-byte copy and checksum costs."""

    name: str
    copy_bw_Bps: float
    source: str = ""

    def __post_init__(self) -> None:
        _check_name("memory", self.name)
        _check_range("memory.copy_bw_Bps", self.copy_bw_Bps, 1e6, 1e13, "in 1e6..1e13 bytes/s")


@dataclass(frozen=True, slots=True, kw_only=True)
class BusPart:
    """An I/O bus and its transactions; :mod:`tcpsim.machine.bus` derives its efficiency from them.

    ``width_bits`` is the data path (PCI, PCI-X) or the lane count (PCIe); ``data_rate_hz`` the data
    transfers per second per bit of width after line coding (PCI-X 266 moves two per 133 MHz clock;
    PCIe gen1 2.5 GT/s x 8b/10b = 2e9). Overheads are per burst (PCI burst, PCI-X sequence, PCIe TLP).
    """

    name: str
    kind: str
    width_bits: int = 64
    clock_hz: float = 0.0
    """Clock of the address and control phases (PCI, PCI-X); unused for PCIe."""
    data_rate_hz: float = 0.0
    burst_bytes: int = 256
    """Data per burst: PCI latency-timer burst, PCI-X Maximum Memory Read Byte Count, PCIe Max_Payload_Size."""
    write_overhead_clocks: float = 0.0
    """Clocks of arbitration, address and turnaround per write burst (PCI, PCI-X)."""
    read_overhead_clocks: float = 0.0
    """The same per read burst (PCI-X: split request plus split completion)."""
    overhead_bytes: float = 0.0
    """Bytes of framing per burst (PCIe TLP: framing, sequence number, header, LCRC)."""
    link_overhead_frac: float = 0.0
    """Share of the link taken by link-layer traffic (PCIe ACK/flow-control DLLPs, SKP ordered sets)."""
    read_latency_s: float = 0.0
    """Time from a read request to its first data (memory and bridge latency)."""
    read_holds_bus: bool = False
    """Conventional PCI: the bus waits (or retries) through the read latency; PCI-X and PCIe split it."""
    read_request_bytes: int = 512
    """Bytes one read asks for (PCI: a burst; PCI-X: Maximum Memory Read Byte Count; PCIe: Max_Read_Request_Size)."""
    outstanding_reads: int = 1
    """Reads a device keeps in flight (PCI-X Maximum Outstanding Split Transactions, PCIe tags): a read
    request stalls the device for latency / outstanding_reads less its own data time."""
    other_load_frac: float = 0.0
    """Share of the bus other cards take, where it is known as a share."""
    other_cards_bps: float = 0.0
    """Data other cards on this bus move, in bit/s (a second NIC busy at 1 Gbit/s: 1e9). Arbitration
    splits a saturated bus about evenly between masters, so they take at most half of it."""
    source: str = ""

    def __post_init__(self) -> None:
        _check_name("bus", self.name)
        if self.kind not in BUS_KINDS:
            raise ConfigError("bus.kind", self.kind, "one of " + ", ".join(BUS_KINDS))
        _check_range("bus.width_bits", self.width_bits, 1, 4096)
        _check_range("bus.clock_hz", self.clock_hz, 0.0, 1e11)
        _check_range("bus.data_rate_hz", self.data_rate_hz, 0.0, 1e12)
        if self.kind != "none" and self.data_rate_hz <= 0:
            raise ConfigError("bus.data_rate_hz", self.data_rate_hz, "> 0 for a pci, pcix or pcie bus")
        if self.kind in ("pci", "pcix") and self.clock_hz <= 0:
            raise ConfigError("bus.clock_hz", self.clock_hz, "> 0 for a pci or pcix bus")
        _check_range("bus.burst_bytes", self.burst_bytes, 4, 1 << 16)
        _check_range("bus.write_overhead_clocks", self.write_overhead_clocks, 0.0, 1000.0)
        _check_range("bus.read_overhead_clocks", self.read_overhead_clocks, 0.0, 1000.0)
        _check_range("bus.overhead_bytes", self.overhead_bytes, 0.0, 4096.0)
        _check_range("bus.link_overhead_frac", self.link_overhead_frac, 0.0, 0.5)
        _check_range("bus.read_latency_s", self.read_latency_s, 0.0, 1e-3)
        _check_range("bus.read_request_bytes", self.read_request_bytes, 4, 1 << 16)
        _check_range("bus.outstanding_reads", self.outstanding_reads, 1, 1024)
        _check_range("bus.other_load_frac", self.other_load_frac, 0.0, 0.99)
        _check_range("bus.other_cards_bps", self.other_cards_bps, 0.0, 1e13)

    @property
    def data_Bps(self) -> float:
        """Raw data bandwidth in bytes/s (inf for no bus)."""
        return math.inf if self.kind == "none" else self.width_bits * self.data_rate_hz / 8


@dataclass(frozen=True, slots=True, kw_only=True)
class NicPart:
    """A network card and its driver's defaults; ``ports`` ports on one card share its bus slot."""

    name: str
    driver_class: str
    """The driver family whose per-packet work the cost catalog knows (``e1000``, ``ixgb``, ``tigon2``...)."""
    port_rate_bps: float = 1e9
    """The port's line rate; 0 for a software device that has none (a veth)."""
    ports: int = 1
    active_ports: int = 1
    """Ports carrying traffic at once; the others' DMA shares the bus with the modelled port."""
    tx_ring_packets: int = 256
    rx_ring_packets: int = 256
    coalesce_style: str = "absolute"
    coalesce_packets: int = 1
    coalesce_delay_s: float = 0.0
    drain_ring: bool = False
    """The interrupt handler loops over the ring (or NAPI polls it) while frames keep arriving."""
    tx_checksum_offload: bool = False
    rx_checksum_offload: bool = False
    tso: bool = False
    """TCP segmentation offload supported (recorded; the engine does not model it)."""
    lro: bool = False
    """Large receive offload supported (recorded; the engine does not model it)."""
    gso_whole: bool = False
    """The device hands the sender's TSO/GSO aggregates to the receiver whole (a veth pair)."""
    interrupts_spread: bool = False
    """The driver spreads receive work over CPUs (several queues, RSS, Solaris ce task queues)."""
    descriptor_bytes: int = 16
    """Size of one DMA descriptor; each frame costs a descriptor fetch and a write-back on the bus."""
    descriptor_batch: int = 1
    """Frames per descriptor fetch or write-back (descriptor prefetch and write-back batching)."""
    source: str = ""

    def __post_init__(self) -> None:
        _check_name("nic", self.name)
        if not isinstance(self.driver_class, str) or not self.driver_class:
            raise ConfigError("nic.driver_class", self.driver_class, "a non-empty string")
        if self.port_rate_bps != 0:
            _check_range("nic.port_rate_bps", self.port_rate_bps, 1e6, 1e13, "0 (none) or in 1e6..1e13")
        _check_range("nic.ports", self.ports, 1, 64)
        _check_range("nic.active_ports", self.active_ports, 1, self.ports, f"in 1..{self.ports} (nic.ports)")
        _check_range("nic.tx_ring_packets", self.tx_ring_packets, 1, 1 << 20)
        _check_range("nic.rx_ring_packets", self.rx_ring_packets, 1, 1 << 20)
        if self.coalesce_style not in COALESCE_STYLES:
            raise ConfigError("nic.coalesce_style", self.coalesce_style, "one of " + ", ".join(COALESCE_STYLES))
        _check_range("nic.coalesce_packets", self.coalesce_packets, 1, 4096)
        _check_range("nic.coalesce_delay_s", self.coalesce_delay_s, 0.0, 0.1)
        _check_range("nic.descriptor_bytes", self.descriptor_bytes, 4, 256)
        _check_range("nic.descriptor_batch", self.descriptor_batch, 1, 256)


@dataclass(frozen=True, slots=True, kw_only=True)
class OsPart:
    """An OS version: its TCP defaults (:class:`~tcpsim.platform.OsTcp`) and what the cost catalog and the
    NIC's receive path need to know of it."""

    name: str
    """The :mod:`tcpsim.os_versions` entry (``linux-2.6``, ``solaris-8``, ``tru64-5``...)."""
    cost_family: str
    """The row of the cost catalog: tru64, solaris, hpux, linux, freebsd, windows, generic."""
    tcp: OsTcp
    backlog_packets: int = 1000
    """Receive backlog between driver and stack (Linux ``netdev_max_backlog``)."""
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.tcp, OsTcp):
            raise ConfigError("os.tcp", self.tcp, "an OsTcp")
        _check_range("os.backlog_packets", self.backlog_packets, 1, 1 << 24)


PART_KINDS = ("cpu", "memory", "bus", "nic", "os")


@dataclass(frozen=True, slots=True, kw_only=True)
class Parts:
    """The five parts of one machine."""

    cpu: Cpu
    memory: Memory
    bus: BusPart
    nic: NicPart
    os: OsPart


def part_fields(cls) -> tuple[str, ...]:
    """Field names of a part class, as a machine file may set them."""
    return tuple(f.name for f in fields(cls))
