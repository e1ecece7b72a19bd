"""Bus efficiency from the transactions a frame takes, and the runtime :class:`~tcpsim.platform.Bus`.

A frame of S bytes crosses the bus as ceil(S / burst) bursts (PCI bursts, PCI-X sequences, PCIe TLPs),
each paying its overhead (arbitration and address clocks, or TLP framing bytes), plus a descriptor fetch
(a read) and a descriptor write-back (a write), shared by ``descriptor_batch`` frames. A read also pays
for the memory's latency: on conventional PCI the bus waits through it; on PCI-X and PCIe the device
stalls only when ``outstanding_reads`` split reads cannot cover it. Link-layer traffic (PCIe DLLPs)
takes a fixed share. The host moves frames both ways (data out, ACKs in, or the reverse), so the
runtime bus charges the mean of a read burst and a write burst.

The engine's :class:`~tcpsim.platform.Bus` holds the bus ``per_transaction_s + S * 8 / ceiling`` for a
frame: :func:`runtime_bus` gives it the straight line through this model (bursts counted as S / burst
plus one half), which is within half a burst's overhead of :func:`frame_time_s` for every frame size.
"""

from __future__ import annotations

import math

from ..platform import Bus
from .parts import BusPart, NicPart

__all__ = ["burst_overhead_s", "read_stall_s", "frame_time_s", "bus_efficiency", "runtime_bus", "ports_load_frac", "cards_load_frac", "preset_buses"]


def burst_overhead_s(bus: BusPart, read: bool) -> float:
    """Bus time one burst costs beyond its data (overhead clocks and bytes), with a read's share of the
    latency stall (see :func:`read_stall_s`) spread over the bursts of one read request."""
    clocks = bus.read_overhead_clocks if read else bus.write_overhead_clocks
    t = (clocks / bus.clock_hz if bus.clock_hz > 0 else 0.0) + bus.overhead_bytes / bus.data_Bps
    if read:
        t += read_stall_s(bus) * min(bus.burst_bytes, bus.read_request_bytes) / bus.read_request_bytes
    return t


def read_stall_s(bus: BusPart) -> float:
    """Time one read request keeps the device waiting: the whole latency where the read holds the bus
    (conventional PCI), else what ``outstanding_reads`` requests in flight do not cover."""
    if bus.read_holds_bus:
        return bus.read_latency_s
    return max(0.0, bus.read_latency_s / bus.outstanding_reads - bus.read_request_bytes / bus.data_Bps)


def _descriptor_s(bus: BusPart, nic: NicPart) -> float:
    """Per frame: a descriptor fetch (read) and write-back (write), each shared by a batch of frames."""
    data_s = 2 * nic.descriptor_bytes / bus.data_Bps
    return data_s + (burst_overhead_s(bus, True) + burst_overhead_s(bus, False)) / nic.descriptor_batch


def frame_time_s(bus: BusPart, nic: NicPart, frame_bytes: int, read: bool | None = None) -> float:
    """Bus time to move one frame: ``read`` True = memory to NIC (transmit), False = NIC to memory
    (receive), None = the mean of both."""
    if bus.kind == "none":
        return 0.0
    if read is None:
        return (frame_time_s(bus, nic, frame_bytes, True) + frame_time_s(bus, nic, frame_bytes, False)) / 2
    bursts = max(1, math.ceil(frame_bytes / bus.burst_bytes))
    t = frame_bytes / bus.data_Bps + bursts * burst_overhead_s(bus, read) + _descriptor_s(bus, nic)
    return t / (1.0 - bus.link_overhead_frac)


def bus_efficiency(bus: BusPart, nic: NicPart, frame_bytes: int, read: bool | None = None) -> float:
    """Share of the raw bandwidth that carries frame bytes, for frames of ``frame_bytes``."""
    if bus.kind == "none":
        return 1.0
    return frame_bytes / bus.data_Bps / frame_time_s(bus, nic, frame_bytes, read)


def ports_load_frac(bus: BusPart, nic: NicPart, capacity_bps: float) -> float:
    """Share of the bus the card's other active ports take, each at its line rate but at most a fair
    share: min((ports - 1) x rate / capacity, (ports - 1) / ports)."""
    others = nic.active_ports - 1
    if others == 0 or bus.kind == "none":
        return 0.0
    return min(others * nic.port_rate_bps / capacity_bps, others / nic.active_ports)


def cards_load_frac(bus: BusPart, capacity_bps: float) -> float:
    """Share of the bus other cards take: their data rate over the capacity, at most half (a fair share
    against the card modelled)."""
    if bus.other_cards_bps == 0 or bus.kind == "none":
        return 0.0
    return min(bus.other_cards_bps / capacity_bps, 0.5)


def runtime_bus(bus: BusPart, nic: NicPart) -> Bus:
    """The engine's :class:`~tcpsim.platform.Bus` for this bus with this card on it (see module doc)."""
    if bus.kind == "none":
        return Bus()
    burst_s = (burst_overhead_s(bus, True) + burst_overhead_s(bus, False)) / 2
    keep = 1.0 - bus.link_overhead_frac
    per_byte_s = (1.0 / bus.data_Bps + burst_s / bus.burst_bytes) / keep
    efficiency = min(1.0, 1.0 / bus.data_Bps / per_byte_s)
    per_transaction_s = (burst_s / 2 + _descriptor_s(bus, nic)) / keep
    capacity_bps = bus.width_bits * bus.data_rate_hz * efficiency * (1.0 - bus.other_load_frac)
    cards = cards_load_frac(bus, capacity_bps)
    ports = ports_load_frac(bus, nic, capacity_bps * (1.0 - cards))
    other = min(0.99, 1.0 - (1.0 - bus.other_load_frac) * (1.0 - cards) * (1.0 - ports))
    return Bus(kind=bus.name, width_bits=bus.width_bits, clock_hz=bus.data_rate_hz, efficiency_frac=efficiency,
               per_transaction_s=per_transaction_s, other_load_frac=other)


def preset_buses() -> dict[str, Bus]:
    """Every catalog bus as a runtime :class:`~tcpsim.platform.Bus`, with a typical NIC (one 16-byte
    descriptor per frame, one port): :data:`tcpsim.platform.BUS_PRESETS`."""
    from .lookup import bus_names, bus_part

    typical = NicPart(name="typical", driver_class="generic")
    return {name: runtime_bus(bus_part(name), typical) for name in bus_names()}
