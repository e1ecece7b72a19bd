"""The receiver's packet trace (``python -m tcpsim.lab.skbtrace``): frame parsing and its summary, no root needed."""

import struct

import pytest

from tcpsim.lab.skbtrace import main, parse_frame, small_head_payload_bytes, summarize

MSS = 1448


def _frame(sport, dport, seq, ack, window, payload, syn=False, wscale=None):
    opts = b"\x01\x03\x03" + bytes([wscale]) if wscale is not None else b""
    opts += b"\x00" * (-len(opts) % 4)
    thl = 20 + len(opts)
    tcp = struct.pack("!HHIIHHHH", sport, dport, seq, ack, (thl // 4) << 12 | (0x12 if syn else 0x10), window, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + thl + payload, 0, 0, 64, 6, 0, bytes(4), bytes(4))
    return bytes(12) + b"\x08\x00" + ip + tcp + opts  # headers only: the length is the IP header's


def test_a_frame_s_tcp_fields_come_from_its_headers_and_a_gso_aggregate_counts_whole():
    assert parse_frame(_frame(40000, 5301, 1000, 1, 502, 24616), 5301) == (False, 40000, 1000, 24616, 1, 502, False, -1)
    assert parse_frame(_frame(5301, 40000, 0, 1001, 64, 0, syn=True, wscale=7), 5301) == \
        (True, 40000, 0, 0, 1001, 64, True, 7)
    assert parse_frame(_frame(40000, 22, 1, 1, 1, 10), 5301) is None           # another port
    assert parse_frame(b"\x00" * 12 + b"\x86\xdd" + bytes(60), 5301) is None    # not IPv4


def test_the_small_head_runts_are_those_the_tun_path_charges_less_than_a_segment():
    """rx_truesize on the TUN path: 2,304 bytes for a full 1,448-byte segment, 1,280 up to 588 bytes."""
    assert small_head_payload_bytes(MSS) == 588


def _rtt(t0, seq, sizes, gap_s=10e-6):
    """Data skbs arriving back to back from ``t0``, then the reader's ACK of all of them."""
    out, t = [], t0
    for n in sizes:
        out.append((t, False, 40000, seq, n, 1, 0, False, -1))
        seq += n
        t += gap_s
    return out, seq, t


def test_a_lone_small_runt_on_an_empty_queue_is_named_with_the_window_it_opened():
    pkts = [(0.0, True, 40000, 0, 0, 1, 64, True, 0)]
    seq, t = 1, 0.001
    for k in range(4):
        data, seq, t = _rtt(t, seq, [24616, 24616])
        pkts += data + [(t + 40e-6, True, 40000, 1, 0, seq, 49232 if k < 3 else 50680, False, -1)]
        if k == 2:  # a write's short tail, alone, after the reader read everything
            pkts += [(t + 500e-6, False, 40000, seq, 312, 1, 0, False, -1)]
            seq += 312
            pkts += [(t + 540e-6, True, 40000, 1, 0, seq, 50680, False, -1)]
        t += 2e-3
    pkts += [(0.5, False, 40001, 1, 37, 1, 0, False, -1)]  # the control connection: not the busiest
    s = summarize(pkts, MSS, 0.002, 0.008)
    assert s["data_skbs"] == 9 and s["lone_runts"] == s["lone_runts_small_head"] == 1
    assert s["lone_runt_sizes"] == {312: 1}
    (event,) = s["lone_small_runts_on_empty_queue"]
    assert (event["bytes"], event["window_before"], event["window_after"]) == (312, 49232, 50680)
    assert [w["bytes"] for w in s["windows_offered"]] == [49232, 50680]  # the SYN's window is unscaled: left out
    assert s["acks"] == 5 and s["acks_per_round_trip"] == pytest.approx(5 * 0.002 / 0.008)


def test_a_runt_behind_data_still_queued_is_not_on_an_empty_queue():
    pkts = [(0.0, False, 40000, 1, 24616, 1, 0, False, -1), (1e-5, False, 40000, 24617, 312, 1, 0, False, -1),
            (5e-5, True, 40000, 1, 0, 24929, 49232, False, -1)]
    assert summarize(pkts, MSS, 0.002, 0.002)["lone_small_runts_on_empty_queue"] == []


def test_without_root_it_says_what_is_missing_in_one_line(capsys, monkeypatch):
    import tcpsim.lab.skbtrace as skbtrace

    monkeypatch.setattr(skbtrace, "missing_requirement", lambda: "tcpsim lab needs root")
    assert main(["--duration", "1s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs root" in err


def _logged_run(limit=100_000, **kw):
    from tcpsim.api import build_scenario, simulate
    from tcpsim.config import Budget

    budget = Budget(rel_tol=1e-6, min_sim_time_s=0.05, max_sim_time_s=0.05, skb_log_limit=limit)
    return simulate(build_scenario(platform="lab_vm", rate="1gbit", rtt="2ms", sockbuf="32k", write="128k",
                                   budget=budget, **kw))


def test_the_model_s_receiver_log_is_its_in_order_stream_and_the_acks_it_sent():
    r = _logged_run()
    data = [p for p in r.skb_log if not p[1]]
    acks = [p for p in r.skb_log if p[1]]
    assert data and acks
    assert [p[0] for p in r.skb_log] == sorted(p[0] for p in r.skb_log)
    assert data[0][3] == 0 and all(b[3] == a[3] + a[4] for a, b in zip(data, data[1:]))  # in order, no gap
    assert max(p[4] for p in data) > MSS  # GSO aggregates arrive whole
    # an ACK acknowledges nothing beyond the skb that comes next (tcpsim takes an aggregate's segments into rcv_nxt
    # as they arrive and queues its skb at its end, so an ACK sent in between may cover part of it)
    ends = [p[3] + p[4] for p in data]
    for i, p in enumerate(r.skb_log):
        if p[1]:
            after = next((q[3] + q[4] for q in r.skb_log[i:] if not q[1]), ends[-1])
            assert p[5] <= after
    assert [a[5] for a in acks] == sorted(a[5] for a in acks)
    assert _logged_run(limit=10).skb_log == r.skb_log[:10]
    assert _logged_run(limit=0).skb_log == ()


def test_the_model_summary_is_the_kernel_s_summary_of_tcpsim_s_run_and_needs_no_root(capsys):
    from tcpsim.lab.skbtrace import model_run

    out = model_run(duration="0.5s")
    assert out["data_skbs"] > 0 and out["acks"] > 0 and out["windows_offered"]
    assert out["acks_per_round_trip"] == pytest.approx(out["acks"] * 0.002 / 0.5, rel=1e-3)
    assert out == model_run(duration="0.5s")  # deterministic
    assert main(["--model", "--duration", "0.5s"]) == 0
    assert '"data_skbs"' in capsys.readouterr().out
