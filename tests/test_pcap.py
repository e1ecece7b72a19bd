"""``explain --pcap``: the capture reads back with dpkt, frame by frame equal to the trace."""

import struct

import pytest

from tcpsim.cli import main
from tcpsim.errors import ConfigError
from tcpsim.explain import explain
from tcpsim.pcap import CLIENT_PORT_BASE, EPOCH_S, SERVER_PORT, write_pcap

dpkt = pytest.importorskip("dpkt")


@pytest.fixture(scope="module")
def lossy():
    """Linux ends (timestamps, window scaling), SACK, random loss: retransmissions and SACK blocks in the trace."""
    return explain(segments=400, os="linux", rtt="10ms", sockbuf="1M", sack=True, loss=0.01)


def _read(path):
    with open(path, "rb") as fh:
        return [(ts, buf) for ts, buf in dpkt.pcap.Reader(fh)]


def _ones_complement_ok(data: bytes) -> bool:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def test_every_frame_matches_the_trace(lossy, tmp_path):
    trace = lossy.trace
    assert any(r[9] for r in trace), "the scenario should produce SACK blocks"
    path = tmp_path / "run.pcap"
    assert lossy.to_pcap(path) == len(trace) + 3
    packets = _read(path)
    assert len(packets) == len(trace) + 3
    sc = lossy.scenario
    shift = lossy.result.window_shifts
    assert set(shift) == {"sender#0", "receiver#0"} and shift["receiver#0"] > 0
    syn = dpkt.ethernet.Ethernet(packets[0][1]).data.data
    opts = {k: v for k, v in dpkt.tcp.parse_opts(syn.opts) if k != 1}  # NOPs left out
    assert syn.flags == dpkt.tcp.TH_SYN and struct.unpack("!H", opts[2])[0] == sc.link.mtu_bytes - 40
    assert opts[3][0] == shift["sender#0"] and 4 in opts and 8 in opts
    for (ts, buf), row in zip(packets[3:], trace):
        t, who, kind, seq, length, ack, wnd, why, push, sack = row
        host = str(who).partition("#")[0]
        eth = dpkt.ethernet.Ethernet(buf)
        ip, tcp = eth.data, eth.data.data
        assert float(ts) == pytest.approx(EPOCH_S + t, abs=2e-6)
        assert ip.src == (bytes([10, 0, 0, 1]) if host == "sender" else bytes([10, 0, 0, 2]))
        assert (tcp.sport, tcp.dport) == ((CLIENT_PORT_BASE, SERVER_PORT) if host == "sender"
                                          else (SERVER_PORT, CLIENT_PORT_BASE))
        assert tcp.seq == seq + 1 and tcp.ack == ack + 1
        assert tcp.win << shift[who] == wnd
        assert bool(tcp.flags & dpkt.tcp.TH_PUSH) == bool(push) and tcp.flags & dpkt.tcp.TH_ACK
        assert ip.len - ip.hl * 4 - tcp.off * 4 == length
        parsed = {k: v for k, v in dpkt.tcp.parse_opts(tcp.opts) if k != 1}
        assert 8 in parsed  # timestamps on every segment when both ends use them
        blocks = [struct.unpack("!II", parsed[5][i:i + 8]) for i in range(0, len(parsed.get(5, b"")), 8)]
        assert blocks == [(a + 1, b + 1) for a, b in (sack or ())]
        assert _ones_complement_ok(bytes(ip)[:20])
        pseudo = ip.src + ip.dst + struct.pack("!BBH", 0, 6, ip.len - 20)
        assert _ones_complement_ok(pseudo + bytes(tcp))  # whole frame captured: the checksum covers it all


def test_snaplen_cuts_the_frames_and_keeps_their_length(lossy, tmp_path):
    path = tmp_path / "short.pcap"
    write_pcap(path, lossy.trace, lossy.scenario, snaplen=96)
    with open(path, "rb") as fh:
        assert dpkt.pcap.Reader(fh).snaplen == 96
    data = path.read_bytes()
    off, caps, origs = 24, [], []
    while off < len(data):
        _, _, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        caps.append(incl)
        origs.append(orig)
        off += 16 + incl
    assert max(caps) == 96 and max(origs) == lossy.scenario.link.mtu_bytes + 14


def test_cli_writes_the_capture(tmp_path, capsys):
    path = tmp_path / "cli.pcap"
    assert main(["explain", "--rtt", "1ms", "--segments", "12", "--pcap", str(path)]) == 0
    assert len(_read(path)) == 15
    assert "capture written" in capsys.readouterr().err


def test_bad_snaplen_is_one_clear_error(lossy, tmp_path):
    with pytest.raises(ConfigError, match="snaplen"):
        write_pcap(tmp_path / "x.pcap", lossy.trace, lossy.scenario, snaplen=10)
