"""A traced run as a libpcap capture file that tcpdump and Wireshark open (standard library only).

Each segment of ``Result.trace`` becomes an Ethernet/IPv4/TCP frame stamped with the simulated time it
left its host (as a capture on each host, merged): the simulated sequence and acknowledgement numbers,
the advertised window in the header's 16-bit field (shifted by the endpoint's RFC 7323 window scale,
``Result.window_shifts``),
the ACK and PSH flags and the options the simulated segment carries (timestamps when both ends use
them, RFC 7323 §3; SACK blocks on ACKs, RFC 2018 §3). The payload is zeros (the simulator has no
bytes), cut at ``snaplen`` like a capture's snap length; IP and TCP checksums are correct for the
zero payload.

What the simulator does not model is written so the capture reads as one:
- a three-way handshake per connection, one one-way delay apart, ending at the first traced segment,
  with the options the ends negotiate (MSS = MTU - 40, SACK-permitted, timestamps, window scale);
  sequence numbers start at 0, so the first data byte is 1 (Wireshark's relative numbering);
- addresses 10.0.0.1 (the sender host) and 10.0.0.2 (the receiver host), port 40000 + stream on the end
  that opens a connection (the one that sends its first data) and 5001 on the other;
- timestamp values from a 1 ms clock per host, and an echo of the newest value from the peer sent at
  least one one-way delay earlier (RFC 7323's TS.Recent, approximated from send times).
Capture times are ``EPOCH_S`` plus the simulated time, in nanoseconds (the pcap nanosecond format).
"""

from __future__ import annotations

import bisect
import math
import os
import struct
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["EPOCH_S", "SERVER_PORT", "CLIENT_PORT_BASE", "write_pcap", "frames", "internet_checksum",
           "ones_complement_sum", "file_header", "record"]

EPOCH_S = 1_700_000_000
"""Capture time of simulated time zero (2023-11-14 22:13:20 UTC): any fixed time, so files are deterministic."""
SERVER_PORT = 5001
CLIENT_PORT_BASE = 40000
_MAGIC_NS = 0xA1B23C4D
_LINKTYPE_ETHERNET = 1
_HOSTS = {"sender": (bytes([10, 0, 0, 1]), bytes.fromhex("020000000001")),
          "receiver": (bytes([10, 0, 0, 2]), bytes.fromhex("020000000002"))}
_TS_CLOCK_HZ = 1000
_TS_OFFSET = {"sender": 100_000, "receiver": 200_000}
_FIN, _SYN, _PSH, _ACK = 0x01, 0x02, 0x08, 0x10


def ones_complement_sum(data: bytes, start: int = 0) -> int:
    """The Internet checksum's folded 16-bit ones'-complement sum of ``data`` (RFC 1071), added to ``start`` (a
    pseudo-header's sum, say); not complemented."""
    if len(data) % 2:
        data += b"\0"
    total = start + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def internet_checksum(data: bytes) -> int:
    """RFC 1071 Internet checksum."""
    return ~ones_complement_sum(data) & 0xFFFF


def _options(mss: int | None = None, sack_permitted: bool = False, ts: tuple[int, int] | None = None,
             wscale: int | None = None, sack: Sequence[tuple[int, int]] = ()) -> bytes:
    """TCP options, NOP-aligned to 32 bits as Linux lays them out (tcp_options_write)."""
    out = b""
    if mss is not None:
        out += struct.pack("!BBH", 2, 4, mss)
    if sack_permitted:
        out += b"\x01\x01\x04\x02"
    if ts is not None:
        out += b"\x01\x01" + struct.pack("!BBII", 8, 10, ts[0] & 0xFFFFFFFF, ts[1] & 0xFFFFFFFF)
    if wscale is not None:
        out += b"\x01" + struct.pack("!BBB", 3, 3, wscale)
    if sack:
        out += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * len(sack))
        out += b"".join(struct.pack("!II", a & 0xFFFFFFFF, b & 0xFFFFFFFF) for a, b in sack)
    return out


def _frame(src: str, dst: str, sport: int, dport: int, seq: int, ack: int, flags: int, window_field: int,
           options: bytes, payload_bytes: int, ip_id: int) -> tuple[bytes, int]:
    """Headers of one Ethernet/IPv4/TCP frame and the frame's full length (headers + zero payload)."""
    (src_ip, src_mac), (dst_ip, dst_mac) = _HOSTS[src], _HOSTS[dst]
    tcp_len = 20 + len(options) + payload_bytes
    offset = (20 + len(options)) // 4
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, offset << 4, flags,
                      window_field, 0, 0) + options
    pseudo = src_ip + dst_ip + struct.pack("!BBH", 0, 6, tcp_len)
    tcp = tcp[:16] + struct.pack("!H", internet_checksum(pseudo + tcp)) + tcp[18:]  # zero payload adds nothing
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + tcp_len, ip_id & 0xFFFF, 0x4000, 64, 6, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", internet_checksum(ip)) + ip[12:]
    eth = dst_mac + src_mac + b"\x08\x00"
    return eth + ip + tcp, 14 + 20 + tcp_len


def frames(trace: Sequence[tuple], scenario: Any, window_shifts: Mapping[str, int] | None = None
           ) -> list[tuple[float, bytes, int]]:
    """``(time_s, headers, frame_bytes)`` per frame: the handshakes, then every trace row (see the module).

    ``window_shifts``: each endpoint's receive window shift by trace name (``Result.window_shifts``); an
    endpoint left out gets the RFC 7323 shift for its largest window (:func:`tcpsim.protocol.window.window_shift`).
    """
    from .protocol.window import window_shift

    link = scenario.link
    opts = {"sender": scenario.sender.tcp, "receiver": scenario.receiver.tcp}
    use_ts = opts["sender"].timestamps and opts["receiver"].timestamps
    default = {h: window_shift(o.window_limit_bytes, o.window_scaling) for h, o in opts.items()}
    shifts = dict(window_shifts or {})

    def shift_of(who: str) -> int:
        return shifts.get(who, default[who.partition("#")[0]])
    delay = max(link.one_way_delay_s, 1e-6)
    ip_id = {"sender": 0, "receiver": 0}
    sent_ts: dict[tuple[str, str], tuple[list[float], list[int]]] = {}  # (host, stream) -> times, TSvals

    def stamp(host: str, stream: str, t: float, value: int) -> None:
        times, values = sent_ts.setdefault((host, stream), ([], []))
        times.append(t)
        values.append(value)

    def tsval(host: str, t: float) -> int:
        return _TS_OFFSET[host] + math.floor(t * _TS_CLOCK_HZ)

    def echo(host: str, stream: str, t: float) -> int:
        peer = "receiver" if host == "sender" else "sender"
        times, values = sent_ts.get((peer, stream), ([], []))
        i = bisect.bisect_right(times, t - delay + 1e-12)
        return values[i - 1] if i else 0

    by_stream: dict[str, list[tuple]] = {}
    for row in trace:
        by_stream.setdefault(str(row[1]).partition("#")[2], []).append(row)
    ports: dict[tuple[str, str], int] = {}
    out: list[tuple[float, bytes, int]] = []
    for stream, rows in by_stream.items():
        first_data = next((r for r in rows if r[2] == "data"), rows[0])
        client = str(first_data[1]).partition("#")[0]
        server = "receiver" if client == "sender" else "sender"
        ports[(client, stream)] = CLIENT_PORT_BASE + int(stream or 0)
        ports[(server, stream)] = SERVER_PORT
        t0 = rows[0][0]
        for k, (host, peer, flags) in enumerate(((client, server, _SYN), (server, client, _SYN | _ACK),
                                                 (client, server, _ACK))):
            t = t0 - (3 - k) * delay
            o = opts[host]
            ts = (tsval(host, t), echo(host, stream, t)) if use_ts else None
            syn = bool(flags & _SYN)
            sh = shift_of(f"{host}#{stream}" if stream else host)
            opt = _options(mss=link.mtu_bytes - 40, sack_permitted=o.sack, ts=ts,
                           wscale=sh if o.window_scaling else None) if syn else _options(ts=ts)
            window = min(o.max_window_bytes, 65535) if syn else min(o.max_window_bytes >> sh, 65535)
            head, size = _frame(host, peer, ports[(host, stream)], ports[(peer, stream)], 0 if syn else 1,
                                1 if flags & _ACK else 0, flags, window, opt, 0, ip_id[host])
            ip_id[host] += 1
            if ts is not None:
                stamp(host, stream, t, ts[0])
            out.append((t, head, size))
    for t, who, kind, seq, length, ack, wnd, _why, push, sack in trace:
        host, _, stream = str(who).partition("#")
        peer = "receiver" if host == "sender" else "sender"
        ts = (tsval(host, t), echo(host, stream, t)) if use_ts else None
        opt = _options(ts=ts, sack=[(a + 1, b + 1) for a, b in (sack or ())])
        flags = _ACK | (_PSH if push else 0)
        head, size = _frame(host, peer, ports[(host, stream)], ports[(peer, stream)], seq + 1, ack + 1, flags,
                            min(wnd >> shift_of(str(who)), 65535), opt, length, ip_id[host])
        ip_id[host] += 1
        if ts is not None:
            stamp(host, stream, t, ts[0])
        out.append((t, head, size))
    out.sort(key=lambda f: f[0])  # stable: same-time frames keep their order
    return out


def file_header(snaplen: int) -> bytes:
    """A nanosecond libpcap file's header: Ethernet frames of at most ``snaplen`` bytes."""
    return struct.pack("<IHHiIII", _MAGIC_NS, 2, 4, 0, 0, snaplen, _LINKTYPE_ETHERNET)


def record(sec: int, ns: int, data: bytes, orig_len: int) -> bytes:
    """One frame's record: its capture time (seconds and nanoseconds), the bytes kept, and its length on the wire."""
    return struct.pack("<IIII", sec, ns, len(data), orig_len) + data


def write_pcap(path: str | os.PathLike, trace: Sequence[tuple], scenario: Any, snaplen: int = 65535,
               window_shifts: Mapping[str, int] | None = None) -> int:
    """Write ``trace`` (``Result.trace`` of a run of ``scenario``) to ``path`` as a nanosecond libpcap file
    with at most ``snaplen`` bytes of each frame; returns the number of frames. ``window_shifts`` as
    :func:`frames` (give ``Result.window_shifts``)."""
    from .errors import ConfigError

    if isinstance(snaplen, bool) or not isinstance(snaplen, int) or not 54 <= snaplen <= 262144:
        raise ConfigError("snaplen", snaplen, "a whole number of bytes in 54..262144")
    records = frames(trace, scenario, window_shifts)
    try:
        with open(path, "wb") as fh:
            fh.write(file_header(snaplen))
            for t, head, size in records:
                whole = math.floor(t)
                sec, ns = EPOCH_S + whole, round((t - whole) * 1e9)
                if ns >= 1_000_000_000:
                    sec, ns = sec + 1, ns - 1_000_000_000
                data = (head + bytes(max(size - len(head), 0)))[:snaplen]
                fh.write(record(sec, ns, data, size))
    except OSError as exc:
        from .errors import OutputError
        from .fileio import is_device_full

        if is_device_full(exc):
            raise OutputError(f"pcap: cannot write {path}: {exc.strerror}") from None
        raise ConfigError("pcap", str(path), f"a writable file ({exc.strerror})") from None
    return len(records)
