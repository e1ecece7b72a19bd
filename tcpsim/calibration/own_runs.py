"""The runs ``tcpsim calibrate --lab`` / ``--iperf3`` fits: ``tcpsim lab`` JSON or iperf3 ``-J`` files, each a
:class:`Case` (the scenario to simulate on a candidate host, and the goodput measured), with the path an iperf3 run
took from the command line or a ``--scenario`` file.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from ..errors import ConfigError

__all__ = ["Case", "lab_cases", "iperf3_cases", "scenario_file", "MSS_HEADER_BYTES", "USUAL_HEADER_BYTES", "PATH_KEYS"]


@dataclass(frozen=True)
class Case:
    """One measured run: how to build its scenario on a candidate host, and its goodput."""

    label: str
    scenario: Any  # LabScenario
    sysctls: dict
    goodput_bps: float
    delay_line: str = "none"
    """The run's path: ``tcpsim lab``'s ``delay_line`` ("relay" is the TUN's, whose skbs are paged), or "nic"
    for an iperf3 run between two real hosts (:func:`tcpsim.lab.predict.host_platform`)."""
    tool: str = ""
    """What measured it ("iperf3", "builtin"): how the receiver reads (:func:`tcpsim.lab.scenario.tool_read_bytes`)."""
    duration_s: float = 0.0
    """The measured run's duration, over which its tool averaged (0: the scenario's)."""
    busy_frac: Optional[tuple[float, float]] = None
    """The sending and the receiving CPU's busy shares (1 - idle, ``measured.cpu_shares``) of a run whose tools
    were pinned to two CPUs; None otherwise (``calibrate --shares`` fits them)."""
    tool_version: str = ""
    """iperf3's version as its ``-J`` gives it: whether a run's streams share one thread
    (:func:`tcpsim.lab.scenario.tool_one_process`)."""
    relay: Any = None
    """The delay line's constants the run was predicted on (a :class:`tcpsim.lab.scenario.RelayPath` from its
    build's path probe, ``tcpsim lab --path-probe``), or None for the committed ones."""


def _busy_frac(sc: Any, measured: dict) -> Optional[tuple[float, float]]:
    """The pinned sender's and receiver's CPU busy shares of a lab run, or None (unpinned, not recorded, idle)."""
    from ..lab.limits import pinned_busy

    busy = pinned_busy(measured.get("cpu_shares") or {}, sc.pin_cpus)
    return busy if busy is not None and min(busy) > 0.0 else None


def _relay(run: dict) -> Any:
    """The run's delay line as its ``predicted.relay_path`` records it (a path probe's), or None."""
    from ..lab.dataset import relay_cell
    from ..lab.scenario import RelayPath

    cell = relay_cell(run)
    return RelayPath.from_text(cell) if cell else None


def _load_json(path: str) -> Any:
    from ..fileio import MAX_DATA_BYTES, read_text_limited

    text = read_text_limited(path, "lab", MAX_DATA_BYTES)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except (ValueError, RecursionError):
            raise ConfigError("lab", path, "JSON written by tcpsim lab --json/--save") from None


def _measured_duration_s(value: Any, path: str) -> float:
    """A run's measured duration from its JSON; 0 where an older file has none (the scenario's is used)."""
    from ..lab.scenario import measured_duration_s

    return 0.0 if value is None else measured_duration_s(value, f"measured.duration_s (in {path})")


def lab_cases(paths: Sequence[str], role: Optional[str] = None, left_out: Optional[list[str]] = None) -> list[Case]:
    """Cases from ``tcpsim lab`` JSON files; ``role`` keeps the sweep's rows of that role only (a run whose ``kind``
    names a sweep table of another role is left out, its kind appended to ``left_out``; a run of no kind is kept)."""
    from ..lab.dataset import role_of
    from ..lab.scenario import LabScenario

    out = []
    for path in paths:
        doc = _load_json(path)
        for i, run in enumerate(doc if isinstance(doc, list) else [doc]):
            if not isinstance(run, dict) or "measured" not in run or "scenario" not in run:
                raise ConfigError("lab", path, "tcpsim lab --json objects (with 'scenario' and 'measured')")
            sc = LabScenario(**run["scenario"])
            if role and run.get("kind") and role_of(run["kind"], sc) != role:
                if left_out is not None:
                    left_out.append(str(run["kind"]))
                continue
            m = run["measured"]
            out.append(Case(run.get("row") or f"{path}[{i}]", sc, dict(run.get("sysctls", {})),
                            float(m["goodput_bps"]), str(run.get("delay_line") or "none"), str(m.get("tool") or ""),
                            _measured_duration_s(m.get("duration_s"), path), _busy_frac(sc, m),
                            str(m.get("tool_version") or ""), _relay(run)))
    return out


def iperf3_cases(paths: Sequence[str], path_kw: dict[str, Any], nodelay: bool,
                 per_run: Optional[dict[str, dict[str, Any]]] = None) -> list[Case]:
    """Cases from iperf3 ``-J`` files; the path (rate, rtt, mtu) is the caller's, the sockets iperf3's own.
    ``per_run`` (a ``--scenario`` file's ``[runs."NAME"]`` tables) gives a run measured on another path its own
    rate, rtt, mtu or nodelay, by the name the run was given or its file name."""
    from ..lab.iperf3 import read_iperf3
    from ..lab.scenario import lab_scenario

    per_run = per_run or {}
    named = {n for path in paths for n in (path, Path(path).name)}
    for name in per_run:
        if name not in named:
            raise ConfigError("scenario", f"runs.{name}", "a table named after one of the --iperf3 runs ("
                                                          + ", ".join(sorted({Path(q).name for q in paths})) + ")")
    out = []
    for path in paths:
        run = read_iperf3(path)
        if run.reverse:
            raise ConfigError("iperf3", path, "a forward run (-R reverses who sends; calibrate each host's own)")
        own = {**per_run.get(Path(path).name, {}), **per_run.get(path, {})}
        kw = {**path_kw, **own}
        sc = lab_scenario(rate=kw.get("rate", "1gbit"), rtt=kw.get("rtt"), mtu=kw.get("mtu", 1500),
                          sockbuf=run.sockbuf_bytes, write=run.write_bytes,
                          nodelay=bool(kw["nodelay"]) if "nodelay" in kw else nodelay, streams=run.n_streams,
                          duration=min(max(run.duration_s, 0.5), 60.0))
        _check_mss(path, run.mss_bytes, sc.mtu_bytes)
        label = Path(path).name + (f" ({', '.join(f'{k} {v}' for k, v in sorted(own.items()))})" if own else "")
        out.append(Case(label, sc, dict(path_kw.get("sysctls", {})), run.goodput_bps, "nic", "iperf3", run.duration_s,
                        tool_version=run.version))
    return out


MSS_HEADER_BYTES = (40, 72)
"""What an MTU less a connection's MSS may be: IPv4 and TCP headers (40) up to IPv6's and the timestamp option (72)."""
USUAL_HEADER_BYTES = 52
"""IPv4 and TCP headers with the timestamp option, a Linux connection's: the MTU an MSS is most likely from."""


def _check_mss(path: str, mss_bytes: Optional[int], mtu_bytes: int) -> None:
    """A run whose MSS (iperf3's ``tcp_mss_default``) does not fit the MTU given was measured on another path
    (a jumbo-frame run fitted with ``--mtu 1500``, or the reverse): one line naming the MTU its MSS implies, so each
    MTU's runs are fitted with their own ``--mtu`` rather than silently on the wrong frames."""
    lo, hi = MSS_HEADER_BYTES
    if mss_bytes and not mtu_bytes - hi <= mss_bytes <= mtu_bytes - lo:
        mtu = mss_bytes + USUAL_HEADER_BYTES
        raise ConfigError("iperf3", path, f"a run at the MTU given ({mtu_bytes}): its MSS {mss_bytes} is an MTU of "
                                          f"about {mtu}; fit it with --mtu {mtu}, or beside runs of another MTU "
                                          f"with mtu = {mtu} in a [runs.\"{Path(path).name}\"] table of --scenario")


PATH_KEYS = ("rate", "rtt", "mtu", "nodelay")
"""What a ``--scenario`` file says of the runs' path, for all of them or, in a ``[runs."NAME"]`` table, for one."""


def scenario_file(path: str) -> dict[str, Any]:
    """``rate``, ``rtt``, ``mtu``, ``nodelay``, a ``[sysctls]`` table and ``[runs."NAME"]`` tables (a run measured on
    another path: its own rate, rtt, mtu or nodelay) from a small TOML file."""
    from ..fileio import read_text_limited

    try:
        d = tomllib.loads(read_text_limited(path, "scenario"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("scenario", path, f"TOML ({exc})") from None
    except RecursionError:
        raise ConfigError("scenario", path, "TOML nested less deeply (arrays or tables)") from None
    unknown = set(d) - {*PATH_KEYS, "sysctls", "runs"}
    if unknown:
        raise ConfigError("scenario", ",".join(sorted(unknown)), "keys rate, rtt, mtu, nodelay, [sysctls], [runs.NAME]")
    runs = d.get("runs", {})
    if not isinstance(runs, dict) or not all(isinstance(v, dict) for v in runs.values()):
        raise ConfigError("scenario", "runs", 'tables [runs."RUN.json"] of rate, rtt, mtu, nodelay')
    for name, keys in runs.items():
        bad = set(keys) - set(PATH_KEYS)
        if bad:
            raise ConfigError("scenario", f"runs.{name}.{sorted(bad)[0]}", "keys rate, rtt, mtu, nodelay")
    return d
