"""Parts to the runtime :class:`~tcpsim.platform.Platform` the engine uses: ``compose(parts)``.

Every runtime value comes from one part's data-sheet field or from physics over parts (the cost
catalog, the bus transaction model). :func:`compose_traced` also says which, field by field, in the
keys ``cpu.<CpuCost field>``, ``nic.<Nic field>``, ``bus.<Bus field>``, ``os.<OsTcp field>``.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Optional

from ..platform import CpuCost, Nic, Platform, Provenance
from .bus import runtime_bus
from .costs import CostCatalog, physics_costs
from .parts import Parts

__all__ = ["compose", "compose_traced", "DEPENDS_ON"]

DEPENDS_ON: dict[str, tuple[str, ...]] = {
    **{f"cpu.{k}": ("cpu", "os", "nic") for k in ("per_packet_tx_s", "per_packet_rx_s", "per_ack_tx_s",
                                                  "per_ack_rx_s", "per_interrupt_s")},
    **{f"cpu.{k}": ("cpu", "os") for k in ("per_syscall_s", "per_syscall_rx_s", "per_push_s", "per_stream_frac")},
    "cpu.per_byte_copy_s": ("memory", "os", "cpu"), "cpu.per_byte_copy_rx_s": ("memory", "os", "cpu"),
    "cpu.per_byte_csum_s": ("memory",), "cpu.n_cpus": ("cpu",), "cpu.interrupts_on_one_cpu": ("nic",),
    **{f"nic.{f.name}": ("nic",) for f in fields(Nic)}, "nic.backlog_packets": ("os",),
    "bus.kind": ("bus",), "bus.width_bits": ("bus",), "bus.clock_hz": ("bus",),
    "bus.efficiency_frac": ("bus", "nic"), "bus.per_transaction_s": ("bus", "nic"), "bus.other_load_frac": ("bus", "nic"),
}
"""The parts each runtime value is made from (an OsTcp field depends on the os part alone): a
calibration residual of that value is kept only while these parts stay."""


def compose_traced(parts: Parts, costs: Optional[CostCatalog] = None, *, name: str = "machine",
                   provenance: Provenance = Provenance()) -> tuple[Platform, dict[str, str]]:
    """The platform of ``parts`` and, per runtime field, where its value comes from."""
    cpu, nic, os_ = parts.cpu, parts.nic, parts.os
    trace: dict[str, str] = {}
    phys = physics_costs(parts, costs)
    cost_values = {k: v for k, (v, _) in phys.items()}
    trace.update({f"cpu.{k}": why for k, (_, why) in phys.items()})
    if nic.coalesce_style == "none":
        cost_values["per_interrupt_s"] = 0.0
        trace["cpu.per_interrupt_s"] = "= 0: nic.coalesce_style 'none' (a device that raises no interrupt)"
    cpu_cost = CpuCost(n_cpus=cpu.n_cpus, interrupts_on_one_cpu=not nic.interrupts_spread, **cost_values)
    trace["cpu.n_cpus"] = "= cpu.sockets x cpu.cores_per_socket x cpu.threads_per_core"
    trace["cpu.per_byte_copy_rx_s"] = "= cpu.per_byte_copy_s (None)"
    trace["cpu.per_syscall_rx_s"] = "= cpu.per_syscall_s (None)"
    trace["cpu.interrupts_on_one_cpu"] = "= not nic.interrupts_spread"
    trace["cpu.wake_latency_s"] = ("on time: no part gives it (a file may set it; tcpsim machine detect --probes "
                                   "measures it, as python -m tcpsim.lab.wakeprobe does)")
    trace["cpu.wake_latency_spread"] = "none: no part gives it (a file may set it; python -m tcpsim.lab.schedtrace)"
    for gap in ("preempt_per_s", "preempt_s"):
        trace[f"cpu.{gap}"] = "none: no part gives it (a file may set it; python -m tcpsim.lab.gapprobe)"
    trace["cpu.rx_tcp_frac"] = ("1.0, the whole receive work one way: no part gives it (a file may set it; python -m "
                                "tcpsim.lab.perfparts)")
    for stall in ("wake_stall_frac", "wake_stall_s"):
        trace[f"cpu.{stall}"] = ("never: no part gives it (a file may set it; the probe's tail, python -m "
                                 "tcpsim.lab.wakeprobe --tail, is not what a streaming process meets: "
                                 "validation/README.md)")
    per_packet = nic.coalesce_style in ("per-packet", "none")
    runtime_nic = Nic(tx_ring_packets=nic.tx_ring_packets, rx_ring_packets=nic.rx_ring_packets,
                      backlog_packets=os_.backlog_packets,
                      coalesce_packets=1 if per_packet else nic.coalesce_packets,
                      coalesce_delay_s=0.0 if per_packet else nic.coalesce_delay_s,
                      tx_checksum_offload=nic.tx_checksum_offload, rx_checksum_offload=nic.rx_checksum_offload,
                      drain_ring=nic.drain_ring, coalesce_idle_timer=nic.coalesce_style == "idle",
                      gso_whole=nic.gso_whole, port_rate_bps=nic.port_rate_bps)
    for f in fields(Nic):
        trace[f"nic.{f.name}"] = f"= nic.{f.name}"
    trace["nic.backlog_packets"] = "= os.backlog_packets"
    trace["nic.coalesce_idle_timer"] = "= nic.coalesce_style == 'idle'"
    if per_packet:
        trace["nic.coalesce_packets"] = trace["nic.coalesce_delay_s"] = f"= nic.coalesce_style '{nic.coalesce_style}'"
    bus = runtime_bus(parts.bus, nic)
    trace.update({"bus.kind": "= bus.name", "bus.width_bits": "= bus.width_bits", "bus.clock_hz": "= bus.data_rate_hz",
                  "bus.efficiency_frac": "physics: transaction model (tcpsim.machine.bus)",
                  "bus.per_transaction_s": "physics: transaction model (tcpsim.machine.bus)",
                  "bus.other_load_frac": "physics: bus.other_load_frac, bus.other_cards_bps and the card's other active ports"})
    for f in fields(os_.tcp):
        trace[f"os.{f.name}"] = f"= os.{f.name}"
    platform = Platform(name=name, cpu=cpu_cost, nic=runtime_nic, bus=bus, os=os_.tcp, provenance=provenance,
                        cost_basis="catalog")  # the parts and the shared costs alone; resolve says what else set them
    return platform, trace


def compose(parts: Parts, costs: Optional[CostCatalog] = None, *, name: str = "machine",
            provenance: Provenance = Provenance()) -> Platform:
    """The runtime :class:`~tcpsim.platform.Platform` of ``parts``, from physics and data sheets alone."""
    return compose_traced(parts, costs, name=name, provenance=provenance)[0]
