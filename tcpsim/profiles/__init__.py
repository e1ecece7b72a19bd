"""Platform profiles: one TOML file per machine of the sources, with provenance and calibration record.

``load_platform("es40_tru64")`` reads ``tcpsim/profiles/es40_tru64.toml``; ``tuning="kernel"`` also
applies the knob lines stored under ``[tuning.kernel]`` (the source's own script) through
:func:`tcpsim.tuning.apply_tuning`.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields, replace
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from ..errors import ConfigError
from ..platform import Bus, CpuCost, Nic, OsTcp, Platform, Provenance, bus_preset

__all__ = ["load_platform", "list_platforms", "platform_summary", "save_platform", "profile_path", "tuning_levels",
           "tune", "tuning_texts"]


def _dir():
    return resources.files(__package__)


def list_platforms() -> list[str]:
    """Names of the shipped profiles."""
    return sorted(p.name[:-5] for p in _dir().iterdir() if p.name.endswith(".toml"))


def profile_path(name: str) -> Path:
    """Where the profile ``name`` lives (a path to a .toml file is returned as is)."""
    if name.endswith(".toml"):
        return Path(name)
    if name not in list_platforms():
        raise ConfigError("platform", name, "one of " + ", ".join(list_platforms()) + " or a .toml path")
    return Path(str(_dir() / f"{name}.toml"))


def _read(name: str) -> dict[str, Any]:
    path = profile_path(name)
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError("platform", name, "an existing profile file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("platform", name, f"valid TOML ({exc})") from None


def _build(cls, table: dict[str, Any], where: str):
    known = {f.name for f in fields(cls)}
    unknown = set(table) - known
    if unknown:
        raise ConfigError(f"{where}.{sorted(unknown)[0]}", table[sorted(unknown)[0]], f"a field of {cls.__name__}")
    return cls(**table)


def tuning_levels(name: str) -> list[str]:
    """Tuning levels a profile defines (``[tuning.<level>]``), besides the untuned default."""
    return sorted(_read(name).get("tuning", {}))


def load_platform(name: str, tuning: Optional[str] = None) -> Platform:
    """The :class:`Platform` of profile ``name``, optionally with one of its tuning levels applied."""
    data = _read(name)
    bus_table = dict(data.get("bus", {}))
    preset = bus_table.pop("preset", None)
    bus = bus_preset(preset) if preset else Bus()
    if bus_table:
        bus = replace(bus, **bus_table)
    fit = data.get("fit", {})
    platform = Platform(
        name=data.get("name", name),
        cpu=_build(CpuCost, data.get("cpu", {}), "cpu"),
        nic=_build(Nic, data.get("nic", {}), "nic"),
        bus=bus,
        os=_build(OsTcp, data.get("os", {}), "os"),
        provenance=_build(Provenance, data.get("provenance", {}), "provenance"),
        fit=tuple((k, v) for k, v in fit.items() if isinstance(v, (int, float, str))),
    )
    if tuning in (None, "", "none", "default"):
        return platform
    return tune(platform, name, tuning)


def tuning_texts(name: str) -> dict[str, str]:
    """The knob lines of each tuning level of profile ``name``."""
    return {level: table["knobs"] for level, table in _read(name).get("tuning", {}).items()}


def tune(platform: Platform, name: str, level: str) -> Platform:
    """``platform`` with the knobs of profile ``name``'s tuning ``level`` applied."""
    levels = tuning_texts(name)
    if level not in levels:
        raise ConfigError("tuning", level, "one of none, " + ", ".join(sorted(levels)) if levels
                          else "none (this profile defines no tuning levels)")
    from ..tuning import apply_tuning, parse_tuning

    knobs = parse_tuning(levels[level], f"{name}:tuning.{level}")
    return replace(apply_tuning(platform, knobs).platform, name=f"{platform.name}+{level}")


def platform_summary(name: str) -> str:
    """One line: the profile's hardware, OS and source."""
    p = load_platform(name)
    prov = p.provenance
    levels = tuning_levels(name)
    extra = f"; tuning levels: {', '.join(levels)}" if levels else ""
    return f"{name}: {prov.hardware} / {prov.os} (source: {prov.source or '-'}){extra}"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float) or hasattr(v, "__float__"):
        return f"{float(v):.6g}" if "e" in f"{float(v):.6g}" or "." in f"{float(v):.6g}" else f"{float(v):.6g}.0"
    if isinstance(v, str):
        if "\n" in v:
            return '"""\n' + v.replace('"""', '\\"\\"\\"') + '"""'
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _table(name: str, values: dict[str, Any]) -> list[str]:
    lines = [f"[{name}]"]
    for k, v in values.items():
        if v is None:
            continue
        lines.append(f"{k} = {_toml_value(v)}")
    return lines + [""]


def save_platform(platform: Platform, path: Path, *, tuning: Optional[dict[str, str]] = None,
                  fit: Optional[dict[str, Any]] = None, header: str = "") -> Path:
    """Write ``platform`` as a profile TOML (the bus is written field by field, so it round-trips exactly)."""
    def as_dict(obj) -> dict[str, Any]:
        return {f.name: getattr(obj, f.name) for f in fields(obj)}

    lines = [f"# {line}" for line in header.splitlines()] + [f"name = {_toml_value(platform.name)}", ""]
    lines += _table("provenance", as_dict(platform.provenance))
    lines += _table("cpu", as_dict(platform.cpu))
    lines += _table("nic", as_dict(platform.nic))
    lines += _table("bus", as_dict(platform.bus))
    lines += _table("os", as_dict(platform.os))
    for level, knobs in (tuning or {}).items():
        lines += _table(f"tuning.{level}", {"knobs": knobs})
    record = dict(platform.fit)
    record.update(fit or {})
    if record:
        lines += _table("fit", record)
    path = Path(path)
    path.write_text("\n".join(lines))
    return path
