"""The one place that reads and writes human quantities.

Conventions (kept in this module only):

* **Sizes are binary.** ``k``/``K``/``KB``/``KiB`` all mean 1024 bytes, ``M``/``MB``/``MiB`` 1024**2 and
  ``G`` 1024**3, because netperf, iperf and the socket-buffer columns of our sources use them that way
  (``512k`` = 524288 = the Tru64 table's 524288). A bare number is bytes.
* **Rates are decimal.** ``1gbit`` = ``1g`` = ``1Gbps`` = 1e9 bit/s, ``100mbit`` = 1e8 bit/s; a rate in
  bytes per second is written with ``B/s`` (``125MB/s`` = 1e9 bit/s), decimal too. A bare number is bit/s.
* **Durations** take ``s``, ``ms``, ``us`` (or ``µs``), ``ns``; a bare number is seconds.
* **Switches** are ``on``/``off`` (also ``true``/``false``, ``yes``/``no``, ``1``/``0``).
"""

from __future__ import annotations

import math
import re

from .errors import ConfigError

__all__ = [
    "parse_size",
    "parse_rate",
    "parse_duration",
    "parse_switch",
    "format_size",
    "format_rate",
    "format_duration",
    "format_quantity",
]

_NUMBER = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
_SIZE_RE = re.compile(rf"^{_NUMBER}\s*([kKmMgG]?)(i?[bB])?(ytes?)?$")
_RATE_RE = re.compile(rf"^{_NUMBER}\s*([kKmMgGtT]?)\s*(bit/s|bits?/s|bps|bit|bits|b/s|B/s|Bps|)$")
_TIME_RE = re.compile(rf"^{_NUMBER}\s*(s|sec|ms|msec|us|usec|µs|ns|nsec|)$")

_BINARY = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_DECIMAL = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_SECONDS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6,
            "µs": 1e-6, "ns": 1e-9, "nsec": 1e-9}


def _as_text(value: object) -> str:
    return str(value).strip().replace("_", "")


def parse_size(value: object, field: str = "size_bytes") -> int:
    """Bytes from ``9000``, ``512k``, ``1M``, ``64KiB`` or ``64KB`` (binary multiples, see module doc)."""
    if isinstance(value, bool):
        raise ConfigError(field, value, "a size such as 9000, 512k, 1M or 64KiB")
    if isinstance(value, (int, float)):
        number, mult = float(value), 1
    else:
        m = _SIZE_RE.match(_as_text(value))
        if not m:
            raise ConfigError(field, value, "a size such as 9000, 512k, 1M or 64KiB")
        number, mult = float(m.group(1)), _BINARY[m.group(2).lower()]
    size = number * mult
    if not math.isfinite(size) or size != int(size):
        raise ConfigError(field, value, "a whole number of bytes")
    return int(size)


def parse_rate(value: object, field: str = "rate_bps") -> float:
    """Bits per second from ``1gbit``, ``10g``, ``100mbit``, ``1e9`` or ``125MB/s`` (decimal multiples)."""
    if isinstance(value, bool):
        raise ConfigError(field, value, "a rate such as 1gbit, 10g, 100mbit or 125MB/s")
    if isinstance(value, (int, float)):
        rate = float(value)
    else:
        m = _RATE_RE.match(_as_text(value))
        if not m:
            raise ConfigError(field, value, "a rate such as 1gbit, 10g, 100mbit or 125MB/s")
        unit = m.group(3)
        per_byte = unit in ("B/s", "Bps")
        rate = float(m.group(1)) * _DECIMAL[m.group(2).lower()] * (8.0 if per_byte else 1.0)
    if not math.isfinite(rate):
        raise ConfigError(field, value, "a finite rate")
    return rate


def parse_duration(value: object, field: str = "duration_s") -> float:
    """Seconds from ``100us``, ``1.5ms``, ``0.2s`` or a bare number of seconds."""
    if isinstance(value, bool):
        raise ConfigError(field, value, "a duration such as 100us, 1.5ms or 0.2s")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        m = _TIME_RE.match(_as_text(value))
        if not m:
            raise ConfigError(field, value, "a duration such as 100us, 1.5ms or 0.2s")
        seconds = float(m.group(1)) * _SECONDS[m.group(2)]
    if not math.isfinite(seconds):
        raise ConfigError(field, value, "a finite duration")
    return seconds


def parse_switch(value: object, field: str = "switch") -> bool:
    """True or False from ``on``/``off``, ``true``/``false``, ``yes``/``no``, ``1``/``0`` or a bool."""
    if isinstance(value, bool):
        return value
    word = _as_text(value).lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ConfigError(field, value, "on or off")


def format_size(size_bytes: float) -> str:
    """``524288`` -> ``'512 KiB'``; exact binary multiples print without decimals."""
    for unit, mult in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(size_bytes) >= mult:
            value = size_bytes / mult
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{size_bytes:.0f} B"


def format_rate(rate_bps: float) -> str:
    """``9.4e8`` -> ``'940 Mbit/s'`` (three significant figures)."""
    for unit, mult in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if abs(rate_bps) >= mult:
            return f"{rate_bps / mult:.3g} {unit}"
    return f"{rate_bps:.3g} bit/s"


def format_duration(duration_s: float) -> str:
    """``1.5e-4`` -> ``'150 us'``."""
    for unit, mult in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(duration_s) >= mult:
            return f"{duration_s / mult:.3g} {unit}"
    return f"{duration_s / 1e-9:.3g} ns"


def format_quantity(name: str, value: object, plain: str = "g") -> str:
    """``value`` written for the unit its ``name`` ends in: ``_bytes`` (binary multiples as KiB, MiB...),
    ``_bps``, ``_per_s``, ``_s`` and ``_frac``; other floats with the format spec ``plain``, other values as
    they are, None as ``-``. Tables, plot labels and legends all go through here."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return str(value)
    if name.endswith("_bytes"):
        return format_size(value) if value and value % 1024 == 0 else f"{value:.0f}"
    if name.endswith("_bps"):
        return format_rate(value)
    if name.endswith("_per_s"):
        return f"{value:,.0f}"
    if name.endswith("_s"):
        return format_duration(value)
    if name.endswith("_frac"):
        return f"{value:.0%}"
    return format(value, plain) if isinstance(value, float) else str(value)
