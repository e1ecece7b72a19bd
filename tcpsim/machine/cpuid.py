"""Which core a Linux host has, from its ``/proc/cpuinfo``: the catalog's microarchitecture and the counts.

x86 processors are told apart by vendor, family and model (the numbers Intel's and AMD's manuals give each
core; Linux ``arch/x86/include/asm/intel-family.h`` names Intel's), Arm ones by implementer and part
(``arch/arm64/include/asm/cputype.h``). A core the tables do not know gets its ISA's usual class, said so in
the result's ``how``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Optional

__all__ = ["CpuReport", "parse_cpuinfo", "microarch_of", "catalog_cpu_of"]

_INTEL_FAMILY6 = {
    "p6": (1, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14),
    "core2": (15, 22, 23, 29),
    "nehalem": (26, 30, 31, 37, 44, 46, 47),
    "sandybridge": (42, 45, 58, 62),
    "haswell": (60, 63, 69, 70, 61, 71, 79, 86),
    "skylake": (78, 94, 85, 102, 142, 158, 165, 166),
    "sunny-cove": (106, 108, 125, 126, 140, 141, 167),
    "golden-cove": (143, 151, 154, 170, 172, 173, 174, 183, 186, 191, 207),
    "lion-cove": (189, 197, 198),
}
"""Intel family 6 model numbers (decimal) by the catalog's microarchitecture (intel-family.h: SKYLAKE 0x5E,
ALDERLAKE 0x97, ...). Atom and E-core models are left out: their cores are another class."""

_INTEL_BY_MODEL = {m: arch for arch, models in _INTEL_FAMILY6.items() for m in models}

_ARM_PARTS = {
    "cortex-a53": (0xD03, 0xD04, 0xD05, 0xD46, 0xD80),
    "cortex-a72": (0xD07, 0xD08, 0xD09),
    "cortex-a76": (0xD0A, 0xD0B, 0xD0C, 0xD0D, 0xD0E, 0xD41, 0xD4A, 0xD4B),
    "neoverse-v1": (0xD40, 0xD44, 0xD47, 0xD49),
    "neoverse-v2": (0xD48, 0xD4D, 0xD4E, 0xD4F, 0xD81, 0xD82, 0xD87),
}
"""Arm Ltd (implementer 0x41) part numbers by class (cputype.h: CORTEX_A72 0xD08, NEOVERSE_N1 0xD0C ...)."""

_ARM_BY_PART = {p: arch for arch, parts in _ARM_PARTS.items() for p in parts}


@dataclass(frozen=True, slots=True)
class CpuReport:
    """What ``/proc/cpuinfo`` says of a host's processors."""

    model_name: str
    vendor: str
    """``GenuineIntel``, ``AuthenticAMD``, ``HygonGenuine``, ``arm`` (any Arm implementer) or ``""``."""
    family: int
    model: int
    """x86: the family and model; Arm: 0 and the part number."""
    isa: str
    logical_cpus: int
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    clock_hz: Optional[float]
    """``cpu MHz`` of the first processor (on a host with frequency scaling, its clock at that moment)."""
    flags: frozenset[str] = frozenset()
    """The first processor's ``flags`` (x86) or ``Features`` (Arm)."""


def parse_cpuinfo(text: str, machine: str = "x86_64") -> CpuReport:
    """The :class:`CpuReport` of ``/proc/cpuinfo``'s text (``machine``: ``uname -m``, for the ISA)."""
    procs: list[dict[str, str]] = []
    board: dict[str, str] = {}  # an Arm board's trailing block (Hardware, Model) has no processor line
    for block in re.split(r"\n\s*\n", text):
        entry = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                entry[key.strip().lower()] = value.strip()
        if "processor" in entry and entry["processor"].isdigit():
            procs.append(entry)
        else:
            board.update(entry)
    first = procs[0] if procs else {}
    n = max(1, len(procs))
    sockets = max(1, len({p["physical id"] for p in procs if "physical id" in p}))
    cores = max(0, _number(first.get("cpu cores", "0")))
    siblings = max(0, _number(first.get("siblings", "0")))
    if cores and siblings and siblings >= cores:
        threads = max(1, siblings // cores)
    else:
        cores, threads = max(1, n // sockets), 1
    if "cpu implementer" in first:
        implementer = _number(first["cpu implementer"])
        vendor = "arm" if implementer == 0x41 else f"arm-implementer-{implementer:#x}"
        family, model = 0, _number(first.get("cpu part", "0"))
    else:
        vendor = first.get("vendor_id", "")
        family, model = _number(first.get("cpu family", "0")), _number(first.get("model", "0"))
    try:
        clock: Optional[float] = float(first["cpu mhz"]) * 1e6
    except (KeyError, ValueError):
        clock = None
    isa = {"x86_64": "x86-64", "amd64": "x86-64", "i686": "x86", "i386": "x86", "aarch64": "arm64",
           "arm64": "arm64"}.get(machine, machine or "unknown")
    name = first.get("model name") or board.get("model") or board.get("hardware") or "unknown processor"
    flags = frozenset((first.get("flags") or first.get("features") or "").split())
    return CpuReport(model_name=name, vendor=vendor, family=family, model=model, isa=isa, logical_cpus=n,
                     sockets=sockets, cores_per_socket=cores, threads_per_core=threads, clock_hz=clock, flags=flags)


def _number(text: str) -> int:
    """A decimal or ``0x`` hexadecimal field of cpuinfo; 0 if it is neither."""
    try:
        return int(text.strip(), 16 if text.strip().lower().startswith("0x") else 10)
    except ValueError:
        return 0


def microarch_of(cpu: CpuReport) -> tuple[str, str]:
    """The catalog microarchitecture of ``cpu`` and one line on how it was chosen."""
    where = f"family {cpu.family} model {cpu.model}"
    if cpu.vendor == "GenuineIntel":
        if cpu.family == 15:
            return "netburst", f"Intel {where}: NetBurst"
        if cpu.family == 6 and cpu.model in _INTEL_BY_MODEL:
            arch = _INTEL_BY_MODEL[cpu.model]
            return _intel_flag_floor(arch, cpu.flags, where) or (arch, f"Intel {where}: {arch}")
    elif cpu.vendor in ("AuthenticAMD", "HygonGenuine"):
        amd = _amd(cpu.family, cpu.model)
        if amd:
            return amd, f"{cpu.vendor} {where} ({cpu.family:#x}/{cpu.model:#x}): {amd}"
    elif cpu.vendor == "arm" and cpu.model in _ARM_BY_PART:
        arch = _ARM_BY_PART[cpu.model]
        return arch, f"Arm part {cpu.model:#x}: {arch}-class"
    usual = _USUAL.get(cpu.isa)
    if usual:
        return usual, (f"{cpu.vendor or 'unknown vendor'} {where} is not in tcpsim's table: a {usual}-class core "
                       f"assumed for {cpu.isa} (set [cpu] microarch)")
    return "unknown", f"{cpu.isa} {where} is not in tcpsim's table: the reference core assumed (set [cpu] microarch)"


_INTEL_ORDER = tuple(_INTEL_FAMILY6)
"""The table's Intel cores, oldest first."""

_INTEL_FLAG_FLOORS = {"amx_tile": "golden-cove", "avx512_fp16": "golden-cove"}
"""Feature flags by the oldest Intel core that has them (Sapphire Rapids introduced both; Intel SDM vol. 1,
AMX and AVX512-FP16). A hypervisor can hide a feature but not show one the silicon lacks (a guest using it would
fault), so a flag bounds the core from below where a CPU template reports an older model number."""


def _intel_flag_floor(arch: str, flags: frozenset[str], where: str) -> Optional[tuple[str, str]]:
    """The core a flag of ``flags`` proves, where it is newer than the model number's ``arch``; else None."""
    shown = [(f, core) for f, core in _INTEL_FLAG_FLOORS.items() if f in flags]
    floor = max(shown, key=lambda fc: _INTEL_ORDER.index(fc[1]), default=None)
    if floor is None or _INTEL_ORDER.index(floor[1]) <= _INTEL_ORDER.index(arch):
        return None
    flag, core = floor
    return core, (f"Intel {where} is {arch}, but its flags show {flag}, which no core before {core} has (a "
                  f"hypervisor's CPU template can report another model): {core}")


_USUAL: Mapping[str, str] = {"x86-64": "skylake", "arm64": "cortex-a76", "x86": "p6"}
"""The class assumed for a core the tables do not know, by ISA."""


def _amd(family: int, model: int) -> Optional[str]:
    """AMD's (and Hygon's Zen-derived) family/model ranges: K8 0xF, K10 0x10-0x12, Zen 0x17-0x18, 0x19, 0x1A."""
    if family == 0xF or 0x10 <= family <= 0x12:
        return "k8"
    if family == 0x18:
        return "zen"
    if family == 0x17:
        return "zen" if model < 0x30 else "zen2"
    if family == 0x19:
        return "zen4" if (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF) else "zen3"
    if family == 0x1A:
        return "zen5"
    return None


_CATALOG_MODELS = ((r"\bi5-8500\b", "core-i5-8500"), (r"\bi7-12700\b(?![KFT])", "core-i7-12700"),
                   (r"\bRyzen 7 5800X\b(?!3D)", "ryzen-7-5800x"), (r"\bRyzen 7 7700X\b(?!3D)", "ryzen-7-7700x"),
                   (r"\bGold 6330\b(?![A-Z])", "xeon-gold-6330"), (r"\bEPYC 7543\b(?!P)", "epyc-7543"),
                   (r"\bXeon\(R\) CPU\s+5160\b", "xeon-5160"), (r"\bRaspberry Pi 4\b", "bcm2711"),
                   (r"\bRaspberry Pi 5\b", "bcm2712"))
"""Model names (``/proc/cpuinfo`` ``model name``, or an Arm board's ``Model``) of the catalog's processors."""


def catalog_cpu_of(cpu: CpuReport) -> Optional[str]:
    """The catalog CPU part whose model ``cpu`` reports, if the catalog has it."""
    return next((part for pattern, part in _CATALOG_MODELS if re.search(pattern, cpu.model_name)), None)
