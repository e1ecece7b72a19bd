"""``tcpsim machine show``: every resolved value of a machine with where it came from."""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

from ..errors import ConfigError
from .bus import bus_efficiency
from .resolve import Machine

__all__ = ["show_text", "show_dict", "tuning_rows", "cost_basis_text", "RULES"]

RULES = (
    "A part named by a later layer (a --machine file, --cpu, --bus, --nic, --os) replaces that part whole; "
    "the other parts keep every parameter they had.",
    "--bus replaces the bus part: a fitted bus residual (bus.efficiency_frac, bus.per_transaction_s) does "
    "not carry over, the new bus's efficiency comes from its transactions.",
    "--os VERSION: that version's defaults first, then the profile's own [os] settings (buffers, timers, ACK "
    "rules), unless the OS family (linux, solaris, bsd) changes, which drops them; the OS's name and kernel "
    "semantics (version, congestion control, autocorking) always come with the version named; --os linux is "
    "the newest Linux (6.12), --os solaris and --os bsd the family defaults.",
    "A residual ([calibration.*] fitted, [fixed.*] set by hand) stays while the parts it was made for stay; "
    "it is dropped when one of them is replaced, and scaled by the physics ratio when only their fields "
    "change (a clock by --cpu-ghz).",
    "--cpus sets the CPU count directly and keeps every residual.",
)

_UNITS = (("_Bps", "B/s"), ("_bps", "bit/s"), ("_hz", "Hz"), ("_per_s", "/s"), ("_s", "s"), ("_bytes", "B"),
          ("_packets", "frames"))


def _fmt(name: str, value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return "-" if value is None else str(value).lower() if isinstance(value, bool) else value
    if isinstance(value, tuple) and value and not isinstance(value[0], tuple):  # quantiles (wake_latency_spread)
        return ", ".join(f"{q:g}" for q in value) + (" s" if name.endswith("_s") else "")
    if isinstance(value, tuple):  # pairs of seconds (CpuCost.wake_latency_s): "after 1 ms: 50 us, ..."
        return ", ".join(f"after {gap * 1e3:g} ms: {late * 1e6:.3g} us" for gap, late in value) or "none"
    text = f"{value:.6g}" if isinstance(value, float) else str(value)
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return f"{text} {unit}"
    return text


def _part_rows(m: Machine) -> list[tuple[str, str, str]]:
    rows = []
    for kind in ("cpu", "memory", "bus", "nic"):
        part = getattr(m.parts, kind)
        rows.append((f"{kind}", part.name, m.origins.get(f"{kind}.part", "")))
        for f in fields(part):
            if f.name != "name":
                rows.append((f"  {kind}.{f.name}", _fmt(f.name, getattr(part, f.name)), m.origins.get(f"{kind}.{f.name}", "")))
    os_ = m.parts.os
    rows.append(("os", os_.name, m.origins.get("os.part", "")))
    rows.append(("  os.cost_family", os_.cost_family, m.origins.get("os.cost_family", f"tcpsim.os_versions [{os_.name}]")))
    rows.append(("  os.backlog_packets", _fmt("backlog_packets", os_.backlog_packets), m.origins.get("os.backlog_packets", "")))
    for f in fields(os_.tcp):
        rows.append((f"  os.{f.name}", _fmt(f.name, getattr(os_.tcp, f.name)), m.origins.get(f"os.{f.name}", "")))
    return rows


def _runtime_rows(m: Machine) -> list[tuple[str, str, str]]:
    rows = []
    for kind in ("cpu", "nic", "bus"):
        obj, phys = getattr(m.platform, kind), getattr(m.physics, kind)
        for f in fields(obj):
            key = f"{kind}.{f.name}"
            value, origin = getattr(obj, f.name), m.origins.get(f"runtime.{key}", "")
            p = getattr(phys, f.name)
            scaled = f.name.endswith(("_s", "efficiency_frac"))  # a residual factors a cost or efficiency
            if value != p and scaled and isinstance(value, float) and isinstance(p, float) and p > 0:
                origin += f"; the parts give {p:.4g} (residual x{value / p:.3g})"
            elif value != p:
                origin += f"; the parts give {_fmt(f.name, p)}"
            rows.append((f"  {key}", _fmt(f.name, value), origin))
    return rows


def _runtime_values(platform: Any) -> dict[str, Any]:
    return {f"{kind}.{f.name}": getattr(getattr(platform, kind), f.name)
            for kind in ("cpu", "nic", "bus", "os") for f in fields(getattr(platform, kind))}


def tuning_rows(m: Machine) -> dict[str, dict[str, Any]]:
    """Per tuning level (``--tuning LEVEL``): each runtime value it changes, from what, and the knob line that
    sets it; and the knobs the model ignores, with why. The level applies on top of the machine as shown."""
    from ..tuning import apply_tuning, parse_tuning

    before = _runtime_values(m.platform)
    out: dict[str, dict[str, Any]] = {}
    for level, text in sorted(m.tuning.items()):
        label = f"[tuning.{level}] knobs"
        try:
            result = apply_tuning(m.platform, parse_tuning(text, label), label)
        except ConfigError as exc:  # knobs of another OS family (--os changed it): --tuning fails the same way
            out[level] = {"changes": [], "ignored": [], "error": str(exc)}
            continue
        after = _runtime_values(result.platform)
        changed: list[tuple[str, str, str]] = []
        for key, value in after.items():
            if value == before[key]:
                continue
            setters = [(k, what) for k, what in result.effects
                       if re.search(rf"(?<![\w.]){re.escape(key)}(?![\w])", what)]
            origin = (f"{label} line {setters[-1][0].line_no}: {setters[-1][0].name}" if setters
                      else f"{label} (a knob's OS semantics)")
            changed.append((key, f"{_fmt(key, before[key])} -> {_fmt(key, value)}", origin))
        ignored = [f"{label} line {k.line_no}: {k.name}: {what.removeprefix('ignored: ')}"
                   for k, what in result.effects if k.target == "ignored" or what.startswith("ignored")]
        if result.mtu_bytes is not None:
            ignored.append(f"{label}: MTU {result.mtu_bytes} is a scenario input (--mtu), not a machine parameter")
        out[level] = {"changes": changed, "ignored": ignored}
    return out


_COST_BASIS = {
    "measurements": "fitted to measurements of this machine",
    "hand": "set by hand (not fitted to measurements of it: answers carry a caution)",
    "catalog": "the parts catalog's cycles, shared across machines (not fitted to measurements of it: answers "
               "carry a caution; tcpsim calibrate --iperf3 fits them)",
    "given": "given by the file",
}


def cost_basis_text(basis: str) -> str:
    """What :attr:`tcpsim.platform.Platform.cost_basis` means, in words."""
    return _COST_BASIS.get(basis, "not known")


def show_text(m: Machine) -> str:
    """The text ``tcpsim machine show`` prints."""
    out = [f"machine {m.platform.name}"]
    prov = m.platform.provenance
    if prov.hardware or prov.os:
        out.append(f"  {prov.hardware or '-'} / {prov.os or '-'}")
    out.append(f"  per-packet costs: {cost_basis_text(m.platform.cost_basis)}")
    rows = _part_rows(m)
    width = max(len(r[0]) for r in rows) + 2

    def line(a: str, b: str, c: str) -> str:
        if len(b) > 28:  # a source line: the text, then where it is from on its own line
            return f"{a:<{width}}{b}\n{'':<{width + 30}}{c}".rstrip()
        return f"{a:<{width}}{b:<30}{c}".rstrip()

    out += ["", "parts (value, where it comes from)"] + [line(*r) for r in rows]
    out += ["", "platform the engine runs (value, where it comes from)"] + [line(*r) for r in _runtime_rows(m)]
    if m.parts.bus.kind != "none":
        effs = ", ".join(f"{n} B {bus_efficiency(m.parts.bus, m.parts.nic, n):.0%}" for n in (64, 1518, 9018))
        out += ["", f"bus efficiency by frame size (transaction model, before residuals): {effs}"]
    if m.parts.nic.gso_whole:
        out.append("nic: the device hands GSO aggregates over whole (a veth): with a versioned Linux the per-packet "
                   "costs are per aggregate, up to 64 KiB, on both sides")
    elif m.parts.nic.tso or m.parts.nic.lro:
        out.append("nic: TSO/LRO are recorded, not modelled: per-packet costs are per MTU-sized frame")
    levels = tuning_rows(m)
    if levels:
        out += ["", "tuning levels (--tuning LEVEL; applied on top of the values above)"]
        for level, t in levels.items():
            out.append(f"  {level}")
            if "error" in t:
                out.append(f"    does not apply: {t['error']}")
                continue
            key_w = max((len(c[0]) for c in t["changes"]), default=0) + 2
            change_w = max((len(c[1]) for c in t["changes"]), default=0) + 2
            out += [f"    {key:<{key_w}}{change:<{change_w}}{origin}" for key, change, origin in t["changes"]] \
                or ["    (no parameter changes)"]
            out += [f"    not modelled: {why}" for why in t["ignored"]]
    if m.notes:
        out += ["", "what the layers changed"] + [f"  - {n}" for n in m.notes]
    out += ["", "rules"] + [f"  - {r}" for r in RULES]
    return "\n".join(out)


def show_dict(m: Machine) -> dict[str, Any]:
    """The same as JSON-ready data: ``parts`` and ``platform`` as {key: {value, origin}}."""
    def entries(rows: list[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
        return {a.strip(): {"value": b, "origin": c} for a, b, c in rows}

    tuning = {level: {"changes": {key: {"change": change, "origin": origin} for key, change, origin in t["changes"]},
                      "ignored": t["ignored"], **({"error": t["error"]} if "error" in t else {})}
              for level, t in tuning_rows(m).items()}
    return {"name": m.platform.name, "cost_basis": m.platform.cost_basis,
            "parts": entries(_part_rows(m)), "platform": entries(_runtime_rows(m)),
            "tuning": tuning, "notes": list(m.notes), "rules": list(RULES)}
