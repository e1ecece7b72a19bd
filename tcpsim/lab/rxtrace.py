"""Receive trace: on which CPU, and in whose context, the kernel runs each arriving segment while a lab run streams.

``python -m tcpsim.lab.rxtrace --scenario "--rate 1gbit --message 60 --nodelay"`` (root, tracefs) starts
``tcpsim lab`` with those arguments and, for ``--window`` in the middle of the run, counts per second:

* ``tcp:tcp_probe`` (``tcp_rcv_established``, every segment an established socket takes in), split into data
  and pure ACKs, by context: a softirq (``tcp_v4_rcv`` found the socket free) or the application's own
  process (``tcp_v4_rcv`` found it owned by a call in progress, ``tcp_add_backlog``, and the owner ran it at
  ``release_sock``);
* ``sock:sk_data_ready`` (the reader told of data), ``sched:sched_waking`` of the tool's processes (each a
  ``try_to_wake_up``, whether or not the wakee had gone to sleep yet) and ``ipi:ipi_send_cpu`` /
  ``ipi_send_cpumask`` (inter-processor interrupts: on a VM, exits);
* ``sock:sock_send_length`` and ``sock:sock_recv_length`` (the writer's and reader's calls), which name the
  two processes: each count's context is given as ``writer``, ``reader`` or the process's name;
* from ``/proc``, over the same window, each of the run's tool processes' user and system CPU seconds a second,
  voluntary context switches a second (each a sleep that ended in a wake-up) and read and write calls a second
  (``/proc/PID/io``), with the reader's and the writer's CPU seconds per call of its kind.

It prints them as JSON beside the run's goodput. Only the kernel's events are used, never a throughput for a
decision; the events are switched off and the buffer cleared on every exit (``schedtrace.traced``), and the
``tcpsim lab`` run is bounded and removes its namespaces itself.

``--untraced`` samples the tools' CPU the same way with no tracepoint switched on, since each traced call also
pays for its events (root only for ``tcpsim lab``): the processes are named from their command lines (iperf3's
server reads, its client writes), and a run of ``--message N`` also gets the reader's CPU time per read, its
CPU seconds a second over its reads a second (goodput / 8 / N: a saturated iperf3 reader's every read returns its
block). This is how ``lab_vm``'s ``per_syscall_rx_s`` is measured (validation/README.md, "lab_vm's read cost
measured without tracepoints").
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections import Counter
from typing import Iterable, Optional

from ..cliutil import OneLineParser, typed
from ..units import parse_duration, parse_int
from .background import BackgroundLab
from .schedtrace import TRACEFS, traced, tracefs_has

__all__ = ["count_events", "iperf3_call_costs", "main", "EVENTS", "TOOL_COSTS_SCENARIO"]

EVENTS = ("tcp/tcp_probe", "sock/sk_data_ready", "sched/sched_waking", "ipi/ipi_send_cpu", "ipi/ipi_send_cpumask",
          "sock/sock_send_length", "sock/sock_recv_length")
RUN_S = 3.0
"""Length of the traced ``tcpsim lab`` run (``--duration``); the window sits after its first second."""
_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<flags>\S+)\s+(?P<t>[\d.]+): "
                   r"(?P<ev>\w+): (?P<rest>.*)$")
_DATA_LEN = re.compile(r"data_len=(\d+)")


def count_events(lines: Iterable[str]) -> tuple[Counter, float, dict[int, str]]:
    """Counts by (event, kind, context, CPU) of a tracefs text trace, the span it covers (s), and the writer's
    and reader's pids.

    ``kind`` is ``data`` or ``ack`` for ``tcp_probe``, else empty; ``context`` is ``softirq`` when the event ran
    in one (the flags' third column ``s``), else the process: ``writer`` / ``reader`` (the pids seen in
    ``sock_send_length`` / ``sock_recv_length``) or its name."""
    rows = []
    writers: Counter = Counter()
    readers: Counter = Counter()
    for line in lines:
        m = _LINE.match(line)
        if not m:
            continue
        ev = m["ev"]
        rows.append((ev, m["comm"].strip(), int(m["pid"]), m["cpu"], m["flags"], float(m["t"]), m["rest"]))
        if ev == "sock_send_length":
            writers[int(m["pid"])] += 1
        elif ev == "sock_recv_length":
            readers[int(m["pid"])] += 1
    writer = writers.most_common(1)[0][0] if writers else -1
    reader = readers.most_common(1)[0][0] if readers else -1
    counts: Counter = Counter()
    for ev, comm, pid, cpu, flags, _, rest in rows:
        kind = ""
        if ev == "tcp_probe":
            found = _DATA_LEN.search(rest)
            kind = "data" if found and int(found[1]) else "ack"
        if len(flags) > 2 and flags[2] in "sH":
            context = "softirq"
        else:
            context = "writer" if pid == writer else "reader" if pid == reader else comm
        counts[(ev, kind, context, cpu)] += 1
    times = [r[5] for r in rows]
    return counts, (max(times) - min(times)) if len(times) > 1 else 0.0, {writer: "writer", reader: "reader"}


def _descendants(root: int) -> list[int]:
    """Every process below ``root`` (by the parent pid in ``/proc/PID/stat``)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent[int(entry)] = int(_read(f"/proc/{entry}/stat").rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [root]
    while frontier:
        kids = [pid for pid, pp in parent.items() if pp in frontier]
        found += kids
        frontier = kids
    return found


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read(1 << 16)


def _io_calls(pid: int) -> tuple[int, int]:
    """The read- and write-family system calls ``pid`` has made (``syscr``, ``syscw`` of ``/proc/PID/io``, the task
    I/O accounting, which counts a ``read`` or ``write`` on a socket as on any file); (-1, -1) where unreadable."""
    try:
        fields = dict(ln.split(":", 1) for ln in _read(f"/proc/{pid}/io").splitlines() if ":" in ln)
        return int(fields["syscr"]), int(fields["syscw"])
    except (OSError, KeyError, ValueError):
        return -1, -1


def _cpu_sample(pids: list[int]) -> dict[int, tuple[str, float, float, int, int, int]]:
    """(name, user s, system s, voluntary switches, read calls, write calls) of each live process in ``pids``."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            head, rest = _read(f"/proc/{pid}/stat").rsplit(")", 1)
            fields = rest.split()
            vol = next(int(ln.split(":")[1]) for ln in _read(f"/proc/{pid}/status").splitlines()
                       if ln.startswith("voluntary_ctxt_switches"))
        except (OSError, StopIteration, ValueError):
            continue
        out[pid] = (head.split("(", 1)[1], int(fields[11]) / tick, int(fields[12]) / tick, vol, *_io_calls(pid))
    return out


def _cpu_over(pids: list[int], window_s: float, roles: Optional[dict[int, str]]) -> list[dict]:
    """Each iperf3 process's user and system CPU seconds a second, sleeps a second and read and write calls a second
    over the next ``window_s``, named by ``roles`` where it names it; a reader's or writer's CPU seconds per call of
    its kind (``cpu_s_per_call``: everything its CPU time holds, the backlog and the ACKs it runs included)."""
    before, t0 = _cpu_sample(pids), time.monotonic()
    time.sleep(window_s)
    after, span_s = _cpu_sample(pids), time.monotonic() - t0
    out = []
    for pid, (name, u, s, vol, reads, writes) in sorted(after.items()):
        if pid not in before or name != "iperf3":
            continue
        b = before[pid]
        row = {"process": (roles or {}).get(pid, name), "pid": pid, "user_s_per_s": round((u - b[1]) / span_s, 3),
               "system_s_per_s": round((s - b[2]) / span_s, 3), "sleeps_per_s": round((vol - b[3]) / span_s)}
        if reads >= 0 and b[4] >= 0:
            row.update(reads_per_s=round((reads - b[4]) / span_s), writes_per_s=round((writes - b[5]) / span_s))
            calls = {"reader": row["reads_per_s"], "writer": row["writes_per_s"]}.get(row["process"], 0)
            if calls > 0:
                row["cpu_s_per_call"] = float(f"{(row['user_s_per_s'] + row['system_s_per_s']) / calls:.4g}")
        out.append(row)
    return out


def _iperf3_roles(pids: list[int]) -> dict[int, str]:
    """``reader`` for an iperf3 server, ``writer`` for a client (``-R`` swaps them), from their command lines."""
    roles = {}
    for pid in pids:
        try:
            argv = _read(f"/proc/{pid}/cmdline").split("\0")
        except OSError:
            continue
        if argv and argv[0].endswith("iperf3"):
            server = "-s" in argv
            roles[pid] = "reader" if server != ("-R" in argv) else "writer"
    return roles


def _per_read_s(lab_args: list[str], goodput_bps: Optional[float], tools_cpu: list[dict]) -> Optional[float]:
    """The reader's CPU seconds per read on a ``--message N`` run: its CPU time a second over goodput / 8 / N."""
    if "--message" not in lab_args or not goodput_bps:
        return None
    block = parse_int(lab_args[lab_args.index("--message") + 1], "--message")
    cpu = [t["user_s_per_s"] + t["system_s_per_s"] for t in tools_cpu if t["process"] == "reader"]
    return cpu[0] / (goodput_bps / 8.0 / block) if len(cpu) == 1 else None


def _trace_run(lab_args: list[str], window_s: float, untraced: bool = False, run_s: float = RUN_S) -> dict:
    with BackgroundLab(lab_args, run_s) as lab:
        time.sleep(1.0)
        pids = _descendants(lab.proc.pid)
        if untraced:
            counts, span_s, roles = Counter(), 0.0, _iperf3_roles(pids)
            tools_cpu = _cpu_over(pids, window_s, roles)
        else:
            with traced(buffer_kb=65536, events=EVENTS) as tr:
                sampled = _cpu_over(pids, window_s, None)
                counts, span_s, roles = count_events(tr.lines())
            tools_cpu = [{**t, "process": roles.get(t["pid"], t["process"])} for t in sampled]
        measured = lab.result(60 + run_s).get("measured") or {}
    span_s = span_s or window_s
    rates = [{"event": ev, "kind": kind, "context": ctx, "cpu": int(cpu), "per_s": round(n / span_s)}
             for (ev, kind, ctx, cpu), n in sorted(counts.items(), key=lambda kv: -kv[1])]
    run = {"scenario": shlex.join(lab_args), "goodput_bps": measured.get("goodput_bps"), "span_s": span_s,
           "rates": rates, "tools_cpu": tools_cpu}
    if untraced:
        run["reader_per_read_s"] = _per_read_s(lab_args, measured.get("goodput_bps"), tools_cpu)
    return run


TOOL_COSTS_SCENARIO = ("--rate", "1gbit", "--message", "40")
"""The run :func:`iperf3_call_costs` measures on: 40-byte Nagle-on messages at 1 Gbit/s, whose iperf3 reader is
saturated (it reads its 40-byte block a call) and whose writes mostly join the tail skb."""
SATURATED_CPU_S = 0.95
"""A reader this busy (CPU seconds a second) spends all its time on its reads, so its time per read is their cost."""


def iperf3_call_costs(window_s: float = 1.0, run_s: float = 4.0) -> tuple[Optional[dict[str, float]], str]:
    """The read and the write as iperf3's processes spend them, user and system CPU time per call, from one untraced
    run of :data:`TOOL_COSTS_SCENARIO` (root, namespaces, iperf3): ``per_syscall_rx_s`` and ``per_syscall_s``, and
    a note; or None and why the run cannot say (validation/README.md, "The tools' own costs judged again, the goodput
    first": on the third VM these two beat the probes' for a machine file from its parts)."""
    try:
        run = _trace_run(list(TOOL_COSTS_SCENARIO), window_s, untraced=True, run_s=run_s)
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as exc:
        return None, f"the lab run failed ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    by_role = {t["process"]: t for t in run["tools_cpu"]}
    reader, writer = by_role.get("reader"), by_role.get("writer")
    if not reader or not writer or "cpu_s_per_call" not in writer or not run.get("reader_per_read_s"):
        return None, "the run had no iperf3 reader and writer to time"
    busy = reader["user_s_per_s"] + reader["system_s_per_s"]
    if busy < SATURATED_CPU_S:
        return None, f"its reader was {busy:.2f} CPU-s a second busy, not saturated"
    costs = {"per_syscall_s": writer["cpu_s_per_call"], "per_syscall_rx_s": float(f"{run['reader_per_read_s']:.4g}")}
    return costs, (f"python -m tcpsim.lab.rxtrace --untraced --scenario \"{shlex.join(TOOL_COSTS_SCENARIO)}\": "
                   f"iperf3's user and system time per call, its reader {busy:.2f} CPU-s a second")


def main(argv: Optional[list[str]] = None) -> int:
    ap = OneLineParser(prog="python -m tcpsim.lab.rxtrace", description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", required=True, metavar="LAB_ARGS",
                    help="tcpsim lab's arguments for one run (\"--rate 0 --write 16k\"); repeatable")
    ap.add_argument("--window", type=typed(parse_duration, "window", lo_s=0.05, hi_s=1.0), default="0.3s",
                    help="how long to trace in each run (0.05-1 s; the trace of a busy run is tens of MB a second)")
    ap.add_argument("--duration", type=typed(parse_duration, "duration", lo_s=2.0, hi_s=10.0), default=f"{RUN_S:g}s",
                    help="each tcpsim lab run's length (2-10 s; the window starts after its first second)")
    ap.add_argument("--untraced", action="store_true",
                    help="switch no tracepoint on: only the tools' CPU (and a --message run's CPU time per read)")
    args = ap.parse_args(argv)
    window_s = args.window
    if window_s > args.duration - 1.5:
        print(f"{ap.prog}: --window {window_s:g} s does not fit a {args.duration:g}-s run after its first second",
              file=sys.stderr)
        return 2
    if os.geteuid() != 0 or not (args.untraced or tracefs_has("events/tcp/tcp_probe")):
        needs = "root (tcpsim lab makes namespaces)" if args.untraced else \
            f"root and tracefs at {TRACEFS} with the tcp, sock, sched and ipi events"
        print(f"{ap.prog}: needs {needs}", file=sys.stderr)
        return 2
    runs = []
    for sc in args.scenario:
        try:
            runs.append(_trace_run(shlex.split(sc), window_s, args.untraced, args.duration))
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            print(f"{ap.prog}: {sc}: {exc}", file=sys.stderr)
            return 2
    print(json.dumps({"kernel": os.uname().release, "load_avg": os.getloadavg(), "window_s": window_s,
                      "traced": not args.untraced, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
