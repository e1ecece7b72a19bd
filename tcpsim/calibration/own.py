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
import os
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from ..cliutil import OneLineParser, typed
from ..config import MAX_WORKERS
from ..errors import ConfigError, TcpsimError
from ..fileio import check_output_paths
from ..lab.limits import BUSIER_BY, BUSY_AT_LEAST, LimitCheck, limit_summary, measured_limit
from ..platform import Platform
from ..units import parse_int
from .mapping import CALIBRATION_BUDGET
from .own_fit import (KEEP, ROBUST_SCALE, OwnFit, _check_prior, _median_abs, fit_costs, fit_costs_restarts,
                      kept_evaluation, robust_cost)
from .own_runs import Case, iperf3_cases, lab_cases, scenario_file

__all__ = ["Cost", "COSTS", "OwnFit", "fit_costs", "robust_cost", "ROBUST_SCALE", "Case", "lab_cases", "iperf3_cases",
           "main"]


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



SHARE_FLOOR = 1e-3
"""The least busy share a prediction is compared at (an ideal host's 0 has no logarithm)."""


def _simulate_case(args: tuple) -> tuple[float, float, float, str, str]:
    """A case's predicted goodput, its sending and receiving CPU's busy shares on ``host``, the limit named, and how
    the run ended.

    The run's wall-clock budget is a fit's (:data:`~tcpsim.calibration.mapping.CALIBRATION_BUDGET`'s, 600 s), not an
    interactive run's 60 s: a run that ends on its wall budget ends where the machine's speed put it, so a fit whose
    evaluations met it would not be repeatable. Its event budget, which is exact, binds first."""
    case, host = args
    from ..api import simulate
    from ..lab.predict import host_platform, lab_simulation, tool_goodput_bps
    from ..lab.scenario import RELAY

    plat = host_platform(case.sysctls, platform=host, os_name=None, delay_line=case.delay_line)
    sim = lab_simulation(case.scenario, plat, case.delay_line, tool=case.tool, tool_version=case.tool_version,
                         relay=case.relay or RELAY)
    result = simulate(replace(sim, budget=replace(sim.budget, max_wall_s=CALIBRATION_BUDGET.max_wall_s)))
    util = result.cpu_utilization_frac
    snd, rcv = (max(SHARE_FLOOR, max(util.get(side) or [0.0])) for side in ("sender", "receiver"))
    return (tool_goodput_bps(case.scenario, result, case.duration_s), snd, rcv, result.limited_by,
            result.termination)


def limit_order(busy: Sequence[float], side: str) -> float:
    """``--limits``' term for a run whose measured limit is ``side``'s CPU (``cpu_sender``, ``cpu_receiver``): 1 when
    the predicted ``busy`` shares (sender's, receiver's) have that side :data:`~tcpsim.lab.limits.BUSIER_BY` busier
    than the other, else (other + BUSIER_BY) / that side's, which the fit sets against 1 in log space."""
    mine, other = (busy[0], busy[1]) if side == "cpu_sender" else (busy[1], busy[0])
    return max(1.0, (other + BUSIER_BY) / max(mine, SHARE_FLOOR))


def limit_checks(cases: Sequence[Case], host: Platform, ex: Any) -> list[LimitCheck]:
    """Each pinned run (``Case.busy_frac``) beside what ``host`` predicts of it: the limit measured, where the shares
    make it plain (:func:`tcpsim.lab.limits.measured_limit`), and the limit named."""
    pinned = [c for c in cases if c.busy_frac is not None]
    runs = ex.map(_simulate_case, [(c, host) for c in pinned])
    return [LimitCheck(c.label, c.busy_frac or (0.0, 0.0), measured_limit(c.busy_frac), r[3], (r[1], r[2]))
            for c, r in zip(pinned, runs)]


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


OPEN_WITHIN = 0.1
"""Fits from other starts whose objective is within this share of the best one's fit the runs about as well: the
spread of their values is what the runs leave open (:func:`_restarts_report`)."""


def _restarts_report(fits: Sequence[OwnFit], best: OwnFit, names: Sequence[str]) -> dict[str, Any]:
    """Print each start's fit and, for a cost that fits about as good as the best leave more than 1.5 times apart,
    the range they span; return what the machine file's ``[fit]`` records of them."""
    near = [f for f in fits if f.objective <= best.objective * (1 + OPEN_WITHIN)]
    print(f"{len(fits)} starts: median |error| "
          + ", ".join(f"{f.median_abs_rel_error:.1%}" + (" (kept)" if f is best else "") for f in fits))
    for i, n in enumerate(names):
        lo, hi = min(f.values[i] for f in near), max(f.values[i] for f in near)
        if hi > 1.5 * lo:
            print(f"  {n}: {lo:.3g} .. {hi:.3g} in the {len(near)} fits within {OPEN_WITHIN:.0%} of the best "
                  "objective: the runs leave it open")
    return {"restarts": len(fits), "restart_values": [[float(f"{v:.4g}") for v in f.values] for f in fits],
            "restart_objectives": [round(f.objective, 6) for f in fits],
            "restart_median_abs_rel_errors": [round(f.median_abs_rel_error, 4) for f in fits]}


def _kept_record(fit: OwnFit) -> dict[str, Any]:
    """What the machine file's ``[fit]`` says of the choice among the kept fit's evaluations: the criterion, and the
    evaluation each criterion would keep (number from 1, median |error| over the runs), so the other is in view."""
    out: dict[str, Any] = {"kept_by": fit.kept_by}
    if fit.evaluations:
        for keep in KEEP:
            k = kept_evaluation(fit.evaluations, keep)
            out[f"best_by_{keep}_evaluation"] = k + 1
            out[f"best_by_{keep}_median_abs_rel_error"] = round(fit.evaluations[k].median_abs_rel_error, 4)
    return out


def _write_evaluations(path: str, names: Sequence[str], fits: Sequence[OwnFit]) -> None:
    """Every evaluation of every start, in the order run, as JSON (``calibrate --evaluations``)."""
    import json

    doc = {"params": list(names), "starts": [
        {"kept_by": f.kept_by, "evaluations": [
            {"values": [float(f"{v:.6g}") for v in e.values], "objective": round(e.objective, 8),
             "median_abs_rel_error": round(e.median_abs_rel_error, 6)} for e in f.evaluations]} for f in fits]}
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"written {path} ({sum(len(f.evaluations) for f in fits)} evaluations)")


DEFAULT_COSTS = "per_write_s,per_packet_s,per_byte_s"
MEASURED_BASE_COSTS = "per_packet_tx_s,per_packet_rx_s,per_byte_s"
"""What ``calibrate`` fits by default from a base whose write and read were measured, keeping them (validation/README.md,
"After calibrating from the new parts, or the parts alone" and "What the fourth machine gave")."""


def _measures_write_and_read(base: Optional[str]) -> bool:
    """Whether the profile or machine file ``base`` fixes both a write's and a read's cost (``[fixed.cpu]``:
    measured)."""
    if not base:
        return False
    from ..machine.spec import load_machine

    try:
        fixed = load_machine(base).residuals
    except (TcpsimError, OSError, ValueError):
        return False  # the fit's own loading says what is wrong with it, in one line
    return fixed.get("cpu.per_syscall_s") == "fixed" and fixed.get("cpu.per_syscall_rx_s") == "fixed"


def default_costs(base: Optional[str]) -> tuple[str, Optional[str]]:
    """The costs to fit when ``--costs`` is not given, and the line that says why, if the base decides it."""
    if _measures_write_and_read(base):
        return MEASURED_BASE_COSTS, (f"note: the base measured the write and the read (its [fixed.cpu]): fitting "
                                     f"{MEASURED_BASE_COSTS} and keeping them (--costs {DEFAULT_COSTS} fits them too)")
    return DEFAULT_COSTS, None


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
    p.add_argument("--role", default=None, help="lab sweep runs of this role only (calibration); a run with no "
                   "sweep kind is kept, and what is left out is said")
    p.add_argument("--base", default=None, metavar="NAME|FILE",
                   help="profile to start from (default modern_linux, Linux); with --lab on the runs' veth")
    p.add_argument("--cpus", type=typed(parse_int, "cpus", lo=1, hi=1024), default=None,
                   help="CPUs per host (default: the base profile's)")
    p.add_argument("--costs", default=None,
                   help=f"costs to fit, of {', '.join(COSTS)} (default {DEFAULT_COSTS}; from a base whose write and "
                        f"read were measured, {MEASURED_BASE_COSTS}, keeping them)")
    p.add_argument("--max-evals", type=typed(parse_int, "max_evals", lo=1, hi=10_000), default=30,
                   help="simulator evaluations of all runs (default 30)")
    p.add_argument("--shares", action="store_true",
                   help="with --lab: also fit each pinned run's CPU busy shares, the sending and the receiving CPU's "
                        "(measured.cpu_shares), beside its goodput")
    p.add_argument("--limits", action="store_true",
                   help="with --lab: also weigh the limit of each pinned run whose shares make it plain (one CPU at "
                        "least 80%% busy and 20 points busier): the fit is penalised where its file would not have "
                        "that side's CPU 20 points busier than the other's")
    p.add_argument("--prior", type=float, default=None, metavar="FACTOR",
                   help="keep each cost near the base profile's unless the runs say otherwise: the base values are "
                        "believed within FACTOR (3, say); default none")
    p.add_argument("--restarts", type=typed(parse_int, "restarts", lo=1, hi=20), default=1, metavar="N",
                   help="fit from N starts (the base's costs, then N-1 drawn within a factor 10 of them, seeded) and "
                        "keep the best; fits ending far apart at about the same objective show what the runs leave "
                        "open (default 1)")
    p.add_argument("--keep", choices=KEEP, default="objective",
                   help="which evaluation the fit keeps: the least objective (default: the robust loss the search "
                        "minimises) or the least median |error| over the runs")
    p.add_argument("--evaluations", default=None, metavar="FILE.json",
                   help="also write every evaluation (costs, objective, median |error|) in the order run")
    p.add_argument("--one-stage", action="store_true",
                   help="a base whose CPUs lose gaps (preempt_per_s): fit with them from its own costs at once, "
                        "without the first stage that fits without them")
    p.add_argument("--workers", type=typed(parse_int, "workers", lo=1, hi=MAX_WORKERS), default=os.cpu_count() or 1)
    p.add_argument("--name", default=None, help="name of the machine in the file (default: from --out)")
    p.add_argument("--out", required=True, metavar="FILE.toml", help="the machine file to write")
    a = p.parse_args(list(argv or []))
    _check_prior(a.prior)
    if a.costs is None:
        a.costs, note = default_costs(a.base)
        if note:
            print(note)
    names = [n.strip() for n in a.costs.split(",") if n.strip()]
    for n in names:
        if n not in COSTS:
            raise ConfigError("costs", n, "names from " + ", ".join(COSTS))
    fields = [f for n in names for f in COSTS[n].fields]
    if len(set(fields)) < len(fields):
        raise ConfigError("costs", a.costs, "each cost named once, per_packet_s or its _tx_s/_rx_s halves, not both")
    if not a.out.endswith(".toml"):
        raise ConfigError("out", a.out, "a path ending in .toml")
    if a.evaluations is not None and not a.evaluations.endswith(".json"):
        raise ConfigError("evaluations", a.evaluations, "a path ending in .json")
    check_output_paths(("out", a.out), ("evaluations", a.evaluations))  # before the fit, not after its minutes
    if a.lab:
        left_out: list[str] = []
        cases = lab_cases(a.lab, a.role, left_out)
        if left_out:
            kinds = ", ".join(f"{k} x{n}" for k, n in sorted(Counter(left_out).items()))
            print(f"note: --role {a.role} left out {len(left_out)} run(s) whose sweep table is not of that role "
                  f"({kinds}); a run with no kind is kept")
    else:
        kw: dict[str, Any] = scenario_file(a.scenario) if a.scenario else {}
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
    if a.limits and not a.lab:
        raise ConfigError("--limits", "given", "with --lab runs (iperf3 -J files record no CPU shares per side)")
    limited = [(i, measured_limit(c.busy_frac)) for i, c in enumerate(cases)] if a.limits else []
    limited = [(i, side) for i, side in limited if side is not None]
    if a.limits and not limited:
        raise ConfigError("--limits", "given", "pinned runs whose one CPU is plainly the busy one (at least "
                                               f"{BUSY_AT_LEAST:.0%} busy and {BUSIER_BY:.0%} busier than the other)")
    base = _base_platform(a.base, a.cpus, bool(a.lab))
    costs = [COSTS[n] for n in names]
    from ..workers import worker_pool

    print(f"calibrating {len(cases)} runs; costs: {', '.join(names)}")
    first_stage = None
    with worker_pool(max(1, a.workers)) as ex:
        def model_on(platform: Platform) -> Callable[[Sequence[float]], list[float]]:
            def model(values: Sequence[float]) -> list[float]:
                host = platform
                for c, v in zip(costs, values):
                    host = c.set(host, v)
                runs = list(ex.map(_simulate_case, [(case, host) for case in cases]))
                walled = sum(1 for r in runs if r[4] == "wall_budget")
                if walled:
                    print(f"  note: {walled} run(s) ended on their wall-clock budget "
                          f"({CALIBRATION_BUDGET.max_wall_s:g} s): this evaluation depends on the machine's speed")
                return ([r[0] for r in runs] + [runs[i][k] for i in shared for k in (1, 2)]
                        + [limit_order(runs[i][1:3], side) for i, side in limited])
            return model

        measured = ([c.goodput_bps for c in cases] + [b for i in shared for b in cases[i].busy_frac or ()]
                    + [1.0] * len(limited))
        start = [c.get(base) for c in costs]
        if base.cpu.gaps and not a.one_stage:
            # A base whose CPUs lose gaps (CpuCost.preempt_per_s) is fitted without them first, then with them from
            # there (validation/README.md, "The gaps with the refit started from the committed costs").
            print("stage 1 of 2: without the base's gaps (CpuCost.preempt_per_s)")
            no_gaps = replace(base, cpu=replace(base.cpu, preempt_per_s=0.0))
            first_stage = fit_costs(model_on(no_gaps), measured, start, [(c.lo, c.hi) for c in costs], names,
                                    max_nfev=a.max_evals, progress=print, prior_factor=a.prior, keep=a.keep,
                                    n_goodputs=len(cases))
            start = [float(f"{v:.4g}") for v in first_stage.values]
            print(f"stage 2 of 2: with the gaps, from stage 1's costs (median |error| "
                  f"{first_stage.median_abs_rel_error:.1%} without them)")
        fit, fits = fit_costs_restarts(model_on(base), measured, start, [(c.lo, c.hi) for c in costs], names,
                                       restarts=a.restarts, max_nfev=a.max_evals, progress=print,
                                       prior_factor=a.prior, keep=a.keep, n_goodputs=len(cases))
        host = base
        for c, v in zip(costs, fit.values):
            host = c.set(host, float(f"{v:.4g}"))
        checks = limit_checks(cases, host, ex)
    name = a.name or Path(a.out).stem
    host = replace(host, name=name, cost_basis="measurements")
    for n, v0, v, lo, hi in zip(names, fit.start, fit.values, fit.lo95, fit.hi95):
        band = "not identified by these runs" if lo is None else f"95 % {lo:.3g} .. {hi:.3g}"
        print(f"  {n:14s} {v0:10.3g} -> {v:10.3g}   ({band})   {COSTS[n].meaning}")
    share_errors = fit.errors[len(cases):len(cases) + 2 * len(shared)]
    limit_errors = fit.errors[len(cases) + 2 * len(shared):]
    fit = replace(fit, errors=fit.errors[:len(cases)])
    print(f"median |error| {fit.median_abs_rel_error:.1%} over {len(cases)} runs ({fit.message})")
    if share_errors:
        print(f"CPU busy shares: median |error| {_median_abs(share_errors):.1%} over {len(share_errors)} (sending and "
              f"receiving CPU of {len(shared)} pinned runs)")
    for line in limit_summary(checks):
        print(line)
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
    record.update(_kept_record(fit))
    if a.prior is not None:
        record["prior_factor"] = a.prior
    if len(fits) > 1:
        record.update(_restarts_report(fits, fit, names))
    if first_stage is not None:  # the first stage, fitted without the base's gaps
        record["without_gaps_values"] = [float(f"{v:.4g}") for v in first_stage.values]
        record["without_gaps_median_abs_rel_error"] = round(first_stage.median_abs_rel_error, 4)
        record["without_gaps_evaluations"] = first_stage.n_evaluations
    if share_errors:
        record["share_errors"] = [round(e, 4) for e in share_errors]
    if limited:
        record["limit_errors"] = [round(e, 4) for e in limit_errors]
    decided = [c for c in checks if c.measured is not None]
    if decided:
        record["limits_named_rightly"] = f"{sum(1 for c in decided if c.agrees)} of {len(decided)}"
    if a.evaluations:
        _write_evaluations(a.evaluations, names, fits)
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
