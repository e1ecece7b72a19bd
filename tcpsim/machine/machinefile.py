"""Reading a machine file (TOML) into a :class:`~tcpsim.machine.layers.Layer`, with schema checks.

Layout (see the README, "Machines made of parts")::

    name = "xeon5160"                    optional; default: the file's stem
    base = "rx2600_ixgb"                 optional: a profile or machine file this one changes
    [provenance]   source, hardware, os, notes
    [cpu]          part = "xeon-5160", then any Cpu field (clock_hz, sockets ...)
    [memory]       part = "i5000p", copy_bw_Bps
    [bus]          part = "pcie-gen1-x4", then any bus field (burst_bytes ...)
    [nic]          part = "pro1000pt-dual", then any NIC field (coalesce_delay_s ...)
    [os]           part = "linux-2.6", then any OsTcp field and backlog_packets
    [calibration.cpu|nic|bus]   fitted runtime values (tcpsim calibrate writes them)
    [fixed.cpu|nic|bus]         runtime values set by hand
    [tuning.<level>]            knobs = '''sysctl -w ...'''
    [fit]                       calibration record

Without ``base`` every part table is required. A part table without ``part`` describes a part the
catalog does not have: then every field without a default is required.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from ..platform import Bus, CpuCost, Nic, OsTcp, Provenance
from .layers import RESIDUAL_TABLES, Layer
from .parts import BusPart, Cpu, Memory, NicPart
from .schema import TomlFile, check_table, field_types, optional_table, read_toml

__all__ = ["is_machine_data", "read_machine_file", "layer_from_file", "PART_CLASSES", "RUNTIME_CLASSES"]

PART_CLASSES = {"cpu": Cpu, "memory": Memory, "bus": BusPart, "nic": NicPart}
RUNTIME_CLASSES = {"cpu": CpuCost, "nic": Nic, "bus": Bus}
_TOP = {"name": "str", "base": "str", "provenance": "table", "cpu": "table", "memory": "table", "bus": "table",
        "nic": "table", "os": "table", "calibration": "table", "fixed": "table", "tuning": "table", "fit": "table"}


def is_machine_data(data: dict[str, Any]) -> bool:
    """True for a machine file (parts), False for a profile file of runtime values (``save_platform``'s)."""
    if any(k in data for k in ("base", "memory", "calibration", "fixed")):
        return True
    parts = any(isinstance(data.get(k), dict) and "part" in data[k] for k in ("cpu", "bus", "nic"))
    return parts or (isinstance(data.get("os"), dict) and "part" in data["os"])


def part_types(kind: str) -> dict[str, str]:
    """Keys a ``[kind]`` table of a machine file takes, with their types."""
    if kind == "os":
        types = field_types(OsTcp)
        types.update(part="str", backlog_packets="int", cost_family="str", source="str")
        return types
    types = {k: t for k, t in field_types(PART_CLASSES[kind]).items() if k != "name" and (k != "kind" or kind == "bus")}
    types["part"] = "str"
    return types


def _required(kind: str) -> tuple[str, ...]:
    return tuple(f.name for f in fields(PART_CLASSES[kind])
                 if f.default is MISSING and f.default_factory is MISSING and f.name != "name")


def _residuals(f: TomlFile, key: str) -> dict[str, Any]:
    table = optional_table(f, key)
    out: dict[str, Any] = {}
    for kind, sub in (table or {}).items():
        if kind not in RUNTIME_CLASSES:
            raise f.error(f"{key}.{kind}", sub, "one of the tables " + ", ".join(f"[{key}.{k}]" for k in RUNTIME_CLASSES))
        types = {k: t for k, t in field_types(RUNTIME_CLASSES[kind]).items() if k != "kind"}
        for name, value in check_table(f, f"{key}.{kind}", sub, types).items():
            out[f"{kind}.{name}"] = value
    return out


def _fit_value(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_fit_value(x) for x in v)
    return v if isinstance(v, (bool, int, float, str)) else str(v)


def layer_from_file(f: TomlFile) -> Layer:
    """The layer a parsed machine file describes (every key and type checked)."""
    data = f.data
    for key, value in data.items():
        if key not in _TOP:
            raise f.error(key, value, "one of the keys " + ", ".join(_TOP))
        if _TOP[key] == "str" and not isinstance(value, str):
            raise f.error(key, value, "a string")
        if _TOP[key] == "table" and not isinstance(value, dict):
            raise f.error(key, value, f"a table ([{key}])")
    base = data.get("base")
    parts: dict[str, str] = {}
    overrides: dict[str, dict[str, Any]] = {}
    for kind in ("cpu", "memory", "bus", "nic", "os"):
        table = optional_table(f, kind)
        if table is None:
            if base is None:
                raise f.error(kind, "missing", f"a [{kind}] table (or base = a profile to start from)")
            continue
        values = check_table(f, kind, table, part_types(kind))
        name = values.pop("part", None)
        if name is not None:
            parts[kind] = name
        elif base is None:
            if kind == "os":
                raise f.error("os.part", "missing", "an OS version (tcpsim machine parts os)")
            for req in _required(kind):
                if req not in values:
                    raise f.error(f"{kind}.{req}", "missing", f"set, or {kind}.part naming a catalog part")
        overrides[kind] = values
    prov = optional_table(f, "provenance")
    provenance = Provenance(**check_table(f, "provenance", prov, field_types(Provenance))) if prov is not None else None
    tuning = {}
    for level, table in (optional_table(f, "tuning") or {}).items():
        check_table(f, f"tuning.{level}", table, {"knobs": "str"}, required=("knobs",))
        tuning[level] = table["knobs"]
    calibration, fixed = (_residuals(f, key) for key in RESIDUAL_TABLES)
    both = sorted(set(calibration) & set(fixed))
    if both:
        raise f.error(f"fixed.{both[0]}", fixed[both[0]], "set in one of [calibration] and [fixed], not both")
    fit = tuple((k, _fit_value(v)) for k, v in (optional_table(f, "fit") or {}).items())
    stem = Path(f.path).stem
    return Layer(label=f"file {Path(f.path).name}", path=f.path, text=f.text, name=data.get("name", stem),
                 base=base, provenance=provenance, parts=parts, fields=overrides, calibration=calibration,
                 fixed=fixed, fit=fit, tuning=tuning)


def read_machine_file(path: str | Path) -> Layer:
    """Read, check and parse the machine file at ``path``."""
    return layer_from_file(read_toml(path, "machine"))


