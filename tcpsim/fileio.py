"""Reading and writing the files a user names, with one-line errors (every reader and writer of tcpsim uses these).

Reading: a regular file of at most :data:`MAX_INPUT_BYTES` (1 MiB; a tuning or profile file is a few KiB),
or of measurements (iperf3 ``-J``, ``tcpsim lab --json``, a table) at most :data:`MAX_DATA_BYTES`, in UTF-8.
Directories, devices, FIFOs and sockets are refused before they are opened (``/dev/zero`` would never end, a
FIFO would block), as is binary content (a NUL byte or bytes that are not UTF-8);
a UTF-8 byte-order mark, as Windows editors write it, is dropped. Each error is a
:class:`~tcpsim.errors.ConfigError` naming the option and the file.

Writing: ``-`` is standard output. A path the OS refuses (no such directory, a directory, no
permission) is a :class:`~tcpsim.errors.ConfigError` (the CLI exits 2: the user gave a bad path); a
device that cannot take the bytes (disk full, quota, I/O error) is an :class:`~tcpsim.errors.OutputError`
(exit 1). A closed pipe raises :class:`BrokenPipeError` for the CLI to end quietly.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from .errors import ConfigError, OutputError

__all__ = ["MAX_INPUT_BYTES", "MAX_DATA_BYTES", "read_text_limited", "read_json_limited", "write_text_reporting",
           "is_device_full", "check_writable_dir", "check_output_paths", "check_figure_path", "FIGURE_SUFFIXES"]

MAX_INPUT_BYTES = 1 << 20
"""Largest file of settings tcpsim reads (1 MiB)."""
MAX_DATA_BYTES = 64 << 20
"""Largest file of measurements tcpsim reads (64 MiB: a ``tcpsim lab`` file of three passes of a table is 0.5 MiB)."""

_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
          (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"))


def is_device_full(exc: BaseException) -> bool:
    """True for the OS errors that mean the output device cannot take more bytes (not a bad path)."""
    return isinstance(exc, OSError) and exc.errno in _FULL


def read_text_limited(path: str | os.PathLike, field: str, limit_bytes: int = MAX_INPUT_BYTES) -> str:
    """The text of a regular UTF-8 file of at most ``limit_bytes``; ``field`` names the option in errors."""
    name = os.fspath(path)
    if not str(name).strip():
        raise ConfigError(field, name, "a file path (not empty)")
    try:
        st = os.stat(name)
        kind = next((k for test, k in _KINDS if test(st.st_mode)), None)
        if kind is not None:
            raise ConfigError(field, name, f"a regular file, not a {kind}")
        if st.st_size > limit_bytes:
            raise ConfigError(field, name, f"a file of at most {limit_bytes:,} bytes (it has {st.st_size:,})")
        with open(name, "rb") as fh:
            data = fh.read(limit_bytes + 1)  # files in /proc report size 0
    except OSError as exc:
        raise ConfigError(field, name, f"a readable file ({exc.strerror or exc})") from None
    if len(data) > limit_bytes:
        raise ConfigError(field, name, f"a file of at most {limit_bytes:,} bytes")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(field, name, "UTF-8 text (this file is UTF-16: save it as UTF-8)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfigError(field, name, f"a text file (binary content: a NUL byte at offset {nul})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(field, name, f"UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})") from None


def read_json_limited(path: str | os.PathLike, field: str, expected: str, limit_bytes: int = MAX_DATA_BYTES) -> Any:
    """The JSON value of a file read as :func:`read_text_limited` reads it; a ConfigError naming ``field`` and the
    file as ``expected`` where it is not JSON (nested thousands deep too, where the parser's recursion ends)."""
    text = read_text_limited(path, field, limit_bytes)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ConfigError(field, os.fspath(path), expected) from None


def write_text_reporting(path: str | os.PathLike, text: str, field: str) -> None:
    """Write ``text`` (a newline added if missing) to ``path``, or to standard output for ``-``."""
    text = text if text.endswith("\n") else text + "\n"
    name = os.fspath(path)
    if str(name) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()  # a full disk or closed pipe shows here, not at exit
        return
    if not str(name).strip():
        raise ConfigError(field, name, "a file path (not empty)")
    try:
        with open(name, "w", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        if is_device_full(exc):
            raise OutputError(f"{field}: cannot write {name}: {exc.strerror}") from None
        raise ConfigError(field, name, f"a writable file path ({exc.strerror or exc})") from None


def check_writable_dir(path: str | os.PathLike, field: str) -> Path:
    """``path`` can be written: in an existing folder, not a folder itself, writable if it exists (checked
    before a long run that ends by writing there; the write itself still reports what the OS says)."""
    target, name = Path(path), os.fspath(path)
    if target.is_dir():
        raise ConfigError(field, name, "a file path, not a folder")
    if not target.parent.is_dir():
        raise ConfigError(field, name, f"a path in an existing folder ({target.parent} is not one)")
    if not os.access(target if target.exists() else target.parent, os.W_OK):
        raise ConfigError(field, name, "a writable file path (permission denied)")
    return target.parent


def check_output_paths(*pairs: tuple[str, str | os.PathLike | None]) -> None:
    """:func:`check_writable_dir` for each ``(field, path)``; None and ``-`` (stdout) pass."""
    for field, path in pairs:
        if path is not None and os.fspath(path) != "-":
            check_writable_dir(path, field)


FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp",
                   ".gif", ".pgf")
"""The file types matplotlib's writers make, by extension (``FigureCanvasBase.get_supported_filetypes``, less its
raw pixel buffers): a figure path is checked against them before a run, without importing matplotlib."""


def check_figure_path(path: str | os.PathLike | None, field: str) -> None:
    """A figure's path (``--plot``) can be written and names a format matplotlib writes; None passes. Checked before
    the run it ends, so a ``.txt`` is refused at once, not after minutes of simulation or real traffic."""
    if path is None:
        return
    check_writable_dir(path, field)
    if Path(path).suffix.lower() not in FIGURE_SUFFIXES:
        raise ConfigError(field, os.fspath(path), "a .png, .pdf or .svg path (or "
                          + ", ".join(FIGURE_SUFFIXES[3:]) + ")")
