"""Checking a machine or profile file: size, TOML syntax, known keys, types, required sections.

Every complaint is one line, ``FILE:LINE: FIELD=VALUE: must be ...`` (:class:`FileFieldError`, a
:class:`~tcpsim.errors.ConfigError`), which the CLI prints with exit code 2. ``tomllib`` gives line
numbers for syntax errors only, so :func:`line_of` finds a key's line by reading the table headers.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping, Optional

from ..errors import ConfigError

__all__ = ["FileFieldError", "MAX_FILE_BYTES", "read_toml", "line_of", "check_table", "field_types", "TomlFile"]

MAX_FILE_BYTES = 1 << 20
"""A machine or profile file is a page of text: larger files are refused unread."""


class FileFieldError(ConfigError):
    """A bad field of a file, with the file and the line it is on (0 = the line is not known)."""

    def __init__(self, path: str, line: int, field: str, value: object, allowed: str) -> None:
        ConfigError.__init__(self, field, value, allowed)
        self._init_args = (path, line, field, value, allowed)
        where = f"{path}:{line}" if line else path
        self.path, self.line = path, line
        shown = "a table" if isinstance(value, dict) else repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        self.args = (f"{where}: {field}={shown}: must be {allowed}",)

    def __str__(self) -> str:
        return self.args[0]


class TomlFile:
    """A parsed TOML file and its text, for line look-ups."""

    def __init__(self, path: str, text: str, data: dict[str, Any]) -> None:
        self.path, self.text, self.data = path, text, data

    def error(self, key: str, value: object, allowed: str) -> FileFieldError:
        """A :class:`FileFieldError` for dotted ``key`` of this file."""
        return FileFieldError(self.path, line_of(self.text, key), key, value, allowed)


def read_toml(path: str | Path, what: str = "machine") -> TomlFile:
    """Read and parse ``path``: at most :data:`MAX_FILE_BYTES`, valid TOML, not empty. Text parsed before
    is not parsed again (a sweep resolves the same profile for every point); treat the result as
    read-only."""
    from ..fileio import read_text_limited

    p = Path(path)
    text = read_text_limited(p, what, MAX_FILE_BYTES)
    key = (str(p), what, text)
    if key in _PARSED:
        return _PARSED[key]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise FileFieldError(str(p), int(m[1]) if m else 0, what, msg, "valid TOML") from None
    except RecursionError:
        raise FileFieldError(str(p), 0, what, "nesting", "TOML nested less deeply (arrays or tables)") from None
    if not data:
        raise FileFieldError(str(p), 1, what, "nothing", f"a {what} file with its tables (see tcpsim machine show "
                             "--help)")
    parsed = TomlFile(str(p), text, data)
    if len(_PARSED) > 64:
        _PARSED.clear()
    _PARSED[key] = parsed
    return parsed


_PARSED: dict[tuple, TomlFile] = {}


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def _norm(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def line_of(text: str, dotted: str) -> int:
    """The 1-based line where dotted key ``dotted`` (``cpu.clock_hz``) is set or its table opens; 0 if unknown."""
    table = ""
    best = 0
    for i, line in enumerate(text.splitlines(), 1):
        h = _HEADER.match(line)
        if h and "=" not in line.split("]")[0]:
            table = _norm(h[1])
            if table == dotted or table.startswith(dotted + "."):
                return i
            if not best and table and dotted.startswith(table + "."):
                best = i
            continue
        k = _KEY.match(line)
        if k:
            full = _norm(f"{table}.{k[1]}" if table else k[1])
            if full == dotted:
                return i
            if not best and dotted.startswith(full + "."):
                best = i
    return best


_TYPES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,), "pairs": (list,), "numbers": (list,)}


def field_types(cls) -> dict[str, str]:
    """Field name -> the plain type of a dataclass field (int, float, bool, str; Optional[...] stripped)."""
    out = {}
    for f in fields(cls):
        t = str(f.type)
        out[f.name] = "pairs" if t.startswith("tuple[tuple[") else "number or pairs" if t.startswith(
            "float | tuple[tuple[") else "numbers" if t == "tuple[float, ...]" else t.replace(
            "Optional[", "").replace("]", "").replace(" | None", "")
    return out


def type_ok(value: Any, type_name: str) -> bool:
    """True when a TOML ``value`` fits a field of type ``type_name`` (an int fits a float field)."""
    if type_name == "number or pairs":
        return type_ok(value, "float") or type_ok(value, "pairs")
    kinds = _TYPES.get(type_name)
    if kinds is None:
        return False
    if isinstance(value, bool):
        return type_name == "bool"
    if type_name == "numbers":
        return isinstance(value, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
    if type_name == "pairs":
        return isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in p) for p in value)
    return isinstance(value, kinds)


def _describe(type_name: str) -> str:
    return {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string",
            "pairs": "a list of [number, number] pairs", "numbers": "a list of numbers",
            "number or pairs": "a number or a list of [number, number] pairs"}[type_name]


def check_table(f: TomlFile, where: str, table: Any, types: Mapping[str, str],
                required: tuple[str, ...] = ()) -> dict[str, Any]:
    """``table`` (at dotted ``where``) as a dict whose keys are all known and whose values have their types."""
    if not isinstance(table, dict):
        raise f.error(where, table, "a table ([" + where + "])")
    for key, value in table.items():
        dotted = f"{where}.{key}" if where else key
        if key not in types:
            raise f.error(dotted, value, "one of the keys " + ", ".join(sorted(types)) if len(types) < 40
                          else "a known key (see tcpsim machine show --help)")
        if isinstance(value, dict):
            raise f.error(dotted, "a table", _describe(types[key]))
        if not type_ok(value, types[key]):
            raise f.error(dotted, value, _describe(types[key]))
    for key in required:
        if key not in table:
            raise f.error(where, "missing " + key, f"a table with {key} set")
    return dict(table)


def optional_table(f: TomlFile, key: str) -> Optional[dict[str, Any]]:
    """Top-level table ``key`` of the file, None when absent; an error when it is a scalar."""
    if key not in f.data:
        return None
    value = f.data[key]
    if not isinstance(value, dict):
        raise f.error(key, value, f"a table ([{key}])")
    return value
