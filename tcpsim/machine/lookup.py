"""Look parts up in the shipped catalog: ``cpu_part("itanium2")``, ``bus_part("pcix-64-133")``.

The catalog is package data (``tcpsim/machine/catalog/*.toml``), read once. Bus parts are named by a
grammar (``pci-32-33``, ``pcix-64-266``, ``pcie-gen2-x4``) and built from their kind's transaction
parameters; every other part is a table of its file.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources
from typing import Any

from ..errors import ConfigError
from ..os_versions import OS_VERSIONS, os_entry
from .parts import BusPart, Cpu, Memory, NicPart, OsPart

__all__ = ["catalog_table", "cpu_part", "memory_part", "bus_part", "nic_part", "os_part", "part",
           "part_names", "microarch_factor", "microarch_fsrm", "bus_names", "cpu_default_memory"]


@functools.cache
def catalog_table(name: str) -> dict[str, Any]:
    """The parsed catalog file ``name`` (cpus, memory, buses, nics, costs)."""
    text = (resources.files(__package__) / "catalog" / f"{name}.toml").read_text()
    return tomllib.loads(text)


def _entry(kind: str, file: str, name: str) -> dict[str, Any]:
    parts = catalog_table(file)["part"]
    if not isinstance(name, str) or name not in parts:
        raise ConfigError(kind, name, "one of " + ", ".join(sorted(parts)))
    return dict(parts[name])


def _microarch_row(microarch: str) -> dict[str, Any]:
    table = catalog_table("cpus")["microarch"]
    if microarch not in table:
        raise ConfigError("cpu.microarch", microarch, "one of " + ", ".join(sorted(table)))
    return table[microarch]


def microarch_factor(microarch: str) -> tuple[float, str]:
    """Work per clock of ``microarch`` relative to NetBurst, and where that number comes from."""
    row = _microarch_row(microarch)
    return float(row["factor"]), row["source"]


def microarch_fsrm(microarch: str) -> bool:
    """Whether a ``microarch`` core reports fast short ``rep movsb`` (FSRM), with which Linux copies to and from
    user space (``copy_user_generic``)."""
    return bool(_microarch_row(microarch).get("fsrm", False))


def cpu_part(name: str) -> Cpu:
    """The catalog CPU ``name``."""
    return Cpu(name=name, **_entry("cpu", "cpus", name))


def memory_part(name: str) -> Memory:
    """The catalog memory system ``name``."""
    return Memory(name=name, **_entry("memory", "memory", name))


def nic_part(name: str) -> NicPart:
    """The catalog NIC ``name``."""
    return NicPart(name=name, **_entry("nic", "nics", name))


def os_part(name: str) -> OsPart:
    """The OS version ``name`` of :mod:`tcpsim.os_versions` as a part."""
    e = os_entry(name)
    return OsPart(name=e.name, cost_family=e.cost_family, tcp=e.tcp, backlog_packets=e.backlog_packets,
                  source=e.source)


_PCI_CLOCK = {"33": 33.33e6, "66": 66.66e6}
_PCIX = {"66": (66.66e6, 1), "100": (100e6, 1), "133": (133.33e6, 1), "266": (133.33e6, 2), "533": (133.33e6, 4)}
_PCIE_LANE_BPS = {1: 2.5e9 * 0.8, 2: 5e9 * 0.8, 3: 8e9 * 128 / 130, 4: 16e9 * 128 / 130, 5: 32e9 * 128 / 130}
"""Data bits per second of one PCIe lane after line coding (8b/10b to gen2, 128b/130b from gen3)."""
_LANES = (1, 2, 4, 8, 16)


def bus_names() -> list[str]:
    """Every bus name the grammar accepts."""
    return (["none"] + [f"pci-{w}-{c}" for w in (32, 64) for c in _PCI_CLOCK]
            + [f"pcix-64-{s}" for s in _PCIX]
            + [f"pcie-gen{g}-x{n}" for g in _PCIE_LANE_BPS for n in _LANES])


def bus_part(name: str) -> BusPart:
    """The bus ``name`` (see :func:`bus_names`), with its kind's transaction parameters."""
    kinds = catalog_table("buses")["kind"]
    if name == "none":
        return BusPart(name="none", kind="none", source="no bus: an ideal or virtual host")
    m = re.fullmatch(r"pci-(32|64)-(33|66)", name) if isinstance(name, str) else None
    if m:
        clock = _PCI_CLOCK[m[2]]
        return BusPart(name=name, kind="pci", width_bits=int(m[1]), clock_hz=clock, data_rate_hz=clock,
                       **kinds["pci"])
    m = re.fullmatch(r"pcix-64-(66|100|133|266|533)", name) if isinstance(name, str) else None
    if m:
        clock, per_clock = _PCIX[m[1]]
        return BusPart(name=name, kind="pcix", width_bits=64, clock_hz=clock,
                       data_rate_hz=clock * per_clock,
                       **kinds["pcix"])
    m = re.fullmatch(r"pcie-gen([1-5])-x(1|2|4|8|16)", name) if isinstance(name, str) else None
    if m:
        gen = int(m[1])
        values = dict(kinds["pcie"])
        if gen >= 3:
            values["overhead_bytes"] = values["overhead_bytes"] + 2  # 4-byte framing token for STP + END
            values["outstanding_reads"] = 256 if gen == 3 else 768  # extended (8-bit), then 10-bit tags
        return BusPart(name=name, kind="pcie", width_bits=int(m[2]), data_rate_hz=_PCIE_LANE_BPS[gen], **values)
    raise ConfigError("bus", name, "one of none, pci-{32,64}-{33,66}, pcix-64-{66,100,133,266,533}, "
                      "pcie-gen{1..5}-x{1,2,4,8,16}")


_LOOKUP = {"cpu": cpu_part, "memory": memory_part, "bus": bus_part, "nic": nic_part, "os": os_part}


def part(kind: str, name: str):
    """The catalog part ``name`` of ``kind`` (cpu, memory, bus, nic, os)."""
    return _LOOKUP[kind](name)


def part_names(kind: str) -> list[str]:
    """Names the catalog knows for ``kind``."""
    if kind == "bus":
        return bus_names()
    if kind == "os":
        return list(OS_VERSIONS)
    return sorted(catalog_table({"cpu": "cpus", "memory": "memory", "nic": "nics"}[kind])["part"])


def cpu_default_memory(name: str) -> str:
    """The memory system a CPU usually ships with (a machine built from flags without --memory-bw)."""
    cpu_part(name)  # an unknown name fails here, listing the known ones
    usual = catalog_table("cpus")["memory_for"].get(name)
    if usual is None:
        raise ConfigError("memory_bw", None,
                          f"given (--memory-bw 10GB/s): the catalog knows no usual memory for {name}")
    return usual
