"""``mypyc_attr`` for the compiled hot path's classes, and ``i64``, importable where ``mypy_extensions`` is not
installed.

mypyc reads the attributes at build time (``free_list_len=1``: a freed instance is kept for the next, no
allocator call); at run time nothing reads them, so without ``mypy_extensions`` the decorator does nothing.
``i64`` is a native 64-bit integer to mypyc (no tagged-integer checks on each operation) and ``int`` to Python.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["i64", "mypyc_attr"]

try:
    from mypy_extensions import i64, mypyc_attr
except ImportError:
    i64 = int  # type: ignore[misc,assignment]

    def mypyc_attr(*_attrs: str, **_kwattrs: object) -> Callable[[type], type]:  # type: ignore[misc]
        return lambda cls: cls
