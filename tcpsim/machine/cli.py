"""``tcpsim machine``: show a machine's every value and its origin; list the catalog's parts; detect this host.

The part flags (``--machine``, ``--cpu``, ``--cpu-ghz``, ``--memory-bw``, ``--nic``, ``--os``; ``--bus``
and ``--cpus`` are the scenario's) are declared here once, for predict, sweep, explain, plan and show.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, Optional, Sequence

from ..cliutil import typed
from ..errors import ConfigError
from ..fileio import check_output_paths, write_text_reporting
from ..units import parse_int

__all__ = ["add_part_flags", "part_kwargs", "main"]

_EXAMPLES = ("Examples:\n  tcpsim machine show rx2600_ixgb\n  tcpsim machine show rx2600_ixgb --nic e1000 --os linux-2.4\n"
             "  tcpsim machine show mybox.toml --json\n  tcpsim machine parts\n  tcpsim machine parts bus\n"
             "  tcpsim machine parts nic e810")


def add_part_flags(g: Any, *, with_bus_cpus: bool = False, with_os: bool = True) -> None:
    """Add the part flags to argparse group ``g`` (``--bus``, ``--cpus`` and ``--os`` as asked)."""
    g.add_argument("--machine", default=None, metavar="FILE",
                   help="a machine file (TOML) of parts; on top of --platform when both are given")
    g.add_argument("--cpu", default=None, metavar="PART", help="CPU part (itanium2, xeon-5160 ...; tcpsim machine parts)")
    g.add_argument("--cpu-ghz", default=None, metavar="GHZ", help="CPU clock in GHz")
    g.add_argument("--memory-bw", default=None, metavar="RATE", help="memory copy bandwidth, STREAM Copy (3.2GB/s)")
    g.add_argument("--nic", default=None, metavar="PART", help="NIC part (e1000, ixgb, pro1000pt ...)")
    if with_os:
        g.add_argument("--os", default=None, metavar="VERSION",
                       help="OS version (linux-2.6, solaris-8, freebsd-5, tru64-5, hpux-11, windows-2000 ...) or "
                            "family default (linux, solaris, bsd); a profile's own OS settings stay unless the "
                            "family changes")
    if with_bus_cpus:
        g.add_argument("--cpus", type=typed(parse_int, "cpus", lo=1, hi=1024), default=None, metavar="N",
                       help="CPUs per host")
        g.add_argument("--bus", default=None, metavar="PART", help="I/O bus (pci-32-33, pcix-64-133, pcie-gen1-x4 ...)")


def part_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    """The part flags of parsed arguments as :func:`tcpsim.machine.spec.platform_for` keywords."""
    return {k: getattr(a, k, None) for k in ("machine", "cpu", "cpu_ghz", "cpus", "memory_bw", "bus", "nic", "os")}


_PARTS_EXAMPLES = """Examples:
  tcpsim machine parts                 every part of the catalog, by kind
  tcpsim machine parts nic             the network cards
  tcpsim machine parts cpu xeon-5160   one part: every field and where it comes from
"""


def _show(a: argparse.Namespace) -> int:
    from .show import show_dict, show_text
    from .spec import flag_layer, layers_for
    from .resolve import resolve_layers

    check_output_paths(("json", a.json))
    kw = part_kwargs(a)
    machine = kw.pop("machine")
    flags = flag_layer(**kw)
    layers = layers_for(a.name, what="machine") + (layers_for(machine, what="machine") if machine else []) + ([flags] if flags else [])
    m = resolve_layers(layers)
    if a.json is None:
        print(show_text(m))
    else:
        write_text_reporting(a.json, json.dumps(show_dict(m), indent=1), "json")
    return 0


def _summary(source: str, width: int = 88) -> str:
    """A part's source up to its first ``: `` or ``; `` (what it is, before the evidence), at most ``width`` long."""
    depth, cut = 0, len(source)
    for i, ch in enumerate(source):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and source.startswith((": ", "; "), i):
            cut = i
            break
    text = source[:cut]
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."


def _figures(kind: str, p: Any) -> str:
    """The figures a listing shows of a part: a CPU's clock and cores, a memory's copy rate, a NIC's ports."""
    from ..units import format_rate

    if kind == "cpu":
        cores = p.sockets * p.cores_per_socket
        threads = f" ({p.threads_per_core} thr)" if p.threads_per_core > 1 else ""
        return f"{p.clock_hz / 1e9:.2f} GHz x {cores}{threads}"
    if kind == "memory":
        return f"{p.copy_bw_Bps / 1e9:.1f} GB/s"
    if kind == "nic":
        rate = format_rate(p.port_rate_bps) if p.port_rate_bps else "no line rate"
        return f"{p.ports} x {rate}" if p.ports > 1 else rate
    return p.tcp.name if kind == "os" else ""


def _parts(a: argparse.Namespace) -> int:
    from .lookup import part, part_names

    if a.name:
        if not a.kind:
            raise ConfigError("name", a.name, "given after a kind: tcpsim machine parts nic e810")
        return _one_part(a.kind, part(a.kind, a.name))
    for kind in [a.kind] if a.kind else ["cpu", "memory", "bus", "nic", "os"]:
        names = part_names(kind)
        if kind == "bus":
            print(f"bus: {', '.join(names)}")
            continue
        print(f"{kind}:")
        for n in names:
            p = part(kind, n)
            print(f"  {n:16s} {_figures(kind, p):22s} {_summary(p.source) if kind != 'os' else ''}".rstrip())
        if kind == "os":
            print(f"  {'linux-X.Y[.Z]':16s} any Linux release from 2.6.32 to 7.x (linux-5.14, linux-6.18.44)")
    if not a.kind:
        print("(tcpsim machine parts KIND NAME: one part, every field and its whole source)")
    return 0


def _one_part(kind: str, p: Any) -> int:
    """Every field of one catalog part, and its source whole (wrapped)."""
    import textwrap
    from dataclasses import fields, is_dataclass

    def rows(obj: Any, prefix: str = "") -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for f in fields(obj):
            value = getattr(obj, f.name)
            if f.name in ("name", "source") and not prefix:
                continue
            out += rows(value, f"{prefix}{f.name}.") if is_dataclass(value) else [(prefix + f.name, value)]
        return out

    print(f"{kind} {p.name}")
    for key, value in rows(p):
        print(f"  {key:28s} {value:g}" if isinstance(value, float) else f"  {key:28s} {value}")
    print(textwrap.fill(p.source, width=100, initial_indent="  source: ", subsequent_indent="    "))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``tcpsim machine show|parts|detect``; errors raise (the tcpsim CLI prints them in one line, exit 2)."""
    from ..cliutil import OneLineParser

    p = OneLineParser(prog="tcpsim machine",
                      description="Machines made of parts: show one, list the catalog, describe this host.",
                      formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EXAMPLES)
    sub = p.add_subparsers(dest="what", required=True, metavar="show|parts|detect", parser_class=OneLineParser)
    sp = sub.add_parser("show", help="every parameter of a machine and where it came from",
                        description="Every resolved parameter of a profile or machine file, with its origin "
                        "(catalog, calibration, the file, a flag).", epilog=_EXAMPLES,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sp.add_argument("name", metavar="NAME|FILE", help="a profile (tcpsim platforms) or a machine file")
    add_part_flags(sp, with_bus_cpus=True)
    sp.add_argument("-J", "--json", nargs="?", const="-", default=None, metavar="FILE",
                    help="print JSON: parts and platform as {key: {value, origin}} (to FILE with --json=FILE)")
    sp = sub.add_parser("parts", help="the catalog's parts", description="List the parts of the catalog.",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        epilog=_PARTS_EXAMPLES)
    sp.add_argument("kind", nargs="?", choices=("cpu", "memory", "bus", "nic", "os"))
    sp.add_argument("name", nargs="?", help="one part of that kind: every field and its whole source")
    sp = sub.add_parser("detect", help="write a machine file of the Linux host this runs on",
                        description="Write a machine file of this Linux host: its CPU, clock, network interface\n"
                        "(driver, line rate, rings, coalescing, PCIe link), kernel version and TCP sysctls, and its\n"
                        "memory's STREAM Copy, measured (a few seconds). Nothing is fitted; tcpsim calibrate --base\n"
                        "FILE fits the costs to runs of this host.", epilog=_DETECT_EXAMPLES,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sp.add_argument("--iface", default=None, metavar="IF", help="network interface (default: the default route's)")
    sp.add_argument("--name", default="detected", type=typed(_machine_name, "name"), help="the machine's name")
    sp.add_argument("--no-memory-probe", action="store_true",
                    help="do not measure the memory (the file then says its copy bandwidth is assumed)")
    sp.add_argument("--probes", action="store_true",
                    help="also measure what a system call, a saturated reader's read and a wake-up cost the CPU "
                         "(no root, no network; about 8 s)")
    sp.add_argument("--wake-latency", action=argparse.BooleanOptionalAction, default=None,
                    help="with --probes (the default there): measure how late a woken process runs (wake_latency_s, "
                         "about 5 s); --no-wake-latency leaves wake-ups on time (on two VMs of three it helped: "
                         "README)")
    sp.add_argument("--spin", action="store_true",
                    help="with --probes: measure the latency after short idles too (from 10 us), the probe's waker "
                         "spinning each gap; before calibrating a VM, and for request/response (README)")
    sp.add_argument("-o", "--out", default="-", metavar="FILE", help="where to write the file (default: stdout)")
    a = p.parse_args(list(argv) if argv is not None else None)
    return {"show": _show, "parts": _parts, "detect": _detect}[a.what](a)


_DETECT_EXAMPLES = ("Examples:\n  tcpsim machine detect --probes -o myhost.toml\n  tcpsim machine show myhost.toml\n"
                    "  tcpsim predict --machine myhost.toml --rate 1gbit --rtt 0.2ms --sockbuf 256k")


def _machine_name(text: str, field: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", text):
        raise ConfigError(field, text, "letters, digits, '_', '.' and '-', at most 64, starting with a letter or digit")
    return text


def _detect(a: argparse.Namespace) -> int:
    import sys

    from ..fileio import check_output_paths, write_text_reporting
    from .detect import read_host, render

    if a.wake_latency is not None and not a.probes:
        flag = "--wake-latency" if a.wake_latency else "--no-wake-latency"
        raise ConfigError(flag, "given alone", "with --probes (the latency is one of the probes)")
    if a.spin and (not a.probes or a.wake_latency is False):
        raise ConfigError("--spin", "without the latency", "with --probes and the wake-up latency it measures")
    check_output_paths(("out", a.out))  # before the probes' seconds
    text = render(read_host(a.iface, measure_memory=not a.no_memory_probe, probes=a.probes,
                            wake_latency=a.wake_latency is not False, spin=a.spin), a.name)
    write_text_reporting(a.out, text, "out")
    if a.out != "-":
        print(f"wrote {a.out}; next: tcpsim machine show {a.out}", file=sys.stderr)
    return 0
