"""Read ``tcpsim/data/validation/<source>/<table>.csv`` into :class:`Point` records with SI values.

Units are converted here and nowhere else: the CSVs keep each number exactly as its source prints it.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from ..errors import ConfigError

__all__ = ["Point", "load_points", "load_user_points", "find_data_dir", "to_si", "COLUMNS", "EXTRA_COLUMNS",
           "PACKAGE_DATA_DIR", "UNSCORED_FLAGS"]

PACKAGE_DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "validation"
"""The measured tables of the sources, one folder per source, shipped as package data."""

COLUMNS = ("source", "table", "row", "metric", "value", "unit", "platform_sender", "platform_receiver", "os_sender",
           "os_receiver", "tuning", "mtu_bytes", "sockbuf_bytes", "write_bytes", "message_bytes", "n_streams",
           "direction", "nagle", "delack", "deferred_acks_max", "n_cpus", "role", "page_hint", "flags", "note")

UNSCORED_FLAGS = frozenset({"invalid_measurement", "not_a_measurement", "duplicate"})
"""Flags of a row that is listed but never scored nor fitted: an invalid reading, arithmetic or a claim, and a
number the source prints twice (``duplicate``: the other printing, in a table, is the one scored)."""

EXTRA_COLUMNS = ("rate_bps", "rtt_s", "rtt_min_measured_s", "rtt_mean_measured_s", "tool", "load_avg_1min",
                 "delay_line", "duration_s", "n_cpus_host", "max_pacing_rate_bps", "loss_frac", "tool_version",
                 "relay_path", "response_bytes")
"""Columns a table may add after :data:`COLUMNS` (the lab sweep: its path varies by row, and its tool averaged
over ``duration_s`` from a cold start, its sockets' ``SO_MAX_PACING_RATE``, its path's loss and the tool's version,
iperf3's deciding whether its streams share a thread, and the delay line's constants from its build's path probe,
``relay_path``, where it had one; a request/response row's reply, ``response_bytes``, where it is not the
request's ``message_bytes``; Sun TABLE 4: which host ``n_cpus`` applies to). Lines
starting with ``#`` before the header are comments (the lab sweep records its kernel, sysctls and CPU there)."""

_RATE_UNITS = {"mbps": 1e6, "mbit/s": 1e6, "mbits/sec": 1e6, "mb/s": 1e6, "mbits/s": 1e6, "gbps": 1e9,
               "kbps": 1e3}


def to_si(value: float, unit: str, metric: str) -> float:
    """A printed value in SI: throughput in bit/s, rates per second, percentages as fractions, latency in s.

    ``MB/s`` (capital B) is megabytes per second, x 8e6 bit/s; ``Mb/s``, ``Mbps``, ``Mbits/sec`` are 1e6 bit/s.
    """
    u = unit.strip()
    if metric in ("throughput", "bus_claim"):
        if u in ("MB/s", "MByte/s", "MBytes/s"):
            return value * 8e6
        if u in ("GB/s",):
            return value * 8e9
        mult = _RATE_UNITS.get(u.lower())
        if mult is None:
            raise ConfigError("unit", unit, "a throughput unit such as Mbps, Mb/s, Mbits/sec or MB/s")
        return value * mult
    if u in ("%", "percent"):
        return value / 100.0
    if u in ("us", "µs", "microseconds"):
        return value * 1e-6
    if u in ("ms",):
        return value * 1e-3
    if u in ("s", "sec", "seconds"):
        return value
    return value  # counts and per-second rates are SI already


@dataclass(frozen=True)
class Point:
    """One measured number with its test conditions."""

    source_id: str
    table_id: str
    source: str
    table: str
    row: str
    metric: str
    value: float
    unit: str
    value_si: float
    role: str
    flags: tuple[str, ...]
    note: str
    fields: dict = field(default_factory=dict, compare=False)
    """The CSV row as strings (test conditions)."""

    @property
    def key(self) -> str:
        return f"{self.source_id}/{self.table_id}#{self.row}:{self.metric}"

    def get(self, name: str, default: Optional[str] = None) -> Optional[str]:
        value = self.fields.get(name, "")
        return value if value not in ("", None) else default

    def get_int(self, name: str, default: Optional[int] = None) -> Optional[int]:
        value = self.get(name)
        return default if value is None else int(float(value))


def find_data_dir(start: Optional[Path] = None) -> Path:
    """The measured tables: ``$TCPSIM_VALIDATION_DATA`` if set, else the copy shipped in the package.

    The tables are package data (``tcpsim/data/validation``), so ``tcpsim validate`` and the notebooks work
    from any directory of any install; ``start`` is accepted for compatibility and ignored.
    """
    env = os.environ.get("TCPSIM_VALIDATION_DATA")
    if env:
        return Path(env)
    return PACKAGE_DATA_DIR


_COLUMNS = ("source", "table", "metric", "value", "unit")
"""The columns a table of measured points must have (the rest are the scenario's, each optional)."""


def _points_from(path: Path) -> list[Point]:
    """The points of one CSV table; a ConfigError naming the file where it is not such a table."""
    from ..fileio import MAX_DATA_BYTES, read_text_limited

    lines = io.StringIO(read_text_limited(path, "data", MAX_DATA_BYTES), newline="")  # as open(newline="") splits
    kept = [(n, line) for n, line in enumerate(lines, 1) if not line.startswith("#")]
    reader = csv.DictReader(line for _, line in kept)
    try:
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ConfigError("data", str(path), f"a CSV table with the columns {', '.join(_COLUMNS)} (no "
                              f"{', '.join(missing)})")
        return list(_records(path, reader, kept))
    except csv.Error as exc:
        raise ConfigError("data", str(path), f"a CSV table ({exc})") from None


def _records(path: Path, reader: csv.DictReader, kept: list[tuple[int, str]]) -> Iterable[Point]:
    """Each row with a finite number for a value (a row whose value is text, "-" say, is not a point); ``kept``
    numbers the lines the reader reads as the file does (comment lines are not read)."""
    for rec in reader:
        try:
            value = float(rec["value"])
        except (TypeError, ValueError):
            continue
        if not math.isfinite(value):
            continue
        short = [c for c in _COLUMNS if rec.get(c) is None]
        if short:
            raise ConfigError("data", str(path), f"a value in every column of line {kept[reader.line_num - 1][0]} "
                              f"(none for {', '.join(short)})")
        metric = rec["metric"].strip()
        flags = tuple(f.strip() for f in (rec.get("flags") or "").split(";") if f.strip())
        try:
            value_si = to_si(value, rec["unit"], metric)
        except ConfigError as exc:
            raise ConfigError("data", str(path), f"known units (line {kept[reader.line_num - 1][0]}: {exc})") from None
        yield Point(source_id=path.parent.name, table_id=path.stem, source=rec["source"], table=rec["table"],
                    row=rec.get("row", ""), metric=metric, value=value, unit=rec["unit"], value_si=value_si,
                    role=(rec.get("role") or "none").strip(), flags=flags, note=rec.get("note") or "",
                    fields=dict(rec))


def load_points(data_dir: Optional[Path] = None) -> list[Point]:
    """Every measured number under ``data_dir`` (default :func:`find_data_dir`), in file order."""
    root = Path(data_dir) if data_dir is not None else find_data_dir()
    points: list[Point] = []
    for path in sorted(root.glob("*/*.csv")):
        points.extend(_points_from(path))
    return points


def load_user_points(data_dir: Optional[Path] = None, source: Optional[str] = None) -> list[Point]:
    """:func:`load_points` for a ``--data`` folder and ``--source`` a user named: a missing folder, a file, a
    folder without tables or an unknown source is a ConfigError naming it (never an empty run)."""
    if data_dir is not None and not Path(data_dir).is_dir():
        raise ConfigError("data", str(data_dir), "a folder of measured tables (one subfolder per source)")
    points = load_points(data_dir)
    if not points:
        raise ConfigError("data", str(data_dir), "a folder of measured tables (<source>/<table>.csv): none found")
    if source is not None:
        known = sorted({p.source_id for p in points})
        if source not in known:
            raise ConfigError("source", source, "one of " + ", ".join(known))
        points = [p for p in points if p.source_id == source]
    return points
