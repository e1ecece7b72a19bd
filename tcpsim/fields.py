"""The declared types of the frozen inputs' fields, checked: one line naming a field whose value is of another type.

Compiled (mypyc), the engine's classes take only the types their fields declare: a float where an int belongs was a
TypeError, a profile's name where a :class:`~tcpsim.platform.Platform` belongs an AttributeError, each naming nothing.
Every frozen input of :mod:`tcpsim.config` and :mod:`tcpsim.platform` calls :func:`check_types` before its range
checks. numpy's scalars and whole floats become the plain int, float or bool the field declares, so what a notebook
computes (``np.arange``, ``64 * 1024.0``) is taken.
"""

from __future__ import annotations

import numbers
import types
import typing

from .errors import ConfigError

__all__ = ["check_types"]

_Kinds = tuple[tuple[str, tuple[type, ...], bool], ...]
_KINDS: dict[type, _Kinds] = {}


def _kinds(cls: type) -> _Kinds:
    """Each field of ``cls``: its name, the types it takes (a generic alias as its origin: ``tuple[float, ...]`` is a
    tuple) and whether it may be None, from the annotations, read once per class."""
    kinds = _KINDS.get(cls)
    if kinds is None:
        out = []
        for name, hint in typing.get_type_hints(cls).items():
            union = typing.get_origin(hint) in (typing.Union, types.UnionType)
            members = typing.get_args(hint) if union else (hint,)
            accepted = tuple(typing.get_origin(m) or m for m in members if m is not type(None))
            out.append((name, accepted, type(None) in members))
        kinds = _KINDS[cls] = tuple(out)
    return kinds


_NO = object()


def _as_kind(value: object, kind: type) -> object:
    """``value`` as ``kind`` (the same object where it already is one), or ``_NO``."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
        return bool(value) if numpy_bool else _NO
    if kind is int:
        if type(value) is int:
            return value
        if isinstance(value, bool):
            return _NO
        if isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer()):
            return int(value)
        return _NO
    if kind is float:
        if type(value) is float:
            return value
        return float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else _NO
    if kind is tuple and isinstance(value, list):  # a TOML or JSON array
        return _frozen(value)
    return value if isinstance(value, kind) else _NO


def _frozen(value: object) -> object:
    """Lists within lists as tuples within tuples (a frozen input hashes and compares as declared)."""
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


def _describe(kind: type) -> str:
    named = {bool: "True or False", int: "a whole number", float: "a number", str: "text", tuple: "a tuple"}
    return named.get(kind) or f"a {kind.__module__}.{kind.__qualname__}"


def check_types(obj: object, prefix: str = "") -> None:
    """Every field of the frozen dataclass ``obj`` of a type it declares, made the plain type where it is numpy's or a
    whole float; else a :class:`~tcpsim.errors.ConfigError` naming the field (after ``prefix``, as the class's own
    range checks name it: ``os.family``) and the types it takes."""
    for name, accepted, optional in _kinds(type(obj)):
        value = getattr(obj, name)
        if value is None and optional:
            continue
        for kind in accepted:
            got = _as_kind(value, kind)
            if got is not _NO:
                if got is not value:
                    object.__setattr__(obj, name, got)
                break
        else:
            raise ConfigError(prefix + name, value, " or ".join(_describe(k) for k in accepted))
