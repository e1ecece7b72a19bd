"""Run a grid of scenarios: any input as a list, in parallel on local cores or any executor.

``sweep({"platform": "es40_tru64"}, sockbuf=["32k", "64k", "512k"], mtu=[1500, 9000])`` runs six
scenarios. Per-point seeds come from ``numpy.random.SeedSequence(base seed).spawn(n)``, so a point's
seed depends on its place in the grid, not on the order the executor finishes them. Pass any
:class:`concurrent.futures.Executor`: a user with a cluster passes ``distributed.Client().get_executor()``
(Dask) or a Ray executor, and nothing else changes.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import sys
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from .errors import ConfigError
from .units import parse_duration, parse_rate, parse_size

__all__ = ["sweep", "SweepResult", "parse_axis", "split_axes"]

_SIZE_AXES = {"sockbuf", "sndbuf", "rcvbuf", "write", "message", "rr", "mtu"}
_RATE_AXES = {"rate"}
_TIME_AXES = {"delay", "rtt"}
_INT_AXES = {"streams", "cpus", "queue", "seed"}
_FLOAT_AXES = {"message_rate", "loss"}


def _parse_one(name: str, text: str) -> Any:
    if name in _SIZE_AXES:
        return parse_size(text, name)
    if name in _RATE_AXES:
        return parse_rate(text, name)
    if name in _TIME_AXES:
        return parse_duration(text, name)
    if name in _INT_AXES:
        try:
            return int(text)
        except ValueError:
            raise ConfigError(name, text, "a whole number") from None
    if name in _FLOAT_AXES:
        try:
            return float(text)
        except ValueError:
            raise ConfigError(name, text, "a number") from None
    return text


def parse_axis(name: str, text: str) -> list[Any]:
    """Values of one axis: ``a,b,c``, ``lo..hi:xF`` (geometric) or ``lo..hi:+S`` (arithmetic)."""
    text = str(text).strip()
    if ".." in text:
        try:
            span, step = text.split(":", 1)
            lo_t, hi_t = span.split("..", 1)
        except ValueError:
            raise ConfigError(name, text, "a range like 16k..1M:x2 or 1..20:+4") from None
        lo, hi = _parse_one(name, lo_t), _parse_one(name, hi_t)
        try:
            factor = float(step[1:])
        except ValueError:
            raise ConfigError(name, text, "a range step like :x2 or :+4") from None
        if step.startswith("x") and factor > 1:
            values, v = [], lo
            while v <= hi * (1 + 1e-9):
                values.append(type(lo)(v) if isinstance(lo, int) else v)
                v = v * factor
        elif step.startswith("+") and factor > 0:
            values, v = [], lo
            while v <= hi * (1 + 1e-9):
                values.append(type(lo)(v) if isinstance(lo, int) else v)
                v = v + factor
        else:
            raise ConfigError(name, text, "a range step like :x2 (factor > 1) or :+4 (step > 0)")
        if not values or len(values) > 10_000:
            raise ConfigError(name, text, "a range with 1..10000 values")
        return values
    return [_parse_one(name, t) for t in text.split(",") if t.strip()]


def split_axes(argv: Sequence[str], sweepable: Iterable[str]) -> tuple[list[str], dict[str, list]]:
    """Pull list/range values of sweepable flags out of a command line; the rest goes to argparse."""
    names = set(sweepable)
    rest: list[str] = []
    axes: dict[str, list] = {}
    it = iter(argv)
    for tok in it:
        flag = tok[2:].replace("-", "_") if tok.startswith("--") else None
        if flag in names:
            value = next(it, None)
            if value is None:
                rest.append(tok)
                continue
            if "," in value or ".." in value:
                axes[flag] = parse_axis(flag, value)
            else:
                rest += [tok, value]
        else:
            rest.append(tok)
    return rest, axes


def _run_point(job: tuple[dict, int]) -> dict[str, Any]:
    from .api import build_scenario, simulate

    kwargs, seed = job
    kw = dict(kwargs)
    kw["seed"] = seed
    r = simulate(build_scenario(**kw))
    row: dict[str, Any] = dict(r.inputs)
    row.update(goodput_bps=r.goodput_bps, goodput_mbps=r.goodput_bps / 1e6,
               data_packets_per_s=r.data_packets_per_s, ack_packets_per_s=r.ack_packets_per_s,
               transactions_per_s=r.transactions_per_s, rtt_s=r.rtt_s, limited_by=r.limited_by,
               termination=r.termination)
    for k, v in r.utilization_frac.items():
        row[f"util_{k}_frac"] = v
    return row


@dataclass(frozen=True)
class SweepResult:
    """One row per scenario: inputs and outputs as columns with units in their names."""

    rows: tuple[dict, ...]
    axes: tuple[str, ...]

    @property
    def columns(self) -> dict[str, Any]:
        import numpy as np

        keys: list[str] = []
        for r in self.rows:
            keys += [k for k in r if k not in keys]
        out = {}
        for k in keys:
            vals = [r.get(k) for r in self.rows]
            try:
                out[k] = np.array([np.nan if v is None else v for v in vals], dtype=float)
            except (TypeError, ValueError):
                out[k] = np.array(vals, dtype=object)
        return out

    def to_records(self) -> list[dict]:
        return [dict(r) for r in self.rows]

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.to_records())

    def to_csv(self, path: Optional[str] = None) -> str:
        buf = io.StringIO()
        keys = list(self.columns)
        w = csv.DictWriter(buf, fieldnames=keys)
        w.writeheader()
        for r in self.rows:
            w.writerow(r)
        text = buf.getvalue()
        if path:
            with open(path, "w", newline="") as fh:
                fh.write(text)
        return text

    def table(self) -> str:
        cols = [f"{a}" for a in self.axes] + ["goodput_mbps", "limited_by", "termination"]
        name_map = {"sockbuf": "sndbuf_bytes", "sndbuf": "sndbuf_bytes", "rcvbuf": "rcvbuf_bytes", "mtu": "mtu_bytes",
                    "write": "write_bytes", "message": "write_bytes", "streams": "n_streams", "rate": "rate_bps",
                    "delay": "one_way_delay_s", "platform": "sender_platform"}
        header = [name_map.get(c, c) for c in cols]
        lines = ["  ".join(f"{h:>16s}" for h in header)]
        for r in self.rows:
            cells = []
            for h in header:
                v = r.get(h, r.get(f"_{h}", ""))
                cells.append(f"{v:16.1f}" if isinstance(v, float) else f"{str(v):>16s}")
            lines.append("  ".join(cells))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        keys = list(self.columns)
        head = "".join(f"<th>{k}</th>" for k in keys)
        body = "".join("<tr>" + "".join(f"<td>{r.get(k, '')}</td>" for k in keys) + "</tr>" for r in self.rows)
        return f"<table><tr>{head}</tr>{body}</table>"

    def plot(self, x: str, y: str = "goodput_mbps", hue: Optional[str] = None):
        from .plot import plot_sweep

        return plot_sweep(self.to_records(), x, y, hue)


def sweep(base: Optional[Mapping[str, Any]] = None, *, executor: Optional[Executor] = None,
          workers: Optional[int] = None, progress: bool = False, **axes: Sequence[Any]) -> SweepResult:
    """Simulate every combination of ``axes`` over ``base`` (keyword arguments of :func:`build_scenario`)."""
    import numpy as np

    base = dict(base or {})
    names = list(axes)
    combos = list(itertools.product(*(list(axes[n]) for n in names)))
    seed = int(base.pop("seed", 0) or 0)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(len(combos))]
    jobs = [({**base, **dict(zip(names, combo))}, s) for combo, s in zip(combos, seeds)]
    rows: list[dict] = []
    own = None
    if executor is None and (workers or os.cpu_count() or 1) > 1 and len(jobs) > 1:
        own = executor = ProcessPoolExecutor(max_workers=workers or os.cpu_count())
    try:
        results = executor.map(_run_point, jobs) if executor is not None else map(_run_point, jobs)
        for i, row in enumerate(results, 1):
            rows.append(row)
            if progress:
                print(f"\r{i}/{len(jobs)} points", end="", file=sys.stderr, flush=True)
    finally:
        if own is not None:
            own.shutdown()
    if progress:
        print(file=sys.stderr)
    return SweepResult(rows=tuple(rows), axes=tuple(names))
