"""The shared physical parameters the joint fit and ``validate --cross`` vary, built from the machine catalog.

Every machine with a calibration table (:data:`MACHINES`) is a composition of parts (:mod:`tcpsim.machine`);
its per-packet work is the reference cycles of its OS cost family x driver class over its CPU's
clock x microarchitecture factor, its copy cost the shared copy factor over its memory's STREAM Copy
bandwidth. One parameter per cost kind and family x driver row (the two ixgb hosts share the Linux
row), one per family for system calls, a shared copy factor, and a few named per-machine residuals:
each machine's copy over the shared figure (the catalog's STREAM figures are approximate), each NIC's
receive coalescing delay (a setting, started at the driver's data-sheet default), each PCI-X 10 GbE
bus's efficiency (started at the transaction model's value) and the SE7501's receive-side copy. A
residual has a log-normal prior around its start, so what the machines share goes to the shared terms.

A fit starts where the committed calibration is (the catalog's rows, the profiles' fitted residuals), so
a small budget starts from the fitted machines; the copy factor starts at its prior, 2 (a copy reads
and writes each byte once, and STREAM Copy counts both). What a fold gives a machine it leaves out is
fitted to nothing of that machine (validation/README.md, the cross-validation rule): a row no remaining
point constrains borrows the fitted value of its kind from the other rows (``borrow``), and a residual
takes its prior (``unconstrained``): the copy residuals 1, the coalescing delay the driver's default,
the bus efficiency the transaction model's.
"""

from __future__ import annotations

from typing import Optional

from .joint import JointModel, SharedParam, Target

__all__ = ["MACHINES", "joint_model", "PACKET_KINDS", "COPY_FACTOR_PRIOR"]

MACHINES = ("es40_tru64", "sunfire6800_ce", "rx2600_ixgb", "se7501_ixgb")
"""The machines of the calibration tables; the others keep their profiles (hand-set, fitted to nothing)."""

PACKET_KINDS = {"packet_tx_cycles": "cpu.per_packet_tx_s", "packet_rx_cycles": "cpu.per_packet_rx_s",
                "ack_tx_cycles": "cpu.per_ack_tx_s", "ack_rx_cycles": "cpu.per_ack_rx_s"}
"""Cycle kinds of a family x driver row, and the platform field each sets."""

COPY_FACTOR_PRIOR = 2.0
"""Seconds per byte copied x STREAM Copy bandwidth: a copy reads and writes each byte once."""

_CYCLES = (100.0, 2e6)
"""Bounds of any reference-cycle count: from a hundred cycles (a few dozen instructions) to two million."""


def joint_model(machines: tuple[str, ...] = MACHINES) -> JointModel:
    """The joint model over ``machines`` (profile names), its starts as described in the module docstring."""
    from ..machine.costs import default_costs
    from ..machine.lookup import microarch_factor
    from ..machine.spec import load_machine

    costs = default_costs()
    resolved = {pid: load_machine(pid) for pid in machines}
    hz, bw, rows, fams = {}, {}, {}, {}
    for pid, m in resolved.items():
        factor, _ = microarch_factor(m.parts.cpu.microarch)
        hz[pid] = m.parts.cpu.clock_hz * factor
        bw[pid] = m.parts.memory.copy_bw_Bps
        fam, drv = m.parts.os.cost_family, m.parts.nic.driver_class
        rows.setdefault((fam, drv), []).append(pid)
        fams.setdefault(fam, []).append(pid)
    params: list[SharedParam] = []
    for (fam, drv), pids in sorted(rows.items()):
        row, key = costs.packet_row(fam, drv)
        for kind, field in PACKET_KINDS.items():
            params.append(SharedParam(f"{fam}/{drv}.{kind}", *_CYCLES, _within(row[kind], _CYCLES),
                                      f"reference cycles: {field.split('.')[1]} ({key})",
                                      tuple(Target(p, field, 1.0 / hz[p]) for p in pids), kind=kind, borrow=kind))
    for fam, pids in sorted(fams.items()):
        row, key = costs.family_row(fam)
        params.append(SharedParam(f"{fam}.syscall_cycles", *_CYCLES, _within(row["syscall_cycles"], _CYCLES),
                                  f"reference cycles per system call ({key})",
                                  tuple(Target(p, "cpu.per_syscall_s", 1.0 / hz[p]) for p in pids),
                                  kind="syscall_cycles", borrow="syscall_cycles"))
        if row["push_cycles"] > 0:
            params.append(SharedParam(
                f"{fam}.push_cycles", *_CYCLES, _within(row["push_cycles"], _CYCLES),
                f"reference cycles to hand received data to the socket ({key}); unconstrained, a system call's",
                tuple(Target(p, "cpu.per_push_s", 1.0 / hz[p]) for p in pids), kind="push_cycles",
                borrow="syscall_cycles"))
        if row["stream_frac"] > 0:
            params.append(SharedParam(
                f"{fam}.stream_frac", 1e-4, 1.0, _within(row["stream_frac"], (1e-4, 1.0)),
                f"extra per-packet share per further active stream ({key}); unconstrained, 1e-4 (about none)",
                tuple(Target(p, "cpu.per_stream_frac") for p in pids), kind="stream_frac", unconstrained=1e-4))
    copy_targets = [Target(p, "cpu.per_byte_copy_s", 1.0 / bw[p]) for p in resolved]
    copy_targets += [Target(p, "cpu.per_byte_copy_rx_s", 1.0 / bw[p]) for p in resolved
                     if _has_own_rx_copy(resolved[p].platform)]
    params.append(SharedParam("copy_factor", 0.5, 20.0, COPY_FACTOR_PRIOR,
                              "seconds per byte copied x the memory's STREAM Copy bandwidth", tuple(copy_targets)))
    for pid, m in resolved.items():
        cpu = m.platform.cpu
        params.append(_residual(f"{pid}.copy_residual", (0.2, 5.0), cpu.per_byte_copy_s * bw[pid] / COPY_FACTOR_PRIOR,
                                1.0, f"{pid}: its copy over the shared copy factor / its memory's STREAM Copy "
                                "figure (the catalog's figures are approximate)", Target(pid, "cpu.per_byte_copy_s"),
                                0.7))
        if _has_own_rx_copy(m.platform):
            params.append(_residual(f"{pid}.copy_rx_residual", (0.2, 5.0),
                                    cpu.per_byte_copy_rx_s * bw[pid] / COPY_FACTOR_PRIOR, 1.0,
                                    f"{pid}: receive-side copy over the shared copy cost",
                                    Target(pid, "cpu.per_byte_copy_rx_s"), 0.7))
        delay = m.physics.nic.coalesce_delay_s
        if delay > 0:
            params.append(_residual(f"{pid}.coalesce_delay_s", (1e-6, 2e-3), m.platform.nic.coalesce_delay_s, delay,
                                    f"{pid}: receive interrupt delay (prior: the {m.parts.nic.name} default)",
                                    Target(pid, "nic.coalesce_delay_s"), 1.0))
        if m.parts.bus.kind == "pcix":
            params.append(_residual(f"{pid}.bus_efficiency_frac", (0.2, 0.98), m.platform.bus.efficiency_frac,
                                    m.physics.bus.efficiency_frac, f"{pid}: share of the {m.parts.bus.name} bus "
                                    "left for DMA (prior: the transaction model's)", Target(pid, "bus.efficiency_frac"),
                                    0.3))
    base = {pid: m.platform for pid, m in resolved.items()}
    return JointModel(tuple(params), base)


def _residual(name: str, bounds: tuple[float, float], committed: float, prior: float, meaning: str, target: Target,
              sigma: float) -> SharedParam:
    """A per-machine residual: it starts at the machine's committed (fitted) value, with a log-normal prior
    around it; a fold that leaves the machine out gives it ``prior`` (fitted to nothing) instead."""
    return SharedParam(name, *bounds, _within(committed, bounds), meaning, (target,), prior_sigma=sigma,
                       unconstrained=_within(prior, bounds))


def _has_own_rx_copy(platform) -> bool:
    rx: Optional[float] = getattr(platform.cpu, "per_byte_copy_rx_s", None)
    return rx is not None and rx != platform.cpu.per_byte_copy_s


def _within(value: float, bounds: tuple[float, float]) -> float:
    return min(max(float(value), bounds[0]), bounds[1])
