"""How far to trust an answer: tcpsim's own validation error in the regime of a question.

The package ships ``data/regimes.json``, derived from ``tcpsim validate --json``: every measured table's
scored throughput and transaction-rate points, grouped into regimes (the same hosts, tuning level, MTU,
workload, streams, write size and kernel socket buffer), each with its median error. :func:`cautions`
finds the regimes a scenario falls in and returns a line for each whose median absolute error reaches
:data:`CAUTION_ABS_ERROR`, naming the table, so ``tcpsim predict`` and ``tcpsim plan`` say when the
validation knows the model misses there (Tru64 Table 3: MTU 9000 with small buffers).

Regenerate the file after a change to the model or the profiles (from a checkout; the slow tests fail while it
is stale, :func:`stale`)::

    tcpsim validate --json /tmp/points.json
    python -m tcpsim.confidence /tmp/points.json validation/sources.toml tcpsim/data/regimes.json \
        validation/cross_summary.json
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Sequence

from .config import Scenario

__all__ = ["CAUTION_ABS_ERROR", "STALE_ABS_ERROR", "Regime", "cautions", "derive", "host_cautions",
           "limits_named_rightly", "matching", "regime_key", "regimes", "source_title", "stale", "title"]

CAUTION_ABS_ERROR = 0.20
"""A regime whose median |error| reaches this (the holdout tables' target) earns a caution line."""

STALE_ABS_ERROR = 0.005
"""The shipped file is stale where a regime's median error moved by more than this (:func:`stale`)."""

BUFFER_SPAN = math.sqrt(2)
"""A question is in a regime when its kernel buffer is within this factor of the regime's."""

WRITE_SPAN = 2.0
"""... and its write (or message) size within this factor."""

DELAY_SPAN = 2.0
"""... and its path's propagation delay within this factor, :data:`DELAY_FLOOR_S` or less counting as that."""

DELAY_FLOOR_S = 100e-6
"""A round trip's propagation this short or shorter (a LAN, an unshaped veth) is one regime of delay."""

SHORT_IDLE_S = 5e-5
"""The idle below which a host's wake-up latency table must reach for a request/response answer to go without a
caution (``wakeprobe --spin`` measures from 10 us; detect's default table starts at 0.1 ms)."""

_METRICS = ("throughput", "transactions")
"""The measured metrics that score the figure an answer leads with (goodput, transactions/s)."""


@dataclass(frozen=True)
class Regime:
    """A group of measured points of one table sharing their conditions, and the model's error on them."""

    table: str
    """``source/table`` as ``tcpsim validate`` names it (``tru64/table3``)."""
    table_name: str
    """The table's name as the source prints it (``Table 3``)."""
    role: str
    sender: str
    receiver: str
    tuning: Optional[str]
    mtu_bytes: int
    kind: str
    """``bulk``, ``rr`` or ``nodelay`` (bulk with Nagle off)."""
    n_streams: int
    bidirectional: bool
    n_cpus: int
    rate_bps: float
    """The line rate (:data:`tcpsim.units.UNSHAPED_RATE_BPS`: unshaped, a link too fast to matter)."""
    path_delay_s: float
    """The round trip's propagation delay (twice the link's one-way delay)."""
    write_bytes: int
    buffer_bytes: int
    """The smaller kernel buffer of the two ends (send buffer, receive window), autotuned ones at their ceiling: what
    the flight may reach, not the SO_SNDBUF / SO_RCVBUF asked for (Linux doubles those and offers a share)."""
    points: int
    median_error: float
    """Median signed error, (predicted - measured) / measured."""
    median_abs_error: float
    max_abs_error: float

    def describe(self) -> str:
        from .units import UNSHAPED_RATE_BPS, format_duration, format_rate

        rate = "unshaped" if self.rate_bps == UNSHAPED_RATE_BPS else format_rate(self.rate_bps)
        rtt = f", {format_duration(self.path_delay_s)} RTT" if self.path_delay_s > DELAY_FLOOR_S else ""
        return (f"{self.sender}{'' if self.receiver == self.sender else ' -> ' + self.receiver}"
                f"{', tuning ' + self.tuning if self.tuning else ''}, {rate}{rtt}, MTU {self.mtu_bytes}, "
                f"at most {_size(self.buffer_bytes)} in flight, {_size(self.write_bytes)} writes")


def _size(n: int) -> str:
    from .units import format_size

    return format_size(n)


def regime_key(sc: Scenario) -> tuple:
    """What must be equal for a scenario to share a regime (buffers and write sizes are compared apart)."""
    wl = sc.workload
    kind = wl.kind if wl.kind == "rr" else ("nodelay" if sc.sender.tcp.nodelay else "bulk")
    return (sc.sender.platform.name, sc.receiver.platform.name, sc.link.mtu_bytes, kind, wl.n_streams,
            wl.bidirectional, sc.sender.platform.cpu.n_cpus, sc.link.rate_bps)


def _path_delay_s(sc: Scenario) -> float:
    return round(2 * sc.link.one_way_delay_s, 9)


def _near_delay(a: float, b: float) -> bool:
    return _near(max(a, DELAY_FLOOR_S), max(b, DELAY_FLOOR_S), DELAY_SPAN)


def _buffer(sc: Scenario) -> int:
    """The most the flight may reach: the smaller of the send buffer and the receive window, each at its
    autotuning ceiling where the OS grows it (a Linux socket whose application set none starts at 16 KiB)."""
    snd, rcv = sc.sender.tcp, sc.receiver.tcp
    return min(snd.sndbuf_autotune_max_bytes or snd.sndbuf_bytes,
               rcv.rcv_window_autotune_max_bytes or rcv.max_window_bytes)


# ---------------------------------------------------------------- reading the shipped file

@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    path = resources.files(__package__).joinpath("data", "regimes.json")
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:  # pragma: no cover - an install without package data
        return {"sources": {}, "regimes": []}


def regimes() -> tuple[Regime, ...]:
    """Every regime of the shipped validation results."""
    return tuple(Regime(**r) for r in _data()["regimes"])


def title(r: Regime) -> str:
    """The regime's table with its source's title: ``Table 3 of "Tru64 UNIX Best Practice: ..."``."""
    src = _data()["sources"].get(r.table.split("/")[0], {}).get("title")
    return f'{r.table_name} of "{src}"' if src else r.table_name


def source_title(file_or_id: str) -> Optional[str]:
    """The title of a source document, by its file name (a profile's ``provenance.source``) or id."""
    for sid, s in _data()["sources"].items():
        if file_or_id in (sid, s.get("file")):
            return s["title"]
    return None


@lru_cache(maxsize=64)
def _tuning_of(platform: Any) -> Optional[str] | bool:
    """The profile tuning level ``platform`` is (None = untuned), or False when it is none of them."""
    from .profiles import list_platforms, load_platform, tuning_levels

    if platform.name not in list_platforms():
        return False
    base = load_platform(platform.name)
    same_cpus = replace(platform, cpu=replace(platform.cpu, n_cpus=base.cpu.n_cpus))
    if same_cpus == base:
        return None
    for level in tuning_levels(platform.name):
        if same_cpus == load_platform(platform.name, level):
            return level
    return False


def _near(a: float, b: float, span: float) -> bool:
    return a > 0 and b > 0 and abs(math.log(a / b)) <= math.log(span) + 1e-9


def matching(sc: Scenario) -> list[Regime]:
    """The regimes ``sc`` falls in: same hosts, MTU, workload kind, streams, CPUs and line rate; the same tuning
    level where the hosts are a profile's level (any, for hosts changed otherwise); buffer, write size and
    the path's delay near."""
    key = regime_key(sc)
    tuning = _tuning_of(sc.sender.platform)
    out = []
    for r in regimes():
        if (r.sender, r.receiver, r.mtu_bytes, r.kind, r.n_streams, r.bidirectional, r.n_cpus, r.rate_bps) != key:
            continue
        if tuning is not False and r.tuning != tuning:
            continue
        if (_near(_buffer(sc), r.buffer_bytes, BUFFER_SPAN)
                and _near(sc.workload.write_bytes, r.write_bytes, WRITE_SPAN)
                and _near_delay(_path_delay_s(sc), r.path_delay_s)):
            out.append(r)
    return out


def cautions(sc: Scenario) -> list[str]:
    """One line per regime ``sc`` falls in where the validation misses by :data:`CAUTION_ABS_ERROR` or more, and
    one per host whose CPU costs were not fitted to measurements of it or whose fit named the wrong CPU
    (:func:`host_cautions`)."""
    lines = host_cautions(sc)
    found = matching(sc)
    missed = [r for r in found if r.median_abs_error >= CAUTION_ABS_ERROR]
    for r in missed:
        sign = "over" if r.median_error > 0 else "under"
        many = f", median of {r.points} points" if r.points > 1 else ""
        lines.append(f"validation misses this regime: tcpsim {sign}estimates {title(r)} ({r.table}, {r.role}) "
                     f"by {abs(r.median_error):.0%} at {r.describe()}{many}")
    if missed and len(found) > len(missed):
        # a miss among neighbours that are met reads differently from a miss alone: give them all, both signs
        errors = sorted(r.median_error for r in found)
        lines.append(f"validation near this scenario: {len(found)} regimes ({sum(r.points for r in found)} measured "
                     f"points), tcpsim's median error in each from {errors[0]:+.0%} to {errors[-1]:+.0%}, "
                     f"{len(found) - len(missed)} of them within {CAUTION_ABS_ERROR:.0%}")
    return lines


def host_cautions(sc: Scenario) -> list[str]:
    """A line for each modelled host whose per-packet costs are the parts catalog's shared cycles or were set by
    hand (:attr:`tcpsim.platform.Platform.cost_basis`): its CPU-bound answers carry the error tcpsim makes on a
    machine it was not fitted to, which the leave-one-source-out validation measures. And a line for each host
    whose calibration named the limiting CPU wrongly on some of its pinned runs (:func:`limits_named_rightly`): the
    Xeon's fit named it on 1 of 16 with its goodput within 9 % (validation/README.md, "What the limit named
    scored"). And for request/response, a line for each host whose wake-up latency was measured only after idles
    longer than :data:`SHORT_IDLE_S`: a transaction is two wake-ups after short idles, which on a VM cost tens of
    microseconds that such a table prices at a few (validation/README.md, "What the latency after short idles
    gave")."""
    lines: list[str] = []
    for p in dict.fromkeys((sc.sender.platform, sc.receiver.platform)):
        if not p.host_model_on or p.cost_basis not in ("catalog", "hand"):
            continue
        how = ("are the parts catalog's cycles, shared across machines," if p.cost_basis == "catalog"
               else "were set by hand from physical reasoning,")
        cross = _data().get("cross_validation", {})
        scale = (f"; on the machines validation left out of the fit ({len(cross)} sources), tcpsim's median error "
                 f"where a CPU limits was {min(cross.values()):.0%}-{max(cross.values()):.0%} (tcpsim validate --cross)"
                 if cross else "")
        lines.append(f"{p.name}: its CPU costs {how} not fitted to measurements of it{scale}; "
                     "tcpsim calibrate --iperf3 fits them to runs of your own")
    for p in dict.fromkeys((sc.sender.platform, sc.receiver.platform)):
        named = limits_named_rightly(p)
        if p.host_model_on and named is not None and named[0] < named[1]:
            lines.append(f"{p.name}: its fit named the limiting CPU rightly on {named[0]} of the {named[1]} pinned "
                         "calibration runs whose busy CPU was plain (tcpsim calibrate --lab): where a CPU limits, "
                         "read the goodput, not the side 'limited by' names")
    if sc.workload.kind == "rr":
        for p in dict.fromkeys((sc.sender.platform, sc.receiver.platform)):
            late = p.cpu.wake_latency_s
            if p.host_model_on and late and late[0][0] > SHORT_IDLE_S:
                lines.append(f"{p.name}: its wake-up latency was measured after {late[0][0] * 1e3:g} ms of idle or "
                             "more, and a transaction's two wake-ups come after shorter ones; on a VM's veth such a file "
                             "predicted 3.4-6 times the kernel's transactions (validation/README.md, 'What the latency "
                             "after short idles gave'): tcpsim machine detect --probes --spin measures them")
    return lines


def limits_named_rightly(platform: Any) -> Optional[tuple[int, int]]:
    """``(right, decided)`` from a calibrated machine file's ``[fit] limits_named_rightly = "M of N"`` (written by
    ``tcpsim calibrate --lab``: of N pinned runs whose busy CPU was plain, the fit named that side on M); None
    where the file records none or the record does not read so."""
    text = dict(getattr(platform, "fit", ()) or ()).get("limits_named_rightly")
    words = text.split() if isinstance(text, str) else ()
    if len(words) != 3 or words[1] != "of" or not (words[0].isdigit() and words[2].isdigit()):
        return None
    right, decided = int(words[0]), int(words[2])
    return (right, decided) if 0 < decided and right <= decided else None


# ---------------------------------------------------------------- deriving the file

def _sources(sources_toml: Path) -> dict[str, dict[str, str]]:
    import tomllib

    data = tomllib.loads(Path(sources_toml).read_text())
    return {s["id"]: {"file": s["file"], "title": s["title"]} for s in data["source"]}


def _cross(summary: Optional[dict[str, Any]]) -> dict[str, float]:
    """Per source left out for real (its fold predicted something else than its in-sample run), the median
    |cross-validated error| of its points a CPU limits, from ``validation/cross_summary.json``: what a host
    whose costs were not fitted to it carries on its CPU-bound answers (:func:`host_cautions`)."""
    if not summary:
        return {}
    return {s: round(v["cpu_limited"]["cross"], 4) for s, v in summary.get("sources", {}).items()
            if v.get("left_out") and v.get("cpu_limited")}


def derive(points_json: Sequence[dict], sources: dict[str, dict[str, str]],
           cross_summary: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The regimes file's content from ``tcpsim validate --json`` output and the sources' titles (and, given
    ``validation/cross_summary.json``, each left-out source's cross-validated median, for :func:`host_cautions`)."""
    from .calibration.mapping import platforms_for_point, scenario_for
    from .calibration.tables import load_points

    errors = {(o["source"], o["table"], o["row"], o["metric"]): o for o in points_json}
    groups: dict[tuple, list[float]] = {}
    for p in load_points():
        o = errors.get((p.source, p.table, p.row, p.metric))
        if o is None or o["error"] is None or p.metric not in _METRICS or p.role not in ("calibration", "holdout"):
            continue
        if {"invalid_measurement", "not_a_measurement"} & set(p.flags):
            continue
        sc = scenario_for(p, platforms_for_point(p))
        tuning = p.get("tuning")
        tuning = None if tuning in (None, "none", "default") else tuning
        key = (f"{p.source_id}/{p.table_id}", p.table, p.role, tuning, *regime_key(sc),
               _path_delay_s(sc), sc.workload.write_bytes, _buffer(sc))
        groups.setdefault(key, []).append(float(o["error"]))
    out = []
    for key, errs in sorted(groups.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        table, name, role, tuning, snd, rcv, mtu, kind, streams, bidir, cpus, rate, delay, write, buf = key
        out.append(dict(table=table, table_name=name, role=role, sender=snd, receiver=rcv, tuning=tuning, mtu_bytes=mtu,
                        kind=kind, n_streams=streams, bidirectional=bidir, n_cpus=cpus, rate_bps=rate,
                        path_delay_s=delay, write_bytes=write,
                        buffer_bytes=buf, points=len(errs), median_error=round(statistics.median(errs), 4),
                        median_abs_error=round(statistics.median(abs(e) for e in errs), 4),
                        max_abs_error=round(max(abs(e) for e in errs), 4)))
    return {"generated_by": "python -m tcpsim.confidence POINTS.json validation/sources.toml tcpsim/data/regimes.json "
                            "validation/cross_summary.json",
            "sources": sources, "cross_validation": _cross(cross_summary), "regimes": out}


def stale(points_json: Sequence[dict]) -> list[str]:
    """Where the shipped regimes are not what ``points_json`` (``tcpsim validate --json`` objects, the model as it
    is) gives, for the tables those points cover: one line per regime missing, extra or moved by more than
    :data:`STALE_ABS_ERROR`. Empty when the file is current."""
    fresh = derive(points_json, {})["regimes"]
    tables = {r["table"] for r in fresh}
    shipped = [r for r in _data()["regimes"] if r["table"] in tables]

    def key(r: dict) -> tuple:
        return tuple(r.get(k) for k in ("table", "sender", "receiver", "tuning", "mtu_bytes", "kind", "n_streams",
                                        "bidirectional", "n_cpus", "rate_bps", "path_delay_s", "write_bytes",
                                        "buffer_bytes"))

    old = {key(r): r for r in shipped}
    new = {key(r): r for r in fresh}
    out = [f"missing from the file: {k}" for k in sorted(set(new) - set(old), key=str)]
    out += [f"no longer measured: {k}" for k in sorted(set(old) - set(new), key=str)]
    for k in sorted(set(old) & set(new), key=str):
        a, b = old[k]["median_error"], new[k]["median_error"]
        if abs(a - b) > STALE_ABS_ERROR or old[k]["points"] != new[k]["points"]:
            out.append(f"{k}: median error {a:+.4f} in the file, {b:+.4f} now")
    return out


def _dumps(content: dict[str, Any]) -> str:
    """JSON with one regime a line: small, and a regenerated file diffs by regime."""
    head = {k: v for k, v in content.items() if k != "regimes"}
    body = ",\n".join(" " + json.dumps(r, separators=(",", ":")) for r in content["regimes"])
    return json.dumps(head, indent=1)[:-2] + ',\n "regimes": [\n' + body + "\n ]\n}\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m tcpsim.confidence POINTS.json SOURCES.toml OUT.json [CROSS_SUMMARY.json]``: write the regimes
    file."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (3, 4):
        print("usage: python -m tcpsim.confidence POINTS.json SOURCES.toml OUT.json [CROSS_SUMMARY.json]",
              file=sys.stderr)
        return 2
    cross = json.loads(Path(args[3]).read_text()) if len(args) == 4 else None
    content = derive(json.loads(Path(args[0]).read_text()), _sources(Path(args[1])), cross)
    Path(args[2]).write_text(_dumps(content))
    n = sum(r["median_abs_error"] >= CAUTION_ABS_ERROR for r in content["regimes"])
    print(f"{len(content['regimes'])} regimes, {n} at {CAUTION_ABS_ERROR:.0%} or more: written {args[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
