"""The kernel's pace on this machine, from one probe run: the CPU work a data segment costs in one pinned ``tcpsim lab``
run of one-segment no-delay writes, against tcpsim's for the same run, and the clock at which a machine file's CPUs do
as much (validation/README.md, "The kernel's pace from one probe run").

A VM's vCPU need not deliver the pace its core and nominal clock give: three AMD VMs ran the kernel's per-segment
work at about half of it. The probe measures CPU time, not goodput; the clock it finds scales every clock-bound cost
of the file (a segment, an ACK, an interrupt), while the write, the read, the wake-ups and the per-byte costs stay
as the file has them. Root, network namespaces and iperf3, as ``tcpsim lab``::

    python -m tcpsim.machine.paceprobe parts.toml --out parts_pace.toml

``--rr CALLS`` probes with one 64-byte request and its response in flight instead (validation/README.md, "The
kernel's pace from a request/response probe"): nothing queues or coalesces, so tcpsim's work a segment falls steadily
with the clock, where the bulk probe's has two states. Its generator is the built-in one (Python), so the kernel's
time alone is compared: the measured side leaves out user time, and the predicted side takes its write and read from
CALLS, a file whose calls are the kernel's alone (``tcpsim machine detect --probes`` where iperf3 is not installed).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from typing import Any, Optional, Sequence

__all__ = ["PROBE", "PROBE_RR", "measured_work_s", "measured_kernel_work_s", "predicted_work_s", "with_clock",
           "with_calls", "pace_clock", "main"]

PROBE = {"rate": "1gbit", "write": "1448", "nodelay": True, "pin": "0,1", "duration": "3s"}
"""The probe run: one-segment writes (1448 bytes at MTU 1500) with TCP_NODELAY at 1 Gbit/s, sender and receiver
pinned, so each write is a segment and neither CPU need be saturated."""
PROBE_RR = {"rate": "0", "rr": "64", "pin": "0,1", "duration": "3s"}
"""The request/response probe: one 64-byte request and its 64-byte response in flight on an unshaped veth, pinned;
each message one write and one segment."""
SEGMENT_BYTES = 1448
CLOCK_RANGE = (0.1, 10.0)
"""The clock is sought between these multiples of the file's."""
STEPS = 10
_CLOCK_LINE = re.compile(r"^(clock_hz\s*=\s*)([0-9.eE+-]+)(.*)$", re.M)


def measured_work_s(cpu_shares: dict[str, dict[str, float]], pin: Sequence[int], goodput_bps: float) -> float:
    """CPU seconds a data segment cost the run: the pinned CPUs' busy shares (one less idle) summed, over the data
    segments a second (goodput over :data:`SEGMENT_BYTES`)."""
    busy = sum(1.0 - cpu_shares[f"cpu{c}"]["idle"] for c in pin)
    return busy / (goodput_bps / 8.0 / SEGMENT_BYTES)


def measured_kernel_work_s(cpu_shares: dict[str, dict[str, float]], pin: Sequence[int], segments_per_s: float
                           ) -> float:
    """Kernel CPU seconds a data segment cost the run: the pinned CPUs' shares less idle and less user (system,
    softirq, irq and steal), over ``segments_per_s``."""
    busy = sum(1.0 - cpu_shares[f"cpu{c}"]["idle"] - cpu_shares[f"cpu{c}"]["user"] for c in pin)
    return busy / segments_per_s


def predicted_work_s(result: Any) -> float:
    """CPU seconds a data segment cost tcpsim's hosts: their CPUs' utilisation summed over the data segments a
    second."""
    busy = sum(sum(v) for v in result.cpu_utilization_frac.values())
    return busy / result.data_packets_per_s


def _set_number(text: str, line: re.Pattern, key: str, table: str, value: float, note: str) -> str:
    """``text`` with the one number ``line`` matches (its key ``key`` of ``[table]``) set to ``value``, ``note`` as
    the line's comment."""
    if len(line.findall(text)) != 1:
        raise ValueError(f"{key}: the machine file must set {key} once, in [{table}]")
    return line.sub(lambda m: f"{m.group(1)}{value:.4g}  # {note}", text, count=1)


def with_clock(text: str, clock_hz: float, note: str) -> str:
    """A machine file's text with its ``[cpu]`` ``clock_hz`` replaced and ``note`` as the line's comment."""
    return _set_number(text, _CLOCK_LINE, "clock_hz", "cpu", clock_hz, note)


def with_calls(text: str, calls: dict[str, float], note: str) -> str:
    """A machine file's text with each ``[fixed.cpu]`` key of ``calls`` (``per_syscall_s``, ``per_syscall_rx_s``) set
    to its value, ``note`` as the line's comment; each must be set once in the file."""
    for key, value in calls.items():
        line = re.compile(rf"^({re.escape(key)}\s*=\s*)([0-9.eE+-]+)(.*)$", re.M)
        text = _set_number(text, line, key, "fixed.cpu", value, note)
    return text


def _kernel_calls(path: str) -> dict[str, float]:
    """``per_syscall_s`` and ``per_syscall_rx_s`` of the machine file at ``path`` (its ``[fixed.cpu]``)."""
    from .schema import read_toml

    f = read_toml(path, "calls")
    fixed = f.data.get("fixed", {}).get("cpu", {})
    for key in ("per_syscall_s", "per_syscall_rx_s"):
        value = fixed.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise f.error(f"fixed.cpu.{key}", value, "seconds a call, between 0 and 1")
    return {k: float(fixed[k]) for k in ("per_syscall_s", "per_syscall_rx_s")}


def pace_clock(text: str, target_s: float, predict: Any, steps: int = STEPS) -> tuple[float, list[tuple[float, float]]]:
    """The clock (Hz) at which ``predict(file_text)``'s work per segment equals ``target_s``, by bisection in log space
    over :data:`CLOCK_RANGE` times the file's clock (more clock, less work); with every (clock, work) tried."""
    m = _CLOCK_LINE.search(text)
    if m is None:
        raise ValueError("clock_hz: the machine file must set clock_hz in [cpu]")
    nominal = float(m.group(2))
    lo, hi = (math.log(nominal * k) for k in CLOCK_RANGE)
    tried = []
    for _ in range(steps):
        mid = (lo + hi) / 2
        work = predict(with_clock(text, math.exp(mid), "probe"))
        tried.append((math.exp(mid), work))
        if work > target_s:
            lo = mid  # too slow: more clock
        else:
            hi = mid
    return math.exp((lo + hi) / 2), tried


def main(argv: Optional[Sequence[str]] = None) -> int:
    from ..cliutil import fail
    from ..errors import TcpsimError
    from ..lab.cli import running_linux
    from ..lab.measure import run_lab
    from ..lab.predict import predict_lab
    from ..lab.scenario import lab_scenario
    from ..lab.testbed import install_signal_handlers, missing_requirement

    p = argparse.ArgumentParser(prog="python -m tcpsim.machine.paceprobe", description=__doc__.splitlines()[0])
    p.add_argument("file", help="a machine file (tcpsim machine detect --probes writes one)")
    p.add_argument("--out", default=None, help="write the file with the probe's clock here")
    p.add_argument("--rr", default=None, metavar="CALLS",
                   help="probe with one 64-byte request/response in flight, the kernel's time alone; CALLS is a "
                        "machine file whose write and read are the kernel's alone")
    a = p.parse_args(list(argv) if argv is not None else None)
    missing = missing_requirement()
    if missing:
        return fail(missing)
    try:
        from ..fileio import read_text_limited
        text = read_text_limited(a.file, "file")
        probe = PROBE_RR if a.rr else PROBE
        model_text = with_calls(text, _kernel_calls(a.rr), "the kernel's alone (--rr)") if a.rr else text
        sc = lab_scenario(**probe)
        os_name = running_linux()
        install_signal_handlers()
        run = run_lab(sc, tool="builtin" if a.rr else "iperf3")
        pin = [int(c) for c in probe["pin"].split(",")]
        if a.rr:
            if not run.measured.transactions_per_s:
                raise ValueError("rr: the probe run completed no transaction")
            target = measured_kernel_work_s(run.measured.cpu_shares, pin, 2.0 * run.measured.transactions_per_s)
        else:
            target = measured_work_s(run.measured.cpu_shares, pin, run.measured.goodput_bps)
        with tempfile.TemporaryDirectory(prefix="tcpsim-pace-") as folder:
            path = os.path.join(folder, "machine.toml")

            def predict(file_text: str) -> float:
                with open(path, "w") as fh:
                    fh.write(file_text)
                r = predict_lab(sc, run.sysctls, platform=path, os_name=os_name, delay_line=run.delay_line,
                                tool=run.measured.tool, tool_version=run.measured.tool_version)
                return predicted_work_s(r)

            clock, tried = pace_clock(model_text, target, predict)
    except (TcpsimError, ValueError, OSError) as exc:
        return fail(str(exc).splitlines()[0])
    nominal = float(_CLOCK_LINE.search(text).group(2))
    if a.rr:
        what = (f"the kernel's own CPU time a segment, {target * 1e6:.2f} us in one pinned run of 64-byte requests "
                f"and responses ({run.measured.transactions_per_s:,.0f} a second)")
        rate = f"{run.measured.transactions_per_s:,.0f} transactions/s"
    else:
        what = (f"the kernel's CPU work a segment, {target * 1e6:.2f} us in one pinned run of 1448-byte no-delay "
                f"writes at 1 Gbit/s ({run.measured.goodput_bps / 1e6:.0f} Mbit/s)")
        rate = f"{run.measured.goodput_bps / 1e6:.1f} Mbit/s"
    note = (f"python -m tcpsim.machine.paceprobe{' --rr' if a.rr else ''}: {what}, is tcpsim's at this clock "
            f"({clock / nominal:.2f} of {nominal:.4g})")
    print(f"measured {target * 1e6:.3f} us of CPU a segment ({rate}); "
          f"the file's clock {nominal:.4g} Hz -> {clock:.4g} Hz ({clock / nominal:.3f})")
    for hz, work in tried:
        print(f"  clock {hz:.4g} Hz: {work * 1e6:.3f} us a segment")
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(with_clock(text, clock, note))
        print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
