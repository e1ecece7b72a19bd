"""Read Linux ``struct tcp_info`` (include/uapi/linux/tcp.h) from a socket: the fields a lab run samples."""

from __future__ import annotations

import socket
import struct
from typing import Optional

__all__ = ["tcp_info", "TCP_INFO_FIELDS", "set_congestion_control", "congestion_control"]

_TCP_INFO = getattr(socket, "TCP_INFO", 11)

# (name, byte offset, struct format) in struct tcp_info; kernels older than a field return fewer bytes.
TCP_INFO_FIELDS = (
    ("retransmits", 2, "B"), ("snd_mss", 16, "I"), ("rcv_mss", 20, "I"), ("unacked", 24, "I"),
    ("lost", 32, "I"), ("retrans", 36, "I"), ("pmtu", 60, "I"), ("rcv_ssthresh", 64, "I"), ("rtt_us", 68, "I"),
    ("rttvar_us", 72, "I"), ("snd_ssthresh", 76, "I"), ("snd_cwnd", 80, "I"), ("advmss", 84, "I"),
    ("rcv_rtt_us", 92, "I"), ("rcv_space", 96, "I"), ("total_retrans", 100, "I"), ("pacing_rate", 104, "Q"),
    ("bytes_acked", 120, "Q"), ("bytes_received", 128, "Q"), ("segs_out", 136, "I"), ("segs_in", 140, "I"),
    ("notsent_bytes", 144, "I"), ("min_rtt_us", 148, "I"), ("data_segs_in", 152, "I"), ("data_segs_out", 156, "I"),
    ("delivery_rate", 160, "Q"), ("busy_time_us", 168, "Q"), ("rwnd_limited_us", 176, "Q"),
    ("sndbuf_limited_us", 184, "Q"), ("bytes_sent", 200, "Q"), ("bytes_retrans", 208, "Q"),
    ("snd_wnd", 228, "I"), ("rcv_wnd", 232, "I"),
)


def tcp_info(sock: socket.socket) -> Optional[dict[str, int]]:
    """The sampled fields of ``sock``'s TCP_INFO (None where the OS has no TCP_INFO)."""
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
    except OSError:
        return None
    out: dict[str, int] = {}
    for name, off, fmt in TCP_INFO_FIELDS:
        size = struct.calcsize(fmt)
        if off + size <= len(raw):
            out[name] = struct.unpack_from("<" + fmt, raw, off)[0]
    return out


def set_congestion_control(sock: socket.socket, name: str) -> None:
    """``TCP_CONGESTION`` of ``sock`` (root may pick one the namespace's allowed list lacks, as iperf3 -C does);
    an empty ``name`` leaves the namespace's default."""
    if name:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())


def congestion_control(sock: socket.socket) -> str:
    """The congestion control ``sock`` runs."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
