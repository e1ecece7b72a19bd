"""Run a grid of scenarios: any input of :func:`~tcpsim.api.build_scenario` as a list, on local cores or any executor.

``sweep({"platform": "es40_tru64"}, sockbuf=["32k", "64k", "512k"], mtu=[1500, 9000])`` runs six
scenarios and returns a :class:`SweepResult`, one row per point.

Seeds. Point ``i`` of the grid (in :func:`itertools.product` order of the axes as given) runs with
``numpy.random.SeedSequence(base_seed).spawn(n_points)[i].generate_state(1)[0]``: a point's seed
depends on its place in the grid, never on which worker ran it or when it finished, so a serial run,
a process pool and a cluster give the same table. Sweeping ``seed`` itself uses the given seeds as
they are (replications).

Executors. Points run through ``executor.map`` of any :class:`concurrent.futures.Executor`. Without
one, a :class:`~concurrent.futures.ProcessPoolExecutor` on the local cores (``workers`` processes,
default ``os.cpu_count()``); ``workers=1`` runs in this process. A user with a Dask cluster passes
``distributed.Client(...).get_executor()`` (a concurrent.futures Executor; a Ray cluster works the same
through any Executor adapter) and nothing else changes: each point is a picklable
:class:`~tcpsim.config.Scenario` sent to the module-level :func:`_run_point`, and results come back in
grid order whatever the executor.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import math
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from .config import MAX_LOSS_FRAC, MAX_WORKERS
from .errors import ConfigError
from .fileio import write_text_reporting
from .result import json_ready
from .workers import new_pool, stop_workers
from .units import (format_quantity, parse_duration, parse_fraction, parse_int, parse_link_rate, parse_number,
                    parse_rate, parse_size, parse_switch)

__all__ = ["AXES", "MAX_POINTS", "SweepResult", "check_columns", "parse_axis", "possible_columns", "split_axes", "sweep"]

AXES: dict[str, tuple[str, str]] = {
    "sockbuf": ("size", "sockbuf_bytes"),
    "sndbuf": ("size", "sndbuf_request_bytes"),
    "rcvbuf": ("size", "rcvbuf_request_bytes"),
    "write": ("size", "write_bytes"),
    "message": ("size", "message_bytes"),
    "read": ("size", "read_bytes"),
    "rr": ("size", "rr_bytes"),
    "response": ("size", "response_bytes"),
    "mtu": ("size", "mtu_bytes"),
    "rate": ("rate", "rate_bps"),
    "delay": ("duration", "one_way_delay_s"),
    "rtt": ("duration", "path_rtt_s"),
    "streams": ("int", "n_streams"),
    "cpus": ("int", "n_cpus"),
    "queue": ("int", "queue_packets"),
    "seed": ("int", "seed"),
    "deferred_acks_max": ("int", "deferred_acks_max"),
    "message_rate": ("float", "message_rate_hz"),
    "loss": ("fraction", "loss_frac"),
    "nodelay": ("bool", "nodelay"),
    "bidir": ("bool", "bidirectional"),
    "sack": ("bool", "sack"),
    "limited_transmit": ("bool", "limited_transmit"),
    "cc": ("text", "congestion_control"),
    "max_pacing_rate": ("rate", "max_pacing_rate_bps"),
    "bus": ("text", "bus"),
    "platform": ("text", "platform"),
    "sender": ("text", "sender_platform"),
    "receiver": ("text", "receiver_platform"),
    "tuning": ("text", "tuning"),
    "os": ("text", "os"),
    "delack": ("text", "delack"),
    "machine": ("text", "machine"),
    "cpu": ("text", "cpu"),
    "cpu_ghz": ("float", "cpu_ghz"),
    "memory_bw": ("text", "memory_bw"),
    "nic": ("text", "nic"),
}
"""Sweepable inputs: build_scenario keyword -> (value kind, the row column holding the requested value).

``sockbuf`` is the ``setsockopt`` request; the rows also hold what the OS made of it (``sndbuf_bytes``,
``rcvbuf_bytes``: Linux doubles and caps it). ``rtt`` lands in ``path_rtt_s`` (propagation only);
``rtt_s`` is the RTT the senders measured."""

MAX_POINTS = 10_000
"""Largest grid :func:`sweep` runs unless given ``max_points`` (``--max-points``): a grid is counted before it
is built, and a larger one is refused with its count."""


def _parse_one(name: str, value: Any) -> Any:
    """One axis value in SI units (``"16k"`` -> 16384 for a size axis)."""
    kind = AXES.get(name, ("text", name))[0]
    if kind == "size":
        return parse_size(value, name, decimal=name == "mtu")
    if kind == "rate":
        return parse_link_rate(value, name) if name == "rate" else parse_rate(value, name)
    if kind == "duration":
        return parse_duration(value, name)
    if kind == "int":
        return parse_int(value, name)
    if kind == "float":
        return parse_number(value, name)
    if kind == "fraction":
        return parse_fraction(value, name, hi=MAX_LOSS_FRAC if name == "loss" else 1.0)
    if kind == "bool":
        return parse_switch(value, name)
    return value if not isinstance(value, str) else value.strip()


def parse_axis(name: str, text: str) -> list[Any]:
    """Values of one axis from the command-line syntax, in SI units.

    ``a,b,c`` a list; ``lo..hi:xF`` geometric (``16k..1M:x2``: 16 KiB, 32 KiB ... 1 MiB); ``lo..hi:+S``
    arithmetic (``1..20:+4``: 1, 5, 9, 13, 17); ``lo..hi`` steps by 1 on whole-number axes. ``hi`` is
    included when the steps land on it. Sizes, rates and durations take units (:mod:`tcpsim.units`).
    """
    text = str(text).strip()
    if ".." not in text or AXES.get(name, ("text",))[0] in ("text", "bool"):
        items = text.split(",")
        if not all(t.strip() for t in items):
            raise ConfigError(name, text, "a value, a list like 1500,9000 or a range like 16k..1M:x2 (no empty items)")
        return [_parse_one(name, t) for t in items]
    how = "a range like 16k..1M:x2 (geometric) or 1..20:+4 (arithmetic)"
    span, _, step = text.partition(":")
    lo_t, _, hi_t = span.partition("..")
    if not lo_t.strip() or not hi_t.strip() or ".." in hi_t:
        raise ConfigError(name, text, how)
    lo, hi = _parse_one(name, lo_t), _parse_one(name, hi_t)
    if not isinstance(lo, (int, float)) or isinstance(lo, bool):
        raise ConfigError(name, text, "a list (this input has no ranges)")
    if lo >= hi:
        raise ConfigError(name, text, f"{how}, low end first (one value is written alone)")
    step = step.strip() or ("+1" if AXES.get(name, ("",))[0] == "int" else "")
    if step[:1] not in ("x", "*", "+"):
        raise ConfigError(name, text, how)
    try:
        amount = parse_number(step[1:], name)
    except ConfigError:
        raise ConfigError(name, text, f"{how}; the step after x or + a finite number") from None
    if step[:1] in ("x", "*") and amount > 1:
        if lo <= 0:
            raise ConfigError(name, text, "a geometric range starting above 0")
        n = int(math.floor(math.log(hi / lo, amount) + 1e-9)) + 1
        raw = [lo * amount ** i for i in range(min(n, MAX_POINTS + 1))]
    elif step[:1] == "+" and amount > 0:
        n = int(math.floor((hi - lo) / amount + 1e-9)) + 1
        raw = [lo + amount * i for i in range(min(n, MAX_POINTS + 1))]
    else:
        raise ConfigError(name, text, f"{how}; the factor after x must be > 1 and the step after + > 0")
    if len(raw) > MAX_POINTS:
        raise ConfigError(name, text, f"a range of at most {MAX_POINTS} values")
    values = [int(round(v)) for v in raw] if isinstance(lo, int) else [float(f"{v:.12g}") for v in raw]
    values = list(dict.fromkeys(values))  # rounding can repeat small sizes (1..4:x1.2)
    if len(values) < 2:
        raise ConfigError(name, text, f"{how} with at least two values (the step is wider than the range)")
    return values


def split_axes(argv: Sequence[str], sweepable: Iterable[str],
               short: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, list]]:
    """Pull list and range values of sweepable flags out of a command line; the rest goes to argparse.

    ``--mtu 1500,9000`` and ``--mtu=1500,9000`` become the axis ``mtu``; a single value stays a flag.
    ``short`` maps one-letter flags to sweepable names (``{"-P": "streams"}``).
    """
    names = set(sweepable)
    rest: list[str] = []
    axes: dict[str, list] = {}
    i = 0
    argv = list(argv)
    while i < len(argv):
        tok = argv[i]
        if short and tok in short:
            tok = "--" + short[tok].replace("_", "-")
        flag, eq, inline = tok[2:].partition("=") if tok.startswith("--") else ("", "", "")
        name = flag.replace("-", "_")
        if name in names:
            if eq:
                value, used = inline, 1
            elif i + 1 < len(argv):
                value, used = argv[i + 1], 2
            else:
                rest.append(tok)
                i += 1
                continue
            if "," in value or (".." in value and AXES.get(name, ("text",))[0] not in ("text", "bool")):
                if name in axes:
                    raise ConfigError(name, value, "given once")
                axes[name] = parse_axis(name, value)
            else:
                rest += [f"--{flag}", value]
            i += used
        else:
            rest.append(tok)
            i += 1
    return rest, axes


_OUTPUTS = ("goodput_bps", "goodput_mbps", "goodput_halfwidth_bps", "data_packets_per_s", "ack_packets_per_s",
            "transactions_per_s", "rtt_s", "limited_by", "retransmits", "termination", "sim_time_s", "events")
"""The outputs of every point (:func:`_run_point`), beside ``util_*_frac``, ``cpu_*_mean_frac`` and ``ceiling_*_bps``."""


def possible_columns(axes: Iterable[str]) -> list[str]:
    """Every column a sweep over ``axes`` can have, known before it runs (a resource a host does not model
    leaves its ``util_``/``ceiling_`` column out of the rows)."""
    from .api import build_scenario, scenario_inputs
    from .ceilings import ceilings
    from .result import LIMITS

    sc = build_scenario()
    cols = [AXES[a][1] for a in axes if a in AXES] + list(scenario_inputs(sc)) + list(_OUTPUTS)
    cols += [f"util_{k}_frac" for k in LIMITS if k != "receiver_drops"]
    cols += [f"cpu_{r}_mean_frac" for r in ("sender", "receiver")] + [f"ceiling_{k}_bps" for k in ceilings(sc)]
    return list(dict.fromkeys(cols))


def check_columns(axes: Iterable[str], **names: str | None) -> None:
    """Raise :class:`ConfigError` for a name (``x="mtu"``...) that can be no column of a sweep over ``axes``:
    a typo fails before the run, not after it. A name is a column or a swept input, as
    :meth:`SweepResult.column_name` takes it."""
    axes = list(axes)
    cols = possible_columns(axes)
    for field, name in names.items():
        if name is None or name in cols or (name in axes and name in AXES):
            continue
        raise ConfigError(field, name, "a swept input (" + ", ".join(axes or ("none",)) + ") or a column: "
                          + ", ".join(cols))


def _run_point(scenario: Any) -> dict[str, Any]:
    """Simulate one point and return its outputs (module level, so process pools can pickle it)."""
    from .api import simulate

    r = simulate(scenario)
    out: dict[str, Any] = dict(
        goodput_bps=r.goodput_bps, goodput_mbps=r.goodput_bps / 1e6,
        goodput_halfwidth_bps=r.goodput_halfwidth_bps,
        data_packets_per_s=r.data_packets_per_s, ack_packets_per_s=r.ack_packets_per_s,
        transactions_per_s=r.transactions_per_s, rtt_s=r.rtt_s, limited_by=r.limited_by,
        retransmits=r.retransmits, termination=r.termination, sim_time_s=r.sim_time_s, events=r.events)
    for k, v in r.utilization_frac.items():
        out[f"util_{k}_frac"] = v
    for role, cpus in r.cpu_utilization_frac.items():
        out[f"cpu_{role}_mean_frac"] = sum(cpus) / len(cpus) if cpus else 0.0
    for k, v in r.ceilings_bps.items():
        out[f"ceiling_{k}_bps"] = v
    return out


def _axis_value_for_row(value: Any) -> Any:
    name = getattr(value, "name", None)  # a Platform object given as an axis value
    return name if isinstance(name, str) and not isinstance(value, str) else value


def _cell(key: str, v: Any) -> str:
    if isinstance(v, bool):  # a switch axis (sack, nodelay ...), as the flag takes it
        return "on" if v else "off"
    return format_quantity(key, v, ",.1f")


def _csv_value(v: Any) -> Any:
    """A float with ten significant digits (0.1 + 0.2 -> 0.3, not 0.30000000000000004); others as they are."""
    return format(v, ".10g") if isinstance(v, float) else v


@dataclass(frozen=True)
class SweepResult:
    """One row per point: the swept values, the scenario's inputs and the outputs, units in the column names."""

    rows: tuple[dict, ...]
    """Per point, in grid order: swept values (``sockbuf_bytes``...), inputs (``sndbuf_bytes``, ``mtu_bytes``...),
    outputs (``goodput_bps``, ``goodput_mbps``, ``data_packets_per_s``, ``limited_by``, ``util_<resource>_frac``,
    ``cpu_<host>_mean_frac``, ``ceiling_<name>_bps``, ``termination``...)."""
    axes: tuple[str, ...] = ()
    """The swept build_scenario keywords, in grid order."""

    def column_name(self, name: str) -> str:
        """The column of ``name``: a column as it is, or a swept keyword (``sockbuf`` -> ``sockbuf_bytes``)."""
        keys = self._keys()
        if name in keys:
            return name
        if name in AXES and AXES[name][1] in keys:
            return AXES[name][1]
        raise ConfigError("column", name, "a swept input (" + ", ".join(self.axes or ("none",))
                          + ") or a column: " + ", ".join(keys))

    def _keys(self) -> list[str]:
        keys: dict[str, None] = {}
        for r in self.rows:
            keys.update(dict.fromkeys(r))
        return list(keys)

    @property
    def axis_columns(self) -> list[str]:
        """The columns holding the swept values, in grid order."""
        return [AXES[a][1] for a in self.axes]

    @property
    def columns(self) -> dict[str, Any]:
        """Column name -> numpy array (float with NaN for missing numbers, bool, int, or object for text)."""
        import numpy as np

        out = {}
        for k in self._keys():
            vals = [r.get(k) for r in self.rows]
            present = [v for v in vals if v is not None]
            if present and all(isinstance(v, bool) for v in present) and len(present) == len(vals):
                out[k] = np.array(vals, dtype=bool)
            elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present) \
                    and len(present) == len(vals):
                out[k] = np.array(vals, dtype=np.int64)
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
                out[k] = np.array([np.nan if v is None else v for v in vals], dtype=float)
            else:
                out[k] = np.array(vals, dtype=object)
        return out

    def to_records(self) -> list[dict]:
        """The rows as a list of fresh dicts."""
        return [dict(r) for r in self.rows]

    def to_pandas(self):
        """A :class:`pandas.DataFrame`, one row per point (pandas imported here, only when asked)."""
        import pandas as pd

        df = pd.DataFrame(self.to_records(), columns=self._keys())
        for col in df.columns:  # a quantity no point has (transactions_per_s of bulk runs) is NaN, not objects
            if len(df) and df[col].isna().all():
                df[col] = df[col].astype(float)
        return df

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """CSV text with a header row; written to ``path`` too when given."""
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=self._keys(), lineterminator="\n")
        w.writeheader()
        for r in self.rows:
            w.writerow({k: _csv_value(v) for k, v in r.items()})
        text = buf.getvalue()
        if path is not None:
            write_text_reporting(path, text, "csv")
        return text

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """A JSON array of the rows (infinite values as null); written to ``path`` too when given."""
        text = json.dumps(json_ready(list(self.rows)), indent=1, allow_nan=False)
        if path is not None:
            write_text_reporting(path, text, "json")
        return text

    def table(self) -> str:
        """A plain-text table: the swept values, goodput, what limits it and how the run ended."""
        keys = self.axis_columns + ["goodput_mbps", "data_packets_per_s", "limited_by", "termination"]
        keys = [k for k in dict.fromkeys(keys) if any(k in r for r in self.rows)]
        cells = [[_cell(k, r.get(k)) for k in keys] for r in self.rows]
        widths = [max([len(k)] + [len(c[i]) for c in cells]) for i, k in enumerate(keys)]
        lines = ["  ".join(k.rjust(w) for k, w in zip(keys, widths))]
        lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)

    def __len__(self) -> int:
        return len(self.rows)

    def _repr_html_(self) -> str:
        keys = self.axis_columns + [k for k in ("goodput_mbps", "data_packets_per_s", "limited_by", "termination")]
        keys = [k for k in dict.fromkeys(keys) if any(k in r for r in self.rows)]
        head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(k, r.get(k)))}</td>" for k in keys) + "</tr>"
                       for r in self.rows[:200])
        more = f"<p>... {len(self.rows) - 200} more rows (.to_pandas())</p>" if len(self.rows) > 200 else ""
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"

    def plot(self, x: str, y: str = "goodput_mbps", hue: str | None = None, *, ax=None, bounds: bool = True,
             errorbars: bool = True, title: str = ""):
        """Draw ``y`` against ``x``, one series per ``hue`` value (names as :meth:`column_name`); returns the
        matplotlib Axes (on ``ax``, or a new figure). Goodput is drawn in Mbit/s with its 95 % interval as
        error bars and each point's smallest closed-form bound dashed (:func:`tcpsim.plot.plot_sweep`)."""
        from .plot import plot_sweep

        return plot_sweep(self.rows, self.column_name(x), self.column_name(y),
                          self.column_name(hue) if hue else None, title, ax=ax, bounds=bounds, errorbars=errorbars)


def sweep(base: Mapping[str, Any] | None = None, *, executor: Executor | None = None,
          workers: int | None = None, progress: bool | Callable[[int, int], Any] | None = None,
          max_points: int | None = None, **axes: Any) -> SweepResult:
    """Simulate every combination of ``axes`` on top of ``base`` (both keyword arguments of build_scenario).

    Each axis is a list of values (``sockbuf=["16k", "64k"]``), a string in the command-line syntax
    (``sockbuf="16k..1M:x2"``, see :func:`parse_axis`) or one value (``mtu=9000``, an axis of one point). The
    grid is counted first: more than ``max_points`` points (default :data:`MAX_POINTS`) is refused with the
    count before anything is built.
    Every value of every axis is checked before any point runs, so a bad value fails at once; the points
    are then built lazily, a few ahead of the workers, so memory does not grow with the grid (only the
    rows do). ``executor``: any concurrent.futures.Executor; otherwise
    ``workers`` local processes (default: all cores; 1 = serial, in this process). ``progress``: True
    shows a ``tqdm.auto`` bar with an ETA (one widget in Jupyter; without tqdm, ``i/n points`` on
    stderr), a callable is called as ``progress(done, total)``.
    """
    import numpy as np

    from .api import build_scenario, check_keywords, with_changes
    from .engine import check_fits

    if base is not None and not isinstance(base, Mapping):
        raise ConfigError("base", base, "a dict of tcpsim.build_scenario keywords, such as {'platform': 'lab_vm'}")
    base = dict(base or {})
    check_keywords({**base, **axes})
    for key in axes:
        if key not in AXES:
            raise ConfigError(key, axes[key], "a sweepable input: " + ", ".join(AXES))
    grid: dict[str, list] = {}
    for name, values in axes.items():
        if isinstance(values, str):
            grid[name] = parse_axis(name, values)
        elif isinstance(values, Iterable):
            grid[name] = [_parse_one(name, v) for v in values]
        else:  # one value: an axis of one point
            grid[name] = [_parse_one(name, values)]
        if not grid[name]:
            raise ConfigError(name, values, "at least one value")
    names = list(grid)
    n_points = math.prod(len(grid[n]) for n in names)
    limit = MAX_POINTS if max_points is None else parse_int(max_points, "max_points", lo=1)
    if n_points > limit:
        raise ConfigError("sweep", f"{n_points:,} points", f"at most {limit:,} points (raise the limit with "
                          "--max-points N, or max_points=N)")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise ConfigError("executor", type(executor).__name__, "a concurrent.futures.Executor (or None: local cores)")
    if workers is not None:
        workers = parse_int(workers, "workers")
        if not 1 <= workers <= MAX_WORKERS:
            raise ConfigError("workers", workers, f"1..{MAX_WORKERS}")

    def combos() -> Iterator[tuple]:  # the grid, streamed: never held as one list
        return itertools.product(*(grid[n] for n in names))

    base_seed = int(base.pop("seed", 0) or 0)

    def point(i: int, combo: tuple) -> Any:
        values = dict(zip(names, combo))
        # Point i's seed is SeedSequence(base_seed).spawn(n_points)[i], spawned one at a time.
        seed = int(values["seed"]) if "seed" in values else \
            int(np.random.SeedSequence(base_seed, spawn_key=(i,)).generate_state(1)[0])
        sc = build_scenario(**with_changes(base, {**values, "seed": seed}))
        check_fits(sc)  # here, not in a worker: a point too large for memory is refused before it is sent
        return sc

    # Every value of every axis is checked before anything runs (one point per value, the other axes at their
    # first value), so a bad value fails at once; the grid itself is built point by point as workers free up, and
    # a combination of good values too large to run (streams x windows) is refused as its point is built.
    firsts = tuple(grid[n][0] for n in names)
    for k, name in enumerate(names):
        for v in grid[name][1 if k else 0:]:
            try:
                point(0, firsts[:k] + (v,) + firsts[k + 1:])
            except ConfigError as exc:
                if exc.field == name and isinstance(v, float) and exc.value == v:  # 1e+14, not 100000000000000.0
                    raise ConfigError(name, f"{v:g}", exc.allowed) from None
                raise

    from .api import scenario_inputs

    points = ((combo, point(i, combo)) for i, combo in enumerate(combos()))
    own: Executor | None = None
    n_workers = workers or os.cpu_count() or 1
    if executor is None and n_workers > 1 and n_points > 1:
        own = executor = new_pool(min(n_workers, n_points))
    bar = _progress_bar(n_points) if progress is True else None
    report = progress if callable(progress) else (bar.update_to if bar else (_stderr_progress if progress else None))
    rows: list[dict] = []
    try:
        done = _ordered_map(executor, points, ahead=4 * n_workers) if executor is not None else \
            ((combo, sc, _run_point(sc)) for combo, sc in points)
        for i, (combo, sc, out) in enumerate(done, 1):
            row: dict[str, Any] = {AXES[n][1]: _axis_value_for_row(v) for n, v in zip(names, combo)}
            for k, v in scenario_inputs(sc).items():
                row.setdefault(k, v)
            row.update(out)
            rows.append(row)
            if report is not None:
                report(i, n_points)
    except BaseException:  # Ctrl-C (or an error): no point keeps running after sweep returns
        if own is not None:
            stop_workers(own)
        raise
    finally:
        if own is not None:
            own.shutdown(cancel_futures=True)
        if bar is not None:
            bar.close()
    if progress is True and bar is None:
        print(file=sys.stderr)
    return SweepResult(rows=tuple(rows), axes=tuple(names))


def _ordered_map(executor: Executor, points: Iterator[tuple], ahead: int) -> Iterator[tuple]:
    """``(combo, scenario, outputs)`` per point, in grid order, with at most ``ahead`` points submitted and not yet
    taken (``Executor.map`` would submit the whole grid at once)."""
    pending: deque = deque()
    try:
        for combo, sc in points:
            pending.append((combo, sc, executor.submit(_run_point, sc)))
            if len(pending) >= ahead:
                combo0, sc0, fut = pending.popleft()
                yield combo0, sc0, fut.result()
        while pending:
            combo0, sc0, fut = pending.popleft()
            yield combo0, sc0, fut.result()
    finally:  # an error or Ctrl-C: what was not started yet never starts (a caller's executor too)
        for _, _, fut in pending:
            fut.cancel()


class _Bar:
    """A ``tqdm.auto`` bar (a terminal bar, or one widget in Jupyter) with the elapsed time and an ETA."""

    def __init__(self, tqdm: Any, total: int) -> None:
        self._bar = tqdm(total=total, unit="point", desc="sweep", file=sys.stderr)

    def update_to(self, done: int, total: int) -> None:
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def _progress_bar(total: int) -> _Bar | None:
    """A progress bar when tqdm is installed; None falls back to the ``i/n points`` text."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return _Bar(tqdm, total)


def _stderr_progress(done: int, total: int) -> None:
    print(f"\r{done}/{total} points", end="", file=sys.stderr, flush=True)
