"""Stack layers (profile, machine file, flags) into parts, then into the runtime platform.

The rules, in the order they apply (``tcpsim machine show`` prints the ones a machine used):

* A layer that names another part for a kind replaces that part whole: the catalog part's fields,
  then that layer's overrides. The other parts keep every parameter they had.
* A layer that sets fields of a part changes those fields only.
* OS: a new version brings that version's defaults; the OS settings earlier layers made (a profile's
  ``[os]`` table) are applied again on top, unless the OS *family* changes (linux, solaris, bsd), in
  which case they are dropped. The name and the kernel semantics (:data:`KERNEL_FIELDS`) always come
  with the OS part named last.
* A residual (``[calibration.*]`` or ``[fixed.*]``: a runtime value the parts and physics do not give)
  stays exact while the parts it is made from (:data:`~tcpsim.machine.compose.DEPENDS_ON`) stay as they
  were; it is dropped when one of them is replaced by another part (or the OS cost family changes) or
  when a later layer sets the part field it stands for; when only fields of those parts change (a
  clock), a physics-derived residual is scaled by the physics ratio (new / old).
* Flag values that set runtime values directly (``--cpus``) come last.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Optional

from ..errors import ConfigError
from ..os_versions import os_entry
from ..platform import Bus, CpuCost, Nic, OsTcp, Platform, Provenance
from .compose import DEPENDS_ON, compose_traced
from .costs import CostCatalog
from .layers import Layer
from .lookup import part as catalog_part
from .machinefile import PART_CLASSES
from .parts import OsPart, Parts
from .schema import FileFieldError, line_of

__all__ = ["Machine", "Residual", "resolve_layers", "runtime_value", "PART_FIELD_SOURCES", "KERNEL_FIELDS"]

_CATALOG_FILE = {"cpu": "cpus.toml", "memory": "memory.toml", "bus": "buses.toml", "nic": "nics.toml",
                 "os": "tcpsim.os_versions"}

PART_FIELD_SOURCES: dict[str, tuple[str, ...]] = {
    **{f"nic.{k}": (f"nic.{k}",) for k in ("tx_ring_packets", "rx_ring_packets", "coalesce_packets", "coalesce_delay_s",
                                           "tx_checksum_offload", "rx_checksum_offload", "drain_ring")},
    "nic.coalesce_idle_timer": ("nic.coalesce_style",), "nic.backlog_packets": ("os.backlog_packets",),
    "cpu.n_cpus": ("cpu.sockets", "cpu.cores_per_socket", "cpu.threads_per_core"),
    "cpu.interrupts_on_one_cpu": ("nic.interrupts_spread",),
}
"""Runtime value -> the part fields it copies: a later layer that sets one of them overrides a residual."""


@dataclass(frozen=True, slots=True)
class Residual:
    """A per-machine runtime value: what it is, who set it, and the parts it was set for."""

    key: str
    value: Any
    origin: str
    parts_at: tuple
    physics_at: Any
    table: str = "calibration"
    """``calibration`` (fitted) or ``fixed`` (set by hand)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Machine:
    """A resolved machine: its parts, the runtime platform, and where every value came from."""

    name: str
    parts: Parts
    platform: Platform
    origins: dict[str, str]
    """``cpu.clock_hz`` (a part field) or ``runtime.cpu.per_packet_tx_s`` (a platform value) -> its source."""
    physics: Platform
    """The platform the parts alone give (no residuals, no runtime flags)."""
    notes: tuple[str, ...] = ()
    tuning: dict[str, str] = field(default_factory=dict)
    residuals: dict[str, str] = field(default_factory=dict)
    """Runtime key -> ``calibration`` or ``fixed``, for each per-machine residual in :attr:`platform`."""


def runtime_value(obj: Any, key: str) -> Any:
    """The value of a runtime key (``cpu.per_packet_tx_s``) in a :class:`~tcpsim.platform.Platform`."""
    kind, name = key.split(".", 1)
    return getattr(getattr(obj, kind), name)


class _State:
    def __init__(self, costs: Optional[CostCatalog], keep: Optional[Callable[[str, str], bool]] = None) -> None:
        self.costs = costs
        self.keep = keep
        self.names: dict[str, str] = {}
        self.values: dict[str, dict[str, Any]] = {}
        self.origin: dict[str, str] = {}
        self.setter: dict[str, Layer] = {}
        self.os_version: Optional[str] = None
        self.os_own: dict[str, Any] = {}
        self.residuals: dict[str, Residual] = {}
        self.runtime: dict[str, tuple[Any, str]] = {}
        self.notes: list[str] = []
        self.name = "machine"
        self.provenance = Provenance()
        self.fit: tuple = ()
        self.tuning: dict[str, str] = {}

    # ------------------------------------------------------------ parts
    def _fail(self, exc: ConfigError) -> ConfigError:
        """``exc`` pinned to the file and line that set the bad field, where a file did."""
        if isinstance(exc, FileFieldError):
            return exc
        kind = exc.field.split(".")[0]
        for key in (exc.field, f"os.{exc.field}", f"{exc.field}.part", "os.part" if exc.field == "os" else "",
                    f"{kind}.part"):
            layer = self.setter.get(key)
            if layer is not None and layer.path:
                return FileFieldError(layer.path, line_of(layer.text, key), exc.field, exc.value, exc.allowed)
            flag = layer.flag_names.get(key) if layer is not None else None
            if flag is not None:  # name the option as given: bus='warp', cpu_ghz: cpu.clock_hz=2e11
                option = flag.lstrip("-").replace("-", "_")
                return ConfigError(option if key in (kind, f"{kind}.part") else f"{option}: {exc.field}",
                                   exc.value, exc.allowed)
            if layer is not None:
                return ConfigError(f"{layer.origin(key)}: {exc.field}", exc.value, exc.allowed)
        return exc

    def parts(self) -> Parts:
        try:
            built = {k: PART_CLASSES[k](name=self.names[k], **self.values[k]) for k in PART_CLASSES}
            entry = os_entry(self.os_version or "bsd")
            own = dict(self.os_own)
            tcp = replace(entry.tcp, **{k: v for k, v in own.items() if k in _OS_TCP_FIELDS})
            os_part = OsPart(name=entry.name, cost_family=own.get("cost_family", entry.cost_family), tcp=tcp,
                             backlog_packets=own.get("backlog_packets", entry.backlog_packets),
                             source=own.get("source", entry.source))
            return Parts(os=os_part, **built)
        except (ConfigError, TypeError) as exc:
            if isinstance(exc, TypeError):
                raise ConfigError("machine", str(exc), "a complete set of parts") from None
            raise self._fail(exc) from None

    def _os_family(self) -> tuple[Optional[str], Optional[str]]:
        if self.os_version is None:
            return None, None
        e = os_entry(self.os_version)
        return e.tcp.family, self.os_own.get("cost_family", e.cost_family)

    def apply(self, layer: Layer) -> None:
        replaced: set[str] = set()
        for kind in PART_CLASSES:
            new = layer.parts.get(kind)
            if new is not None and new == self.names.get(kind):
                self.notes.append(f"{kind}: {new} ({layer.origin(kind)}) is the part the machine has: kept, with "
                                  "its residuals")
            if new is not None and new != self.names.get(kind):
                try:
                    part = catalog_part(kind, new)
                except ConfigError as exc:
                    self.setter[f"{kind}.part"] = layer
                    raise self._fail(ConfigError(f"{kind}.part", exc.value, exc.allowed)) from None
                if kind in self.names:
                    replaced.add(kind)
                    self.notes.append(f"{kind}: {self.names[kind]} replaced by {new} ({layer.origin(kind)}); "
                                      "its fields come from the catalog again")
                self.names[kind] = new
                self.values[kind] = {f.name: getattr(part, f.name) for f in fields(part) if f.name != "name"}
                for f in self.values[kind]:
                    self.origin[f"{kind}.{f}"] = f"catalog {_CATALOG_FILE[kind]} [{new}]"
                    self.setter.pop(f"{kind}.{f}", None)
                self.origin[f"{kind}.part"] = layer.origin(kind)
                self.setter[f"{kind}.part"] = layer
            over = layer.fields.get(kind, {})
            if over and kind not in self.names:
                self.names[kind] = f"{layer.name or 'custom'}-{kind}"
                self.values[kind] = {}
                self.origin[f"{kind}.part"] = f"{layer.label} (a part of its own)"
                self.setter[f"{kind}.part"] = layer
            for f, v in over.items():
                self.values[kind][f] = v
                self.origin[f"{kind}.{f}"] = layer.origin(f"{kind}.{f}")
                self.setter[f"{kind}.{f}"] = layer
        self._apply_os(layer, replaced)
        self._drop(layer, replaced)
        for key, value in layer.runtime.items():
            self.runtime[key] = (value, layer.origin(key))
        new_res = [(k, v, "calibration") for k, v in layer.calibration.items()] + \
                  [(k, v, "fixed") for k, v in layer.fixed.items()]
        if new_res:
            parts = self.parts()
            physics, _ = compose_traced(parts, self.costs)
            fit_note = f", {layer.fit_label}" if layer.fit_label else ""
            for key, value, table in new_res:
                if self.keep is not None and not self.keep(key, table):
                    continue
                deps = tuple(getattr(parts, d) for d in DEPENDS_ON.get(key, ()))
                what = (f"calibration ({layer.label}{fit_note})" if table == "calibration"
                        else f"fixed by hand ({layer.label})")
                self.residuals[key] = Residual(key, value, what, deps, runtime_value(physics, key), table)
                self.setter[f"{table}.{key}"] = layer
        if layer.name:
            self.name = layer.name
        if layer.provenance is not None:
            self.provenance = layer.provenance
        if layer.fit:
            self.fit = layer.fit
        self.tuning.update(layer.tuning)

    def _apply_os(self, layer: Layer, replaced: set[str]) -> None:
        version = layer.parts.get("os")
        if version is not None:
            try:
                entry = os_entry(version)
            except ConfigError as exc:
                self.setter["os.part"] = layer
                raise self._fail(ConfigError("os.part", exc.value, exc.allowed)) from None
            old_family, old_cost = self._os_family()
            self.origin["os.part"] = layer.origin("os")
            self.setter["os.part"] = layer
            if old_family is not None and entry.tcp.family != old_family:
                if self.os_own:
                    self.notes.append(f"os: family {old_family} -> {entry.tcp.family} ({layer.origin('os')}): the "
                                      f"earlier OS settings ({', '.join(sorted(self.os_own))}) are dropped")
                self.os_own = {}
            elif old_family is not None and self.os_own and version != self.os_version:
                self.notes.append(f"os: {version} ({layer.origin('os')}): its defaults, then the earlier OS settings "
                                  f"({', '.join(sorted(self.os_own))}), as the family ({old_family}) is the same")
            if old_family is not None and (entry.tcp.family != old_family
                                           or self.os_own.get("cost_family", entry.cost_family) != old_cost):
                replaced.add("os")
            self.os_version = version
            kept = sorted(set(self.os_own) & set(KERNEL_FIELDS))
            if kept:  # the OS part brings its kernel's semantics; earlier layers' values of them give way
                self.notes.append(f"os: {', '.join(kept)} come from {version} ({layer.origin('os')}), not from the "
                                  "earlier layers")
                for f in kept:
                    del self.os_own[f]
            for f in _OS_TCP_FIELDS + ("backlog_packets",):
                if f not in self.os_own:
                    self.origin[f"os.{f}"] = f"{_CATALOG_FILE['os']} [{version}]"
        for f, v in layer.fields.get("os", {}).items():
            self.os_own[f] = v
            self.origin[f"os.{f}"] = layer.origin(f"os.{f}")
            self.setter[f"os.{f}"] = layer

    def _drop(self, layer: Layer, replaced: set[str]) -> None:
        set_now = {f"{k}.{f}" for k, over in layer.fields.items() for f in over}
        for key in list(self.residuals):
            deps = DEPENDS_ON.get(key, (key.split(".")[0],))
            hit = sorted(replaced & set(deps))
            overridden = sorted(set(PART_FIELD_SOURCES.get(key, ())) & set_now)
            if hit or overridden:
                why = f"{' and '.join(hit)} replaced" if hit else f"{', '.join(overridden)} set"
                self.notes.append(f"{key}: the residual {self.residuals[key].value!r} "
                                  f"({self.residuals[key].origin}) does not carry over: {why} ({layer.label})")
                del self.residuals[key]

    # ------------------------------------------------------------ platform
    def machine(self) -> Machine:
        parts = self.parts()
        physics, trace = compose_traced(parts, self.costs, name=self.name, provenance=self.provenance)
        values: dict[str, Any] = {}
        applied: dict[str, str] = {}
        origins = {k: v for k, v in self.origin.items()}
        for key, why in trace.items():
            if why.startswith("= "):
                src = why[2:].split(" ")[0]
                why = f"{why} ({self.origin.get(src, 'catalog')})" if src in self.origin else why
            origins[f"runtime.{key}"] = why
        for key, res in self.residuals.items():
            deps = tuple(getattr(parts, d) for d in DEPENDS_ON.get(key, ()))
            now = runtime_value(physics, key)
            if deps == res.parts_at or now == res.physics_at:
                values[key] = res.value
                origins[f"runtime.{key}"] = res.origin
                applied[key] = res.table
            elif _scalable(res, now) and trace.get(key, "").startswith("physics"):
                values[key] = res.value * (now / res.physics_at)
                applied[key] = res.table
                origins[f"runtime.{key}"] = f"{res.origin}, scaled x{now / res.physics_at:.4g} as its parts changed"
            else:
                self.notes.append(f"{key}: the residual {res.value!r} ({res.origin}) does not carry over: "
                                  "the parts it was set for changed")
        for key, (value, origin) in self.runtime.items():
            values[key] = value
            origins[f"runtime.{key}"] = origin
        try:
            platform = _with_values(physics, values)
        except ConfigError as exc:
            raise self._fail(_runtime_field(exc, applied, self.runtime)) from None
        platform = replace(platform, fit=self.fit, cost_basis=self._cost_basis(applied))
        return Machine(name=self.name, parts=parts, platform=platform, origins=origins,
                       physics=replace(physics, name=self.name), notes=tuple(self.notes), tuning=dict(self.tuning),
                       residuals=applied)

    def _cost_basis(self, applied: dict[str, str]) -> str:
        """:attr:`Platform.cost_basis` from what set the per-packet costs (a residual still applied, a value)."""
        keys = ("cpu.per_packet_tx_s", "cpu.per_packet_rx_s")
        tables = {applied[k] for k in keys if k in applied}
        if "calibration" in tables:
            return "measurements"
        if any(k in self.runtime for k in keys):
            return "measurements" if self.fit else "given"
        return "hand" if tables else "catalog"


_OS_TCP_FIELDS = tuple(f.name for f in fields(OsTcp))
KERNEL_FIELDS = tuple(f for f in ("name", "version", "congestion_control", "autocorking", "rx_skb_overhead_bytes",
                                  "tx_skb_head_bytes", "tx_skb_overhead_bytes",
                                  "limit_output_bytes")
                      if f in _OS_TCP_FIELDS)
"""OS settings that come with the OS part named last (its name and kernel semantics), never from earlier
layers: ``--os linux-6.12`` on a profile runs 6.12's window rules, congestion control and autocorking
with the profile's buffers, timers and ACK settings."""


def _scalable(res: Residual, now: Any) -> bool:
    return (isinstance(res.value, float) and isinstance(res.physics_at, float) and isinstance(now, float)
            and res.physics_at > 0 and now > 0)


def _runtime_field(exc: ConfigError, applied: dict[str, str], runtime: dict[str, Any]) -> ConfigError:
    """A runtime class's range error (``rx_tcp_frac``) of a residual no flag overrode, named as the machine file sets
    it (``fixed.cpu.rx_tcp_frac``), so that :meth:`_State._fail` finds the file and line; any other as it is."""
    for kind in ("cpu", "nic", "bus"):
        key = f"{kind}.{exc.field}"
        if key in applied and key not in runtime:
            return ConfigError(f"{applied[key]}.{key}", exc.value, exc.allowed)
    return exc


def _with_values(p: Platform, values: dict[str, Any]) -> Platform:
    by_kind: dict[str, dict[str, Any]] = {"cpu": {}, "nic": {}, "bus": {}}
    for key, value in values.items():
        kind, name = key.split(".", 1)
        by_kind[kind][name] = value
    cpu: CpuCost = replace(p.cpu, **by_kind["cpu"]) if by_kind["cpu"] else p.cpu
    nic: Nic = replace(p.nic, **by_kind["nic"]) if by_kind["nic"] else p.nic
    bus: Bus = replace(p.bus, **by_kind["bus"]) if by_kind["bus"] else p.bus
    return replace(p, cpu=cpu, nic=nic, bus=bus)


def resolve_layers(layers: list[Layer], costs: Optional[CostCatalog] = None,
                   keep: Optional[Callable[[str, str], bool]] = None) -> Machine:
    """Apply ``layers`` in order (see the module doc) and compose the result.

    ``costs`` replaces the shipped cost catalog (a joint fit's candidate); ``keep(key, table)`` chooses
    the residuals that apply (``table`` is ``calibration`` or ``fixed``; None keeps all): with
    ``keep=lambda key, table: False`` a profile is its parts and the shared costs alone."""
    state = _State(costs, keep)
    for layer in layers:
        state.apply(layer)
    missing = [k for k in PART_CLASSES if k not in state.names]
    if missing:
        raise ConfigError(missing[0], "missing", f"a {missing[0]} part (a [{missing[0]}] table, a profile or a flag)")
    return state.machine()
