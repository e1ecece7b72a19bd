"""Tuning files as written (sysctl.conf, ndd, /etc/system, sysconfig, registry, modprobe, ifconfig lines) to
:class:`~tcpsim.tuning.knobs.Knob` values: logical lines, statements, then knobs, each error naming its line."""

from __future__ import annotations

import difflib
import re
import shlex
from typing import Iterator

from ..errors import TuningFileError
from .knobs import _MTU, KNOBS, Knob, KnobSpec

__all__ = ["IGNORABLE", "parse_tuning"]

IGNORABLE: tuple[tuple[str, str], ...] = (
    (r"#!", "interpreter line (#! /bin/tcsh)"),
    (r"rmmod\s", "driver unload (rmmod ixgb)"),
    (r"(ifup|ifdown)\b", "interface scripts (ifup /etc/sysconfig/network-scripts/ifcfg-eth2 boot)"),
    (r"ifconfig\s+\S+\s+(up|down)$", "interface up or down (ifconfig eth2 down)"),
    (r"modprobe\s+[\w-]+$", "driver load with its default options (modprobe ixgb)"),
    (r"modprobe\s+-r\s+[\w-]+$", "driver unload (modprobe -r ixgb)"),
    (r"ip\s+link\s+set\s+(dev\s+)?\S+\s+(up|down)$", "interface up or down (ip link set dev eth2 up)"),
    (r"(windows registry editor version|regedit4)", "header of a .reg file"),
    (r"\[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\]$", ".reg key of the TCP values"),
)
"""Lines (after comments are stripped) that set nothing: (regular expression, what it is). Nothing else is skipped."""
_IGNORABLE_RE = [re.compile(p, re.IGNORECASE) for p, _ in IGNORABLE]


# ---------------------------------------------------------------- lines -> statements

_STATEMENT_START = re.compile(r"^(sysctl|ndd|sysconfig|modprobe|set|echo|[\w./-]+\s*=)")
_PARAMS_ONLY = re.compile(r"^\w+=\S+(\s+\w+=\S+)*$")


def _outside_quotes(line: str, chars: str) -> Iterator[int]:
    quote = ""
    for i, c in enumerate(line):
        if c in "\"'" and (not quote or quote == c):
            quote = "" if quote else c
        elif not quote and c in chars:
            yield i


def _strip_comment(line: str) -> str:
    for i in _outside_quotes(line, "#"):
        if i > 0 and line[i - 1].isspace():
            return line[:i].rstrip()
    return line


def _open_quote(line: str) -> bool:
    return line.count('"') % 2 == 1


def _logical_lines(text: str, path: str) -> Iterator[tuple[int, str]]:
    """(line number, line) with comments dropped and broken lines joined."""
    raw = text.splitlines()
    i = 0
    while i < len(raw):
        line_no, line = i + 1, raw[i].strip()
        i += 1
        if not line or line.startswith(";") or (line.startswith("#") and not line.startswith("#!")):
            continue
        if line.endswith("\\") and i < len(raw):  # shell continuation, joined once (linear in the file)
            parts = [line]
            while parts[-1].endswith("\\") and i < len(raw):
                parts[-1] = parts[-1][:-1].rstrip()
                parts.append(raw[i].strip())
                i += 1
            line = " ".join(parts)
        joined = 0  # a quoted value broken over lines (10 GbE report, Appendix E as printed)
        while _open_quote(line) and _STATEMENT_START.match(line) and i < len(raw) and joined < 3:
            line, i, joined = line + " " + raw[i].strip(), i + 1, joined + 1
        if _open_quote(line):
            raise TuningFileError(path, line_no, line, "unbalanced quote (a value broken across lines?)")
        yield line_no, _strip_comment(line)


def _statements(line: str) -> list[str]:
    cuts = [-1, *_outside_quotes(line, ";"), len(line)]
    return [s for s in (line[a + 1:b].strip() for a, b in zip(cuts, cuts[1:])) if s]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


# ---------------------------------------------------------------- statements -> knobs

class _Line:
    """One statement being read: turns (syntax, where, name, value) into a checked :class:`Knob`."""

    def __init__(self, path: str, line_no: int, text: str) -> None:
        self.path, self.line_no, self.text = path, line_no, text

    def error(self, why: str) -> TuningFileError:
        return TuningFileError(self.path, self.line_no, self.text, why)

    def knob(self, syntaxes: tuple[str, ...], where: str, name: str, value: str) -> Knob:
        key = name.replace("/", ".") if syntaxes[0] == "sysctl" and "." not in name else name
        spec = KNOBS.get(key)
        if spec is None:
            raise self.error(f"unknown knob {name!r}" + _hint(key))
        if spec.syntax not in syntaxes or (spec.where and where and spec.where != where):
            raise self.error(f"{name} is set with {spec.how}")
        return self.parsed(spec, _unquote(value))

    def parsed(self, spec: KnobSpec, value: str) -> Knob:
        try:
            parsed = spec.parse(value)
        except ValueError as exc:
            raise self.error(f"bad value {value!r} for {spec.key}: {exc}") from None
        return Knob(spec.key, parsed, self.line_no, spec.target, spec.note, self.text)

    def pairs(self, syntax: str, where: str, words: list[str], module: str = "") -> list[Knob]:
        if not words or any("=" not in w for w in words):
            raise self.error("expected name=value pairs")
        prefix = f"{module}." if module else ""
        return [self.knob((syntax,), where, prefix + n, v) for n, v in (w.split("=", 1) for w in words)]


def _hint(key: str) -> str:
    if key == "tcp_deferred_acks_interval":
        return " (the Sun blueprint's spelling; Solaris calls it tcp_deferred_ack_interval)"
    bare = {k.split(".", 1)[1]: k for k in KNOBS if KNOBS[k].syntax == "modprobe"}
    if key in bare:
        return f" outside a driver line; write it as {KNOBS[bare[key]].how}"
    close = difflib.get_close_matches(key, list(KNOBS), n=1, cutoff=0.9)
    return f"; did you mean {close[0]!r}?" if close else ""


def _split(stmt: str, ln: _Line) -> list[str]:
    try:
        return shlex.split(stmt)
    except ValueError as exc:
        raise ln.error(str(exc)) from None


def _parse_statement(stmt: str, ln: _Line) -> list[Knob]:
    """The knobs one statement sets (an empty list for a line that sets nothing)."""
    if any(p.match(stmt) for p in _IGNORABLE_RE):
        return []
    head = stmt.split(None, 1)[0]
    if head == "sysctl":
        rest = re.sub(r"^sysctl(\s+-[a-zA-Z]+)*", "", stmt).strip()
        if rest.count("=") == 1:
            name, value = rest.split("=", 1)
            return [ln.knob(("sysctl",), "", name.strip(), value)]
        return ln.pairs("sysctl", "", _split(rest, ln))
    if head == "echo":
        m = re.match(r"^echo\s+(.+?)\s*>\s*/proc/sys/(\S+)$", stmt)
        if not m:
            raise ln.error("expected 'echo VALUE > /proc/sys/...'")
        return [ln.knob(("sysctl",), "", m.group(2).replace("/", "."), m.group(1))]
    if head == "ndd":
        words = _split(stmt, ln)
        if len(words) != 5 or words[1] != "-set":
            raise ln.error("expected 'ndd -set /dev/tcp name value'")
        return [ln.knob(("ndd",), words[2], words[3], words[4])]
    if head == "set":
        m = re.match(r"^set\s+([\w:]+)\s*=\s*(\S+)$", stmt)
        if not m:
            raise ln.error("expected 'set module:name = value' (/etc/system)")
        return [ln.knob(("system",), "", m.group(1), m.group(2))]
    if head == "sysconfig":
        words = _split(stmt, ln)
        if len(words) < 4 or words[1] != "-r":
            raise ln.error("expected 'sysconfig -r subsystem name=value ...'")
        return ln.pairs("sysconfig", words[2], words[3:])
    if head == "modprobe":
        words = [w for w in _split(stmt, ln)[1:] if not w.startswith("-")]
        if not words:
            raise ln.error("expected 'modprobe module option=value ...'")
        return ln.pairs("modprobe", words[0], words[1:], module=words[0])
    if head == "ifconfig" or head == "ip":
        m = re.match(r"^(?:ifconfig\s+\S+|ip\s+link\s+set\s+(?:dev\s+)?\S+)\s+(?:ip)?mtu\s+(\S+)(\s+up)?$", stmt)
        if not m:
            raise ln.error("an interface command that sets no MTU (only 'mtu N', 'ipmtu N', 'up', 'down' are read)")
        return [ln.parsed(_MTU, m.group(1))]
    m = re.match(r'^"(\w+)"\s*=\s*dword:([0-9a-fA-F]{1,8})$', stmt)  # .reg file value
    if m:
        return [ln.knob(("registry",), "", m.group(1), str(int(m.group(2), 16)))]
    m = re.match(r"^([\w./-]+)\s*=\s*(.*)$", stmt)  # sysctl.conf or registry "Name = value"
    if m:
        return [ln.knob(("sysctl", "registry"), "", m.group(1), m.group(2))]
    m = re.match(r"^([A-Z]\w+)\s+(\S+)$", stmt)  # registry "Name value", as the gigabit-NIC article lists them
    if m and m.group(1) in KNOBS and KNOBS[m.group(1)].syntax == "registry":
        return [ln.knob(("registry",), "", m.group(1), m.group(2))]
    raise ln.error("not a sysctl, ndd, /etc/system, sysconfig, registry, modprobe or ifconfig line")


def parse_tuning(text: str, path: str = "<tuning>") -> list[Knob]:
    """The knobs a tuning file sets, in file order; any line tcpsim cannot map raises TuningFileError.

    ``path`` only labels error messages. A line of driver options alone, right after a ``modprobe``
    line of that driver, continues it (the 10 GbE report's ``XsumTX=1`` wrapped onto its own line).
    """
    knobs: list[Knob] = []
    module = ""
    for line_no, line in _logical_lines(text, path):
        ln = _Line(path, line_no, line)
        if module and _PARAMS_ONLY.match(line) and all(f"{module}.{w.split('=')[0]}" in KNOBS for w in line.split()):
            knobs.extend(ln.pairs("modprobe", module, line.split(), module=module))
            continue
        module = ""
        for stmt in _statements(line):
            ln = _Line(path, line_no, stmt)
            found = _parse_statement(stmt, ln)
            knobs.extend(found)
            module = found[-1].name.split(".")[0] if found and KNOBS.get(found[-1].name, _MTU).syntax == "modprobe" \
                else ""
    return knobs
