"""The delay line's random loss: frames of a GSO aggregate, the pieces around lost ones, the draws."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.lab.frames import VNET_HDR_BYTES, FrameLoss, cut, frame_count, inet_checksum, lose_frames

SRC, DST = bytes([10, 254, 1, 1]), bytes([10, 254, 2, 1])
MSS = 1448
TCP_OPTIONS = bytes([1, 1, 8, 10]) + bytes(8)  # NOP, NOP, timestamps
FIN, PSH, ACK, CWR = 0x01, 0x08, 0x10, 0x80


def _packet(payload: bytes, *, gso_size: int = MSS, flags: int = ACK | PSH, needs_csum: bool = True,
            seq: int = 1000, ip_id: int = 7) -> bytes:
    """A packet as the TUN device hands it over: virtio header, IPv4, TCP with timestamps, payload."""
    tcp_len = 20 + len(TCP_OPTIONS) + len(payload)
    tcp = bytearray(struct.pack("!HHIIBBHHH", 40000, 5201, seq, 1, (32 // 4) << 4, flags, 512, 0, 0) + TCP_OPTIONS)
    pseudo = inet_checksum(SRC + DST + struct.pack("!HH", 6, tcp_len))
    if needs_csum:
        struct.pack_into("!H", tcp, 16, pseudo)
    else:
        struct.pack_into("!H", tcp, 16, ~inet_checksum(bytes(tcp) + payload, pseudo) & 0xFFFF)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + tcp_len, ip_id, 0x4000, 64, 6, 0, SRC, DST))
    struct.pack_into("!H", ip, 10, ~inet_checksum(bytes(ip)) & 0xFFFF)
    gso = len(payload) > gso_size
    vnet = struct.pack("<BBHHHH", 1 if needs_csum else 0, 1 if gso else 0, 52, gso_size if gso else 0, 30, 16)
    return vnet + bytes(ip) + bytes(tcp) + payload


def _fields(pkt: bytes) -> dict:
    v = struct.unpack_from("<BBHHHH", pkt)
    ip = pkt[VNET_HDR_BYTES:VNET_HDR_BYTES + 20]
    tcp_at = VNET_HDR_BYTES + 20
    tcp = pkt[tcp_at:tcp_at + 32]
    return {"gso_type": v[1], "gso_size": v[3], "needs_csum": v[0] & 1, "ip_len": struct.unpack_from("!H", ip, 2)[0],
            "ip_id": struct.unpack_from("!H", ip, 4)[0], "seq": struct.unpack_from("!I", tcp, 4)[0], "flags": tcp[13],
            "ip_ok": inet_checksum(ip) == 0xFFFF, "payload": pkt[tcp_at + 32:], "tcp": bytes(tcp)}


def _tcp_checksum_ok(pkt: bytes) -> bool:
    """Complete a CHECKSUM_PARTIAL packet's checksum as a device would, then check it over the pseudo-header."""
    f = _fields(pkt)
    segment = bytearray(pkt[VNET_HDR_BYTES + 20:])
    if f["needs_csum"]:
        struct.pack_into("!H", segment, 16, ~inet_checksum(bytes(segment)) & 0xFFFF)
    pseudo = inet_checksum(SRC + DST + struct.pack("!HH", 6, len(segment)))
    return inet_checksum(bytes(segment), pseudo) == 0xFFFF


def _payload(n_bytes: int) -> bytes:
    return bytes(i % 251 for i in range(n_bytes))


def test_frames_of_an_aggregate_and_of_a_packet():
    assert frame_count(_packet(_payload(3 * MSS + 500))) == 4
    assert frame_count(_packet(_payload(3 * MSS))) == 3
    assert frame_count(_packet(_payload(100))) == 1
    assert frame_count(_packet(b"")) == 1  # a pure ACK
    assert frame_count(b"\0" * 20) == 1  # too short to be TCP: one frame all the same


@pytest.mark.parametrize("needs_csum", [True, False])
def test_cut_gives_the_pieces_tcp_gso_segment_would(needs_csum):
    data = _payload(4 * MSS + 300)
    pkt = _packet(data, flags=ACK | PSH | CWR, needs_csum=needs_csum)
    assert _tcp_checksum_ok(pkt)
    first, last = cut(pkt, [(0, 2), (4, 5)])  # frames 2 and 3 lost
    a, b = _fields(first), _fields(last)
    assert a["payload"] == data[:2 * MSS] and b["payload"] == data[4 * MSS:]
    assert (a["seq"], b["seq"]) == (1000, 1000 + 4 * MSS)
    assert (a["ip_id"], b["ip_id"]) == (7, 11)
    assert (a["ip_len"], b["ip_len"]) == (52 + 2 * MSS, 52 + 300)
    assert a["flags"] == ACK | CWR and b["flags"] == ACK | PSH  # PSH on the last piece, CWR on the first
    assert (a["gso_type"], a["gso_size"], b["gso_type"], b["gso_size"]) == (1, MSS, 0, 0)
    assert a["ip_ok"] and b["ip_ok"]
    assert _tcp_checksum_ok(first) and _tcp_checksum_ok(last)


def test_cut_refuses_what_is_no_aggregate():
    with pytest.raises(ValueError, match="not an IPv4 TCP GSO aggregate"):
        cut(_packet(_payload(100)), [(0, 1)])


@settings(max_examples=200, deadline=None)
@given(n_frames=st.integers(1, 45), tail=st.integers(1, MSS), lost=st.sets(st.integers(0, 44)),
       fin=st.booleans())
def test_what_crosses_is_the_aggregate_less_its_lost_frames(n_frames, tail, lost, fin):
    """Concatenated, the pieces' payloads are the original's without the lost frames' bytes, each piece starting
    at its own sequence number, every checksum valid, PSH and FIN only where the original's last frame is."""
    lost = sorted(i for i in lost if i < n_frames)
    data = _payload((n_frames - 1) * MSS + tail)
    pkt = _packet(data, flags=ACK | PSH | (FIN if fin else 0))

    class Fixed(FrameLoss):
        def drops(self, n: int) -> list[int]:
            return list(lost)

    pieces = lose_frames(pkt, Fixed(0.0, 0))
    kept = b"".join(data[i * MSS:(i + 1) * MSS] for i in range(n_frames) if i not in lost)
    assert b"".join(_fields(p)["payload"] for p in pieces) == kept
    for p in pieces:
        f = _fields(p)
        offset = f["seq"] - 1000
        assert offset % MSS == 0 and f["payload"] == data[offset:offset + len(f["payload"])]
        assert f["ip_ok"] and _tcp_checksum_ok(p)
        ends_original = offset + len(f["payload"]) == len(data)
        assert bool(f["flags"] & (PSH | FIN)) == ends_original


@settings(max_examples=100, deadline=None)
@given(p=st.sampled_from([0.0, 1e-3, 0.05, 0.5, 1.0]), seed=st.integers(0, 2 ** 31 - 1),
       batches=st.lists(st.integers(1, 50), min_size=1, max_size=40))
def test_the_frames_lost_do_not_depend_on_how_they_are_batched(p, seed, batches):
    """Per frame, not per packet: the same seed loses the same frames whether they come one by one or in
    aggregates of any size."""
    one, many = FrameLoss(p, seed), FrameLoss(p, seed)
    total = sum(batches)
    singles = [i for i in range(total) if one.drops(1)]
    grouped, start = [], 0
    for n in batches:
        grouped += [start + i for i in many.drops(n)]
        start += n
    assert grouped == singles
    assert (many.frames, many.dropped) == (total, len(singles))


def test_loss_rate_is_the_probability():
    loss = FrameLoss(0.01, 12345)
    for _ in range(20_000):
        loss.drops(45)
    n = loss.frames
    sigma = (n * 0.01 * 0.99) ** 0.5
    assert abs(loss.dropped - 0.01 * n) < 5 * sigma


def test_a_loss_probability_out_of_range_is_refused():
    with pytest.raises(ValueError, match="loss"):
        FrameLoss(1.5, 0)
