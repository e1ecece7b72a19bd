"""CPU costs from physics: shared cycle counts, scaled by clock and microarchitecture, and per-byte costs
from memory bandwidth.

``costs.toml`` holds, per OS cost family (the code path: linux, solaris, tru64 ...) and per driver
class, the *reference cycles* a piece of work takes on a core that does NetBurst's work per clock;
a CPU part turns them into seconds: ``cycles / (clock_hz x microarch factor)``. Per-byte costs come
from the memory part: a copy costs ``copy_factor / copy_bw_Bps`` seconds per byte (``copy_factor_fsrm`` on a core
that reports fast short ``rep movsb``, with which Linux copies to and from user space), a checksum
``csum_factor / copy_bw_Bps``. These are the parameters a joint calibration shares across machines;
:class:`CostCatalog` is the value it varies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from ..errors import ConfigError
from .lookup import catalog_table, microarch_factor, microarch_fsrm
from .parts import Parts

__all__ = ["CostCatalog", "PACKET_KINDS", "FAMILY_KINDS", "default_costs", "physics_costs"]

PACKET_KINDS = ("packet_tx_cycles", "packet_rx_cycles", "ack_tx_cycles", "ack_rx_cycles", "interrupt_cycles")
"""Work that depends on the OS and the driver: a row of ``[driver.<family>.<class>]``."""
FAMILY_KINDS = ("syscall_cycles", "push_cycles", "stream_frac")
"""Work of the OS alone: ``[family.<family>]``."""

_RUNTIME = {"packet_tx_cycles": "per_packet_tx_s", "packet_rx_cycles": "per_packet_rx_s",
            "ack_tx_cycles": "per_ack_tx_s", "ack_rx_cycles": "per_ack_rx_s",
            "interrupt_cycles": "per_interrupt_s", "syscall_cycles": "per_syscall_s", "push_cycles": "per_push_s"}


@dataclass(frozen=True, slots=True)
class CostCatalog:
    """The shared cost parameters: ``families[family][kind]``, ``drivers[(family, class)][kind]``,
    ``copy_factor`` and ``csum_factor``, each with a ``sources`` line by key; ``copy_factor_fsrm`` for cores with
    fast short ``rep movsb`` (None: such cores copy at ``copy_factor`` too)."""

    families: Mapping[str, Mapping[str, float]]
    drivers: Mapping[tuple[str, str], Mapping[str, float]]
    copy_factor: float
    csum_factor: float
    sources: Mapping[str, str] = field(default_factory=dict)
    copy_factor_fsrm: Optional[float] = None

    def family_row(self, family: str) -> tuple[Mapping[str, float], str]:
        """The row of ``family``, or of ``generic`` when the catalog has none for it."""
        key = family if family in self.families else "generic"
        return self.families[key], f"family.{key}"

    def packet_row(self, family: str, driver_class: str) -> tuple[Mapping[str, float], str]:
        """Per-packet cycles of an OS family with a driver class; the family's own defaults where the
        catalog has no entry for that pair."""
        if (family, driver_class) in self.drivers:
            return self.drivers[(family, driver_class)], f"driver.{family}.{driver_class}"
        return self.family_row(family)


def _floats(table: Mapping[str, Any], kinds: tuple[str, ...], where: str) -> dict[str, float]:
    out = {}
    for k in kinds:
        v = table.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ConfigError(f"costs.{where}.{k}", v, "a number >= 0")
        out[k] = float(v)
    return out


def default_costs() -> CostCatalog:
    """The shipped :class:`CostCatalog` (``tcpsim/machine/catalog/costs.toml``)."""
    raw = catalog_table("costs")
    sources = {"copy_factor": raw.get("copy_source", ""), "csum_factor": raw.get("csum_source", ""),
               "copy_factor_fsrm": raw.get("copy_fsrm_source", "")}
    families = {}
    for fam, row in raw["family"].items():
        families[fam] = _floats(row, FAMILY_KINDS + PACKET_KINDS, f"family.{fam}")
        sources[f"family.{fam}"] = row.get("source", "")
    drivers = {}
    for fam, classes in raw.get("driver", {}).items():
        for cls, row in classes.items():
            drivers[(fam, cls)] = _floats(row, PACKET_KINDS, f"driver.{fam}.{cls}")
            sources[f"driver.{fam}.{cls}"] = row.get("source", "")
    fsrm = raw.get("copy_factor_fsrm")
    return CostCatalog(families=families, drivers=drivers, copy_factor=float(raw["copy_factor"]),
                       csum_factor=float(raw["csum_factor"]), sources=sources,
                       copy_factor_fsrm=None if fsrm is None else float(fsrm))


def physics_costs(parts: Parts, costs: Optional[CostCatalog] = None) -> dict[str, tuple[float, str]]:
    """CpuCost field -> (value, how it was derived) from the parts alone."""
    costs = costs or default_costs()
    cpu, mem = parts.cpu, parts.memory
    factor, _ = microarch_factor(cpu.microarch)
    hz = cpu.clock_hz * factor
    clock = f"{cpu.clock_hz / 1e9:.4g} GHz x {factor:g} ({cpu.microarch})"
    out: dict[str, tuple[float, str]] = {}
    fam_row, fam_key = costs.family_row(parts.os.cost_family)
    pkt_row, pkt_key = costs.packet_row(parts.os.cost_family, parts.nic.driver_class)
    for kind in PACKET_KINDS:
        out[_RUNTIME[kind]] = (pkt_row[kind] / hz, f"physics: {pkt_row[kind]:.4g} cycles [{pkt_key}] / {clock}")
    for kind in ("syscall_cycles", "push_cycles"):
        out[_RUNTIME[kind]] = (fam_row[kind] / hz, f"physics: {fam_row[kind]:.4g} cycles [{fam_key}] / {clock}")
    out["per_stream_frac"] = (fam_row["stream_frac"], f"physics: [{fam_key}] stream_frac")
    bw = f"{mem.copy_bw_Bps / 1e9:.4g} GB/s ({mem.name})"
    fsrm = costs.copy_factor_fsrm
    if fsrm is not None and microarch_fsrm(cpu.microarch):
        why = f"physics: copy_factor_fsrm {fsrm:.4g} ({cpu.microarch}: fast short rep movsb) / {bw}"
        out["per_byte_copy_s"] = (fsrm / mem.copy_bw_Bps, why)
    else:
        why = f"physics: copy_factor {costs.copy_factor:.4g} / {bw}"
        out["per_byte_copy_s"] = (costs.copy_factor / mem.copy_bw_Bps, why)
    out["per_byte_csum_s"] = (costs.csum_factor / mem.copy_bw_Bps, f"physics: csum_factor {costs.csum_factor:.4g} / {bw}")
    return out
