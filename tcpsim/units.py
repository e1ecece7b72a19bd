"""The one place that reads and writes human quantities.

Conventions (kept in this module only):

* **Sizes are binary.** ``k``/``K``/``KB``/``KiB`` all mean 1024 bytes, ``M``/``MB``/``MiB`` 1024**2 and
  ``G`` 1024**3, because netperf, iperf and the socket-buffer columns of our sources use them that way
  (``512k`` = 524288 = the Tru64 table's 524288). A bare number is bytes.
* **An MTU is decimal** (``parse_size(..., decimal=True)``): ``9k`` = 9000, as ``ip link set mtu 9000``
  and every jumbo-frame table mean it; ``9KiB`` still says 9216 when that is meant.
* **Rates are decimal.** ``1gbit`` = ``1g`` = ``1Gb`` = ``1Gbps`` = 1e9 bit/s, ``100mbit`` = 1e8 bit/s; a rate
  in bytes per second is written with ``B/s`` (``125MB/s`` = 1e9 bit/s), decimal too. A bare number is bit/s.
* **Durations need a unit**: ``s``, ``ms``, ``us`` (or ``µs``), ``ns``. A bare ``20`` is refused ("20 what?")
  rather than read as seconds (tc/netem's reading) or milliseconds (ping's): the two differ 1000-fold
  and neither is what every user means. Plain numbers from Python (``0.02``) are seconds, as the ``_s``
  names say; a bare ``0`` is zero in any unit.
* **Fractions** take ``%``: ``1%`` = ``0.01`` = ``1e-2``.
* **Switches** are ``on``/``off`` (also ``true``/``false``, ``yes``/``no``, ``1``/``0``).
* Numbers are ASCII (``0-9``; ``١٢٣`` is refused, as are ``inf``, ``nan`` and the empty string).
"""

from __future__ import annotations

import math
import re
import sys

from .errors import ConfigError

__all__ = [
    "parse_size",
    "parse_rate",
    "parse_link_rate",
    "UNSHAPED_RATE_BPS",
    "parse_duration",
    "parse_int",
    "parse_number",
    "parse_fraction",
    "parse_switch",
    "format_size",
    "format_rate",
    "format_duration",
    "format_mbps",
    "format_quantity",
]

_NUMBER = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
_SIZE_RE = re.compile(rf"^{_NUMBER}\s*([kKmMgG]?)(i?[bB])?(ytes?)?$")
_RATE_RE = re.compile(rf"^{_NUMBER}\s*([kKmMgGtT]?)\s*(bit/s|bits?/s|bps|bit|bits|b/s|b|B/s|Bps|)$")
_TIME_RE = re.compile(rf"^{_NUMBER}\s*(s|sec|ms|msec|us|usec|µs|ns|nsec|)$")
_INT_RE = re.compile(r"^[-+]?[0-9]+$")
_FLOAT_RE = re.compile(rf"^[-+]?{_NUMBER}$")
_FRACTION_RE = re.compile(rf"^{_NUMBER}\s*(%?)$")

_BINARY = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_DECIMAL = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_SECONDS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6,
            "µs": 1e-6, "ns": 1e-9, "nsec": 1e-9}


def _as_text(value: object, field: str, example: str) -> str:
    """The value as text without blanks and ``_`` separators; empty text and non-ASCII digits refused."""
    text = str(value).strip().replace("_", "")
    if not text:
        raise ConfigError(field, value, f"{example} (not empty)")
    if any(ch.isdigit() and not ch.isascii() for ch in text):
        raise ConfigError(field, value, f"{example}, in ASCII digits 0-9")
    return text


def _matched(value: object, field: str, how: str, pattern: re.Pattern[str]) -> re.Match[str]:
    """The match of ``pattern`` on the value's text, or a ConfigError saying ``how`` to write it."""
    text = _as_text(value, field, how)
    m = pattern.match(text)
    if not m:
        raise ConfigError(field, value, _negative(text, pattern, how))
    return m


def _negative(text: str, pattern: re.Pattern[str], how: str) -> str:
    """``how``, or for a value that is well written but negative (``-1ms``) the range it is outside."""
    return f"0 or more ({how})" if text.startswith("-") and pattern.match(text[1:].lstrip()) else how


def _number(value: object, field: str, example: str) -> float | None:
    """A Python number as float (bools refused), or None for text."""
    if isinstance(value, bool):
        raise ConfigError(field, value, example)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def parse_size(value: object, field: str = "size_bytes", *, decimal: bool = False, allowed: str | None = None) -> int:
    """Bytes from ``9000``, ``512k``, ``1M``, ``64KiB`` or ``64KB`` (binary multiples, see module doc).

    ``decimal=True`` (an MTU): ``k``/``kB`` are 1000, only ``KiB``/``MiB`` stay binary. ``allowed``: the field's
    own range, which a well-written negative size (``-5k``) is refused with."""
    how = "a size such as 9000, 512k, 1M or 64KiB"
    number = _number(value, field, how)
    mult = 1
    if number is None:
        text = _as_text(value, field, how)
        if allowed and text.startswith("-") and _SIZE_RE.match(text[1:].lstrip()):
            raise ConfigError(field, value, allowed)
        m = _matched(value, field, how, _SIZE_RE)
        number, prefix = float(m.group(1)), m.group(2).lower()
        binary = not decimal or (m.group(3) or "").startswith("i")
        mult = _BINARY[prefix] if binary else int(_DECIMAL[prefix])
    size = number * mult
    if not math.isfinite(size) or size != int(size):
        raise ConfigError(field, value, "a whole number of bytes")
    return int(size)


def parse_rate(value: object, field: str = "rate_bps") -> float:
    """Bits per second from ``1gbit``, ``10g``, ``10Gb``, ``100mbit``, ``1e9`` or ``125MB/s`` (decimal multiples)."""
    how = "a rate such as 1gbit, 10G, 10Gb, 100mbit or 125MB/s"
    rate = _number(value, field, how)
    if rate is None:
        text = _as_text(value, field, how)
        m = _RATE_RE.match(text)
        if not m:
            if re.match(rf"^{_NUMBER}\s*[kKmMgGtT]?B$", text):
                how = "a rate: Gb or Gbit for bits per second, GB/s for bytes per second"
            raise ConfigError(field, value, _negative(text, _RATE_RE, how))
        per_byte = m.group(3) in ("B/s", "Bps")
        rate = float(m.group(1)) * _DECIMAL[m.group(2).lower()] * (8.0 if per_byte else 1.0)
    if not math.isfinite(rate):
        raise ConfigError(field, value, "a finite rate")
    return rate


UNSHAPED_RATE_BPS = 1e13
"""What an unshaped link (``--rate 0`` or ``--rate unshaped``) stands for: 10 Tbit/s, the top of
:class:`tcpsim.config.Link`'s range, a frame's serialization under 1.2 ns, so the hosts' own limits (CPU,
bus, windows) decide, as on a veth pair between namespaces with no ``tc`` shaping."""


def parse_link_rate(value: object, field: str = "rate_bps") -> float:
    """A link's rate: what :func:`parse_rate` reads, or ``0`` / ``unshaped`` for :data:`UNSHAPED_RATE_BPS`."""
    if isinstance(value, str) and value.strip().lower() == "unshaped":
        return UNSHAPED_RATE_BPS
    rate = parse_rate(value, field)
    return UNSHAPED_RATE_BPS if rate == 0 else rate


def parse_duration(value: object, field: str = "duration_s", lo_s: float | None = None,
                   hi_s: float | None = None) -> float:
    """Seconds from ``100us``, ``1.5ms`` or ``0.2s`` (text needs its unit); a Python number is seconds;
    optionally within ``lo_s..hi_s``."""
    how = "a duration such as 100us, 1.5ms or 0.2s"
    seconds = _number(value, field, how)
    if seconds is None:
        m = _matched(value, field, how, _TIME_RE)
        if not m.group(2) and float(m.group(1)) != 0:
            n = m.group(1)
            raise ConfigError(field, value, f"a duration with its unit ({n} what? write {n}ms, {n}us or {n}s)")
        seconds = float(m.group(1)) * _SECONDS[m.group(2)]
    if not math.isfinite(seconds):
        raise ConfigError(field, value, "a finite duration")
    if (lo_s is not None and seconds < lo_s) or (hi_s is not None and seconds > hi_s):
        low = "0" if lo_s is not None and lo_s <= 0 else format_duration(lo_s) if lo_s is not None else None
        high = format_duration(hi_s) if hi_s is not None else None
        span = f"in {low}..{high}" if low and high else f">= {low}" if low else f"<= {high}"
        raise ConfigError(field, value, f"a duration {span}")
    return seconds


def _range(field: str, value: object, out: float, lo: float | None, hi: float | None, what: str) -> None:
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        span = (f"in {lo:g}..{hi:g}" if lo is not None and hi is not None
                else f">= {lo:g}" if lo is not None else f"<= {hi:g}")
        raise ConfigError(field, value, f"{what} {span}")


def parse_int(value: object, field: str = "count", lo: int | None = None, hi: int | None = None) -> int:
    """A whole number from ``4``, ``"4"`` or ``4.0`` (ASCII digits only), optionally within ``lo..hi``."""
    how = "a whole number such as 4"
    number = _number(value, field, how)
    if number is None:
        text = _as_text(value, field, how)
        sci = _FLOAT_RE.match(text) if "e" in text.lower() and not _INT_RE.match(text) else None
        if sci and math.isfinite(float(sci.group(0))) and float(sci.group(0)).is_integer():
            out = int(float(sci.group(0)))  # 1e12, as the ranges print
        else:
            out = int(_matched(value, field, how, _INT_RE).group(0))
    elif math.isfinite(number) and number == int(number):
        out = int(value) if isinstance(value, int) else int(number)
    else:
        raise ConfigError(field, value, how)
    _range(field, value, out, lo, hi, "a whole number")
    return out


def parse_number(value: object, field: str = "number", lo: float | None = None, hi: float | None = None) -> float:
    """A finite number from ``20000``, ``"1.5"`` or ``"1e-3"`` (ASCII; ``inf`` and ``nan`` refused)."""
    how = "a number such as 1.5 or 1e-3"
    number = _number(value, field, how)
    if number is None:
        number = float(_matched(value, field, how, _FLOAT_RE).group(0))
    if not math.isfinite(number):
        raise ConfigError(field, value, "a finite number")
    _range(field, value, number, lo, hi, "a number")
    return number


def parse_fraction(value: object, field: str = "frac", lo: float = 0.0, hi: float = 1.0) -> float:
    """A fraction from ``0.01``, ``1e-2`` or ``1%``, within ``lo..hi``."""
    how = "a fraction such as 0.01, 1e-2 or 1%"
    frac = _number(value, field, how)
    if frac is None:
        m = _matched(value, field, how, _FRACTION_RE)
        frac = float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    if not math.isfinite(frac) or not lo <= frac <= hi:
        raise ConfigError(field, value, f"a fraction in {lo:g}..{hi:g} ({hi:.0%} at most)")
    if frac == 0.0 and isinstance(value, str) and re.search(r"[1-9]", value.lower().split("e")[0]):
        raise ConfigError(field, value, f"0 or a fraction of at least {sys.float_info.min:.3g} (a smaller one "
                          "is 0 to a float, which would run without it)")
    return frac


def parse_switch(value: object, field: str = "switch") -> bool:
    """True or False from ``on``/``off``, ``true``/``false``, ``yes``/``no``, ``1``/``0`` or a bool."""
    if isinstance(value, bool):
        return value
    word = _as_text(value, field, "on or off").lower()
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


def format_mbps(rate_bps: float, width: int = 0) -> str:
    """A rate in Mbit/s, the unit every goodput line of tcpsim's text uses: one decimal from 0.1 Mbit/s to 10
    Tbit/s, three significant figures outside it (a 1 kbit/s link's 0.000998, not 0.0; Mathis's rate at a loss of
    1e-300, 1.27e+152, not its 150 digits); ``width`` right-aligns it."""
    mbps = rate_bps / 1e6
    text = f"{mbps:.1f}" if mbps == 0 or 0.1 <= abs(mbps) < 1e7 else f"{mbps:.3g}"
    return f"{text:>{width}}"


def format_rate(rate_bps: float) -> str:
    """``9.4e8`` -> ``'940 Mbit/s'`` (three significant figures); :data:`UNSHAPED_RATE_BPS` -> ``'unshaped'``."""
    if rate_bps == UNSHAPED_RATE_BPS:
        return "unshaped"
    for unit, mult in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if abs(rate_bps) >= mult:
            return f"{rate_bps / mult:.3g} {unit}"
    return f"{rate_bps:.3g} bit/s"


def format_duration(duration_s: float) -> str:
    """A time in its natural unit: ``0.02`` -> ``'20 ms'``, ``1.5e-4`` -> ``'150 us'`` (three significant figures)."""
    if duration_s == 0:
        return "0 s"
    if abs(duration_s) >= 1e7:
        return f"{duration_s:.3g} s"  # a loss of 1e-300 comes every 1.2e+295 s, not a 300-digit number
    if abs(duration_s) >= 1000.0:
        return f"{duration_s:.0f} s"  # not 3.6e+03 s
    for unit, mult in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(duration_s) >= mult:
            return f"{duration_s / mult:.3g} {unit}"
    return f"{duration_s / 1e-9:.3g} ns"


def _percent(frac: float) -> str:
    """A fraction as a percentage: whole percent from 10 % up, two significant digits below (a loss rate of 1e-6
    is 0.0001 %, not 0 %; 1.5 % is not 2 %)."""
    pct = frac * 100.0
    return f"{pct:.0f}%" if pct == 0 or abs(pct) >= 10 else f"{pct:.2g}%"


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
        return _percent(value)
    return format(value, plain) if isinstance(value, float) else str(value)
