"""The sources' own charts, re-drawn from validation outcomes: measured, tcpsim and the BDP calculator.

Each :class:`ChartSpec` names the tables, the metric, the input along the x axis, the inputs that tell
the series apart and the one that splits panels, as the source drew or tabulated them (throughput
against streams per MTU and tuning level; against socket buffer; packet rate against message size).
:func:`chart_panels` only regroups outcomes, so a chart shows exactly the numbers of the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..units import format_quantity
from .validate import Outcome

__all__ = ["ChartSpec", "CHARTS", "chart_panels"]


@dataclass(frozen=True)
class ChartSpec:
    name: str
    """File stem of the figure."""
    title: str
    tables: tuple[str, ...]
    """``source/table`` keys."""
    metric: str
    x: str
    xlabel: str
    series: tuple[str, ...]
    panel: Optional[str] = None
    logx: bool = False
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Only points whose field has one of the values (as written in the data)."""


_TENGBE = {1: "Linux64 -> Linux64 (original)", 2: "Linux64 -> Linux64", 3: "Linux64 <-> Linux64",
           4: "Linux32 -> Linux64", 5: "Linux64 -> Linux32", 6: "Linux32 <-> Linux64"}

CHARTS: tuple[ChartSpec, ...] = (
    ChartSpec("chart_tru64_sockbuf", "Tru64 ES40: throughput against socket buffer (Tables 2 and 3, 64 KB writes)",
              ("tru64/table2", "tru64/table3"), "throughput", "sockbuf_bytes", "socket buffer [bytes]",
              ("mtu_bytes",), logx=True, where=(("write_bytes", ("65536",)),)),
    ChartSpec("chart_tru64_write", "Tru64 ES40: throughput against transfer size (Tables 1 and 3)",
              ("tru64/table1", "tru64/table3"), "throughput", "write_bytes", "write size [bytes]",
              ("mtu_bytes", "sockbuf_bytes"), logx=True, where=(("sockbuf_bytes", ("32768", "61440")),)),
    *(ChartSpec(f"chart_tengbe_table{i}", f"10 GbE Table {i}: {_TENGBE[i]}, throughput against streams",
                (f"tengbe/table{i}",), "throughput", "n_streams", "streams", ("mtu_bytes",), panel="tuning")
      for i in range(1, 7)),
    ChartSpec("chart_sunfire_packets", "Sun Fire: packet rate against message size (TABLE 2 Nagle on, TABLE 3 off)",
              ("sunfire/table2", "sunfire/table3"), "packet_rate", "message_bytes", "message size [bytes]",
              ("nagle", "delack"), logx=True),
    ChartSpec("chart_sunfire_throughput", "Sun Fire: throughput against message size (TABLE 2 and TABLE 3)",
              ("sunfire/table2", "sunfire/table3"), "throughput", "message_bytes", "message size [bytes]",
              ("nagle", "delack"), logx=True),
    ChartSpec("chart_sunfire_rr", "Sun Fire: request/response rate against payload (TABLE 1)",
              ("sunfire/table1",), "transactions", "message_bytes", "payload [bytes]", ("delack",), logx=True),
)

_LABELS = {"mtu_bytes": "MTU {}", "sockbuf_bytes": "buffer {}", "nagle": "Nagle {}", "delack": "delayed ACK {}",
           "tuning": "tuning: {}"}


def _value(field: str, text: Optional[str]) -> str:
    return format_quantity(field, int(text)) if text and text.isdigit() else (text or "-")


def _label(fields: Sequence[str], point) -> str:
    return ", ".join(_LABELS.get(f, f + " {}").format(_value(f, point.get(f))) for f in fields)


def chart_panels(outcomes: Sequence[Outcome], spec: ChartSpec) -> tuple[dict, str]:
    """``(panels, unit)`` for :func:`tcpsim.plot.plot_source_chart`; empty panels when no point fits."""
    panels: dict[str, dict[str, dict[str, list]]] = {}
    unit = ""
    for o in outcomes:
        p = o.point
        if (f"{p.source_id}/{p.table_id}" not in spec.tables or p.metric != spec.metric or not o.scored
                or p.get(spec.x) is None or any(p.get(k) not in v for k, v in spec.where)):
            continue
        unit = unit or p.unit
        scale = p.value / p.value_si
        panel = _LABELS.get(spec.panel, "{}").format(p.get(spec.panel)) if spec.panel else ""
        d = panels.setdefault(panel, {}).setdefault(_label(spec.series, p),
                                                    {"x": [], "measured": [], "tcpsim": [], "bdp": []})
        d["x"].append(float(p.get(spec.x)))
        d["measured"].append(p.value)
        d["tcpsim"].append(o.predicted * scale)
        d["bdp"].append(None if o.naive is None else o.naive * scale)
    for series in panels.values():
        for d in series.values():
            if any(b is None for b in d["bdp"]):
                d["bdp"] = None
    return panels, unit
