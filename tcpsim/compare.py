"""Two scenarios side by side: every figure of both answers, what changed, and whether the limit moved.

``compare(dict(platform="es40_tru64"), what_if={"mtu": 9000})`` runs the scenario and the same one with
MTU 9000; ``compare(a, b)`` takes two scenarios (:class:`~tcpsim.config.Scenario` or
:func:`tcpsim.build_scenario` keywords). ``tcpsim compare --what-if mtu=9000 --platform es40_tru64``
prints the table; ``--json`` the same as one object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

from .config import Scenario
from .errors import ConfigError
from .result import Result, json_ready
from .units import format_quantity, parse_switch

__all__ = ["Comparison", "compare", "parse_what_if"]

_INTS = ("streams", "cpus", "queue", "deferred_acks_max", "seed")
_SWITCHES = ("bidir", "nodelay")
_KEYS = ("rate", "delay", "rtt", "mtu", "sockbuf", "sndbuf", "rcvbuf", "write", "message", "rr", "response", "read",
         "streams", "bidir", "nodelay", "delack", "deferred_acks_max", "os", "platform", "sender", "receiver",
         "tuning", "cpus", "bus", "machine", "cpu", "cpu_ghz", "memory_bw", "nic", "queue", "loss", "message_rate",
         "sack", "limited_transmit", "seed")
"""The :func:`tcpsim.build_scenario` keywords a what-if may change (parts too: ``cpu_ghz=2``, ``nic=e1000``)."""

Spec = Union[Scenario, Mapping[str, Any]]

_FIGURES = (
    ("goodput", "goodput_bps"),
    ("transactions/s", "transactions_per_s"),
    ("data packets/s", "data_packets_per_s"),
    ("ACK packets/s", "ack_packets_per_s"),
    ("round trip", "rtt_s"),
    ("retransmissions", "retransmits"),
)

_BOUNDS = {"line": "line rate", "window": "window / RTT", "bus_sender": "sender bus", "bus_receiver": "receiver bus",
           "cpu_sender": "sender CPUs", "cpu_receiver": "receiver CPUs", "pacing": "pacing caps"}
"""Short names of the closed-form bounds (:func:`tcpsim.ceilings.ceilings`) for the table's first column."""


def parse_what_if(changes: Union[Mapping[str, Any], Sequence[str], str]) -> dict[str, Any]:
    """``["mtu=9000", "sockbuf=1M"]`` (or a mapping) as :func:`tcpsim.build_scenario` keywords.

    Keys are build_scenario's (``message_rate`` or ``message-rate``); values keep their units (the scenario
    parses them), whole numbers for streams, CPUs and the queue, on/off for switches.
    """
    if isinstance(changes, str):
        changes = [changes]
    if not isinstance(changes, (Mapping, list, tuple)):
        raise ConfigError("what_if", changes, "a dict of build_scenario keywords or KEY=VALUE strings, e.g. "
                          "{'mtu': 9000} or ['mtu=9000']")
    items: list[tuple[str, Any]] = []
    if isinstance(changes, Mapping):
        items = list(changes.items())
    else:
        for text in changes:
            key, sep, value = str(text).partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ConfigError("what_if", text, "KEY=VALUE, e.g. mtu=9000 or sockbuf=1M")
            items.append((key, value.strip()))
        keys = [str(k).strip().replace("-", "_") for k, _ in items]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:  # the last would win, silently
            raise ConfigError("what_if", twice, "each key once (a second value of one key: --a and --b, or a sweep)")
    out: dict[str, Any] = {}
    for key, value in items:
        key = str(key).strip().replace("-", "_")
        if key not in _KEYS:
            raise ConfigError("what_if", key, "one of " + ", ".join(_KEYS))
        if key in _INTS and isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                raise ConfigError(key, value, "a whole number") from None
        elif key in _SWITCHES:
            value = parse_switch(value, key)
        elif key == "loss" and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise ConfigError(key, value, "a fraction such as 1e-3") from None
        out[key] = value
    if not out:
        raise ConfigError("what_if", changes, "at least one KEY=VALUE change")
    return out


def _scenario(spec: Spec, name: str) -> Scenario:
    """``spec`` as a Scenario: itself, or built from its keywords; a ConfigError naming ``name`` (``a``, ``b``)
    where it is neither, or names a keyword build_scenario has not."""
    if isinstance(spec, Scenario):
        return spec
    from .api import build_scenario, check_keywords

    if not isinstance(spec, Mapping):
        raise ConfigError(name, spec, "a tcpsim.Scenario or a dict of tcpsim.build_scenario keywords")
    check_keywords(spec)
    return build_scenario(**dict(spec))


def _busiest(r: Result, role: str) -> Optional[float]:
    cpus = r.cpu_utilization_frac.get(role)
    return max(cpus) if cpus else None


def _change(a: Any, b: Any) -> str:
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or isinstance(a, bool):
        return "" if a == b else "changed"
    if not (math.isfinite(a) and math.isfinite(b)):
        return "" if a == b else "changed"
    if a == b:
        return "same"
    if a == 0:
        return "from 0"
    return f"{b / a - 1:+.0%}"


def _input(name: str, value: Any) -> str:
    """An input as the flags take it: switches on/off, sizes in KiB where whole, else as it is."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return format_quantity(name, value)


@dataclass(frozen=True)
class Comparison:
    """Scenarios ``a`` and ``b``, their results, the inputs that differ and every figure side by side."""

    a: Scenario
    b: Scenario
    result_a: Result
    result_b: Result
    label_b: str = "b"
    """``b``, or the what-if that made it (``mtu=9000``)."""

    @property
    def changed_inputs(self) -> dict[str, tuple[Any, Any]]:
        """The main inputs that differ, ``name -> (a, b)``."""
        ia, ib = self.result_a.inputs, self.result_b.inputs
        return {k: (ia.get(k), ib.get(k)) for k in ia if k != "seed" and ia.get(k) != ib.get(k)}

    @property
    def limit_moved(self) -> bool:
        return self.result_a.limited_by != self.result_b.limited_by

    @property
    def gain_frac(self) -> float:
        """goodput(b) / goodput(a) - 1."""
        ga, gb = self.result_a.goodput_bps, self.result_b.goodput_bps
        return gb / ga - 1 if ga > 0 else math.inf

    def rows(self) -> list[tuple[str, str, Any, Any]]:
        """Every figure as ``(label, quantity name, a, b)``: results, utilizations and closed-form bounds."""
        ra, rb = self.result_a, self.result_b
        out = [(label, name, getattr(ra, name), getattr(rb, name)) for label, name in _FIGURES
               if getattr(ra, name) is not None or getattr(rb, name) is not None]
        for role in ("sender", "receiver"):
            out.append((f"{role} CPU, busiest", "cpu_frac", _busiest(ra, role), _busiest(rb, role)))
            bus = f"bus_{role}"
            if bus in ra.utilization_frac or bus in rb.utilization_frac:
                out.append((f"{role} bus", "bus_frac", ra.utilization_frac.get(bus), rb.utilization_frac.get(bus)))
        for k in dict.fromkeys([*ra.ceilings_bps, *rb.ceilings_bps]):
            va, vb = ra.ceilings_bps.get(k), rb.ceilings_bps.get(k)
            if (va is not None and math.isfinite(va)) or (vb is not None and math.isfinite(vb)):
                kind = "estimate" if k.startswith("cpu_") else "bound"  # ceilings.cpu_ceiling_bps: not a bound
                out.append((f"{kind}: {_BOUNDS.get(k, k)}", f"{kind}_bps", va, vb))
        return out

    def limit_text(self) -> str:
        from .report_text import limit_name

        la, lb = limit_name(self.result_a.limited_by), limit_name(self.result_b.limited_by)
        return f"the limit moved: {la} -> {lb}" if self.limit_moved else f"the limit stays: {la}"

    def cautions(self) -> list[str]:
        """The validation's cautions for either scenario (:func:`tcpsim.confidence.cautions`)."""
        from .confidence import cautions

        out: list[str] = []
        for sc in (self.a, self.b):
            out += [c for c in cautions(sc) if c not in out]
        return out

    def text(self) -> str:
        """The side-by-side table, the inputs that changed, the limit and any caution."""
        ch = self.changed_inputs
        lines = [f"a: {self.a.summary()}", f"b: {self.label_b}" if self.label_b != "b" else f"b: {self.b.summary()}"]
        if ch:
            lines.append("changed: " + ", ".join(f"{k} {_input(k, va)} -> {_input(k, vb)}" for k, (va, vb) in ch.items()))
        width = max(len(r[0]) for r in self.rows()) + 2
        lines.append(f"{'':{width}s}{'a':>14s}  {'b':>14s}  change")
        for label, name, va, vb in self.rows():
            lines.append(f"{label:{width}s}{format_quantity(name, va):>14s}  {format_quantity(name, vb):>14s}  "
                         f"{_change(va, vb)}".rstrip())
        lines.append(self.limit_text())
        lines += [f"caution: {c}" for c in self.cautions()]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return (f"<Comparison {self.label_b}: goodput {format_quantity('goodput_bps', self.result_a.goodput_bps)} -> "
                f"{format_quantity('goodput_bps', self.result_b.goodput_bps)} ({self.gain_frac:+.0%}); "
                f"{self.limit_text()}>")

    def _repr_html_(self) -> str:
        from html import escape

        body = "".join(f"<tr><td>{escape(label)}</td><td>{escape(format_quantity(n, va))}</td>"
                       f"<td>{escape(format_quantity(n, vb))}</td><td>{escape(_change(va, vb))}</td></tr>"
                       for label, n, va, vb in self.rows())
        notes = "".join(f"<p>caution: {escape(c)}</p>" for c in self.cautions())
        return (f"<div><table><tr><th></th><th>a</th><th>b: {escape(self.label_b)}</th><th>change</th></tr>{body}"
                f"</table><p><b>{escape(self.limit_text())}</b></p>{notes}</div>")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the changed inputs, each figure for a and b, the limits and the cautions."""
        return json_ready({
            "b_label": self.label_b,
            "changed_inputs": {k: list(v) for k, v in self.changed_inputs.items()},
            "figures": [{"figure": label, "quantity": name, "a": va, "b": vb} for label, name, va, vb in self.rows()],
            "limited_by": [self.result_a.limited_by, self.result_b.limited_by],
            "limit_moved": self.limit_moved,
            "gain_frac": self.gain_frac,
            "cautions": self.cautions(),
            "a": self.result_a.inputs, "b": self.result_b.inputs,
        })


def compare(a: Spec, b: Optional[Spec] = None, *, what_if: Union[Mapping[str, Any], Sequence[str], str, None] = None
            ) -> Comparison:
    """Run ``a`` and ``b`` (or ``a`` changed by ``what_if``) and set their answers side by side.

    ``a`` and ``b`` are scenarios or :func:`tcpsim.build_scenario` keywords; ``what_if`` (``"mtu=9000"``,
    several, or a mapping) needs ``a`` as keywords and stands instead of ``b``.
    """
    from .api import simulate, with_changes

    if (b is None) == (what_if is None):
        raise ConfigError("b", b, "given, or a what_if change instead (one of the two)")
    label = "b"
    if what_if is not None:
        if not isinstance(a, Mapping):
            raise ConfigError("a", type(a).__name__, "build_scenario keywords (a dict) when what_if is given")
        changes = parse_what_if(what_if)
        b = with_changes(a, changes)
        label = ", ".join(f"{k}={v}" for k, v in changes.items())
    sa, sb = _scenario(a, "a"), _scenario(b, "b")
    return Comparison(a=sa, b=sb, result_a=simulate(sa), result_b=simulate(sb), label_b=label)
