"""Run a :class:`~tcpsim.lab.scenario.LabScenario` on this machine's kernel and measure it."""

from __future__ import annotations

import json
import os
import platform as _platform
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Optional

from ..errors import ConfigError
from .capture import SNAPLEN_BYTES
from .iperf3 import client_args, parse_iperf3
from .scenario import LabScenario
from .testbed import LabUnavailable, Testbed, has_netem

__all__ = ["Measured", "LabRun", "run_lab", "pinned_cpus", "SYSCTLS", "choose_tool", "cpu_model",
           "RETRANSMIT_COUNTERS", "RECEIVER_COUNTERS", "retransmit_note", "default_placement", "can_pin",
           "through_relay", "DEFAULT_PIN_CPUS", "DEFAULT_RELAY_CPU"]

SYSCTLS = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max",
           "net.core.rmem_default", "net.core.wmem_default", "net.ipv4.tcp_adv_win_scale",
           "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_autocorking", "net.ipv4.tcp_limit_output_bytes",
           "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_sack", "net.ipv4.tcp_window_scaling",
           "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_no_metrics_save", "net.ipv4.tcp_notsent_lowat",
           "net.core.default_qdisc", "net.ipv4.tcp_tso_win_divisor")
"""The sysctls recorded with every run (as the sender's namespace sees them)."""

RETRANSMIT_COUNTERS = {
    "TCPFastRetrans": "sent in fast recovery (tcp_xmit_retransmit_queue)",
    "TCPLossProbes": "tail loss probes (tcp_send_loss_probe)",
    "TCPTimeouts": "retransmission timeouts, every one (tcp_retransmit_timer, 5.2 on)",
    "TCPRenoRecoveryFail": "first timeouts of a series in fast recovery, without SACK (tcp_retransmit_timer)",
    "TCPSackRecoveryFail": "first timeouts of a series in fast recovery, with SACK",
    "TCPRenoFailures": "first timeouts of a series in the disorder state or with segments counted SACKed, "
                       "without SACK: duplicate ACKs came, too few to begin a recovery",
    "TCPSackFailures": "the same with SACK",
    "TCPLossFailures": "first timeouts of a series in the loss state: a timeout's retransmission timed out again",
    "TCPSlowStartRetrans": "sent in the loss state after a timeout",
    "TCPSpuriousRTOs": "timeouts undone as spurious (F-RTO, tcp_try_undo_loss)",
    "TCPDSACKRecv": "D-SACKs received: the receiver had the data already (the retransmission was spurious)",
    "TCPSACKReorder": "reorderings the sender saw in SACKs (tcp_check_sack_reordering)",
    "TCPRenoReorder": "reorderings a sender without SACK inferred from more duplicate ACKs than segments out "
                      "(tcp_check_reno_reordering), each raising its duplicate-ACK threshold",
}
"""The sender namespace's ``TcpExt`` counters that say why a run retransmitted (net/ipv4/proc.c's names)."""

RECEIVER_COUNTERS = {
    "TCPOFOQueue": "segments queued out of order (tcp_data_queue_ofo)",
    "TCPOFODrop": "out-of-order segments dropped for want of receive buffer (tcp_data_queue_ofo)",
    "TCPRcvQDrop": "in-order segments dropped for want of receive buffer (tcp_data_queue)",
}
"""The receiver namespace's ``TcpExt`` counters that tell a segment reordered on the path from one lost there or
dropped at the receiving socket."""

_PORT = 5301
_CAPTURE_SLACK_S = 10.0
"""A capture's own bound beyond the run's duration (set-up and the tool's start), should no SIGTERM come."""
_INTERVAL_S = 0.1


@dataclass(frozen=True)
class Measured:
    """What the kernel did (SI units). Rates from interface counters count what the veth counts: with
    TSO/GSO a large segment crosses it as one unit, so ``tx_units_per_s`` is not MSS-sized packets;
    ``data_segments_per_s`` (TCP_INFO data_segs_out, built-in generator only) is."""

    goodput_bps: float
    tool: str
    duration_s: float
    tx_units_per_s: float
    rx_units_per_s: float
    data_segments_per_s: Optional[float]
    ack_segments_per_s: Optional[float]
    retransmits: int
    rtt_min_s: Optional[float]
    rtt_mean_s: Optional[float]
    cpu_busy_frac: float
    """Share of all the machine's CPUs busy during the run (/proc/stat; other users' load counts too)."""
    cpu_tools_s_per_s: float
    """CPU seconds per second used by the sender and receiver processes (getrusage of children)."""
    transactions_per_s: Optional[float] = None
    series: tuple[dict, ...] = ()
    """Samples over time: t_s, goodput_bps and TCP_INFO fields (cwnd_bytes, rtt_s, peer_window_bytes ...)."""
    cpu_shares: dict[str, dict[str, float]] = field(default_factory=dict)
    """Each CPU's shares of the run, its start included (:func:`cpu_shares`): with ``--pin`` the sender's CPU and the
    receiver's apart, so which one a CPU-bound row is bound by is measured, not guessed."""
    delay_line_drops: Optional[int] = None
    """Packets the user-space delay line's devices dropped during the run (None without it,
    :meth:`~tcpsim.lab.testbed.Testbed.delay_line_drops`); a loss the scenario asked for (``--loss``) is not counted."""
    retransmit_causes: dict[str, int] = field(default_factory=dict)
    """The run's increments of :data:`RETRANSMIT_COUNTERS` in the sender's namespace (empty if unread): a loss
    probe or timeout whose data the receiver reports as a duplicate was fired by a delay, not a loss."""
    receiver_counters: dict[str, int] = field(default_factory=dict)
    """The run's increments of :data:`RECEIVER_COUNTERS` in the receiver's namespace (empty if unread)."""
    tool_version: str = ""
    """iperf3's own version, as its ``-J`` reports it ("iperf 3.12"; empty for the built-in generator): from 3.16 its
    streams have a thread each (:func:`tcpsim.lab.scenario.iperf3_threaded`)."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["series"] = list(self.series)
        return d


@dataclass(frozen=True)
class LabRun:
    scenario: LabScenario
    measured: Measured
    kernel: str
    sysctls: dict[str, str]
    delay_line: str
    cpu: str
    load_avg: tuple[float, float, float]
    notes: tuple[str, ...] = field(default=())


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return f"{line.split(':', 1)[1].strip()} x{os.cpu_count()}"
    except OSError:
        pass
    return f"{_platform.processor() or 'unknown'} x{os.cpu_count()}"


_STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def _proc_stat() -> dict[str, list[float]]:
    """The /proc/stat times (jiffies) of the whole machine (``cpu``) and of each CPU (``cpu0`` ...)."""
    out: dict[str, list[float]] = {}
    with open("/proc/stat") as fh:
        for line in fh:
            name, *vals = line.split()
            if not name.startswith("cpu"):
                break
            out[name] = [float(v) for v in vals]
    return out


def _busy_frac(before: dict[str, list[float]], after: dict[str, list[float]]) -> float:
    """Share of all the machine's CPUs busy between two :func:`_proc_stat` readings (idle and iowait are not)."""
    b, a = before["cpu"], after["cpu"]
    idle = (a[3] - b[3]) + (a[4] - b[4] if len(a) > 4 else 0.0)
    return 1.0 - idle / max(sum(a) - sum(b), 1e-9)


def cpu_shares(before: dict[str, list[float]], after: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Each CPU's shares of the time between two :func:`_proc_stat` readings: user (with nice), system,
    softirq (where a veth's receive work runs), other (irq, steal) and idle (with iowait)."""
    shares = {}
    for cpu, b in before.items():
        if not cpu[3:].isdigit():
            continue
        d = dict(zip(_STAT_FIELDS, (y - x for x, y in zip(b, after.get(cpu, b)))))
        total = sum(d.values())
        if total <= 0:
            continue
        shares[cpu] = {"user": (d["user"] + d["nice"]) / total, "system": d["system"] / total,
                       "softirq": d["softirq"] / total, "other": (d["irq"] + d["steal"]) / total,
                       "idle": (d["idle"] + d["iowait"]) / total}
    return shares


def choose_tool(sc: LabScenario, tool: str) -> str:
    """``iperf3`` where installed and the scenario fits it (same buffer both ways, no request/response)."""
    fits = sc.rr_bytes is None and sc.sndbuf_bytes == sc.rcvbuf_bytes
    if tool == "iperf3":
        if shutil.which("iperf3") is None:
            raise LabUnavailable("--tool iperf3: iperf3 is not installed (apt-get install iperf3)")
        if not fits:
            raise LabUnavailable("--tool iperf3 runs neither --rr nor different --sndbuf/--rcvbuf; use --tool builtin")
        return "iperf3"
    if tool == "builtin":
        return "builtin"
    return "iperf3" if fits and shutil.which("iperf3") else "builtin"


def _wait_ready(proc: subprocess.Popen, what: str, timeout_s: float = 15.0) -> None:
    """Wait for the server's first line (``ready``) or fail; the line is read by a helper with a deadline."""
    import threading

    got: list[str] = []
    t = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    t.start()
    t.join(timeout_s)
    if not got or not got[0].startswith("ready"):
        raise LabUnavailable(f"the {what} server did not start within {timeout_s:.0f} s")


def _communicate(proc: subprocess.Popen, timeout_s: float, what: str) -> str:
    """``proc``'s output once it ends; killed, and one line raised, if it runs past ``timeout_s``."""
    try:
        return proc.communicate(timeout=timeout_s)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise LabUnavailable(f"{what} did not finish within {timeout_s:.0f} s") from None


def pinned_cpus(sc: LabScenario) -> tuple[Optional[int], Optional[int]]:
    """The sending and the receiving tool's CPUs (``LabScenario.pin_cpus``), each checked against this machine."""
    if sc.pin_cpus is None:
        return None, None
    n = os.cpu_count() or 1
    if max(sc.pin_cpus) >= n:
        raise ConfigError("pin", ",".join(map(str, sc.pin_cpus)), f"CPUs 0..{n - 1} on this machine")
    if shutil.which("taskset") is None:
        raise LabUnavailable("--pin needs taskset (util-linux), which is not installed")
    return sc.pin_cpus


DEFAULT_PIN_CPUS, DEFAULT_RELAY_CPU = (0, 1), 0
"""The placement a run through the relay takes when it names none: the delay line pinned to CPU 0, the sending tool
beside it, the receiving tool on CPU 1 (validation/README.md, "The tools pinned beside the relay" and "The pinned
lab as the default, decided on a seventh build")."""


def can_pin() -> bool:
    """Whether this machine can take the default placement: two CPUs or more, and ``taskset``."""
    return (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None


def default_placement(sc: LabScenario, delay_line: str = "auto") -> LabScenario:
    """``sc`` placed as ``tcpsim lab`` places a run that names no placement (neither ``--pin`` nor ``--relay-cpu``).

    A run through the user-space relay (an added delay where the kernel has no ``netem``, or asked for with
    ``delay_line="relay"``) on a machine of at least two CPUs with ``taskset`` gets :data:`DEFAULT_RELAY_CPU` and
    :data:`DEFAULT_PIN_CPUS`: a relay or a tool moving between CPUs puts segments out of order now and then, and one
    late segment makes Linux send most of a small window again. Any other run, or a scenario that names a placement,
    is returned as it is. :func:`run_lab` itself runs a scenario as given.
    """
    if sc.pin_cpus is not None or sc.relay_cpu is not None or not can_pin() or not through_relay(sc, delay_line):
        return sc
    return replace(sc, pin_cpus=DEFAULT_PIN_CPUS, relay_cpu=DEFAULT_RELAY_CPU)


def through_relay(sc: LabScenario, delay_line: str = "auto") -> bool:
    """Whether ``sc`` runs through the user-space relay: an added delay, and ``delay_line`` "relay", or "auto" where
    the kernel has no ``netem`` or the run draws a loss (:class:`~tcpsim.lab.testbed.Testbed`'s choice)."""
    if not sc.rtt_s or delay_line == "netem":
        return False
    return delay_line == "relay" or bool(sc.loss_frac) or not has_netem()


def _run_builtin(tb: Testbed, sc: LabScenario) -> tuple[dict, dict]:
    common = ["--port", str(_PORT), "--streams", str(sc.n_streams), "--interval", str(_INTERVAL_S),
              "--cc", sc.congestion_control]
    if sc.max_pacing_rate_bps:
        common += ["--max-pacing-rate", str(int(sc.max_pacing_rate_bps))]
    bufs = []
    if sc.sndbuf_bytes:
        bufs += ["--sndbuf", str(sc.sndbuf_bytes)]
    if sc.rcvbuf_bytes:
        bufs += ["--rcvbuf", str(sc.rcvbuf_bytes)]
    mode = ["--rr", str(sc.rr_bytes), "--response", str(sc.response_bytes or sc.rr_bytes)] if sc.rr_bytes else []
    py = [sys.executable, "-m", "tcpsim.lab.generator"]
    snd_cpu, rcv_cpu = pinned_cpus(sc)
    srv = tb.spawn(tb.ns_b, [*py, "server", "--bind", tb.receiver_addr, *common, *bufs, *mode,
                             "--max-s", str(sc.duration_s + 20)], "server", cpu=rcv_cpu, stdout=subprocess.PIPE)
    _wait_ready(srv, "generator")
    cli = tb.spawn(tb.ns_a, [*py, "client", "--connect", tb.receiver_addr, *common, *bufs, *mode,
                             "--write", str(sc.write_bytes), "--duration", str(sc.duration_s)]
                   + (["--nodelay"] if sc.nodelay else []), "client", cpu=snd_cpu, stdout=subprocess.PIPE)
    out_c = _communicate(cli, sc.duration_s + 30, "the built-in generator's client")
    out_s = _communicate(srv, 30, "the built-in generator's server")
    try:
        return json.loads(out_c.strip().splitlines()[-1]), json.loads(out_s.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise LabUnavailable("the built-in generator ended without a result") from None


def _run_iperf3(tb: Testbed, sc: LabScenario) -> dict:
    snd_cpu, rcv_cpu = pinned_cpus(sc)
    srv = tb.spawn(tb.ns_b, ["iperf3", "-s", "-1", "-B", tb.receiver_addr, "-p", str(_PORT)], "iperf3 server",
                   cpu=rcv_cpu, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    args = client_args(tb.receiver_addr, _PORT, sc.duration_s, sockbuf=sc.sockbuf_bytes, write_bytes=sc.write_bytes,
                       nodelay=sc.nodelay, n_streams=sc.n_streams, interval_s=_INTERVAL_S, cc=sc.congestion_control,
                       max_pacing_rate_bps=sc.max_pacing_rate_bps)
    doc: dict = {}
    for _attempt in range(20):  # the server may still be starting
        cli = tb.spawn(tb.ns_a, args, "iperf3 client", cpu=snd_cpu, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = _communicate(cli, sc.duration_s + 30, "the iperf3 client")
        try:
            doc = json.loads(out)
        except ValueError:
            doc = {"error": "no JSON"}
        if "unable to connect" not in str(doc.get("error", "")):
            break
        time.sleep(0.25)
    try:
        srv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    return doc


def _series_builtin(client: dict, server: dict) -> tuple[list[dict], dict[str, Optional[float]]]:
    by_t: dict[float, list[dict]] = {}
    for s in client["samples"]:
        by_t.setdefault(s["t_s"], []).append(s)
    series, prev_bytes, prev_t = [], 0, 0.0
    for t in sorted(by_t):
        ss = by_t[t]
        acked = sum(s.get("bytes_acked", 0) for s in ss)
        row = {"t_s": t, "goodput_bps": (acked - prev_bytes) * 8 / (t - prev_t) if t > prev_t else None,
               "cwnd_bytes": sum(s["snd_cwnd"] * s["snd_mss"] for s in ss if "snd_cwnd" in s),
               "rtt_s": sum(s["rtt_us"] for s in ss) / len(ss) * 1e-6,
               "retransmits": sum(s.get("total_retrans", 0) for s in ss)}
        if all("snd_wnd" in s for s in ss):
            row["peer_window_bytes"] = sum(s["snd_wnd"] for s in ss)
        series.append(row)
        prev_bytes, prev_t = acked, t
    rcv = [s for s in server.get("samples", [])]
    for row in series:  # the receiver's view at the nearest sample
        near = [s for s in rcv if abs(s["t_s"] - row["t_s"]) < _INTERVAL_S / 2]
        if near:
            row["rcv_space_bytes"] = sum(s.get("rcv_space", 0) for s in near)
            row["rcv_ssthresh_bytes"] = sum(s.get("rcv_ssthresh", 0) for s in near)
    last = {}
    for s in client["samples"]:
        last[s["stream"]] = s
    elapsed = client["elapsed_s"] or 1.0
    extra: dict[str, Optional[float]] = {
        "data_segments_per_s": sum(s.get("data_segs_out", 0) for s in last.values()) / elapsed,
        "ack_segments_per_s": sum(s.get("segs_in", 0) for s in last.values()) / elapsed,
        "retransmits": float(sum(s.get("total_retrans", 0) for s in last.values())),
        "rtt_min_s": min((s["min_rtt_us"] for s in last.values() if s.get("min_rtt_us")), default=0) * 1e-6 or None,
        "rtt_mean_s": (sum(r["rtt_s"] for r in series) / len(series)) if series else None,
    }
    return series, extra


def retransmit_note(retransmits: int, causes: dict[str, int], receiver: Optional[dict[str, int]] = None) -> str:
    """One line on why a run retransmitted, from its :data:`RETRANSMIT_COUNTERS` (and :data:`RECEIVER_COUNTERS`)
    increments."""
    c, r = causes.get, (receiver or {}).get
    text = (f"its {retransmits} retransmissions: {c('TCPFastRetrans', 0)} in fast recovery, {c('TCPLossProbes', 0)} "
            f"loss probes, {c('TCPTimeouts', 0)} timeouts ({c('TCPSpuriousRTOs', 0)} undone as spurious"
            f"{_timeout_states(c)}); the "
            f"receiver reported {c('TCPDSACKRecv', 0)} as duplicates (D-SACK), sent for a delay rather than a loss; "
            f"the sender saw {c('TCPSACKReorder', 0) + c('TCPRenoReorder', 0)} reorderings")
    if receiver:
        text += (f"; the receiver queued {r('TCPOFOQueue', 0)} segments out of order and dropped "
                 f"{r('TCPOFODrop', 0) + r('TCPRcvQDrop', 0)} for want of buffer")
    return text


def _start_capture(tb: Testbed, path: str, duration_s: float) -> subprocess.Popen:
    """Start capturing the sender's interface to ``path`` (bounded by the run's length and a frame count) and
    wait until its socket is bound (a file of that name is replaced)."""
    if os.path.exists(path):
        os.remove(path)
    cap = tb.spawn(tb.ns_a, [sys.executable, "-m", "tcpsim.lab.capture", "--dev", tb.dev_a, "--out", str(path),
                             "--seconds", f"{duration_s + _CAPTURE_SLACK_S:g}"], "capture",
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and cap.poll() is None and not os.path.exists(path):
        time.sleep(0.02)
    time.sleep(0.05)  # the header is written once the socket is bound
    return cap


def _stop_capture(cap: subprocess.Popen) -> Optional[tuple[int, int]]:
    """Stop the capture; the frames it wrote and those it missed for want of buffer (None if it did not end)."""
    if cap.poll() is None:
        cap.send_signal(signal.SIGTERM)
    try:
        out, _err = cap.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        return None
    try:
        frames, dropped = (int(x) for x in out.strip().splitlines()[-1].split())
    except ValueError:
        return None
    return frames, dropped


def _timeout_states(c) -> str:
    """Where the first timeouts of their series fired (the kernel counts those by state; the rest of
    ``TCPTimeouts`` are later timeouts of a series or fired in the open state); empty where none was counted."""
    states = (("in fast recovery", c("TCPRenoRecoveryFail", 0) + c("TCPSackRecoveryFail", 0)),
              ("in disorder", c("TCPRenoFailures", 0) + c("TCPSackFailures", 0)),
              ("in the loss state", c("TCPLossFailures", 0)))
    said = [f"{n} {where}" for where, n in states if n]
    return "; first of a series: " + ", ".join(said) if said else ""


def run_lab(sc: LabScenario, tool: str = "auto", delay_line: str = "auto", pcap_path: Optional[str] = None) -> LabRun:
    """Set up the namespaces, run ``sc`` once, tear everything down; the measurement and the kernel's facts.
    ``pcap_path``: also capture the sender's interface there, headers only (:mod:`tcpsim.lab.capture`)."""
    tool = choose_tool(sc, tool)
    with Testbed(sc.rate_bps, sc.rtt_s, sc.mtu_bytes, delay_line=delay_line, cc=sc.congestion_control,
                 loss_frac=sc.loss_frac, relay_cpu=sc.relay_cpu, sack=sc.sack) as tb:
        sysctls = tb.sysctls(SYSCTLS)
        cap = _start_capture(tb, pcap_path, sc.duration_s) if pcap_path else None
        sysctls["congestion_control (per socket)"] = sc.congestion_control
        st0, drops0, mib0 = tb.link_stats(tb.ns_a, tb.dev_a), tb.delay_line_drops(), tb.tcp_counters()
        rx0 = tb.tcp_counters(tb.ns_b)
        cpu0, ru0, t0 = _proc_stat(), resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        if tool == "builtin":
            client, server = _run_builtin(tb, sc)
        else:
            doc = _run_iperf3(tb, sc)
        wall = time.monotonic() - t0
        cpu1, ru1 = _proc_stat(), resource.getrusage(resource.RUSAGE_CHILDREN)
        st1, drops1, mib1 = tb.link_stats(tb.ns_a, tb.dev_a), tb.delay_line_drops(), tb.tcp_counters()
        rx1 = tb.tcp_counters(tb.ns_b)
        delay, loss_seed = tb.delay_line, tb.loss_seed
        captured = _stop_capture(cap) if cap is not None else None
    busy = _busy_frac(cpu0, cpu1)
    tools_cpu = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) / max(wall, 1e-9)
    notes: list[str] = []
    version = ""
    if tool == "builtin":
        series, extra = _series_builtin(client, server)
        dur = max(server["last_rx_s"]) if server.get("last_rx_s") and not sc.rr_bytes else client["elapsed_s"]
        if sc.rr_bytes:
            n = sum(server["bytes"])
            # both directions' application bytes, as tcpsim counts a request/response goodput
            both = sc.rr_bytes + (sc.response_bytes or sc.rr_bytes)
            goodput, tps = n * both * 8 / client["elapsed_s"], n / client["elapsed_s"]
        else:
            goodput, tps = sum(server["bytes"]) * 8 / max(dur, 1e-9), None
    else:
        run = parse_iperf3(doc)
        version = run.version
        series = [dict(r) for r in run.series]
        dur, goodput, tps = run.duration_s, run.goodput_bps, None
        extra = {"data_segments_per_s": None, "ack_segments_per_s": None, "retransmits": float(run.retransmits),
                 "rtt_min_s": run.rtt_min_s, "rtt_mean_s": run.rtt_mean_s}
        notes.append("iperf3 reports the sender's TCP_INFO per interval (cwnd, srtt, peer window); "
                     "rtt_min_s is the smallest interval srtt, not the kernel's min_rtt")
    span = max(dur, 1e-9)
    measured = Measured(
        goodput_bps=goodput, tool=tool, duration_s=dur,
        tx_units_per_s=(st1.get("tx_packets", 0) - st0.get("tx_packets", 0)) / span,
        rx_units_per_s=(st1.get("rx_packets", 0) - st0.get("rx_packets", 0)) / span,
        data_segments_per_s=extra["data_segments_per_s"], ack_segments_per_s=extra["ack_segments_per_s"],
        retransmits=int(extra["retransmits"] or 0), rtt_min_s=extra["rtt_min_s"], rtt_mean_s=extra["rtt_mean_s"],
        cpu_busy_frac=busy, cpu_tools_s_per_s=tools_cpu, transactions_per_s=tps, series=tuple(series),
        cpu_shares=cpu_shares(cpu0, cpu1), tool_version=version,
        delay_line_drops=None if drops0 is None or drops1 is None else drops1 - drops0,
        retransmit_causes={k: mib1[k] - mib0.get(k, 0) for k in RETRANSMIT_COUNTERS if k in mib1},
        receiver_counters={k: rx1[k] - rx0.get(k, 0) for k in RECEIVER_COUNTERS if k in rx1})
    if measured.delay_line_drops:
        notes.append(f"the delay line dropped {measured.delay_line_drops} packets the scenario did not ask for: this "
                     "run's retransmissions are partly the path's, not TCP's alone")
    if measured.retransmits and measured.retransmit_causes:
        notes.append(retransmit_note(measured.retransmits, measured.retransmit_causes, measured.receiver_counters))
    if pcap_path:
        notes.append(f"capture: {captured[0]} frames of the sender's interface in {pcap_path} (headers, "
                     f"{SNAPLEN_BYTES} bytes of each; a GSO aggregate is one frame), {captured[1]} missed for want "
                     "of buffer" if captured is not None
                     else f"capture: {pcap_path} was not completed (the capture did not stop when asked)")
    if sc.relay_cpu is not None:
        notes.append(f"the delay line ran on CPU {sc.relay_cpu} alone" if delay == "relay" else
                     f"--relay-cpu {sc.relay_cpu} placed nothing: the delay line was {delay}, not the relay")
    if delay == "relay":
        why = f"it drops each frame with probability {sc.loss_frac:g}, seed {loss_seed}" if sc.loss_frac \
            else "this kernel has no netem"
        notes.append(f"delay line: tcpsim's user-space TUN relay ({why}); its scheduling adds jitter, see rtt_min_s "
                     "and rtt_mean_s")
    return LabRun(scenario=sc, measured=measured, kernel=_platform.release(), sysctls=sysctls, delay_line=delay,
                  cpu=cpu_model(), load_avg=os.getloadavg(), notes=tuple(notes))
