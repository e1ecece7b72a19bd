"""Rates count what crossed the wire; results are strict, deterministic JSON; the report blames what happened
(issue 24)."""

import json
import math

from tcpsim.api import build_scenario, predict, simulate
from tcpsim.cli import main
from tcpsim.config import Budget
from tcpsim.protocol import framing
from tcpsim.report_text import advice

from bounds import check_physical_bounds, check_strict_json

_SHORT = Budget(max_sim_time_s=0.02)


def test_a_gigabyte_buffer_does_not_report_more_than_the_link_carries():
    """The unbounded link queue grows all run long; frames still in it have not crossed the wire (was 1.97
    Gbit/s and 162,549 data/s on a 1 Gbit/s link)."""
    sc = build_scenario(sockbuf="1G", budget=_SHORT)
    r = simulate(sc)
    assert r.interface_bps["forward"] <= 1e9
    assert r.data_packets_per_s <= 1e9 / (8 * framing.wire_bytes(1460))
    check_physical_bounds(sc, r)


def test_goodput_never_above_the_line_rate_goodput_with_jumbo_frames():
    """The measurement window opens on a read, not between two frames (was 992.4 against 991.4 Mbit/s)."""
    sc = build_scenario(mtu=9000, sockbuf="512k")
    r = simulate(sc)
    assert r.goodput_bps <= framing.line_goodput_bps(1e9, 9000)
    assert r.goodput_bps > 0.99 * framing.line_goodput_bps(1e9, 9000)


def test_a_tbf_line_carries_what_the_shaper_charges():
    """Behind a token bucket (the lab's tbf) a frame costs its skb's bytes, 1,514 for 1,448 of payload, not the
    wire's 1,538: the kernel's shaped 1 Gbit/s runs went 953.7-955.1 Mbit/s, the 802.3 line is 941.5."""
    sc = build_scenario(os="linux-6.12", rtt="1ms", sockbuf="4M", burst="125k", budget=Budget(max_sim_time_s=0.3))
    assert sc.link.skb_charged
    r = simulate(sc)
    line = framing.line_goodput_bps(1e9, 1500, timestamps=True, skb_charged=True)
    assert r.ceilings_bps["line"] == line == 1e9 * 1448 / 1514
    assert 0.995 * line < r.goodput_bps <= line
    check_physical_bounds(sc, r)


def test_line_ceiling_of_tiny_nodelay_messages_bounds_the_goodput():
    """With TCP_NODELAY, 1-byte writes still fill whole segments while the window holds them: the line
    ceiling is that of full segments (was 110 Mbit/s under 3.7 Gbit/s of goodput)."""
    sc = build_scenario(message=1, nodelay=True, rate="10gbit", sockbuf="1M", budget=Budget(max_events=20_000))
    r = simulate(sc)
    assert r.goodput_bps <= r.ceilings_bps["line"]
    assert r.ceilings_bps["line"] == framing.line_goodput_bps(1e10, 1500)
    rr = simulate(build_scenario(rr="64k", budget=_SHORT))
    assert rr.goodput_bps <= rr.ceilings_bps["line"]  # requests one way, responses the other


def test_retransmissions_without_drops_are_not_blamed_on_the_hosts():
    """--rtt 10s, the first 5 s: the first timeout fires before the ACK can return; nothing was dropped anywhere.
    (Left to the scenario, the budget runs 500 round trips and measures after that timeout.)"""
    sc = build_scenario(rtt="10s", budget=Budget(max_sim_time_s=5.0))
    r = simulate(sc)
    assert r.retransmits > 0 and not any(r.drops.values())
    text = advice(sc, r)
    assert "drops in the hosts" not in text and "nothing lost" in text


def test_to_dict_is_strict_json_and_leaves_wall_time_out():
    r = predict(sockbuf="32k", rtt="10s")  # inf ceilings, no RTT sample
    d = r.to_dict()
    assert "wall_s" not in d and r.to_dict(timing=True)["wall_s"] == r.wall_s
    assert d["ceilings_bps"]["cpu_sender"] is None
    check_strict_json(r)
    nan = predict(method="ceilings").to_dict()
    assert nan["data_packets_per_s"] is None
    json.dumps(nan, allow_nan=False)


def test_predict_json_gives_the_same_bytes_for_the_same_seed(capsys):
    args = ["predict", "--loss", "0.01", "--max-time", "20ms", "--json"]
    outs = []
    for _ in range(2):
        assert main(args) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "wall_s" not in outs[0]
    assert main(args + ["--timing"]) == 0
    assert math.isfinite(json.loads(capsys.readouterr().out)["wall_s"])


def test_a_receiver_that_hands_data_up_in_bursts_does_not_read_above_the_line():
    """Found by the fuzz campaign: Solaris holds 28-byte segments back and hands them up together; over a
    short window the reads came to 2.69 Mbit/s on a link that carries 2.64 Mbit/s of goodput."""
    sc = build_scenario(rate="10mbit", rtt="10us", mtu=68, streams=3, message="1460", os="solaris",
                        budget=Budget(max_sim_time_s=0.01, max_events=20_000, max_wall_s=2.0))
    r = simulate(sc)
    check_physical_bounds(sc, r)


def test_reads_from_full_buffers_do_not_exceed_what_the_bus_carried():
    """Found by the fuzz campaign: 40 streams both ways over p4_linux's bus read 1.34 Gbit/s in a 7.5 ms
    window out of full 1 MB buffers; the bus carries 1.28 Gbit/s."""
    sc = build_scenario(rate="1gbit", rtt="10us", mtu=9000, streams=40, sockbuf="1M", message="64k", bidir=True,
                        platform="p4_linux", sack=True, seed=2,
                        budget=Budget(max_sim_time_s=0.01, max_events=20_000, max_wall_s=2.0))
    r = simulate(sc)
    check_physical_bounds(sc, r)


def test_retransmissions_after_receive_queue_drops_point_at_the_reader():
    """Segments a Linux receive queue above its buffer refused (``Result.drops["receiver_memory"]``) are repaired
    like any loss; the advice names the slow reader and its buffer, not the NIC's rings."""
    from dataclasses import replace

    sc = build_scenario(platform="lab_vm", budget=_SHORT)
    r = replace(simulate(sc), limited_by="loss_recovery", retransmits=3,
                drops={"link": 0, "receiver_ring": 0, "receiver_backlog": 0, "receiver_memory": 3})
    text = advice(sc, r)
    assert "receive queue above its buffer" in text and "--rcvbuf" in text
    assert "rings" not in text
