"""``tcpsim calibrate --platform NAME``: fit a profile's free parameters to its calibration tables only.

The parameters fitted per platform are listed in :data:`FIT_PLAN` (at most eight, each physical, each
bounded in :data:`tcpsim.calibration.fit.PARAMS`). The result is written back into the profile with
the date, the tables used and the residuals. Holdout tables are never read here.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from ..cliutil import OneLineParser, typed
from ..config import MAX_WORKERS
from ..errors import ConfigError
from ..units import parse_int
from ..workers import worker_pool
from .fit import LOSSES, PARAMS, apply_params, fit_platform
from .mapping import platform_ids
from .tables import UNSCORED_FLAGS, Point, load_user_points

__all__ = ["FIT_PLAN", "calibration_points", "fittable", "main"]

_HOST = ["cpu.per_packet_tx_s", "cpu.per_packet_rx_s", "cpu.per_ack_s", "cpu.per_syscall_s", "cpu.per_byte_copy_s"]
FIT_PLAN: dict[str, list[str]] = {
    "es40_tru64": _HOST + ["nic.coalesce_delay_s"],
    "sunfire6800_ce": ["cpu.per_packet_tx_s", "cpu.per_packet_rx_s", "cpu.per_ack_tx_s", "cpu.per_ack_rx_s",
                       "cpu.per_syscall_s", "cpu.per_byte_copy_s", "nic.coalesce_delay_s", "cpu.per_push_s"],
    "rx2600_ixgb": _HOST + ["cpu.per_stream_frac", "nic.coalesce_delay_s", "bus.efficiency_frac"],
    "se7501_ixgb": ["cpu.per_packet_tx_s", "cpu.per_packet_rx_s", "cpu.per_ack_s", "cpu.per_byte_copy_s",
                    "cpu.per_byte_copy_rx_s", "cpu.per_stream_frac", "nic.coalesce_delay_s", "bus.efficiency_frac"],
}
"""Free parameters per platform. Platforms not listed have no calibration table in the sources.

The SE7501 is the sender of Table 4 and the receiver of Table 5: its send and receive copies are fitted
apart (Table 4's rates grow with the MTU far less than Table 5's, so its send side spends more per byte),
and its per-call cost, which GenSink's large writes barely weigh, stays at its earlier fitted value.
The Sun Fire's two ACK costs are fitted apart: its TABLE 3 rows run as fast with an ACK per segment
(deferred ACKs off) as with deferred ACKs, which weighs the receiver's cost of sending an ACK, not the
sender's of processing one."""

FIT_BOUNDS: dict[str, dict[str, tuple[float, float]]] = {
    "es40_tru64": {"cpu.per_packet_tx_s": (2e-6, 100e-6), "cpu.per_packet_rx_s": (2e-6, 100e-6),
                   "cpu.per_ack_s": (1e-6, 50e-6)},
    "sunfire6800_ce": {"cpu.per_ack_tx_s": (1e-6, 50e-6), "cpu.per_ack_rx_s": (1e-6, 50e-6)},
    "rx2600_ixgb": {"cpu.per_syscall_s": (0.2e-6, 10e-6)},
}
"""Bounds narrower than the generic ones, where a machine's clock rules values out. A 500 MHz EV6 retires
at most about a thousand instructions in 2 us: no path through driver, IP and TCP for a data segment is
shorter, nor one for an ACK shorter than 1 us; a 900 MHz UltraSPARC III, at under one instruction a
cycle, is no faster for an ACK. A 1.5 GHz Itanium2 enters and leaves Linux in a few hundred cycles, and a
write that blocks on a full buffer adds a sleep and a wakeup of a few microseconds: 10 us per call is
past anything GenSink's calls can cost (an unbounded fit of 2026-11-24 put 34.5 us there, standing in
for per-byte or per-stream work)."""

FIT_TABLES: dict[str, tuple[str, ...]] = {
    "es40_tru64": ("tru64/table1", "tru64/table2"),
    "sunfire6800_ce": ("sunfire/table1", "sunfire/table3", "sunfire/table4"),
    "rx2600_ixgb": ("tengbe/table2",),
    "se7501_ixgb": ("tengbe/table4", "tengbe/table5"),
}
"""The calibration tables each platform is fitted on, in fit order: the rx2600 on its own table first, then
the SE7501 on the two tables it shares with the (then fixed) rx2600."""

_SCORED_METRICS = ("throughput", "packet_rate", "transactions", "cpu_pct", "cpus_busy")


def fittable(p: Point) -> bool:
    """A calibration-role point the model predicts and a fit may use (no flagged contradiction, counted once)."""
    if p.role != "calibration" or p.metric not in _SCORED_METRICS:
        return False
    if (UNSCORED_FLAGS | {"inconsistent"}) & set(p.flags):
        return False  # a source's contradiction is reported, never fitted; a number printed twice counts once
    if p.metric == "cpu_pct" and "copy" not in f"{p.row} {p.note}".lower():
        return False  # user-mode time of the benchmark is not modelled
    return True


def calibration_points(platform_id: str, points: Sequence[Point]) -> list[Point]:
    """The fittable points of ``platform_id``'s calibration tables (:data:`FIT_TABLES`)."""
    return [p for p in points if fittable(p) and platform_id in platform_ids(p)
            and f"{p.source_id}/{p.table_id}" in FIT_TABLES[platform_id]]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = OneLineParser(prog="tcpsim calibrate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Example:\n  tcpsim calibrate --platform es40_tru64 --max-evals 60\n\n"
                                            "To fit the machine in front of you to tcpsim lab or iperf3 runs instead: "
                                            "tcpsim calibrate --iperf3 --help")
    parser.add_argument("--platform", required=True, choices=sorted(FIT_PLAN))
    parser.add_argument("--max-evals", type=typed(parse_int, "max_evals", lo=1), default=40,
                        help="model evaluations of the whole table set, least-squares stage")
    parser.add_argument("--polish-evals", type=typed(parse_int, "polish_evals", lo=0), default=60,
                        help="further evaluations for the derivative-free Powell polish (0 = none)")
    parser.add_argument("--loss", choices=LOSSES, default="soft_l1",
                        help="soft_l1 (default): far misses weigh linearly; linear: plain least squares")
    parser.add_argument("--workers", type=typed(parse_int, "workers", lo=1, hi=MAX_WORKERS),
                        default=os.cpu_count() or 1)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--dry-run", action="store_true", help="fit and print, do not write the profile")
    args = parser.parse_args(argv)
    from ..profiles import load_platform, profile_path, update_profile

    names = FIT_PLAN[args.platform]
    points = calibration_points(args.platform, load_user_points(args.data))
    if not points:
        raise ConfigError("platform", args.platform, "a platform with calibration points")
    tables = sorted({f"{p.source_id}/{p.table_id}" for p in points})
    print(f"calibrating {args.platform}: {len(points)} points from {', '.join(tables)}; "
          f"free parameters: {', '.join(names)}")
    base = load_platform(args.platform)
    t0 = time.perf_counter()
    with worker_pool(args.workers) as ex:
        fit = fit_platform(args.platform, points, {args.platform: base}, names, executor=ex,
                           max_nfev=args.max_evals, progress=print, polish_nfev=args.polish_evals,
                           bounds=FIT_BOUNDS.get(args.platform), loss=args.loss)
    for n, v0, v in zip(fit.names, fit.start, fit.values):
        print(f"  {n:24s} {v0:11.4g} -> {v:11.4g}   {PARAMS[n].meaning}")
    print(f"median |error| {fit.median_abs_rel_error:.1%}, max {fit.max_abs_rel_error:.1%}, "
          f"{fit.n_evaluations} evaluations in {time.perf_counter() - t0:.0f} s ({fit.message})")
    print(f"objective ({args.loss}) {fit.start_objective:.5g} at the start -> {fit.objective:.5g}")
    if args.dry_run:
        return 0
    path = profile_path(args.platform)
    record = {
        "date": _dt.date.today().isoformat(),
        "tables": tables,
        "n_points": fit.n_points,
        "params": list(fit.names),
        "values": [float(f"{v:.6g}") for v in fit.values],
        "start": [float(f"{v:.6g}") for v in fit.start],
        "median_abs_rel_error": round(fit.median_abs_rel_error, 4),
        "max_abs_rel_error": round(fit.max_abs_rel_error, 4),
        "evaluations": fit.n_evaluations,
        "loss": args.loss,
        "objective": float(f"{fit.objective:.6g}"),
        "start_objective": float(f"{fit.start_objective:.6g}"),
        "optimizer": fit.message,
    }
    # The profile holds the values the record states (six significant digits), not exp(log(x)) noise.
    update_profile(path, apply_params(fit.platform, fit.names, record["values"]), record)
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
