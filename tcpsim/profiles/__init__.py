"""Platform profiles: one TOML file per machine of the sources, with provenance, tuning levels and fit record.

The shipped profiles are machine files made of parts (:mod:`tcpsim.machine`; ``[cpu] part = ...``), with
their fitted numbers as per-machine residuals (``[calibration.*]``). A profile of runtime values, as
:func:`save_platform` writes it, loads too; its layout:

``load_platform("es40_tru64")`` reads ``tcpsim/profiles/es40_tru64.toml`` (package data); a path to a
``.toml`` file works too. ``load_platform("rx2600_ixgb", tuning="driver")`` also applies the knob lines
of ``[tuning.driver]`` (the source's own script) through :func:`tcpsim.tuning.apply_tuning`. MTU lines
stay out of these tables: the MTU is a scenario input (``Link.mtu_bytes``).

File layout (every table optional; a missing field takes the dataclass default)::

    name = "rx2600_ixgb"
    cost_basis = "measurements"   what set the costs (Platform.cost_basis); without it: measurements with a
                                  [fit] record, given without one
    [provenance]        source, hardware, os, notes
    [cpu]               CpuCost fields
    [nic]               Nic fields
    [bus]               preset = "pcix-64-133", plus any Bus field that differs from the preset
    [os]                OsTcp fields
    [tuning.<level>]    knobs = '''sysctl -w ...'''  (lines as tcpsim.tuning reads them)
    [fit]               calibration record written by ``tcpsim calibrate`` (empty until then)

Reading uses :mod:`tomllib`; :func:`save_platform` writes with the small TOML writer below (stdlib only).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from dataclasses import fields, replace
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ..errors import ConfigError
from ..fileio import read_text_limited, write_text_reporting
from ..platform import BUS_PRESETS, Bus, CpuCost, Nic, OsTcp, Platform, Provenance, bus_preset

__all__ = ["COST_BASES", "PROFILE_KEYS", "load_platform", "list_platforms", "platform_summary", "save_platform",
           "update_profile", "profile_path", "tuning_levels", "tuning_texts", "tune"]

UNTUNED = ("none", "default", "")
"""Tuning names that mean the profile as it is."""


def _dir():
    return resources.files(__package__)


def list_platforms() -> list[str]:
    """Names of the shipped profiles."""
    return sorted(p.name[:-5] for p in _dir().iterdir() if p.name.endswith(".toml"))


def profile_path(name_or_path: str | Path) -> Path:
    """Where profile ``name_or_path`` lives (a path to a .toml file is returned as it is)."""
    text = str(name_or_path)
    if text.endswith(".toml"):
        return Path(text)
    if text not in list_platforms():
        raise ConfigError("platform", text, "one of " + ", ".join(list_platforms()) + " or a path to a .toml file")
    return Path(str(_dir() / f"{text}.toml"))


def _read_file(name_or_path: str | Path):
    from ..machine.schema import read_toml

    return read_toml(profile_path(name_or_path), "platform")


def _read(name_or_path: str | Path) -> dict[str, Any]:
    return _read_file(name_or_path).data


def _build(f, cls, where: str, extra: Mapping[str, str] = {}):
    from ..machine.schema import check_table, field_types

    table = f.data.get(where, {})
    values = check_table(f, where, table, {**field_types(cls), **extra})
    try:
        return values, (cls(**{k: v for k, v in values.items() if k not in extra}) if cls is not Bus else None)
    except ConfigError as exc:
        key = exc.field if exc.field.startswith(where + ".") else f"{where}.{exc.field}"
        raise f.error(key, exc.value, exc.allowed) from None


def _bus(f) -> Bus:
    """A bus from ``preset`` plus overrides, or from its fields alone."""
    values, _ = _build(f, Bus, "bus", {"preset": "str"})
    preset = values.pop("preset", None)
    try:
        base = bus_preset(preset) if preset else Bus()
        return replace(base, **values) if values else base
    except ConfigError as exc:
        key = "bus.preset" if exc.field == "bus" else (exc.field if "." in exc.field else f"bus.{exc.field}")
        raise f.error(key, exc.value, exc.allowed) from None


PROFILE_KEYS = ("name", "cost_basis", "provenance", "cpu", "nic", "bus", "os", "tuning", "fit")
"""Top-level keys of a profile of runtime values (:func:`save_platform`'s layout)."""

COST_BASES = ("measurements", "hand", "catalog", "given")
"""The values of :attr:`tcpsim.platform.Platform.cost_basis` a profile may state (``cost_basis = "..."``)."""


def _fit_value(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_fit_value(x) for x in v)
    return v if isinstance(v, (bool, int, float, str)) else str(v)


def load_platform(name_or_path: str | Path, tuning: Optional[str] = None) -> Platform:
    """The :class:`Platform` of a profile (shipped name or .toml path), with tuning level ``tuning`` applied.

    ``tuning`` None, "none" or "default" gives the profile as it is (the OS defaults its source gives);
    another name applies that ``[tuning.<name>]`` table. An unknown profile or level raises ConfigError
    listing the known ones. A shipped profile is resolved once while its file's text stays the same (validation
    asks for the same few profiles hundreds of times); a path is read and resolved at every call.
    """
    level = None if tuning in UNTUNED else tuning
    if str(name_or_path).endswith(".toml"):
        return _load_platform(name_or_path, level)
    text = profile_path(name_or_path).read_bytes()
    hit = _SHIPPED.get((str(name_or_path), level))
    if hit is None or hit[0] != text:
        hit = _SHIPPED[str(name_or_path), level] = (text, _load_platform(name_or_path, level))
    return hit[1]


_SHIPPED: dict[tuple[str, Optional[str]], tuple[bytes, Platform]] = {}
"""Resolved shipped profiles by (name, tuning level), each with the file text it was resolved from."""


def _load_platform(name_or_path: str | Path, tuning: Optional[str]) -> Platform:
    f = _read_file(name_or_path)
    data = f.data
    from ..machine.machinefile import is_machine_data

    if is_machine_data(data):
        from ..machine.spec import load_machine

        platform = load_machine(name_or_path).platform
    else:
        platform = _legacy_platform(f, Path(str(name_or_path)).stem)
    if tuning in UNTUNED or tuning is None:
        return platform
    return tune(platform, name_or_path, tuning)


def _legacy_platform(f, stem: str) -> Platform:
    """A profile of runtime values (``save_platform``'s layout), every key and type checked."""
    data = f.data
    for key, value in data.items():
        if key not in PROFILE_KEYS:
            raise f.error(key, value, "one of the keys " + ", ".join(PROFILE_KEYS))
        if key not in ("name", "cost_basis") and not isinstance(value, dict):
            raise f.error(key, value, f"a table ([{key}])")
    if not isinstance(data.get("name", stem), str):
        raise f.error("name", data["name"], "a string")
    cpu, nic, os_, prov = (_build(f, cls, where)[1] for cls, where in
                           ((CpuCost, "cpu"), (Nic, "nic"), (OsTcp, "os"), (Provenance, "provenance")))
    bus = _bus(f)
    if "os" not in data:
        raise f.error("os", "missing", "an [os] table (family = linux, solaris or bsd, and its settings)")
    fit = tuple((k, _fit_value(v)) for k, v in data.get("fit", {}).items())
    basis = data.get("cost_basis", ("measurements" if fit else "given") if not cpu.is_free else "")
    if basis not in COST_BASES + ("",):
        raise f.error("cost_basis", basis, "one of " + ", ".join(COST_BASES))
    return Platform(name=data.get("name", stem), cpu=cpu, nic=nic, bus=bus, os=os_, provenance=prov, fit=fit,
                    cost_basis=basis)


def tuning_texts(name_or_path: str | Path) -> dict[str, str]:
    """The knob lines of each tuning level of a profile, by level name."""
    levels = _read(name_or_path).get("tuning", {})
    out = {}
    for level, table in levels.items():
        if level in UNTUNED or not isinstance(table, dict) or not isinstance(table.get("knobs"), str):
            raise ConfigError(f"tuning.{level}", table, "a table with knobs = '''...''' (and a name other than "
                              + ", ".join(repr(u) for u in UNTUNED) + ")")
        out[level] = table["knobs"]
    return out


def tuning_levels(name_or_path: str | Path) -> list[str]:
    """Tuning levels a profile defines (``[tuning.<level>]``), besides the untuned profile."""
    return sorted(tuning_texts(name_or_path))


def tune(platform: Platform, name_or_path: str | Path, level: str) -> Platform:
    """``platform`` with the knobs of the profile's tuning ``level`` applied (named ``<name>+<level>``)."""
    levels = tuning_texts(name_or_path)
    if not isinstance(level, str) or level not in levels:
        raise ConfigError("tuning", level, ("one of none, " + ", ".join(sorted(levels))) if levels
                          else "none (this profile defines no tuning levels)")
    from ..tuning import apply_tuning, parse_tuning

    label = f"{Path(str(name_or_path)).stem}:tuning.{level}"
    return replace(apply_tuning(platform, parse_tuning(levels[level], label), label).platform,
                   name=f"{platform.name}+{level}")


def platform_summary(name_or_path: str | Path) -> str:
    """One line: the profile's hardware, OS, source, tuning levels and calibration state."""
    p = load_platform(name_or_path)
    prov, fit = p.provenance, dict(p.fit)
    levels = tuning_levels(name_or_path)
    extra = f"; tuning: {', '.join(levels)}" if levels else ""
    err = fit.get("median_abs_rel_error")
    cal = f"; calibrated (median error {err:.1%})" if isinstance(err, float) else "; not calibrated"
    from ..confidence import source_title

    source = source_title(prov.source) if prov.source else None
    source = f'"{source}"' if source else (prov.source or "none")
    return f"{Path(str(name_or_path)).stem}: {prov.hardware or '-'} / {prov.os or '-'} " \
           f"(source: {source}{extra}{cal})"


# ---------------------------------------------------------------- a small TOML writer

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_str(key)


def _toml_str(s: str) -> str:
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return '"' + "".join(escapes.get(c, c if 0x20 <= ord(c) != 0x7F else f"\\u{ord(c):04x}") for c in s) + '"'


def _toml_text(s: str) -> str:
    """A multi-line literal string (backslashes stay as written, e.g. registry keys) when it can be one."""
    literal_ok = "'''" not in s and not s.endswith("'") and all(c in "\n\t" or 0x20 <= ord(c) != 0x7F for c in s)
    return "'''\n" + s + "'''" if literal_ok and "\n" in s else _toml_str(s)


def _toml_float(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = f"{v:.6g}"
    if float(text) != v:
        text = repr(v)  # shortest exact form: a save loses nothing
    return text if any(c in text for c in ".e") else text + ".0"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return _toml_float(float(v))
    if isinstance(v, str):
        return _toml_text(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _table(name: str, values: Mapping[str, Any]) -> list[str]:
    return [f"[{name}]"] + [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in values.items() if v is not None] + [""]


def _fields(obj) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def _bus_table(bus: Bus) -> dict[str, Any]:
    """``preset`` and the fields that differ from it, or every field for a bus that is no preset."""
    preset = BUS_PRESETS.get(bus.kind)
    if preset is None:
        return _fields(bus)
    return {"preset": bus.kind, **{k: v for k, v in _fields(bus).items() if v != getattr(preset, k)}}


def save_platform(platform: Platform, path: str | Path, *, tuning: Optional[Mapping[str, str]] = None,
                  fit: Optional[Mapping[str, Any]] = None, header: str = "") -> Path:
    """Write ``platform`` as a profile that :func:`load_platform` reads back equal.

    ``tuning`` adds ``[tuning.<level>]`` tables (knob lines by level), ``fit`` entries are added to the
    platform's own fit record, ``header`` becomes leading ``#`` comment lines.
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"name = {_toml_str(platform.name)}", f"cost_basis = {_toml_str(platform.cost_basis)}", ""]
    lines += _table("provenance", _fields(platform.provenance))
    lines += _table("cpu", _fields(platform.cpu))
    lines += _table("nic", _fields(platform.nic))
    lines += _table("bus", _bus_table(platform.bus))
    lines += _table("os", _fields(platform.os))
    for level, knobs in (tuning or {}).items():
        if level in UNTUNED or not _BARE_KEY.match(level):
            raise ConfigError("tuning", level, "a level name of letters, digits, _ or - (not none/default)")
        lines += _table(f"tuning.{level}", {"knobs": knobs if knobs.endswith("\n") else knobs + "\n"})
    lines += _table("fit", {**dict(platform.fit), **dict(fit or {})})
    path = Path(path)
    write_text_reporting(path, "\n".join(lines), "profile")
    return path


def save_on_base(platform: Platform, base: str, path: str | Path, *, calibrated: Sequence[str],
                 fit: Mapping[str, Any], header: str = "", parts: Optional[Mapping[str, str]] = None) -> bool:
    """Write ``platform`` as a machine file on ``base`` (a profile or machine file made of parts): ``base = ...``,
    ``parts`` (kind -> catalog part, such as the lab path's ``nic = veth``) as the file's own parts, the CPU costs a
    fit set (``calibrated``, ``CpuCost`` field names) in ``[calibration.cpu]``, any other runtime value that differs
    from the base's (with those parts) in ``[fixed.*]``, and ``fit`` as ``[fit]``; so ``tcpsim machine show`` explains
    it and a part swapped later re-derives what it should. False (nothing left written) where the base is a profile
    of runtime values or the file would not give ``platform`` back (another OS, another cost basis):
    :func:`save_platform` then writes runtime values."""
    from ..machine.spec import is_machine_spec, platform_for

    if not is_machine_spec(base):
        return False
    parts = dict(parts or {})
    old = platform_for(base, **parts) if parts else load_platform(base)
    if platform.os != old.os:
        return False
    path = Path(path)
    base_ref = base
    if base.endswith(".toml"):  # layers_for finds a base file beside the file that names it
        base_ref = os.path.relpath(Path(base).resolve(), path.resolve().parent)
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"name = {_toml_str(platform.name)}", f"base = {_toml_str(base_ref)}", ""]
    for kind, part in parts.items():
        lines += [f"[{kind}]", f"part = {_toml_str(part)}", ""]
    tables: dict[str, dict[str, Any]] = {}
    for kind in ("cpu", "nic", "bus"):
        new_values, old_values = _fields(getattr(platform, kind)), _fields(getattr(old, kind))
        for key, value in new_values.items():
            if kind == "cpu" and key in calibrated:
                tables.setdefault("calibration.cpu", {})[key] = value
            elif value != old_values[key] and value is not None:
                tables.setdefault(f"fixed.{kind}", {})[key] = value
    for name, values in tables.items():
        lines += _table(name, values)
    lines += _table("fit", dict(fit))
    write_text_reporting(path, "\n".join(lines), "profile")
    back = load_platform(path)
    if (back.cpu, back.nic, back.bus, back.os, back.cost_basis) == (platform.cpu, platform.nic, platform.bus,
                                                                     platform.os, platform.cost_basis):
        return True
    path.unlink()
    return False


def _write_residuals(doc, platform: Platform, old: Platform) -> None:
    """A machine file: each runtime value that changed goes to ``[calibration.<kind>]`` (and leaves ``[fixed]``)."""
    import tomlkit

    for kind in ("cpu", "nic", "bus"):
        new_values, old_values = _fields(getattr(platform, kind)), _fields(getattr(old, kind))
        for key, value in new_values.items():
            if value == old_values[key] or value is None:
                continue
            cal = doc.setdefault("calibration", tomlkit.table(is_super_table=True))
            cal.setdefault(kind, tomlkit.table())[key] = value
            fixed = doc.get("fixed", {}).get(kind)
            if fixed is not None and key in fixed:
                del fixed[key]


def update_profile(path: str | Path, platform: Platform, fit: Mapping[str, Any]) -> Path:
    """Write ``platform``'s machine values into the existing profile at ``path``, and ``fit`` as its
    ``[fit]`` table, keeping everything else: comments, key order, tuning tables.

    This is how ``tcpsim calibrate`` records a fit: a profile's comments give the physical reasoning
    behind its numbers, and a writer that regenerates the file would drop them. Only values that
    differ from what the file says are touched; one the file leaves at its default is added.
    """
    import tomlkit  # only calibration writes profiles back; tomlkit keeps their comments and layout

    path = Path(path)
    doc = tomlkit.parse(read_text_limited(path, "profile"))
    old = load_platform(path)
    new_tables = {"cpu": _fields(platform.cpu), "nic": _fields(platform.nic), "bus": _bus_table(platform.bus)}
    old_tables = {"cpu": _fields(old.cpu), "nic": _fields(old.nic), "bus": _bus_table(old.bus)}
    from ..machine.machinefile import is_machine_data

    if is_machine_data(doc.unwrap()):
        _write_residuals(doc, platform, old)
    else:
        for name, values in new_tables.items():
            table = doc.setdefault(name, tomlkit.table())
            for key, value in values.items():
                current = table[key] if key in table else old_tables[name].get(key)
                if value != current:
                    table[key] = value
    record = tomlkit.table()
    for key, value in fit.items():
        record[key] = value
    doc["fit"] = record
    write_text_reporting(path, tomlkit.dumps(doc), "profile")
    return path
