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
from ..units import parse_int

__all__ = ["add_part_flags", "part_kwargs", "main"]

_EXAMPLES = ("Examples:\n  tcpsim machine show rx2600_ixgb\n  tcpsim machine show rx2600_ixgb --nic e1000 --os linux-2.4\n"
             "  tcpsim machine show mybox.toml --json\n  tcpsim machine parts\n  tcpsim machine parts bus")


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


def _show(a: argparse.Namespace) -> int:
    from .show import show_dict, show_text
    from .spec import flag_layer, layers_for
    from .resolve import resolve_layers

    kw = part_kwargs(a)
    machine = kw.pop("machine")
    flags = flag_layer(**kw)
    layers = layers_for(a.name, what="machine") + (layers_for(machine, what="machine") if machine else []) + ([flags] if flags else [])
    m = resolve_layers(layers)
    print(json.dumps(show_dict(m), indent=1) if a.json else show_text(m))
    return 0


def _parts(a: argparse.Namespace) -> int:
    from .lookup import catalog_table, part_names

    kinds = [a.kind] if a.kind else ["cpu", "memory", "bus", "nic", "os"]
    for kind in kinds:
        names = part_names(kind)
        if kind == "bus":
            print(f"bus: {', '.join(names)}")
            continue
        print(f"{kind}:")
        if kind == "os":
            from ..os_versions import OS_VERSIONS

            for n in names:
                print(f"  {n:16s} {OS_VERSIONS[n].tcp.name}")
            continue
        table = catalog_table({"cpu": "cpus", "memory": "memory", "nic": "nics"}[kind])["part"]
        for n in names:
            print(f"  {n:16s} {table[n].get('source', '')}")
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
    sp.add_argument("--json", action="store_true", help="print JSON: parts and platform as {key: {value, origin}}")
    sp = sub.add_parser("parts", help="the catalog's parts", description="List the parts of the catalog.")
    sp.add_argument("kind", nargs="?", choices=("cpu", "memory", "bus", "nic", "os"))
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

    from ..fileio import write_text_reporting
    from .detect import read_host, render

    text = render(read_host(a.iface, measure_memory=not a.no_memory_probe, probes=a.probes), a.name)
    write_text_reporting(a.out, text, "out")
    if a.out != "-":
        print(f"wrote {a.out}; next: tcpsim machine show {a.out}", file=sys.stderr)
    return 0
