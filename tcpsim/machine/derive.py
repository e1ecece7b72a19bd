"""Starting values of the shared cycle costs, derived from the profiles' own numbers.

``python -m tcpsim.machine.derive`` prints ``costs.toml``: for each OS cost family x driver class, the
geometric mean over the profiles of that pair of ``seconds x clock_hz x microarch factor`` (the
reference cycles each profile's value stands for); per-byte factors as ``seconds x copy_bw_Bps``, the copy apart
for the profiles on cores with fast short ``rep movsb`` (``copy_factor_fsrm``: :data:`FSRM_PROFILES`). A
value fitted by ``tcpsim calibrate`` (listed in the profile's ``[fit]``) is preferred; where no profile
of a group has one, the profiles' hand-set values are used, and the source line says which. These are
starting values: a joint fit over all sources replaces them.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from typing import Any, Iterable

from .costs import FAMILY_KINDS, PACKET_KINDS, _RUNTIME
from .lookup import microarch_factor, microarch_fsrm
from .resolve import Machine

__all__ = ["derive_costs", "costs_toml", "SOURCE_PROFILES", "FSRM_PROFILES"]

SOURCE_PROFILES = ("es40_tru64", "rx2600_ixgb", "se7501_ixgb", "sunfire6800_ce", "p4_linux", "p4_freebsd",
                   "vbox_centos", "vbox_opensolaris", "modern_linux")
FSRM_PROFILES = ("lab_vm",)
"""The profiles on cores with fast short ``rep movsb`` whose copy gives ``copy_factor_fsrm`` (the classic profiles'
cores have none)."""


_LAB_FIT_NAMES = {"per_byte_s": ("cpu.per_byte_copy_s",), "per_write_s": ("cpu.per_syscall_s",),
                  "per_read_s": ("cpu.per_syscall_rx_s",),
                  "per_packet_s": ("cpu.per_packet_tx_s", "cpu.per_packet_rx_s")}
"""The runtime values a ``calibrate --lab`` fit's names stand for (``tcpsim.calibration.own.COSTS``)."""


def _fitted(m: Machine) -> set[str]:
    params: Any = dict(m.platform.fit).get("params", ())
    out: set[str] = set()
    for p in params:
        if p == "cpu.per_ack_s":
            out |= {"cpu.per_ack_tx_s", "cpu.per_ack_rx_s"}
        elif "." not in p:  # a lab fit's name
            out |= set(_LAB_FIT_NAMES.get(p, (f"cpu.{p}",)))
        else:
            out.add(p)
    return out


def _gmean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _pick(samples: list[tuple[str, bool, float]]) -> tuple[float, str]:
    """Geometric mean of the fitted samples, else of the hand-set ones; and a source line."""
    fitted = [s for s in samples if s[1] and s[2] > 0]
    use = fitted or [s for s in samples if s[2] > 0]
    if not use:
        return 0.0, "no profile sets it: 0"
    how = "fitted" if fitted else "hand-set, not fitted"
    return _gmean([s[2] for s in use]), f"{how}: " + ", ".join(s[0] for s in use)


def derive_costs(machines: Iterable[Machine], fsrm_machines: Iterable[Machine] = ()) -> dict:
    """The cost catalog's values and sources from resolved profile machines; ``copy_factor_fsrm`` from the copy of
    ``fsrm_machines`` (:data:`FSRM_PROFILES`), which give nothing else."""
    Samples = list[tuple[str, bool, float]]
    packet: defaultdict[tuple[str, str], defaultdict[str, Samples]] = defaultdict(lambda: defaultdict(list))
    family: defaultdict[str, defaultdict[str, Samples]] = defaultdict(lambda: defaultdict(list))
    copy, csum = [], []
    for m in machines:
        fit = _fitted(m)
        factor, _ = microarch_factor(m.parts.cpu.microarch)
        hz = m.parts.cpu.clock_hz * factor
        fam, drv, cpu = m.parts.os.cost_family, m.parts.nic.driver_class, m.platform.cpu
        for kind in PACKET_KINDS:
            key = _RUNTIME[kind]
            packet[(fam, drv)][kind].append((m.name, f"cpu.{key}" in fit, getattr(cpu, key) * hz))
        for kind in ("syscall_cycles", "push_cycles"):
            key = _RUNTIME[kind]
            family[fam][kind].append((m.name, f"cpu.{key}" in fit, getattr(cpu, key) * hz))
        family[fam]["stream_frac"].append((m.name, "cpu.per_stream_frac" in fit, cpu.per_stream_frac))
        bw = m.parts.memory.copy_bw_Bps
        copy.append((m.name, "cpu.per_byte_copy_s" in fit, cpu.per_byte_copy_s * bw))
        if not m.platform.nic.checksum_offload:
            csum.append((m.name, False, cpu.per_byte_csum_s * bw))
    out: dict = {"family": {}, "driver": {}}
    out["copy_factor"], out["copy_source"] = _pick(copy)
    copy_fsrm = [(m.name, "cpu.per_byte_copy_s" in _fitted(m),
                  m.platform.cpu.per_byte_copy_s * m.parts.memory.copy_bw_Bps)
                 for m in fsrm_machines if microarch_fsrm(m.parts.cpu.microarch)]
    if copy_fsrm:
        out["copy_factor_fsrm"], out["copy_fsrm_source"] = _pick(copy_fsrm)
    out["csum_factor"], out["csum_source"] = _pick(csum)
    fitted_rows: defaultdict[str, list[str]] = defaultdict(list)
    for (fam, drv), kinds in sorted(packet.items()):
        row: dict[str, Any] = {}
        sources: defaultdict[str, list[str]] = defaultdict(list)
        for kind, samples in kinds.items():
            row[kind], src = _pick(samples)
            sources[src].append(kind.replace("_cycles", ""))
        row["source"] = "; ".join(f"{', '.join(k)} {src}" for src, k in sources.items())
        out["driver"].setdefault(fam, {})[drv] = row
        if any(s[1] for samples in kinds.values() for s in samples):
            fitted_rows[fam].append(drv)
    for fam, fkinds in sorted(family.items()):
        row, sources = {}, defaultdict(list)
        for kind in ("syscall_cycles", "push_cycles", "stream_frac"):
            row[kind], src = _pick(fkinds[kind])
            sources[src].append(kind.replace("_cycles", ""))
        rows = fitted_rows[fam] or list(out["driver"][fam])
        for kind in PACKET_KINDS:  # the family's default for drivers without their own row
            row[kind] = _gmean([out["driver"][fam][d][kind] for d in rows])
        row["source"] = "; ".join(f"{', '.join(k)} {src}" for src, k in sources.items()) + \
            f"; packet, ack, interrupt for other drivers: as {', '.join(rows)}"
        out["family"][fam] = row
    fitted_fams = [f for f in ("tru64", "linux", "solaris") if f in out["family"]]
    generic: dict[str, Any] = {k: _gmean([out["family"][f][k] for f in fitted_fams])
                               for k in ("syscall_cycles",) + PACKET_KINDS}
    generic.update(push_cycles=0.0, stream_frac=0.0,
                   source="no profile of its own: the mean of the " + ", ".join(fitted_fams) + " rows")
    out["family"]["generic"] = generic
    return out


def _fmt(v: float) -> str:
    return f"{v:.4g}" if v != 0 else "0"


def costs_toml(d: dict) -> str:
    """``costs.toml`` text from :func:`derive_costs`' values."""
    lines = ["# Shared cost parameters: reference cycles (on a core of NetBurst's work per clock; the CPU",
             "# part's clock and microarchitecture factor turn them into seconds) per OS cost family x driver",
             "# class, and per-byte factors over the memory part's STREAM Copy bandwidth.",
             "# Derived by `python -m tcpsim.machine.derive` from the profiles' numbers (seconds x clock x",
             "# factor, geometric mean per group; fitted values preferred, hand-set ones where no profile of",
             "# the group was fitted). Starting values for a joint fit over all sources.",
             f"copy_factor = {_fmt(d['copy_factor'])}", f"copy_source = \"{d['copy_source']}\"",
             *([f"copy_factor_fsrm = {_fmt(d['copy_factor_fsrm'])}", f"copy_fsrm_source = \"{d['copy_fsrm_source']}\""]
               if "copy_factor_fsrm" in d else []),
             f"csum_factor = {_fmt(d['csum_factor'])}", f"csum_source = \"{d['csum_source']}\"", ""]
    for fam, row in d["family"].items():
        lines.append(f"[family.{fam}]")
        lines += [f"{k} = {_fmt(row[k])}" for k in FAMILY_KINDS + PACKET_KINDS]
        lines += [f"source = \"{row['source']}\"", ""]
    for fam, drivers in d["driver"].items():
        for drv, row in drivers.items():
            lines.append(f"[driver.{fam}.{drv}]")
            lines += [f"{k} = {_fmt(row[k])}" for k in PACKET_KINDS]
            lines += [f"source = \"{row['source']}\"", ""]
    return "\n".join(lines)


def main() -> int:
    from .spec import load_machine

    sys.stdout.write(costs_toml(derive_costs((load_machine(n) for n in SOURCE_PROFILES),
                                             (load_machine(n) for n in FSRM_PROFILES))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
