"""``tcpsim calibrate --lab`` / ``--iperf3``: fit a machine file for the host in front of you.

Input: runs of ``tcpsim lab --save FILE`` (or ``--json``; one object, a list, or the sweep's runs file),
or iperf3 ``-J`` files measured between two real hosts, with the path given on the command line
(``--rate --rtt --mtu``) or in a small TOML file (``--scenario``). Output: a profile TOML for
``--platform FILE``, with the fitted per-write, per-packet and per-byte CPU costs and the fit record
(values, 95 % intervals, residuals, the runs used).

The fit inverts the simulator itself: scipy's bounded least squares on log(predicted / measured
goodput), parameters in log space within physical bounds (:data:`COSTS`). Intervals come from the
Jacobian at the solution (``(J^T J)^-1`` scaled by the residual variance); a cost the runs do not
weigh (a window-limited run says nothing about CPU costs) is reported as not identified, not guessed.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import sys
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from ..cliutil import OneLineParser, typed
from ..config import MAX_WORKERS
from ..errors import ConfigError
from ..platform import Platform
from ..units import parse_int

__all__ = ["Cost", "COSTS", "OwnFit", "fit_costs", "robust_cost", "ROBUST_SCALE", "lab_cases", "iperf3_cases", "main"]


@dataclass(frozen=True)
class Cost:
    """A fitted machine cost: the CpuCost fields it sets, its physical bounds, what it means."""

    name: str
    fields: tuple[str, ...]
    lo: float
    hi: float
    meaning: str
    unset: str = ""
    """The CpuCost property that gives the cost while its field is None (a receive call's: a send's)."""

    def get(self, p: Platform) -> float:
        value = getattr(p.cpu, self.fields[0])
        return float(getattr(p.cpu, self.unset) if value is None else value)

    def set(self, p: Platform, value: float) -> Platform:
        cpu = p.cpu
        for f in self.fields:
            cpu = replace(cpu, **{f: float(value)})  # type: ignore[arg-type]  # every Cost field is a float
        return replace(p, cpu=cpu)


COSTS: dict[str, Cost] = {c.name: c for c in (
    Cost("per_write_s", ("per_syscall_s",), 0.05e-6, 50e-6, "CPU seconds per send/recv call (entry, exit, socket lock)"),
    Cost("per_read_s", ("per_syscall_rx_s",), 0.05e-6, 50e-6,
         "CPU seconds per recv call where it differs from a send (the reader's own loop: iperf3's select)",
         unset="syscall_rx_s"),
    Cost("per_packet_s", ("per_packet_tx_s", "per_packet_rx_s"), 0.05e-6, 50e-6,
         "CPU seconds per data segment, sending and receiving alike (TCP/IP, driver, skb)"),
    Cost("per_packet_tx_s", ("per_packet_tx_s",), 0.05e-6, 50e-6,
         "CPU seconds per data segment sent (TCP output, IP, qdisc, the driver's or veth's transmit)"),
    Cost("per_packet_rx_s", ("per_packet_rx_s",), 0.05e-6, 50e-6,
         "CPU seconds per data segment received (the driver's or veth's receive, IP and TCP input, the socket queue)"),
    Cost("per_byte_s", ("per_byte_copy_s",), 0.005e-9, 5e-9, "CPU seconds per byte copied user<->kernel"),
)}
"""Bounds: a 2-5 GHz core spends at least a few hundred cycles on any call or segment (0.05 us) and no
sane path takes 50 us; copies run between 0.2 and 200 GB/s."""


@dataclass(frozen=True)
class OwnFit:
    names: tuple[str, ...]
    values: tuple[float, ...]
    start: tuple[float, ...]
    lo95: tuple[Optional[float], ...]
    hi95: tuple[Optional[float], ...]
    errors: tuple[float, ...]
    """predicted / measured - 1 per run, at the fitted values."""
    n_evaluations: int
    message: str

    @property
    def median_abs_rel_error(self) -> float:
        return _median_abs(self.errors)


def _median_abs(xs: Sequence[float]) -> float:
    e = sorted(abs(x) for x in xs)
    n = len(e)
    return (e[n // 2] if n % 2 else (e[n // 2 - 1] + e[n // 2]) / 2) if n else math.nan


ROBUST_SCALE = 0.1
"""The log error (about 10 %) beyond which :func:`fit_costs` weighs a run's error about linearly, not squared."""


def robust_cost(log_errors) -> float:
    """:func:`fit_costs`' objective: scipy's ``soft_l1`` loss, sum of 2 s^2 (sqrt(1 + (e/s)^2) - 1), s =
    :data:`ROBUST_SCALE` (twice scipy's ``cost``)."""
    import numpy as np

    z = (np.asarray(log_errors, dtype=float) / ROBUST_SCALE) ** 2
    return float(np.sum(2 * ROBUST_SCALE ** 2 * (np.sqrt(1 + z) - 1)))


def fit_costs(model: Callable[[Sequence[float]], Sequence[float]], measured: Sequence[float], start: Sequence[float],
              bounds: Sequence[tuple[float, float]], names: Sequence[str], max_nfev: int = 30,
              progress: Optional[Callable[[str], None]] = None, prior_factor: Optional[float] = None) -> OwnFit:
    """Fit ``model(values) -> predictions`` to ``measured`` in log space within ``bounds``, robustly.

    ``prior_factor`` (None: no prior): the start values are believed within this factor, one standard deviation
    in log space, and each cost's distance from its start, ``ROBUST_SCALE x log(value / start) / log(factor)``,
    joins the residuals (a maximum a posteriori fit). Where the runs weigh a cost the data decide; where they
    cannot (a direction along which the predictions do not change, such as a per-write and a per-unit cost when
    every write is one segment) the cost stays near its start instead of wandering to wherever the optimizer
    stopped. The intervals then include the prior (weighed as if the runs scattered by ``ROBUST_SCALE``);
    "not identified" still says the runs alone do not tell.

    The loss is scipy's ``soft_l1`` of the log errors with scale :data:`ROBUST_SCALE` (about 10 %): errors
    well inside it count as their squares, larger ones about linearly, so a run the model cannot reach (a
    structural miss) does not pull the shared costs away from the runs it can.

    ``max_nfev`` bounds the model evaluations roughly (each least-squares step costs one per cost plus one).
    ``model`` is the simulator over the runs in :func:`main`; any callable works (the tests use a closed
    form). Intervals: +-1.96 standard errors in log space from the Jacobian; None where it is singular
    in that direction (the runs do not tell the cost).

    The result is the best point evaluated (the start, every trial step and every Jacobian probe alike), by
    the fit's own objective, the sum of that loss: the optimizer's last iterate can be worse than a
    point it passed (a budget that ends mid-search, a probe that landed lower on a simulator that is not
    smooth), and an evaluated point's errors are the simulator's own, so nothing is extrapolated.
    """
    import numpy as np
    from scipy.optimize import least_squares

    meas = np.asarray(measured, dtype=float)
    if len(meas) == 0 or np.any(~np.isfinite(meas)) or np.any(meas <= 0):
        raise ConfigError("measured", list(measured), "positive finite goodputs, at least one run")
    _check_prior(prior_factor)
    prior_weight = 0.0 if prior_factor is None else ROBUST_SCALE / math.log(prior_factor)
    n_runs = len(meas)
    lo = np.log([b[0] for b in bounds])
    hi = np.log([b[1] for b in bounds])
    x0 = np.clip(np.log(np.maximum(np.asarray(start, dtype=float), 1e-30)), lo + 1e-9, hi - 1e-9)
    n_eval = [0]
    best: list[Any] = [math.inf, x0, None, 0]  # objective, x, residuals, evaluation number

    def residuals(x: np.ndarray) -> np.ndarray:
        pred = np.asarray(model(list(np.exp(x))), dtype=float)
        res = np.log(np.maximum(pred, 1e-9) / meas)
        n_eval[0] += 1
        res = np.where(np.isfinite(res), res, 3.0)
        if prior_weight:
            res = np.concatenate([res, prior_weight * (np.asarray(x, dtype=float) - x0)])
        cost = robust_cost(res)
        if cost < best[0]:
            best[:] = [cost, np.array(x, dtype=float), res.copy(), n_eval[0]]
        if progress is not None:
            progress(f"  eval {n_eval[0]:3d}: median |err| {np.median(np.abs(np.expm1(res[:n_runs]))):.1%}")
        return res

    # least_squares counts neither Jacobian evaluations nor the start: budget the model runs themselves
    sol = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.05, max_nfev=max(1, max_nfev // (len(x0) + 1)),
                        method="trf", loss="soft_l1", f_scale=ROBUST_SCALE)
    x_best, res = best[1], best[2]
    runs_res = res[:n_runs]
    dof = max(n_runs - len(x0), 1)
    s2 = float(np.sum(runs_res ** 2)) / dof
    lo95: list[Optional[float]] = [None] * len(x0)
    hi95: list[Optional[float]] = [None] * len(x0)
    jac = np.asarray(sol.jac, dtype=float)
    if jac.size and n_runs > len(x0) and _identified(jac[:n_runs]):
        cov = np.linalg.inv(jac.T @ jac) * s2  # with a prior its rows are in ``jac``: the interval includes it
        for i in range(len(x0)):
            half = 1.96 * math.sqrt(max(cov[i, i], 0.0))
            if half < 5.0:  # a factor e^5 ~ 150 either way says nothing
                lo95[i], hi95[i] = float(np.exp(x_best[i] - half)), float(np.exp(x_best[i] + half))
    message = f"{sol.message} Best of {n_eval[0]} evaluations: number {best[3]}" + (" (the start)" if best[3] == 1 else "")
    return OwnFit(names=tuple(names), values=tuple(float(v) for v in np.exp(x_best)),
                  start=tuple(float(v) for v in np.exp(x0)), lo95=tuple(lo95), hi95=tuple(hi95),
                  errors=tuple(float(v) for v in np.expm1(runs_res)), n_evaluations=n_eval[0], message=message)


def _check_prior(factor: Optional[float]) -> None:
    if factor is not None and not (math.isfinite(factor) and factor > 1.0):
        raise ConfigError("prior", factor, "a factor above 1 (3: the start values are right within 3x)")


def _identified(jac_runs) -> bool:
    """Whether the runs alone tell every cost: their Jacobian has full column rank and is not near-singular."""
    import numpy as np

    jtj = jac_runs.T @ jac_runs
    return bool(np.linalg.matrix_rank(jtj) == jac_runs.shape[1] and np.linalg.cond(jtj) < 1e12)


# ---------------------------------------------------------------- runs -> (scenario builder, measured)

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


def _busy_frac(sc: Any, measured: dict) -> Optional[tuple[float, float]]:
    """The pinned sender's and receiver's CPU busy shares of a lab run, or None (unpinned, not recorded, idle)."""
    shares, pins = measured.get("cpu_shares") or {}, sc.pin_cpus
    if pins is None or len(set(pins)) != 2:
        return None
    try:
        busy = tuple(1.0 - float(shares[f"cpu{n}"]["idle"]) for n in pins)
    except (KeyError, TypeError, ValueError):
        return None
    return (busy[0], busy[1]) if all(0.0 < b <= 1.0 for b in busy) else None


def _load_json(path: str) -> Any:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError("lab", path, f"a readable file ({exc.strerror})") from None
    try:
        return json.loads(text)
    except ValueError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            raise ConfigError("lab", path, "JSON written by tcpsim lab --json/--save") from None


def _measured_duration_s(value: Any, path: str) -> float:
    """A run's measured duration from its JSON; 0 where an older file has none (the scenario's is used)."""
    from ..lab.scenario import measured_duration_s

    return 0.0 if value is None else measured_duration_s(value, f"measured.duration_s (in {path})")


def lab_cases(paths: Sequence[str], role: Optional[str] = None) -> list[Case]:
    """Cases from ``tcpsim lab`` JSON files; ``role`` keeps the sweep's rows of that role only."""
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
                continue
            m = run["measured"]
            out.append(Case(run.get("row") or f"{path}[{i}]", sc, dict(run.get("sysctls", {})),
                            float(m["goodput_bps"]), str(run.get("delay_line") or "none"), str(m.get("tool") or ""),
                            _measured_duration_s(m.get("duration_s"), path), _busy_frac(sc, m),
                            str(m.get("tool_version") or "")))
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


def _scenario_file(path: str) -> dict[str, Any]:
    """``rate``, ``rtt``, ``mtu``, ``nodelay``, a ``[sysctls]`` table and ``[runs."NAME"]`` tables (a run measured on
    another path: its own rate, rtt, mtu or nodelay) from a small TOML file."""
    from ..fileio import read_text_limited

    try:
        d = tomllib.loads(read_text_limited(path, "scenario"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("scenario", path, f"TOML ({exc})") from None
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


SHARE_FLOOR = 1e-3
"""The least busy share a prediction is compared at (an ideal host's 0 has no logarithm)."""


def _simulate_case(args: tuple) -> tuple[float, float, float]:
    """A case's predicted goodput and its sending and receiving CPU's busy shares on ``host``."""
    case, host = args
    from ..api import simulate
    from ..lab.predict import host_platform, lab_simulation, tool_goodput_bps

    plat = host_platform(case.sysctls, platform=host, os_name=None, delay_line=case.delay_line)
    result = simulate(lab_simulation(case.scenario, plat, case.delay_line, tool=case.tool,
                                     tool_version=case.tool_version))
    util = result.cpu_utilization_frac
    snd, rcv = (max(SHARE_FLOOR, max(util.get(side) or [0.0])) for side in ("sender", "receiver"))
    return tool_goodput_bps(case.scenario, result, case.duration_s), snd, rcv


def _base_platform(spec: Optional[str], cpus: Optional[int], lab: bool) -> Platform:
    """The host a fit starts from: ``spec`` (default ``modern_linux``), on the lab's veth path for lab runs
    (:func:`tcpsim.lab.predict.lab_path_platform`), with ``cpus`` CPUs."""
    from ..lab.predict import lab_path_platform
    from ..os_versions import os_version
    from ..profiles import load_platform

    base = lab_path_platform(spec or "modern_linux") if lab else load_platform(spec or "modern_linux")
    if spec is None:
        base = replace(base, name="my_host", os=os_version("linux"))
    if cpus is not None:
        base = replace(base, cpu=replace(base.cpu, n_cpus=cpus))
    return base


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = OneLineParser(prog="tcpsim calibrate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog="Examples:\n  sudo tcpsim lab --rate 0 --write 4k --save w4k.json   (and a few more)\n"
                             "  tcpsim calibrate --lab w4k.json w64k.json m60.json --out myhost.toml\n"
                             "  tcpsim calibrate --iperf3 a.json b.json --rate 10gbit --rtt 0.2ms --out myhost.toml\n"
                             "  tcpsim predict --platform myhost.toml --rate 10gbit --rtt 0.2ms --sockbuf 4M")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--lab", nargs="+", metavar="RESULTS.json", help="runs saved by tcpsim lab --save/--json")
    src.add_argument("--iperf3", nargs="+", metavar="RUN.json", help="iperf3 -J output between two real hosts")
    p.add_argument("--rate", default=None, help="line rate of the iperf3 runs' path (1gbit, 10gbit)")
    p.add_argument("--rtt", default=None, help="round trip of the iperf3 runs' path (ping's average)")
    p.add_argument("--mtu", default=None, help="MTU of the iperf3 runs' path (default 1500)")
    p.add_argument("--nodelay", action="store_true", help="the iperf3 runs used -N")
    p.add_argument("--scenario", default=None, metavar="FILE", help="rate, rtt, mtu, nodelay, [sysctls] in a TOML file")
    p.add_argument("--role", default=None, help="lab sweep runs of this role only (calibration)")
    p.add_argument("--base", default=None, metavar="NAME|FILE",
                   help="profile to start from (default modern_linux, Linux); with --lab on the runs' veth")
    p.add_argument("--cpus", type=typed(parse_int, "cpus", lo=1, hi=1024), default=None,
                   help="CPUs per host (default: the base profile's)")
    p.add_argument("--costs", default="per_write_s,per_packet_s,per_byte_s",
                   help="costs to fit, of " + ", ".join(COSTS))
    p.add_argument("--max-evals", type=typed(parse_int, "max_evals", lo=1, hi=10_000), default=30,
                   help="simulator evaluations of all runs (default 30)")
    p.add_argument("--shares", action="store_true",
                   help="with --lab: also fit each pinned run's CPU busy shares, the sending and the receiving CPU's "
                        "(measured.cpu_shares), beside its goodput")
    p.add_argument("--prior", type=float, default=None, metavar="FACTOR",
                   help="keep each cost near the base profile's unless the runs say otherwise: the base values are "
                        "believed within FACTOR (3, say); default none")
    p.add_argument("--one-stage", action="store_true",
                   help="a base whose CPUs lose gaps (preempt_per_s): fit with them from its own costs at once, "
                        "without the first stage that fits without them")
    p.add_argument("--workers", type=typed(parse_int, "workers", lo=1, hi=MAX_WORKERS), default=os.cpu_count() or 1)
    p.add_argument("--name", default=None, help="name of the machine in the file (default: from --out)")
    p.add_argument("--out", required=True, metavar="FILE.toml", help="the machine file to write")
    a = p.parse_args(list(argv or []))
    _check_prior(a.prior)
    names = [n.strip() for n in a.costs.split(",") if n.strip()]
    for n in names:
        if n not in COSTS:
            raise ConfigError("costs", n, "names from " + ", ".join(COSTS))
    fields = [f for n in names for f in COSTS[n].fields]
    if len(set(fields)) < len(fields):
        raise ConfigError("costs", a.costs, "each cost named once, per_packet_s or its _tx_s/_rx_s halves, not both")
    if not a.out.endswith(".toml"):
        raise ConfigError("out", a.out, "a path ending in .toml")
    if a.lab:
        cases = lab_cases(a.lab, a.role)
    else:
        kw: dict[str, Any] = _scenario_file(a.scenario) if a.scenario else {}
        for k in ("rate", "rtt", "mtu"):
            if getattr(a, k) is not None:
                kw[k] = getattr(a, k)
        if "rate" not in kw:
            raise ConfigError("rate", None, "given for --iperf3 runs (--rate or rate in --scenario)")
        cases = iperf3_cases(a.iperf3, kw, a.nodelay or bool(kw.get("nodelay")), kw.get("runs"))
    if len(cases) < len(names):
        raise ConfigError("runs", len(cases), f"at least as many runs as costs fitted ({len(names)})")
    if a.shares and not a.lab:
        raise ConfigError("--shares", "given", "with --lab runs (iperf3 -J files record no CPU shares per side)")
    shared = [i for i, c in enumerate(cases) if c.busy_frac is not None] if a.shares else []
    if a.shares and not shared:
        raise ConfigError("--shares", "given", "runs whose tools were pinned to two CPUs (tcpsim lab --pin 0,1)")
    base = _base_platform(a.base, a.cpus, bool(a.lab))
    costs = [COSTS[n] for n in names]
    from concurrent.futures import ProcessPoolExecutor

    print(f"calibrating {len(cases)} runs; costs: {', '.join(names)}")
    first_stage = None
    with ProcessPoolExecutor(max(1, a.workers)) as ex:
        def model_on(platform: Platform) -> Callable[[Sequence[float]], list[float]]:
            def model(values: Sequence[float]) -> list[float]:
                host = platform
                for c, v in zip(costs, values):
                    host = c.set(host, v)
                runs = list(ex.map(_simulate_case, [(case, host) for case in cases]))
                return [r[0] for r in runs] + [runs[i][k] for i in shared for k in (1, 2)]
            return model

        measured = [c.goodput_bps for c in cases] + [b for i in shared for b in cases[i].busy_frac or ()]
        start = [c.get(base) for c in costs]
        if base.cpu.gaps and not a.one_stage:
            # A base whose CPUs lose gaps (CpuCost.preempt_per_s) is fitted without them first, then with them from
            # there (validation/README.md, "The gaps with the refit started from the committed costs").
            print("stage 1 of 2: without the base's gaps (CpuCost.preempt_per_s)")
            no_gaps = replace(base, cpu=replace(base.cpu, preempt_per_s=0.0))
            first_stage = fit_costs(model_on(no_gaps), measured, start, [(c.lo, c.hi) for c in costs], names,
                                    max_nfev=a.max_evals, progress=print, prior_factor=a.prior)
            start = [float(f"{v:.4g}") for v in first_stage.values]
            print(f"stage 2 of 2: with the gaps, from stage 1's costs (median |error| "
                  f"{first_stage.median_abs_rel_error:.1%} without them)")
        fit = fit_costs(model_on(base), measured, start, [(c.lo, c.hi) for c in costs], names,
                        max_nfev=a.max_evals, progress=print, prior_factor=a.prior)
    host = base
    for c, v in zip(costs, fit.values):
        host = c.set(host, float(f"{v:.4g}"))
    name = a.name or Path(a.out).stem
    host = replace(host, name=name, cost_basis="measurements")
    for n, v0, v, lo, hi in zip(names, fit.start, fit.values, fit.lo95, fit.hi95):
        band = "not identified by these runs" if lo is None else f"95 % {lo:.3g} .. {hi:.3g}"
        print(f"  {n:14s} {v0:10.3g} -> {v:10.3g}   ({band})   {COSTS[n].meaning}")
    share_errors = fit.errors[len(cases):]
    fit = replace(fit, errors=fit.errors[:len(cases)])
    print(f"median |error| {fit.median_abs_rel_error:.1%} over {len(cases)} runs ({fit.message})")
    if share_errors:
        print(f"CPU busy shares: median |error| {_median_abs(share_errors):.1%} over {len(share_errors)} (sending and "
              f"receiving CPU of {len(shared)} pinned runs)")
    if a.prior is None and None in fit.lo95:
        print("  (a cost these runs do not identify went wherever the search stopped: add runs that weigh it, or "
              "--prior 3 to keep it near the base profile's value)")
    record = {"date": _dt.date.today().isoformat(), "runs": [c.label for c in cases],
              "inputs": [str(x) for x in (a.lab or a.iperf3)], "params": names,
              "values": [float(f"{v:.4g}") for v in fit.values], "start": [float(f"{v:.4g}") for v in fit.start],
              "lo95": [("" if v is None else float(f"{v:.4g}")) for v in fit.lo95],
              "hi95": [("" if v is None else float(f"{v:.4g}")) for v in fit.hi95],
              "errors": [round(e, 4) for e in fit.errors], "median_abs_rel_error": round(fit.median_abs_rel_error, 4),
              "evaluations": fit.n_evaluations, "optimizer": fit.message}
    if a.prior is not None:
        record["prior_factor"] = a.prior
    if first_stage is not None:  # the first stage, fitted without the base's gaps
        record["without_gaps_values"] = [float(f"{v:.4g}") for v in first_stage.values]
        record["without_gaps_median_abs_rel_error"] = round(first_stage.median_abs_rel_error, 4)
        record["without_gaps_evaluations"] = first_stage.n_evaluations
    if share_errors:
        record["share_errors"] = [round(e, 4) for e in share_errors]
    from ..lab.predict import lab_path_parts
    from ..profiles import profile_path, save_on_base, save_platform, update_profile

    if a.base and Path(a.out).resolve() == profile_path(a.base).resolve():  # refit in place: keep its comments
        update_profile(a.out, host, record)
        print(f"written {a.out} (use it with --platform {a.out})")
        return 0
    header = (f"Machine file fitted by tcpsim calibrate on {record['date']} from {len(cases)} measured runs.\n"
              + ", ".join(n.removesuffix("_s").replace("_", "-") for n in names).capitalize()
              + " CPU costs fitted; everything else from the base profile"
              + (", fitted on the lab's veth path (its NIC the veth, aggregates carried whole; another NIC given "
                 "later, such as --nic virtio-net, drops the fitted costs, which were not measured on it)."
                 if a.lab else "."))
    parts = lab_path_parts(a.base) if a.lab and a.base else {}
    if not (a.base and save_on_base(host, a.base, a.out, calibrated=fields, fit=record, header=header, parts=parts)):
        save_platform(host, a.out, fit=record, header=header)
    print(f"written {a.out} (use it with --platform {a.out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
