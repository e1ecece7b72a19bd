"""iperf3 ``-J`` output: run it inside a lab's namespaces, and read a file of it (any two hosts)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..errors import ConfigError

__all__ = ["Iperf3Run", "parse_iperf3", "read_iperf3", "client_args"]


@dataclass(frozen=True)
class Iperf3Run:
    """What one iperf3 client run reports (sender's view, SI units)."""

    goodput_bps: float
    """Bytes the receiver got over the run time (``end.sum_received``)."""
    sent_bps: float
    duration_s: float
    n_streams: int
    write_bytes: int
    sockbuf_bytes: Optional[int]
    """The ``-w`` request (None: not set, autotuning)."""
    mss_bytes: Optional[int]
    retransmits: int
    rtt_mean_s: Optional[float]
    rtt_min_s: Optional[float]
    cpu_sender_frac: Optional[float]
    cpu_receiver_frac: Optional[float]
    reverse: bool
    series: tuple[dict, ...]
    """One entry per interval: t_s, goodput_bps, and (summed or averaged over streams) cwnd, rtt, snd_wnd."""
    version: str = ""


def parse_iperf3(doc: dict) -> Iperf3Run:
    """An :class:`Iperf3Run` from iperf3's ``-J`` JSON (3.1 or later); ConfigError on anything else."""
    if not isinstance(doc, dict) or "end" not in doc or "start" not in doc:
        raise ConfigError("iperf3", "JSON", "iperf3 -J output (an object with 'start' and 'end')")
    if doc.get("error"):
        raise ConfigError("iperf3", doc["error"], "a completed run (this one reports an error)")
    start, end = doc["start"], doc["end"]
    test = start.get("test_start", {})
    if test.get("protocol", "TCP") != "TCP":
        raise ConfigError("iperf3", test.get("protocol"), "a TCP run (UDP is not modelled)")
    recv = end.get("sum_received") or {}
    sent = end.get("sum_sent") or {}
    if not recv.get("seconds"):
        raise ConfigError("iperf3", "sum_received", "a run with a receiver summary (iperf3 3.1 or later)")
    rtts, mins = [], []
    for st in end.get("streams", []):
        snd = st.get("sender", {})
        if snd.get("mean_rtt"):
            rtts.append(snd["mean_rtt"] * 1e-6)
        if snd.get("min_rtt"):
            mins.append(snd["min_rtt"] * 1e-6)
    series = []
    for iv in doc.get("intervals", []):
        s, streams = iv.get("sum", {}), iv.get("streams", [])
        row: dict[str, Any] = {"t_s": s.get("end"), "goodput_bps": s.get("bits_per_second")}
        cw = [x["snd_cwnd"] for x in streams if "snd_cwnd" in x]
        if cw:
            row["cwnd_bytes"] = sum(cw)
        rt = [x["rtt"] * 1e-6 for x in streams if x.get("rtt")]
        if rt:
            row["rtt_s"] = sum(rt) / len(rt)
        wn = [x["snd_wnd"] for x in streams if "snd_wnd" in x]
        if wn:
            row["peer_window_bytes"] = sum(wn)
        row["retransmits"] = sum(x.get("retransmits", 0) for x in streams)
        series.append(row)
    cpu = end.get("cpu_utilization_percent") or {}
    bufsize = start.get("sock_bufsize") or None
    return Iperf3Run(
        goodput_bps=float(recv["bits_per_second"]), sent_bps=float(sent.get("bits_per_second", 0.0)),
        duration_s=float(recv["seconds"]), n_streams=int(test.get("num_streams", len(end.get("streams", [])) or 1)),
        write_bytes=int(test.get("blksize", 131072)), sockbuf_bytes=int(bufsize) if bufsize else None,
        mss_bytes=start.get("tcp_mss_default") or None, retransmits=int(sent.get("retransmits", 0) or 0),
        rtt_mean_s=sum(rtts) / len(rtts) if rtts else None, rtt_min_s=min(mins) if mins else None,
        cpu_sender_frac=cpu["host_total"] / 100 if "host_total" in cpu else None,
        cpu_receiver_frac=cpu["remote_total"] / 100 if "remote_total" in cpu else None,
        reverse=bool(test.get("reverse", 0)), series=tuple(series), version=str(start.get("version", "")))


def read_iperf3(path: str | Path) -> Iperf3Run:
    """:func:`parse_iperf3` of a file; ConfigError naming the file when it is unreadable or not iperf3's."""
    from ..fileio import read_json_limited

    doc = read_json_limited(path, "iperf3", "a JSON file written by iperf3 -J")
    try:
        return parse_iperf3(doc)
    except ConfigError as exc:
        raise ConfigError("iperf3", str(path), f"iperf3 -J output ({exc})") from None


def client_args(server: str, port: int, duration_s: float, *, sockbuf: Optional[int], write_bytes: int,
                nodelay: bool, n_streams: int, interval_s: float, cc: Optional[str] = None,
                max_pacing_rate_bps: float = 0.0) -> list[str]:
    """The iperf3 client command line of a lab run. iperf3 reads ``-t`` as whole seconds (``atoi``: "0.5" is 0,
    which runs for ever), so a fractional duration is rounded up; the measured seconds come from its JSON.
    ``--fq-rate`` (bits/s) is ``SO_MAX_PACING_RATE`` of its value over 8 on the sending sockets."""
    args = ["iperf3", "-c", server, "-p", str(port), "-J", "-t", str(max(1, math.ceil(duration_s))), "-l", str(write_bytes),
            "-P", str(n_streams), "-i", f"{interval_s:g}", "--connect-timeout", "5000"]
    if sockbuf:
        args += ["-w", str(sockbuf)]
    if nodelay:
        args.append("-N")
    if cc:
        args += ["-C", cc]
    if max_pacing_rate_bps:
        args += ["--fq-rate", str(int(max_pacing_rate_bps))]
    return args
