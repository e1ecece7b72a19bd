"""Where layers come from: profiles and machine files by name or path, and command-line flags.

``load_machine("rx2600_ixgb")`` resolves a shipped profile; ``load_machine("box.toml", flags=flag_layer(
nic="e1000"))`` a file with a flag on top. :func:`machine_platform` is what ``build_scenario`` calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

from ..errors import ConfigError
from ..platform import OsTcp, Platform
from ..units import parse_rate
from .costs import CostCatalog
from .layers import Layer
from .machinefile import is_machine_data, layer_from_file
from .resolve import Machine, resolve_layers
from .schema import read_toml

__all__ = ["layers_for", "load_machine", "flag_layer", "machine_platform", "platform_for", "os_over", "is_machine_spec",
           "MAX_BASE_DEPTH"]

MAX_BASE_DEPTH = 8


def _path(spec: str | Path, what: str = "platform") -> Path:
    from ..profiles import profile_path  # profiles reads machine files through this package

    try:
        return profile_path(spec)
    except ConfigError as exc:  # name the option the spec came from (--machine)
        if exc.field == what or type(exc) is not ConfigError:
            raise
        raise ConfigError(what, exc.value, exc.allowed) from None


def _fit_label(layer: Layer) -> str:
    fit = dict(layer.fit)
    if not fit.get("date"):
        return ""
    tables = fit.get("tables") or ()
    return f"fit of {fit['date']} on {', '.join(tables)}" if tables else f"fit of {fit['date']}"


def layers_for(spec: str | Path, _seen: tuple[str, ...] = (), what: str = "platform") -> list[Layer]:
    """The layers of a profile name or a machine file path, its ``base`` chain first (``what`` names the
    option in errors: platform, machine)."""
    path = _path(spec, what)
    key = str(path.resolve()) if path.exists() else str(path)
    if key in _seen or len(_seen) >= MAX_BASE_DEPTH:
        raise ConfigError("base", str(spec), f"a chain of at most {MAX_BASE_DEPTH} files without a loop")
    f = read_toml(path, what)
    from ..profiles import PROFILE_KEYS

    if not is_machine_data(f.data) and set(f.data) <= set(PROFILE_KEYS):
        raise ConfigError(what, str(spec), "a machine file made of parts (this is a profile of runtime values; "
                          "use it with --platform)")
    layer = layer_from_file(f)
    from dataclasses import replace

    layer = replace(layer, fit_label=_fit_label(layer))
    if layer.base is None:
        return [layer]
    base = layer.base
    if base.endswith(".toml") and not Path(base).is_absolute():
        base = str(path.parent / base)  # a base file is found beside the file that names it
    return layers_for(base, (*_seen, key), what) + [layer]


def is_machine_spec(spec: Any) -> bool:
    """True when ``spec`` (a profile name or .toml path) is a machine file made of parts."""
    if spec is None or isinstance(spec, Platform):
        return False
    path = _path(spec)
    try:
        return is_machine_data(read_toml(path, "platform").data)
    except ConfigError:
        return False


def load_machine(spec: str | Path, *, extra: tuple[Layer, ...] = (), costs: Optional[CostCatalog] = None,
                 keep: Optional[Callable[[str, str], bool]] = None) -> Machine:
    """The resolved :class:`~tcpsim.machine.resolve.Machine` of a profile name or machine file path,
    with ``extra`` layers (another machine file, flags) applied on top; ``costs`` and ``keep`` as in
    :func:`~tcpsim.machine.resolve.resolve_layers` (a joint fit varies the shared costs and chooses
    which per-machine residuals stay)."""
    return resolve_layers(layers_for(spec) + list(extra), costs, keep)


def _memory_bw(value: Any) -> float:
    text = str(value).strip()
    if not (text.endswith("B/s") or text.endswith("Bps")):
        raise ConfigError("memory_bw", value, "a bandwidth in bytes per second with its unit, such as 3.2GB/s")
    return parse_rate(text, "memory_bw") / 8


def flag_layer(*, cpu: Optional[str] = None, cpu_ghz: Any = None, cpus: Optional[int] = None,
               memory_bw: Any = None, bus: Optional[str] = None, nic: Optional[str] = None,
               os: Optional[str] = None, label: str = "flag") -> Optional[Layer]:
    """The layer the part flags make (None when none is given)."""
    parts: dict[str, str] = {}
    fields: dict[str, dict[str, Any]] = {}
    runtime: dict[str, Any] = {}
    names: dict[str, str] = {}
    for kind, value in (("cpu", cpu), ("bus", bus), ("nic", nic), ("os", os)):
        if value is not None:
            parts[kind] = value
            names[kind] = names[f"{kind}.part"] = f"--{kind}"
    if os is not None:
        names["os.part"] = "--os"
    if cpu_ghz is not None:
        try:
            ghz = float(cpu_ghz)
        except (TypeError, ValueError):
            ghz = float("nan")
        if not 0.001 <= ghz <= 100:  # the CPU part's own range (parts.Cpu: 1 MHz to 100 GHz), said in GHz
            raise ConfigError("cpu_ghz", cpu_ghz, "a clock in 0.001..100 GHz such as 1.6") from None
        fields["cpu"] = {"clock_hz": ghz * 1e9}
        names["cpu.clock_hz"] = "--cpu-ghz"
    if memory_bw is not None:
        fields["memory"] = {"copy_bw_Bps": _memory_bw(memory_bw)}
        names["memory.copy_bw_Bps"] = "--memory-bw"
    if cpus is not None:
        runtime["cpu.n_cpus"] = cpus
        names["cpu.n_cpus"] = "--cpus"
    if not (parts or fields or runtime):
        return None
    return Layer(label=label, parts=parts, fields=fields, runtime=runtime, flag_names=names)


_ALONE_DEFAULTS = {"bus": "none", "os": "bsd"}


def _alone(flags: Layer) -> list[Layer]:
    """Layers for a machine built from flags alone: memory from the CPU's usual system, no bus, generic BSD."""
    from .lookup import cpu_default_memory

    from .lookup import part

    for kind, name in flags.parts.items():
        part(kind, name)  # a bad name is reported before a missing part
    cpu = flags.parts.get("cpu")
    if cpu is None:
        raise ConfigError("cpu", None, "given (--cpu NAME) when a machine is built from flags without --platform "
                          "or --machine")
    if "nic" not in flags.parts:
        raise ConfigError("nic", None, "given (--nic NAME) when a machine is built from flags without --platform "
                          "or --machine")
    parts = {"memory": cpu_default_memory(cpu), **_ALONE_DEFAULTS}
    chosen = {**parts, **flags.parts}
    name = "+".join(chosen[k] for k in ("cpu", "bus", "nic", "os"))
    return [Layer(label="default for a machine from flags", name=name, parts=parts)]


def machine_platform(spec: Any, *, machine: Optional[str] = None, flags: Optional[Layer] = None,
                     tuning: Optional[str] = None) -> Optional[Platform]:
    """The platform of ``spec`` (a profile, machine file, Platform or None) with a machine file and flag
    layer on top; None when there is nothing to build (no spec, no file, no flags)."""
    extra: list[Layer] = []
    if machine is not None:
        extra += layers_for(machine, what="machine")
    if flags is not None:
        extra.append(flags)
    if spec is not None and (isinstance(spec, Platform) or not is_machine_spec(spec)):
        if extra:
            raise ConfigError("platform", getattr(spec, "name", spec), "a profile made of parts (tcpsim machine list) "
                              "when --machine, --cpu, --cpu-ghz, --memory-bw or --nic is given")
        return None
    if spec is None and not extra:
        return None
    if spec is not None:
        layers = layers_for(spec)
    elif machine is not None:
        layers = []  # the machine file stands alone
    else:
        assert flags is not None
        layers = _alone(flags)
    m = resolve_layers(layers + extra)
    platform = m.platform
    if spec is not None and (machine is not None or flags is not None):
        platform = _renamed(platform, flags, machine)
    if tuning not in (None, "none", "default", ""):
        from ..profiles import tune

        platform = tune(platform, spec if spec is not None else machine, tuning)  # type: ignore[arg-type]
    return platform


def _renamed(platform: Platform, flags: Optional[Layer], machine: Optional[str]) -> Platform:
    from dataclasses import replace

    changes = [f"{Path(machine).stem}"] if machine else []
    if flags is not None:
        changes += [f"{k}={v}" for k, v in flags.parts.items()]
        changes += [f"{k.split('.')[1]}={v:g}" for over in flags.fields.values() for k, v in
                    ((f"x.{n}", v) for n, v in over.items())]
        changes += [f"{k.split('.')[1]}={v}" for k, v in flags.runtime.items()]
    return replace(platform, name=f"{platform.name}[{','.join(changes)}]")


def os_over(current: OsTcp, name: str) -> OsTcp:
    """``--os name`` over a platform that is not made of parts: the version's defaults, then the settings
    in which ``current`` differs from its family's default, unless the family changes."""
    from dataclasses import fields as dc_fields
    from dataclasses import replace

    from ..os_versions import os_entry
    from ..platform import os_defaults

    entry = os_entry(name)
    if entry.tcp.family != current.family:
        return entry.tcp
    default = os_defaults(current.family)
    own = {f.name: getattr(current, f.name) for f in dc_fields(current)
           if getattr(current, f.name) != getattr(default, f.name)}
    return replace(entry.tcp, **own)


def platform_for(spec: Any, *, tuning: Optional[str] = None, machine: Optional[str] = None,
                 cpu: Optional[str] = None, cpu_ghz: Any = None, cpus: Optional[int] = None,
                 memory_bw: Any = None, bus: Optional[str] = None, nic: Optional[str] = None,
                 os: Optional[str] = None) -> Optional[Platform]:
    """The platform ``build_scenario`` runs for one host: a profile, machine file or Platform ``spec``
    (or none) with a ``--machine`` file and the part flags on top. None = the ideal host, unchanged.

    A spec made of parts (every shipped profile but ``ideal``) takes every flag as a layer
    (:mod:`tcpsim.machine.resolve`); so do flags alone when they name a CPU or NIC. A Platform object or a
    profile of runtime values takes ``--os`` (:func:`os_over`), ``--cpus`` and ``--bus`` directly.
    """
    from dataclasses import replace

    flags = flag_layer(cpu=cpu, cpu_ghz=cpu_ghz, cpus=cpus, memory_bw=memory_bw, bus=bus, nic=nic, os=os)
    part_flags = any(v is not None for v in (cpu, cpu_ghz, memory_bw, nic))
    if machine is not None or is_machine_spec(spec) or (spec is None and part_flags):
        return machine_platform(spec, machine=machine, flags=flags, tuning=tuning)
    if isinstance(spec, Platform) or spec is None:
        base = spec
    else:
        from ..profiles import load_platform

        base = load_platform(spec, tuning=tuning)
    if flags is None:
        return base
    if part_flags:
        raise ConfigError("platform", getattr(base, "name", spec), "a profile made of parts (tcpsim machine parts) "
                          "when --cpu, --cpu-ghz, --memory-bw or --nic is given")
    base = base or Platform()
    if os is not None:
        base = replace(base, os=os_over(base.os, os))
    if cpus is not None:
        base = replace(base, cpu=replace(base.cpu, n_cpus=cpus))
    if bus is not None:
        from ..platform import bus_preset

        base = replace(base, bus=bus_preset(bus))
    return base
