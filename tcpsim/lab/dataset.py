"""The committed Linux lab sweep: which rows, which role, and how a run becomes a CSV row.

``python -m tcpsim.lab.dataset OUT_DIR [--runs RUNS.json] [--only N] [--pin SND,RCV] [--relay-cpu N] [--path-probe
FILE]`` measures every row of :func:`sweep_rows` once with ``tcpsim lab`` (iperf3 where installed; ``--pin``: the
tools on those CPUs, ``--relay-cpu``: the delay line on that one, each said in each row's note, both by default as
``tcpsim lab`` places a run; ``--path-probe``: this build's delay line, in each relay row's ``relay_path`` column, so
``tcpsim validate`` scores a table of another build on its own path) and writes one validation CSV per
kind of row into OUT_DIR (the columns of :mod:`tcpsim.calibration.tables` plus ``rate_bps``, ``rtt_s``
and the measured RTT), with the kernel, sysctls, CPU and load average in ``#`` header lines. Each run carries
the prediction of ideal hosts (the protocol alone), never ``lab_vm``'s: measuring a held-out table shows no
prediction of it.
``--from-runs RUNS.json`` writes the tables again from saved runs without measuring; ``--median-of A B C``
writes them from several passes' runs files, each row the run whose goodput is the median of its passes
(validation/README.md, "Each row the median of three quiet passes").

A request/response row (kind ``rr``, ``tcpsim lab --rr``) is a row of transactions a second (metric
``transactions``, unit ``1/s``), its request in ``message_bytes`` and ``write_bytes``, a reply of another size in
``response_bytes``; validate simulates it as the same workload.

The role of a table follows from its kind alone, fixed before any fit (validation/README.md):
calibration = ``writes`` (unshaped, MTU 1500, write sizes) and ``messages_nodelay`` (small messages with
TCP_NODELAY): they weigh the per-write, per-packet and per-byte costs; every other table is held out.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import io
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from typing import Optional

from ..cliutil import OneLineParser, typed
from ..errors import ConfigError, OutputError
from ..fileio import check_writable_dir, read_json_limited, write_text_reporting
from ..units import format_duration, parse_int, parse_number
from .scenario import MAX_DURATION_S, RELAY, LabScenario, RelayPath, lab_scenario, relay_cpu_arg

__all__ = ["Row", "sweep_rows", "role_of", "csv_row", "relay_cell", "median_runs", "EXTRA_COLUMNS"]

EXTRA_COLUMNS = ("rate_bps", "rtt_s", "rtt_min_measured_s", "rtt_mean_measured_s", "tool", "load_avg_1min",
                 "delay_line", "duration_s", "max_pacing_rate_bps", "loss_frac", "tool_version", "relay_path",
                 "response_bytes")
"""Columns the lab rows add after the common ones (the path varies by row; the measured RTT and the delay line
say what the path gave; the tool averaged over the measured duration; the delay line's constants where the sweep
was given its build's path probe, ``--path-probe``; a request/response row's reply size); each is one of
:data:`tcpsim.calibration.tables.EXTRA_COLUMNS`."""

_K = 1024
RUNS_LIMIT_BYTES = 16 << 20
"""A sweep's runs file is about 0.3 MB; this bounds what ``--from-runs`` and ``--median-of`` read."""


@dataclass(frozen=True)
class Row:
    kind: str
    scenario: LabScenario

    @property
    def label(self) -> str:
        sc = self.scenario
        rate = "unshaped" if not sc.rate_bps else f"{sc.rate_bps / 1e9:g}G"
        buf = f"buf {sc.sndbuf_bytes // _K}k" if sc.sndbuf_bytes else "buf auto"
        extra = " nodelay" if sc.nodelay else ""
        paced = f", paced {sc.max_pacing_rate_bps / 1e6:g}M" if sc.max_pacing_rate_bps else ""
        lossy = f", loss {sc.loss_frac * 100:g}%" if sc.loss_frac else ""
        load = (f"request {sc.rr_bytes}, response {sc.response_bytes or sc.rr_bytes}" if sc.rr_bytes
                else f"write {sc.write_bytes}")
        return (f"{self.kind}: {rate}, rtt {sc.rtt_s * 1e3:g}ms, mtu {sc.mtu_bytes}, {buf}, {load}"
                f"{extra}, {sc.n_streams} stream(s){paced}{lossy}")


CALIBRATION_TABLES = ("writes", "messages_nodelay")


def table_of(kind: str, sc: LabScenario) -> str:
    """The CSV a row goes to: its kind, small messages split by Nagle."""
    if kind == "messages":
        return "messages_nodelay" if sc.nodelay else "messages_nagle"
    return kind


def role_of(kind: str, sc: LabScenario) -> str:
    """The rule of validation/README.md: the tables that weigh the host's costs calibrate, the rest is held out."""
    return "calibration" if table_of(kind, sc) in CALIBRATION_TABLES else "holdout"


def sweep_rows(duration_s: float = 3.0) -> list[Row]:
    rows: list[Row] = []

    def add(kind: str, **kw) -> None:
        rows.append(Row(kind, LabScenario(duration_s=duration_s, **kw)))

    def grids(kind: str, rate_bps: float, per_mtu: tuple) -> None:
        """One stream at each (MTU, round trips, buffers) of ``per_mtu``, round trip and buffer (SO_SNDBUF =
        SO_RCVBUF), in that order."""
        for mtu, rtts_ms, bufs_k in per_mtu:
            for rtt_ms in rtts_ms:
                for buf_k in bufs_k:
                    add(kind, rate_bps=rate_bps, rtt_s=rtt_ms * 1e-3, mtu_bytes=mtu, sndbuf_bytes=buf_k * _K,
                        rcvbuf_bytes=buf_k * _K)

    def grid(kind: str, rate_bps: float, rtts_ms: tuple, bufs_k: tuple) -> None:
        """The same round trips and buffers at MTU 1500, then 9000."""
        grids(kind, rate_bps, ((1500, rtts_ms, bufs_k), (9000, rtts_ms, bufs_k)))

    grid("window", 1e9, (0.2, 0.5, 1, 2, 4), (16, 32, 64, 128, 256))
    grid("tengig", 10e9, (0.2, 1), (256, 1024, 4096))
    for write in (1 * _K, 4 * _K, 16 * _K, 64 * _K, 256 * _K):
        add("writes", rate_bps=0.0, write_bytes=write)
    for mtu in (1500, 9000):
        for streams in (1, 2, 4):
            add("unshaped", rate_bps=0.0, mtu_bytes=mtu, n_streams=streams)
    for msg in (60, 200, 1000, 4000):
        for nodelay in (True, False):
            add("messages", rate_bps=1e9, write_bytes=msg, nodelay=nodelay)
    for streams in (1, 2, 4, 8):
        add("streams", rate_bps=1e9, rtt_s=1e-3, sndbuf_bytes=64 * _K, rcvbuf_bytes=64 * _K, n_streams=streams)
    # SO_MAX_PACING_RATE (validation/README.md, "Pacing by the socket's rate cap": the rows fixed there)
    for cap_mbps in (100, 250, 500, 750):
        add("pacing", rate_bps=1e9, rtt_s=1e-3, sndbuf_bytes=4096 * _K, rcvbuf_bytes=4096 * _K,
            max_pacing_rate_bps=cap_mbps * 1e6)
    for cap_mbps in (1000, 3000, 6000):
        add("pacing", rate_bps=10e9, mtu_bytes=9000, sndbuf_bytes=4096 * _K, rcvbuf_bytes=4096 * _K,
            max_pacing_rate_bps=cap_mbps * 1e6)
    for cap_mbps in (2000, 8000):
        add("pacing", rate_bps=0.0, max_pacing_rate_bps=cap_mbps * 1e6)
    # random loss on the delay line (validation/README.md, "Random loss on the lab's path": the rows fixed there)
    for rtt_s, losses in ((1e-3, (1e-3, 1e-2)), (4e-3, (1e-4, 1e-3, 1e-2)), (16e-3, (1e-4, 1e-3, 1e-2))):
        for loss in losses:
            add("loss", rate_bps=1e9, rtt_s=rtt_s, loss_frac=loss)
    # a second lossy table, held out from the rules lab/loss steered (validation/README.md, "A second lossy table")
    for mtu, rtt_s, losses in ((1500, 0.5e-3, (3e-3, 3e-2)), (1500, 2e-3, (3e-4, 3e-3, 3e-2)),
                               (1500, 8e-3, (3e-4, 3e-3)), (9000, 2e-3, (3e-3,))):
        for loss in losses:
            add("loss2", rate_bps=1e9, rtt_s=rtt_s, mtu_bytes=mtu, loss_frac=loss)
    # a third, held out from the rules lab/loss2 steered (validation/README.md, "A third lossy table")
    for mtu, rtt_s, losses in ((1500, 0.3e-3, (5e-3, 2e-2)), (1500, 1.5e-3, (5e-4, 5e-3, 2e-2)),
                               (1500, 6e-3, (5e-4, 5e-3)), (1500, 12e-3, (5e-3,)), (9000, 1.5e-3, (5e-3,))):
        for loss in losses:
            add("loss3", rate_bps=1e9, rtt_s=rtt_s, mtu_bytes=mtu, loss_frac=loss)
    # a fourth, to decide the measured wake-up latency (validation/README.md, "A fourth lossy table")
    for rtt_s, losses in ((0.4e-3, (7e-3, 4e-2)), (0.8e-3, (2e-3, 1.5e-2)), (2.5e-3, (7e-3, 4e-2)),
                          (5e-3, (2e-3, 1.5e-2)), (10e-3, (7e-3,))):
        for loss in losses:
            add("loss4", rate_bps=1e9, rtt_s=rtt_s, mtu_bytes=1500, loss_frac=loss)
    # a second window table, held out, at round trips and buffers the first does not have (validation/README.md,
    # "A second window table")
    grid("window2", 1e9, (0.3, 0.7, 1.5, 3), (24, 48, 96))
    # second tables of small messages and of 10 Gbit/s, held out (validation/README.md, "Second tables of small
    # messages and of 10 Gbit/s")
    for msg in (100, 500, 2000):
        for nodelay in (False, True):
            add("messages2", rate_bps=1e9, write_bytes=msg, nodelay=nodelay)
    grid("tengig2", 10e9, (0.5,), (512, 2048))
    # a held-out table of CPU-bound rows (validation/README.md, "A held-out table of CPU-bound rows")
    for mtu, writes in ((1500, (2, 8, 32)), (9000, (8, 32))):
        for write_k in writes:
            add("cpu2", rate_bps=0.0, mtu_bytes=mtu, write_bytes=write_k * _K)
    for msg in (40, 150):
        for nodelay in (False, True):
            add("cpu2", rate_bps=1e9, write_bytes=msg, nodelay=nodelay)
    # the out-of-sample check of lab_vm's untraced read cost (validation/README.md, "lab_vm's read cost measured
    # without tracepoints")
    for msg, nodelay in ((20, False), (80, False), (120, False), (80, True), (120, True)):
        add("messages3", rate_bps=1e9, write_bytes=msg, nodelay=nodelay)
    # held out from the read-loop rule (validation/README.md, "A third window table and a third CPU-bound table")
    grid("window3", 1e9, (0.4, 0.8, 2.5), (20, 40, 80))
    for mtu, writes in ((1500, (3, 12, 48)), (9000, (12, 48))):
        for write_k in writes:
            add("cpu3", rate_bps=0.0, mtu_bytes=mtu, write_bytes=write_k * _K)
    for nodelay in (False, True):
        add("cpu3", rate_bps=1e9, write_bytes=300, nodelay=nodelay)
    # the out-of-sample A/B of the send buffer in truesize (validation/README.md, "A fourth window table decides the
    # send buffer in truesize"): small buffers at round trips no other table has
    grids("window4", 1e9, ((1500, (0.25, 0.6, 1.2, 3.5), (12, 16, 24)), (9000, (0.6, 1.2, 3.5), (28, 36, 48))))
    # the same A/B judged by five-seed medians (validation/README.md, "A fifth window table")
    grids("window5", 1e9, ((1500, (0.45, 0.9, 1.8, 5), (14, 18, 28)), (9000, (0.45, 1.8, 5), (24, 44, 72))))
    # the out-of-sample A/B of a wake-up latency drawn from its spread, alone and with the send buffer in truesize
    # (validation/README.md, "A wake-up's latency varies as measured")
    grids("window6", 1e9, ((1500, (0.35, 0.7, 1.5, 3), (20, 26, 40)), (9000, (0.7, 1.5, 3), (50, 60, 90))))
    # the out-of-sample A/B of a Linux sender of its send queue's skbs, on the Intel Xeon VM (validation/README.md,
    # "The queue's skbs judged by a window table measured for it")
    grids("window7", 1e9, ((1500, (0.55, 1.1, 2.2, 4.5), (22, 30, 34)), (9000, (0.55, 1.1, 2.2), (38, 56, 68))))
    # the first table of another build to join the lab source, with its build's delay line (validation/README.md,
    # "A window table of the seventh build joins the lab source")
    grids("window8", 1e9, ((1500, (0.15, 0.65, 1.3, 2.8), (18, 36, 60)), (9000, (0.65, 1.3, 2.8), (40, 64, 100))))
    # the out-of-sample A/B of the default host of tcpsim lab, ideal against this machine's parts (validation/README.md,
    # "tcpsim lab predicts for the machine it runs on, on lossless paths too")
    grids("window9", 1e9, ((1500, (0.38, 0.85, 1.65, 3.3), (16, 24, 36)), (9000, (0.85, 1.65, 3.3), (30, 46, 76))))
    # request/response, one transaction at a time, scored on transactions a second (the rows of the tenth machine's
    # lab/rr, validation/README.md, "The wake-up latency after short idles")
    for size in (16, 256, 1024, 4096, 16384, 65536):
        add("rr", rate_bps=0.0, rr_bytes=size)
    return rows


def median_runs(passes: list[list[dict]]) -> list[dict]:
    """Per row (its label), the run whose goodput is the median of that row's runs in ``passes``.

    A run, not an average, so the columns beside the goodput (measured RTT, delay line, counters) are the ones
    that went with it; of an even count the lower middle one. The chosen run gains ``passes_goodput_bps``, every
    pass's goodput in pass order (a request/response run also ``passes_transactions_per_s``). Rows keep the order
    of their first appearance.
    """
    by_row: dict[str, list[dict]] = {}
    for runs in passes:
        for d in runs:
            by_row.setdefault(d["row"], []).append(d)
    chosen = []
    for runs in by_row.values():
        ranked = sorted(runs, key=lambda d: d["measured"]["goodput_bps"])
        pick = dict(ranked[(len(ranked) - 1) // 2])
        pick["passes_goodput_bps"] = [d["measured"]["goodput_bps"] for d in runs]
        if pick["scenario"].get("rr_bytes"):  # request/response: goodput is proportional to transactions a second
            pick["passes_transactions_per_s"] = [d["measured"]["transactions_per_s"] for d in runs]
        chosen.append(pick)
    return chosen



def _duration(value_s: Optional[float]) -> str:
    return format_duration(value_s) if value_s else "-"


def csv_row(row: Row, run: dict) -> dict[str, str]:
    """One CSV record from a row and its ``tcpsim lab --json`` object."""
    sc, m = row.scenario, run["measured"]
    note = f"{m['tool']}, {m['duration_s']:.1f} s, {m['retransmits']} retransmits, delay line {run['delay_line']}"
    if m.get("delay_line_drops"):
        note += f" (which dropped {m['delay_line_drops']} packets)"
    causes = m.get("retransmit_causes") or {}
    if m["retransmits"] and causes:
        rx = m.get("receiver_counters") or {}
        dropped = f", the receiver dropped {rx.get('TCPOFODrop', 0) + rx.get('TCPRcvQDrop', 0)}" if rx else ""
        note += (f" ({causes.get('TCPFastRetrans', 0)} fast, {causes.get('TCPLossProbes', 0)} loss probes, "
                 f"{causes.get('TCPTimeouts', 0)} timeouts; {causes.get('TCPDSACKRecv', 0)} D-SACKed, "
                 f"{causes.get('TCPSACKReorder', 0) + causes.get('TCPRenoReorder', 0)} reorderings seen{dropped})")
    if sc.pin_cpus is not None:
        note += f", the tools on CPUs {sc.pin_cpus[0]} (sender) and {sc.pin_cpus[1]} (receiver)"
    if sc.relay_cpu is not None:
        note += f", the relay on CPU {sc.relay_cpu}"
    if "passes_transactions_per_s" in run:
        rates = ", ".join(f"{t:.0f}" for t in run["passes_transactions_per_s"])
        note += f"; the median of {len(run['passes_transactions_per_s'])} passes ({rates} transactions/s)"
    elif "passes_goodput_bps" in run:
        rates = ", ".join(f"{g / 1e6:.1f}" for g in run["passes_goodput_bps"])
        note += f"; the median of {len(run['passes_goodput_bps'])} passes ({rates} Mbit/s)"
    if sc.rr_bytes:  # one transaction at a time: netperf's TCP_RR figure, not goodput
        metric = {"metric": "transactions", "value": f"{m['transactions_per_s']:.1f}", "unit": "1/s"}
    else:
        metric = {"metric": "throughput", "value": f"{m['goodput_bps'] / 1e6:.2f}", "unit": "Mbps"}
    return {
        "source": "tcpsim lab on this project's VM", "table": f"Linux lab sweep: {table_of(row.kind, sc)}",
        "row": row.label, **metric,
        "platform_sender": "lab_vm", "platform_receiver": "lab_vm", "os_sender": f"Linux {run['kernel']}",
        "os_receiver": f"Linux {run['kernel']}", "tuning": "", "mtu_bytes": str(sc.mtu_bytes),
        "sockbuf_bytes": str(sc.sndbuf_bytes or ""), "write_bytes": str(sc.rr_bytes or sc.write_bytes),
        "message_bytes": str(sc.rr_bytes or sc.write_bytes) if row.kind == "messages" or sc.rr_bytes else "",
        "n_streams": str(sc.n_streams),
        "direction": "a->b", "nagle": "off" if sc.nodelay else "on", "delack": "on", "deferred_acks_max": "",
        "n_cpus": "", "role": role_of(row.kind, sc), "page_hint": row.kind, "flags": "",
        "note": note,
        "rate_bps": f"{sc.rate_bps:g}", "rtt_s": f"{sc.rtt_s:g}",
        "rtt_min_measured_s": "" if m["rtt_min_s"] is None else f"{m['rtt_min_s']:.6f}",
        "rtt_mean_measured_s": "" if m["rtt_mean_s"] is None else f"{m['rtt_mean_s']:.6f}",
        "tool": m["tool"], "load_avg_1min": f"{run['load_avg'][0]:.2f}", "delay_line": run["delay_line"],
        "duration_s": f"{m['duration_s']:.1f}",
        "max_pacing_rate_bps": f"{sc.max_pacing_rate_bps:g}" if sc.max_pacing_rate_bps else "",
        "loss_frac": f"{sc.loss_frac:g}" if sc.loss_frac else "",
        "tool_version": m.get("tool_version") or "",
        "relay_path": relay_cell(run),
        "response_bytes": str(sc.response_bytes or "") if sc.rr_bytes else "",
    }


def relay_cell(run: dict) -> str:
    """A run's ``relay_path`` cell: the delay line's constants it was predicted on (``predicted.relay_path``, from a
    path probe), for a run through the relay; empty otherwise, where ``tcpsim validate`` takes the committed ones."""
    probed = (run.get("predicted") or {}).get("relay_path")
    if run.get("delay_line") != "relay" or not probed:
        return ""
    return RelayPath(**{k: probed[k] for k in asdict(RELAY)}).to_text()


def header_lines(first: dict, load_start: tuple, load_end: tuple, n: int) -> list[str]:
    sysctls = "; ".join(f"{k} = {v}" for k, v in first["sysctls"].items())
    day = _dt.date.today().isoformat()
    return [f"# tcpsim lab sweep of {n} rows, {day}: kernel {first['kernel']}, CPU {first['cpu']}",
            f"# sysctls (sender namespace): {sysctls}",
            f"# load average at start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}, at end "
            f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}: a shared 2-core VM; rows limited by the CPU "
            "(unshaped, 10 Gbit/s, small messages) are noisy",
            "# delay: netem if the kernel has it, else tcpsim's user-space TUN relay "
            "(rtt_*_measured_s show what it gave)"] + _median_line(first)


def _median_line(first: dict) -> list[str]:
    """The header line of tables written from several passes (:func:`median_runs`); none for one pass."""
    if "passes_goodput_bps" not in first:
        return []
    return [f"# each row is the run with the median goodput of {len(first['passes_goodput_bps'])} passes (every "
            "pass's figure in its note; the load averages are the highest of the passes')"]


def write_tables(runs: list[dict], out_dir: str, load_start: tuple, load_end: tuple) -> list[str]:
    """One CSV per table of ``runs`` (``tcpsim lab --json`` objects with ``kind``) in ``out_dir``."""
    from pathlib import Path

    from ..calibration.tables import COLUMNS

    by_table: dict[str, list[dict]] = {}
    for d in runs:
        row = Row(d["kind"], LabScenario(**d["scenario"]))
        by_table.setdefault(table_of(row.kind, row.scenario), []).append(csv_row(row, d))
    written = []
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for table, records in by_table.items():
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(COLUMNS) + list(EXTRA_COLUMNS), lineterminator="\n")
        w.writeheader()
        w.writerows(records)
        path = Path(out_dir) / f"{table}.csv"
        path.write_text("\n".join(header_lines(runs[0], load_start, load_end, len(runs))) + "\n" + buf.getvalue())
        written.append(str(path))
    return written


def _save_runs(path: str, runs: list[dict]) -> None:
    """The runs so far to ``--runs`` (after every row: a sweep cut short keeps what it measured)."""
    write_text_reporting(path, json.dumps(runs, indent=0, default=float), "runs")


def _tables_from_runs(a: argparse.Namespace) -> int:
    """``--from-runs`` or ``--median-of``: the tables from saved runs, measuring nothing."""
    expected = "JSON written by --runs (a list of tcpsim lab runs)"
    passes = []
    for path in [a.from_runs] if a.from_runs else a.median_of:
        doc = read_json_limited(path, "runs file", expected, RUNS_LIMIT_BYTES)
        # a file of several passes (a list of runs lists, as a rule's measuring script keeps them) gives each
        passes.extend(doc if a.median_of and doc and all(isinstance(d, list) for d in doc) else [doc])
    runs = passes[0] if a.from_runs else median_runs(passes)
    if a.median_of and a.runs:
        _save_runs(a.runs, runs)
    if a.load:
        l0, l1 = (tuple(float(x) for x in part.split()) for part in a.load.split(","))
    else:  # of several passes, the highest (the least quiet) of their starts and ends
        l0, l1 = (tuple(max(values) for values in zip(*(p[i]["load_avg"] for p in passes))) for i in (0, -1))
    print("\n".join(write_tables(runs, a.out, l0, l1)))
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    from .measure import default_placement, pinned_cpus, run_lab
    from .predict import predict_lab
    from .cli import to_json
    from .pathprobe import read_relay_path
    from .testbed import LabUnavailable, checked_relay_cpu, install_signal_handlers, missing_requirement

    p = OneLineParser(prog="python -m tcpsim.lab.dataset")
    p.add_argument("out", help="folder for the CSV tables")
    p.add_argument("--runs", default=None, help="also write every run's JSON (a list) here")
    saved = p.add_mutually_exclusive_group()
    saved.add_argument("--from-runs", default=None, help="write the tables from this runs file, measure nothing")
    saved.add_argument("--median-of", nargs="+", default=None, metavar="RUNS",
                       help="write the tables from these passes' runs files (or one file holding a list of "
                            "passes), each row its median run (--runs saves them)")
    p.add_argument("--load", default=None, help="with --from-runs or --median-of: load averages 'a b c,d e f' at "
                   "start and end (default: the first and last run's; of several passes, the highest)")
    p.add_argument("--only", type=typed(parse_int, "only", lo=1), default=None, help="the first N rows only")
    p.add_argument("--kind", default=None, choices=sorted({r.kind for r in sweep_rows()}),
                   help="only the rows of this kind (window, writes, pacing ...)")
    p.add_argument("--duration", type=typed(parse_number, "duration", lo=0.5, hi=MAX_DURATION_S), default=3.0,
                   help=f"seconds of traffic a row (default 3, at most {MAX_DURATION_S:.0f})")
    p.add_argument("--pin", default=None, metavar="SND,RCV",
                   help="run every row's sending and receiving tool on these CPUs (tcpsim lab --pin); 0,1 is the "
                        "placement validate's lab_vm models; default and none as tcpsim lab's")
    p.add_argument("--relay-cpu", default=None, metavar="N",
                   help="run the delay line of every row with an added delay on this CPU (tcpsim lab --relay-cpu; "
                        "default and none as its)")
    p.add_argument("--path-probe", default=None, metavar="FILE",
                   help="this build's path probe (tcpsim lab --path-probe): each row through the relay is predicted on "
                        "its constants, and carries them in its relay_path column, which tcpsim validate scores it on")
    a = p.parse_args(argv)
    if a.from_runs or a.median_of:
        try:
            return _tables_from_runs(a)
        except (ConfigError, OutputError) as exc:
            print(exc, file=sys.stderr)
            return 2
    try:
        pinned = lab_scenario(pin=a.pin)
        pinned_cpus(pinned)  # this machine has those CPUs, and taskset
        pins = pinned.pin_cpus
        relay = checked_relay_cpu(relay_cpu_arg(a.relay_cpu))
        path = read_relay_path(a.path_probe) if a.path_probe else RELAY
        if a.runs:
            check_writable_dir(a.runs, "runs")  # refused before any row runs, not after the first
    except (ConfigError, LabUnavailable, OutputError) as exc:
        print(exc, file=sys.stderr)
        return 2
    missing = missing_requirement()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    install_signal_handlers()
    rows = [replace(r, scenario=replace(r.scenario, pin_cpus=pins,
                                        relay_cpu=relay if r.scenario.rtt_s else None))
            for r in sweep_rows(a.duration) if a.kind is None or r.kind == a.kind][: a.only]
    if a.pin is None and a.relay_cpu is None:  # tcpsim lab's default, row by row
        rows = [replace(r, scenario=default_placement(r.scenario)) for r in rows]
    load0 = os.getloadavg()
    records, runs = [], []
    for i, row in enumerate(rows):
        try:
            run = run_lab(row.scenario)
            res = predict_lab(row.scenario, run.sysctls, delay_line=run.delay_line, tool=run.measured.tool,
                              tool_version=run.measured.tool_version, relay=path)
        except Exception as exc:  # one failed row is recorded as missing, the sweep goes on
            print(f"[{i + 1}/{len(rows)}] {row.label}: FAILED {exc}", file=sys.stderr, flush=True)
            continue
        d = to_json(run, res, None, "linux")
        d["measured"].pop("series", None)
        d["row"], d["kind"] = row.label, row.kind
        if a.path_probe:
            d["predicted"]["relay_path"] = {"path_probe": a.path_probe, **asdict(path)}
        runs.append(d)
        records.append(csv_row(row, d))
        m, pr = d["measured"], d["predicted"]
        figure = (f"{m['transactions_per_s']:,.0f} transactions/s (tcpsim, ideal hosts: {pr['transactions_per_s']:,.0f})"
                  if row.scenario.rr_bytes else
                  f"{m['goodput_bps'] / 1e6:.1f} Mbit/s (tcpsim, ideal hosts: {pr['goodput_bps'] / 1e6:.1f})")
        print(f"[{i + 1}/{len(rows)}] {row.label}: {figure}, mean RTT {_duration(m['rtt_mean_s'])}, "
              f"{m['retransmits']} retransmits",
              file=sys.stderr, flush=True)
        if a.runs:
            _save_runs(a.runs, runs)
    if not runs:
        return 1
    print(f"load average at start {load0}, at end {os.getloadavg()}", file=sys.stderr)
    print("\n".join(write_tables(runs, a.out, load0, os.getloadavg())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
