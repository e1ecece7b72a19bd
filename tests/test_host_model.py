"""The host model: CPU costs, interrupts, NIC backlog and the I/O bus bound what TCP can do."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.engine import _Run, run
from tcpsim.platform import BUS_PRESETS, CpuCost, Nic, Platform, bus_preset, os_defaults
from tcpsim.protocol import framing

COSTS = CpuCost(n_cpus=2, per_syscall_s=4e-6, per_byte_copy_s=2e-9, per_packet_tx_s=10e-6, per_packet_rx_s=12e-6,
                per_ack_tx_s=4e-6, per_ack_rx_s=4e-6, per_interrupt_s=2e-6)


def scenario(platform, *, buf=524288, write=65536, streams=1, bidir=False, rate=1e9, mtu=1500, budget=None):
    tcp = TcpOptions.for_os(platform.os, sockbuf_bytes=buf)
    return Scenario(sender=Host(platform=platform, tcp=tcp), receiver=Host(platform=platform, tcp=tcp),
                    link=Link(rate_bps=rate, mtu_bytes=mtu, one_way_delay_s=5e-6),
                    workload=Workload(write_bytes=write, n_streams=streams, bidirectional=bidir),
                    budget=budget or Budget())


def test_pci_32_33_bus_caps_a_gigabit_nic():
    """The gigabit-NIC article: a 32-bit 33 MHz PCI bus moves 133 MB/s raw, about 80 MB/s in practice."""
    bus = bus_preset("pci-32-33")
    platform = Platform(bus=bus)
    r = run(scenario(platform))
    assert r.goodput_bps / 8 < 133.3e6
    assert r.goodput_bps <= bus.ceiling_bps
    assert r.limited_by in ("bus_sender", "bus_receiver")
    assert max(r.utilization_frac["bus_sender"], r.utilization_frac["bus_receiver"]) > 0.95


def test_shared_bus_caps_the_sum_of_both_directions():
    bus = bus_preset("pcix-64-66")
    platform = Platform(bus=bus)
    r = run(scenario(platform, rate=10e9, mtu=9000, bidir=True, buf=1 << 20))
    assert r.goodput_bps <= bus.ceiling_bps
    assert r.limited_by.startswith("bus_")


def test_a_slower_card_drags_the_whole_bus_down():
    """The 10 GbE report: a RAID card that could not run at full speed forced PCI-X into low-speed mode."""
    fast = Platform(bus=bus_preset("pcix-64-100"))
    slow = Platform(bus=bus_preset("pcix-64-100").with_clock(33.33e6))
    rf = run(scenario(fast, rate=10e9, mtu=9000, buf=1 << 20))
    rs = run(scenario(slow, rate=10e9, mtu=9000, buf=1 << 20))
    assert rs.goodput_bps < 0.5 * rf.goodput_bps


def test_goodput_rises_with_write_size_then_levels_off():
    """Tru64 Table 1's shape: per-call cost dominates small writes."""
    platform = Platform(cpu=COSTS, os=os_defaults("bsd"))
    rates = [run(scenario(platform, write=w)).goodput_bps for w in (128, 1024, 8192, 65536)]
    assert rates[0] < rates[1] < rates[2] * 1.02
    assert rates[3] == pytest.approx(rates[2], rel=0.1)


def test_cpu_bound_sender_gains_from_a_second_cpu():
    one = Platform(cpu=replace(COSTS, n_cpus=1, per_packet_rx_s=1e-6), os=os_defaults("bsd"))
    two = replace(one, cpu=replace(one.cpu, n_cpus=2))
    r1, r2 = run(scenario(one)), run(scenario(two))
    assert r1.limited_by.startswith("cpu_")
    assert r2.goodput_bps > 1.2 * r1.goodput_bps


def test_receive_backlog_overflow_drops_and_tcp_recovers():
    slow_rx = replace(COSTS, per_packet_rx_s=40e-6)
    platform = Platform(cpu=slow_rx, nic=Nic(backlog_packets=20), os=os_defaults("bsd"))
    r = run(scenario(platform, buf=1 << 20, budget=Budget(max_sim_time_s=0.5)))
    assert r.drops["receiver_backlog"] > 0
    assert r.retransmits > 0
    assert r.goodput_bps > 0


def test_the_sockets_backlog_is_not_the_cpus_input_queue():
    """A Linux reader that owns its socket most of the time (100-byte no-delay messages, a receive costlier than a
    send): the segments that find it owned wait in the socket's backlog (``tcp_add_backlog``), bounded by bytes, not
    in the CPU's input queue that ``netdev_max_backlog`` bounds (``enqueue_to_backlog``). With that queue at 100
    frames hardly one in a thousand is dropped; counted against it, one in fifty was."""
    from tcpsim.os_versions import os_version

    cpu = CpuCost(n_cpus=2, per_syscall_s=2e-6, per_byte_copy_s=0.05e-9, per_packet_tx_s=0.3e-6,
                  per_packet_rx_s=3e-6, per_ack_tx_s=0.3e-6, per_ack_rx_s=0.3e-6, per_interrupt_s=0.0)
    p = Platform(cpu=cpu, nic=Nic(backlog_packets=100), os=os_version("linux-6.8"))
    tcp = TcpOptions.for_os(p.os, sockbuf_bytes=4 << 20, nodelay=True)
    assert tcp.owner_backlog
    r = run(Scenario(sender=Host(platform=p, tcp=tcp), receiver=Host(platform=p, tcp=tcp),
                     link=Link(rate_bps=10e9, mtu_bytes=1500, one_way_delay_s=5e-6), workload=Workload(write_bytes=100),
                     budget=Budget(max_sim_time_s=0.25, rel_tol=1e-6)))
    messages = r.delivered_bytes / 100
    assert messages > 50_000
    assert r.drops["receiver_backlog"] < 0.001 * messages


def test_utilizations_are_fractions_and_the_binding_one_is_highest():
    platform = Platform(cpu=COSTS, bus=bus_preset("pci-64-33"), os=os_defaults("bsd"))
    r = run(scenario(platform, streams=2))
    for name, frac in r.utilization_frac.items():
        assert 0.0 <= frac <= 1.0, name
    for cpus in r.cpu_utilization_frac.values():
        assert all(0.0 <= c <= 1.0 for c in cpus)
    physical = {k: v for k, v in r.utilization_frac.items() if k == "line" or k.startswith(("cpu_", "bus_"))}
    if r.limited_by in physical:
        assert physical[r.limited_by] == max(physical.values())


def test_interrupt_coalescing_delay_lengthens_the_rtt():
    base = Platform(cpu=COSTS, os=os_defaults("bsd"))
    coalesced = replace(base, nic=Nic(coalesce_delay_s=200e-6, coalesce_packets=64))
    fast = run(scenario(base, buf=32768))
    slow = run(scenario(coalesced, buf=32768))
    assert slow.rtt_s > fast.rtt_s + 100e-6
    assert slow.goodput_bps < fast.goodput_bps


def test_every_bus_preset_has_a_finite_ceiling():
    for name, bus in BUS_PRESETS.items():
        if name != "none":
            assert 0 < bus.ceiling_bps < bus.raw_bps


def test_linux_defaults_of_the_10gbe_report_cap_setsockopt_and_kernel_tuning_lifts_it():
    """Appendix B: rmem_max 65535, so GenSink's setsockopt(262144) gets 2 x 65535; Appendix C lifts the cap."""
    from tcpsim.profiles import load_platform

    normal = load_platform("rx2600_ixgb")
    tuned = load_platform("rx2600_ixgb", tuning="kernel")
    capped = TcpOptions.for_os(normal.os, sockbuf_bytes=262144)
    lifted = TcpOptions.for_os(tuned.os, sockbuf_bytes=262144)
    assert capped.rcvbuf_bytes == 2 * 65535 and capped.sndbuf_bytes == 2 * 65535
    assert lifted.rcvbuf_bytes == 2 * 262144
    assert not tuned.os.sack and not tuned.os.timestamps and tuned.nic.backlog_packets == 300000
    driver = load_platform("rx2600_ixgb", tuning="driver")
    assert driver.nic.coalesce_delay_s == 0.0 and driver.nic.rx_ring_packets == 2048


def test_a_small_receive_ring_drops_frames_under_interrupt_coalescing():
    """Frames wait on the ring for the coalesced interrupt; a ring shorter than one interrupt's worth drops."""
    base = Platform(cpu=COSTS, os=os_defaults("bsd"), nic=Nic(coalesce_packets=64, coalesce_delay_s=100e-6))
    small = replace(base, nic=replace(base.nic, rx_ring_packets=4))
    budget = Budget(max_sim_time_s=0.3)
    r_big, r_small = run(scenario(base, budget=budget)), run(scenario(small, budget=budget))
    assert r_big.drops["receiver_ring"] == 0
    assert r_small.drops["receiver_ring"] > 0
    assert r_small.retransmits > 0
    assert r_small.goodput_bps < r_big.goodput_bps


def test_solaris_maxpsz_multiplier_charges_a_kernel_pass_per_chunk_of_a_large_write():
    """Sun blueprint FIGURE 2: a larger tcp_maxpsz_multiplier moves more per pass and frees sender CPU."""
    cpu = replace(COSTS, n_cpus=1, per_syscall_s=20e-6, per_packet_rx_s=1e-6)
    goodput = {}
    for m in (1, 2, 10):
        platform = Platform(cpu=cpu, os=replace(os_defaults("solaris"), maxpsz_multiplier=m))
        goodput[m] = run(scenario(platform, write=65536)).goodput_bps
    assert goodput[1] < goodput[2] < goodput[10]
    small_writes = Platform(cpu=cpu, os=replace(os_defaults("solaris"), maxpsz_multiplier=1))
    big_pass = replace(small_writes, os=replace(small_writes.os, maxpsz_multiplier=10))
    r1, r10 = run(scenario(small_writes, write=1024)), run(scenario(big_pass, write=1024))
    assert r1.goodput_bps == pytest.approx(r10.goodput_bps, rel=1e-9)  # a write under one MSS is one pass


def test_a_handler_that_drains_the_ring_shares_interrupts_under_load():
    """ixgb's interrupt routine loops over the ring: frames that land while it runs raise no interrupt."""
    cpu = replace(COSTS, n_cpus=1, per_interrupt_s=8e-6)
    per_packet = Platform(cpu=cpu, os=os_defaults("bsd"), nic=Nic(coalesce_delay_s=0.0, drain_ring=False))
    draining = replace(per_packet, nic=replace(per_packet.nic, drain_ring=True))
    r_irq, r_drain = run(scenario(per_packet)), run(scenario(draining))
    assert r_irq.limited_by.startswith("cpu_")
    assert r_drain.goodput_bps > 1.1 * r_irq.goodput_bps
    idle = Workload(write_bytes=100, message_rate_hz=1000)  # one frame at a time: every frame interrupts
    light = [run(replace(scenario(p), workload=idle)) for p in (per_packet, draining)]
    assert light[0].rtt_s == pytest.approx(light[1].rtt_s, rel=1e-9)


def test_a_lossless_path_gives_no_retransmissions_on_a_two_cpu_sender():
    """Transmit work runs on whichever CPU called output, but one connection's segments reach the driver in
    order (its socket lock serializes them): no out-of-order arrival, so no spurious fast retransmit."""
    from tcpsim.api import build_scenario
    from tcpsim.profiles import load_platform
    from tcpsim.tuning import apply_tuning, parse_tuning

    rx2600 = load_platform("rx2600_ixgb", tuning="kernel")
    host = apply_tuning(rx2600, parse_tuning("modprobe ixgb RxIntDelay=200\n")).platform
    r = run(build_scenario(platform=host, rate="10gbit", mtu=9000, sockbuf="512k", delay="1us"))
    assert not any(r.drops.values())
    assert r.retransmits == 0


def test_a_packet_timer_holds_the_interrupt_until_the_burst_ends():
    """With a packet (idle) timer a steady stream raises an interrupt only every ``coalesce_packets`` frames
    or when the line goes quiet, so a window smaller than that many frames waits for the quiet: the ACK
    comes a delay after the whole window, and goodput falls well below the absolute timer's."""
    nic = Nic(coalesce_packets=64, coalesce_delay_s=100e-6)
    costs = replace(COSTS, per_byte_copy_s=0.5e-9)
    first = Platform(cpu=costs, nic=nic, os=replace(os_defaults("bsd"), delack="bsd44"))
    idle = replace(first, nic=replace(nic, coalesce_idle_timer=True))
    small = [run(scenario(p, buf=32768)) for p in (first, idle)]
    assert small[1].goodput_bps < 0.8 * small[0].goodput_bps
    assert small[1].rtt_s > small[0].rtt_s
    big = [run(scenario(p, buf=1 << 20)) for p in (first, idle)]  # windows above 64 frames: pipelined again
    assert big[1].goodput_bps == pytest.approx(big[0].goodput_bps, rel=0.15)


@pytest.mark.parametrize("write, nodelay", [(65536, False), (512, True)])
def test_solaris_receive_hand_offs_match_the_closed_form(write, nodelay):
    """A receiver bound by its interrupt CPU: a bulk stream pays one hand-off (per_push_s) per ACK-clocked
    burst of full segments, short Nagle-off messages one per segment; simulation and closed form agree on
    the packet rate (the window-limited sender may pack two short messages into one segment, so goodput
    is not the measure)."""
    from tcpsim.ceilings import cpu_ceiling_bps, segments_per_hand_up

    cheap = CpuCost(n_cpus=4, per_syscall_s=1e-6, per_packet_tx_s=2e-6, per_ack_tx_s=1e-6, per_ack_rx_s=1e-6,
                    interrupts_on_one_cpu=False)
    slow_rx = replace(cheap, per_packet_rx_s=14e-6, per_push_s=8e-6)
    snd, rcv = Platform(cpu=cheap, os=os_defaults("solaris")), Platform(cpu=slow_rx, os=os_defaults("solaris"))
    tcp = TcpOptions.for_os("solaris", sockbuf_bytes=65536, nodelay=nodelay)
    sc = Scenario(sender=Host(platform=snd, tcp=tcp), receiver=Host(platform=rcv, tcp=tcp),
                  link=Link(one_way_delay_s=5e-6), workload=Workload(write_bytes=write))
    r = run(sc)
    assert r.limited_by == "cpu_receiver"
    per_hand_up = segments_per_hand_up(sc)
    assert (per_hand_up > 4) is (write > 1460)
    payload = min(write, 1460)
    closed_form_pps = cpu_ceiling_bps(sc, sc.receiver, "receiver") / 8 / payload
    assert r.data_packets_per_s == pytest.approx(closed_form_pps, rel=0.12)


def test_a_transmit_ring_of_one_descriptor_serializes_dma_and_wire():
    """A frame is posted only when the one before it has left the NIC, so bus transfer and serialization
    no longer overlap; with the usual 256 descriptors they do, and the slower of the two sets the pace."""
    bus = bus_preset("pcix-64-133")
    sc_one = scenario(Platform(bus=bus, nic=Nic(tx_ring_packets=1)), rate=10e9, mtu=9000, buf=1 << 20)
    sc_many = scenario(Platform(bus=bus, nic=Nic(tx_ring_packets=256)), rate=10e9, mtu=9000, buf=1 << 20)
    r_one, r_many = run(sc_one), run(sc_many)
    ts = sc_one.sender.tcp.timestamps
    options = framing.tcp_option_bytes(ts)
    mss = framing.mss_bytes(9000, ts)
    bus_s = bus.transfer_s(framing.frame_bytes(mss, options))
    wire_s = framing.wire_bytes(mss, options) * 8 / 10e9
    assert r_one.data_packets_per_s <= 1.01 / (bus_s + wire_s)
    assert r_many.data_packets_per_s > 1.2 * r_one.data_packets_per_s
    assert r_many.data_packets_per_s <= 1.01 / max(bus_s, wire_s)


def test_on_a_veth_a_frame_is_received_on_the_cpu_that_sent_it():
    """``Link.rx_on_sending_cpu`` (a veth pair: ``veth_xmit`` -> ``__netif_rx`` on the transmitting CPU). Data a paced
    writer's own calls send is taken in on the sender's CPU: with costly receive work the receiver idles and the sender
    works. A bulk writer that waits for room instead has its data sent by the softirq that takes each ACK in, on the
    receiver's CPU (``tcp_data_snd_check``), and that data is taken in there too: the receiver stays the busy one."""
    rx_heavy = replace(COSTS, n_cpus=1, per_packet_tx_s=1e-6, per_packet_rx_s=20e-6, per_byte_copy_s=0.1e-9,
                       per_interrupt_s=0.0)
    platform = Platform(cpu=rx_heavy)
    bulk = scenario(platform, rate=10e9)
    paced = replace(bulk, workload=replace(bulk.workload, write_bytes=1448, message_rate_hz=20_000))

    def veth(sc):
        return replace(sc, link=replace(sc.link, rx_on_sending_cpu=True))

    (a, b), (c, d) = ((run(sc), run(veth(sc))) for sc in (paced, bulk))
    busy = {k: [r.cpu_utilization_frac[k][0] for r in (a, b)] for k in ("sender", "receiver")}
    assert busy["receiver"][1] < busy["receiver"][0] - 0.2 and busy["sender"][1] > busy["sender"][0] + 0.2
    assert b.goodput_bps == pytest.approx(a.goodput_bps, rel=0.01)  # the writes' rate either way
    assert c.limited_by == d.limited_by == "cpu_receiver"
    assert d.cpu_utilization_frac["sender"][0] < 0.5
    for r in (a, b, c, d):
        assert 0 < r.goodput_bps <= 10e9
        assert r.streams[0].goodput_bps == pytest.approx(r.goodput_bps, rel=1e-9)


def test_rx_on_sending_cpu_changes_nothing_for_an_ideal_peer():
    """An ideal host has no CPU to lend: its frames' receive work stays where it was."""
    platform = Platform(cpu=replace(COSTS, n_cpus=1))
    tcp = TcpOptions.for_os(platform.os, sockbuf_bytes=262144)
    sc = Scenario(sender=Host(platform=Platform(), tcp=tcp), receiver=Host(platform=platform, tcp=tcp),
                  link=Link(rate_bps=1e9, one_way_delay_s=5e-6), workload=Workload(write_bytes=65536))
    veth = replace(sc, link=replace(sc.link, rx_on_sending_cpu=True))
    assert run(veth).goodput_bps == run(sc).goodput_bps


def test_advice_for_a_sender_cpu_on_a_veth_names_rps():
    """On a veth the sending CPU runs the receiver's stack too; RPS on the receiving veth is what moves it."""
    from tcpsim.api import build_scenario, simulate
    from tcpsim.report_text import advice

    kw = dict(platform="lab_vm", rate="10000gbit", rtt="40us", write="1k")
    veth, nic = build_scenario(veth=True, **kw), build_scenario(**kw)
    r = simulate(veth)
    assert r.limited_by == "cpu_sender"
    assert "rps_cpus" in advice(veth, r) and "rps_cpus" not in advice(nic, simulate(nic))


def test_predict_veth_flag_puts_the_receive_work_on_the_sending_cpu(capsys):
    """``tcpsim predict --veth``: the lab's path from the shell; the answer says so and differs from NICs."""
    from tcpsim.cli import main

    args = ["predict", "--platform", "lab_vm", "--rate", "0", "--rtt", "40us", "--write", "1k", "--json"]
    assert main(args) == 0
    nic = json.loads(capsys.readouterr().out)
    assert main(args + ["--veth"]) == 0
    veth = json.loads(capsys.readouterr().out)
    assert veth["goodput_bps"] < nic["goodput_bps"]
    assert main(args[:-1] + ["--veth"]) == 0
    assert "over a veth pair" in capsys.readouterr().out.splitlines()[0]


def test_a_receive_calls_own_cost_is_the_readers_and_defaults_to_a_sends():
    """``CpuCost.per_syscall_rx_s`` (validation/README.md, "The reader's own cost per read, fitted"): unset, a read
    costs what a write does; set high, a reader of 60-byte reads binds the run on the receiving CPU."""
    from dataclasses import replace

    from tcpsim.api import predict
    from tcpsim.errors import ConfigError
    from tcpsim.platform import CpuCost
    from tcpsim.profiles import load_platform

    assert CpuCost(per_syscall_s=1e-6).syscall_rx_s == 1e-6
    assert CpuCost(per_syscall_s=1e-6, per_syscall_rx_s=3e-6).syscall_rx_s == 3e-6
    assert not CpuCost(per_syscall_rx_s=3e-6).is_free
    with pytest.raises(ConfigError, match="per_syscall_rx_s"):
        CpuCost(per_syscall_rx_s=-1e-6)
    lab = load_platform("lab_vm")
    base = replace(lab, cpu=replace(lab.cpu, per_syscall_rx_s=None))
    kw = dict(rate=0, veth=True, message=60, nodelay=True, read=60, sockbuf="64k")  # a small buffer fills at once
    same = predict(platform=replace(base, cpu=replace(base.cpu, per_syscall_rx_s=base.cpu.per_syscall_s)), **kw)
    assert same.goodput_bps == predict(platform=base, **kw).goodput_bps
    slow = predict(platform=replace(base, cpu=replace(base.cpu, per_syscall_rx_s=20e-6)), **kw)
    assert slow.goodput_bps < same.goodput_bps and slow.limited_by == "cpu_receiver"


def test_a_cwnd_with_part_of_a_segment_left_still_grows_when_the_flight_fills_it():
    """validation/README.md, "The cwnd-limited test counts whole segments": HyStart leaves cwnd at a byte count that
    is no whole number of segments; a flight of whole segments then never reaches it, and Linux, counting packets
    (``tcp_write_xmit``), calls the pass cwnd-limited all the same, so CUBIC grows cwnd. With the lab VM's costs and
    a 2 us read, an unshaped bulk run stayed cwnd-limited at 5.7 Gbit/s before the fix."""
    from dataclasses import replace

    from tcpsim.api import build_scenario, simulate
    from tcpsim.profiles import load_platform

    base = load_platform("lab_vm")
    sc = build_scenario(platform=replace(base, cpu=replace(base.cpu, per_syscall_rx_s=2.0e-6)), rate=0, veth=True,
                        write="128k", read="128k")
    no_backlog = {"owner_backlog": False}  # as the model stood when it was found
    sc = replace(sc, sender=replace(sc.sender, tcp=replace(sc.sender.tcp, **no_backlog)),
                 receiver=replace(sc.receiver, tcp=replace(sc.receiver.tcp, **no_backlog)))
    r = simulate(sc)
    assert r.limited_by != "cwnd", (r.goodput_bps, r.limited_by)


def test_calibrates_per_read_cost_reads_a_sends_while_unset_and_sets_only_the_receive_call():
    from tcpsim.calibration.own import COSTS as FITTED

    cost = FITTED["per_read_s"]
    plat = Platform(cpu=CpuCost(per_syscall_s=1e-6))
    assert cost.get(plat) == 1e-6
    fitted = cost.set(plat, 3e-6)
    assert cost.get(fitted) == fitted.cpu.syscall_rx_s == 3e-6 and fitted.cpu.per_syscall_s == 1e-6


def _slow_reader_run(rcvbuf_bytes, until_s):
    """The lab's 60-byte no-delay row with a reader made slower than its sender (10 us a read), run for ``until_s``;
    the receiver's buffer set with SO_RCVBUF (locked) unless None (autotuned up to the lab's tcp_rmem[2])."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "messages_nodelay"
                 and "write 60 nodelay" in p.row)
    sc = scenario_for(point, platforms_for_point(point, None))
    slow = replace(sc.receiver.platform, cpu=replace(sc.receiver.platform.cpu, per_syscall_rx_s=10e-6))
    sc = replace(sc, receiver=replace(sc.receiver, platform=slow))
    if rcvbuf_bytes is not None:
        tcp = TcpOptions.for_os(sc.receiver.platform.os, rcvbuf_bytes=rcvbuf_bytes, nodelay=True)
        sc = replace(sc, receiver=replace(sc.receiver, tcp=tcp))
    sc = replace(sc, budget=replace(sc.budget, rel_tol=1e-6, max_sim_time_s=until_s))
    r = _Run(sc)
    result = r.run()
    return sc, result, r.flows[0][2], r.flows[0][3]


def test_a_locked_receive_buffer_bounds_the_queue_of_a_slower_reader():
    """Linux ``tcp_data_queue`` -> ``tcp_try_rmem_schedule``: with the queue's truesize above ``sk_rcvbuf`` the queue
    is pruned (``tcp_collapse`` packs the small skbs into pages; here that is enough, no segment is dropped).
    Without it the window, aligned up to its scale unit, crept with every 60-byte segment and the queue grew
    without bound (13.8 MB in 0.1 s)."""
    sc, result, sender, rcv = _slow_reader_run(64 << 10, 0.05)
    assert rcv.prunes > 0
    assert rcv._rmem <= rcv._rcvbuf + 4352, (rcv._rmem, rcv._rcvbuf)  # one collapsed skb over at most
    assert rcv._rcvbuf == sc.receiver.tcp.rcvbuf_bytes  # a locked buffer does not grow
    assert result.goodput_bps > 0 and rcv.read_total <= sender.snd_max  # read, never more than sent (ACKs may fly)
    # the queue, collapsed or not, holds exactly the unread in-order bytes, charged its skbs' truesize
    assert sum(rcv._rq_bytes) - rcv._rq_read == rcv.rcv_buffered == rcv.rcv_nxt - rcv.read_total
    assert rcv._rmem == sum(rcv._rq_truesize)


def test_an_autotuned_receive_buffer_grows_to_the_queue_but_not_past_tcp_rmem2():
    """``tcp_clamp_window``: an autotuned buffer (no SO_RCVBUF) follows a queue that outgrows it, up to
    ``tcp_rmem[2]``; nothing is dropped on the way."""
    sc, _result, _sender, rcv = _slow_reader_run(None, 0.02)
    rmem2 = sc.receiver.tcp.rcvbuf_autotune_max_bytes
    assert rcv.prunes > 0 and rcv.memory_drops == 0
    assert sc.receiver.tcp.rcvbuf_bytes < rcv._rcvbuf <= rmem2
    assert rcv._rmem <= rcv._rcvbuf + 4352  # checked before an skb joins: one over at most


@pytest.mark.parametrize("one_way_delay_s", [0.0, 20e-6])
def test_a_veth_without_delay_receives_each_frame_inside_the_call_that_sent_it(one_way_delay_s):
    """Linux ``veth_xmit`` -> ``__netif_rx``; the softirq runs as the send re-enables bottom halves, so with no
    delay on the veth a 1 KiB write's segment is received, and ACKed in quick-ACK mode, before the write returns:
    Nagle never holds the next write, and every write leaves as its own segment. With a delay on the way the
    ACK comes after the next writes are in, and Nagle coalesces them into full segments."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "writes"
                 and "write 1024," in p.row)
    sc = scenario_for(point, platforms_for_point(point, None))
    assert sc.link.rx_on_sending_cpu and sc.sender.tcp.owner_backlog
    # the costs lab_vm had when this was written (a writer slower than the ACK's way back), not whatever it is
    # calibrated to now: a faster writer's next write can come before the ACK, and then Nagle joins the writes
    cpu = replace(sc.sender.platform.cpu, per_packet_tx_s=2.5e-6, per_packet_rx_s=2.5e-6, per_byte_copy_s=2.7e-10,
                  wake_latency_s=())
    hosts = {role: replace(h, platform=replace(h.platform, cpu=cpu))
             for role, h in (("sender", sc.sender), ("receiver", sc.receiver))}
    sc = replace(sc, **hosts, link=replace(sc.link, one_way_delay_s=one_way_delay_s),
                 budget=replace(sc.budget, rel_tol=1e-6, max_sim_time_s=100e-6, record_trace=True))
    sizes = [t[4] for t in run(sc).trace if t[2] == "data" and t[1].startswith("sender")][:8]
    assert len(sizes) == 8
    assert (max(sizes) > 1024) if one_way_delay_s else sizes == [1024] * 8


@settings(max_examples=12, deadline=None)
@given(write=st.sampled_from(["16k", "64k", "256k"]), streams=st.integers(1, 2), mtu=st.sampled_from([1500, 9000]),
       seed=st.integers(0, 3))
def test_a_drop_free_veth_takes_every_segment_in_order(write, streams, mtu, seed):
    """Linux takes a connection's segments in the order they arrived (``enqueue_to_backlog`` is first in first out;
    ``tcp_v4_rcv`` locks the socket before it runs a segment or queues it on the owner's backlog): on a path that
    drops nothing the receiver never sees a hole and the sender never retransmits. tcpsim once let the part of a GSO
    aggregate that found the reader inside a call overtake the part still waiting for the sending CPU (67
    segments out of order in 30 ms of 64 KiB writes, 6 retransmissions; validation/README.md, "A connection's
    segments are taken in the order they arrived")."""
    from tcpsim.api import build_scenario

    sc = build_scenario(platform="lab_vm", rate=0, veth=True, write=write, streams=streams, mtu=mtu, rtt="40us",
                        seed=seed, budget=Budget(max_sim_time_s=0.02, rel_tol=1e-6))
    assert sc.link.rx_on_sending_cpu and sc.receiver.tcp.owner_backlog
    sim = _Run(sc)
    r = sim.run()
    assert r.delivered_bytes > 0 and not any(r.drops.values())
    assert [f[3].out_of_order_segments for f in sim.flows] == [0] * streams
    assert r.retransmits == 0


def test_a_segment_the_pruned_queue_cannot_take_is_dropped_and_the_window_offered_is_zero():
    """``tcp_prune_queue`` returns -1 when nothing in the queue is bloated enough to collapse: ``tcp_data_queue`` drops
    the in-order segment (``TCPRcvQDrop``) and its ACK, sent at once, offers a window of 0 (``ICSK_ACK_NOMEM``,
    6.10 on); a later segment at the same place, with the window still 0, is dropped too: from 6.17 by ``tcp_sequence``,
    as it ends past the window's edge while unread data waits (before, by ``tcp_data_queue``'s zero-window test)."""
    from tcpsim.components.segment import Segment
    from tcpsim.protocol.linux_window import win_from_space

    _sc, _result, _sender, rcv = _slow_reader_run(64 << 10, 0.001)
    assert rcv.opts.nomem_zero_window
    rcv._rq_bytes.clear()
    rcv._rq_truesize.clear()
    rcv._rq_read = rcv._rmem = 0
    truesize = 1448 * 256 // rcv._ratio
    assert win_from_space(truesize, rcv._adv_win_scale, rcv._ratio) <= 1448  # not bloated: nothing to collapse
    while rcv._rmem <= rcv._rcvbuf:
        rcv._rq_bytes.append(1448)
        rcv._rq_truesize.append(truesize)
        rcv._rmem += truesize
    queued, rcv_nxt, drops, beyond = rcv._rmem, rcv.rcv_nxt, rcv.memory_drops, rcv.window_drops
    for _ in range(2):
        rcv._process_data(Segment(rcv, rcv_nxt, 1448, 0, 0, 1500, 0.0, False, rcv.kernel.now_s), 0)
    assert rcv.rcv_nxt == rcv_nxt and rcv._rmem == queued
    assert rcv.opts.end_seq_in_window and (rcv.memory_drops, rcv.window_drops) == (drops + 1, beyond + 1)
    assert rcv.right_edge == rcv_nxt and rcv._rcv_wnd == 0


def test_data_beyond_the_window_offered_is_dropped_not_queued_out_of_order():
    """``tcp_sequence`` and ``tcp_data_queue``: after a zero window for memory the segments still in flight lie beyond
    the window's right edge (``rcv_nxt``), and Linux drops them, ACKing each at once; out-of-order data at a non-zero
    edge is dropped too (``TCP_OVERWINDOW``, quick-ACK mode), and from 6.17 one ending past it while unread data waits
    (``TCP_INVALID_END_SEQUENCE``). Data inside the window is queued out of order as before. tcpsim once queued all of
    them, so a sender never had to send them again."""
    from tcpsim.components.segment import Segment

    _sc, _result, _sender, rcv = _slow_reader_run(64 << 10, 0.001)
    assert rcv.opts.end_seq_in_window  # the lab's kernel, 6.18
    now = rcv.kernel.now_s

    def arrive(seq: int, length: int = 1448, more: bool = False) -> tuple[int, int, bool]:
        drops, acks = rcv.window_drops, rcv.acks_sent
        seg = Segment(rcv, seq, length, 0, 0, length + 52, 0.0, False, now)
        seg.more = more
        rcv._process_data(seg, 0)
        return rcv.window_drops - drops, rcv.acks_sent - acks, seq in rcv.ooo

    rcv.ooo.clear()
    rcv_nxt = rcv.rcv_nxt
    rcv.right_edge = rcv_nxt  # the zero window an ICSK_ACK_NOMEM ACK offered
    rcv.delack.end_quickack()
    assert arrive(rcv_nxt + 1448) == (1, 1, False)  # beyond the edge: TCP_INVALID_SEQUENCE, a duplicate ACK
    assert not rcv.delack.in_quickack()
    rcv.right_edge = rcv_nxt + 4 * 1448
    assert rcv._rq_bytes  # unread data waits: an skb ending past the edge is refused first (6.17 on), no quick ACKs
    assert arrive(rcv_nxt + 3 * 1448, 2 * 1448) == (1, 1, False)
    assert arrive(rcv_nxt + 4 * 1448) == (1, 1, False) and not rcv.delack.in_quickack()
    rcv._rq_bytes.clear()  # all read: at the edge it is tcp_data_queue's TCP_OVERWINDOW, with quick-ACK mode
    assert arrive(rcv_nxt + 4 * 1448) == (1, 1, False) and rcv.delack.in_quickack()
    assert arrive(rcv_nxt + 2 * 1448) == (0, 1, True)  # inside the window: queued out of order, a duplicate ACK
    assert rcv.rcv_nxt == rcv_nxt and rcv.window_drops == 4
    # a GSO aggregate carried whole is one skb, judged where it starts: one starting inside is taken whole, one
    # starting beyond is dropped whole
    edge = rcv.right_edge = rcv_nxt + 6 * 1448
    assert [arrive(edge - 1448, more=True)[0], arrive(edge, more=True)[0], arrive(edge + 1448)[0]] == [0, 0, 0]
    assert {edge - 1448, edge, edge + 1448} <= set(rcv.ooo)
    rcv.right_edge = edge  # the duplicate ACK moved it on (out-of-order data grows rcv_ssthresh from 4.19)
    assert [arrive(edge + 3 * 1448, more=True)[2], arrive(edge + 4 * 1448)[2]] == [False, False]
    assert rcv.window_drops == 5  # one skb


def test_out_of_order_data_is_charged_to_the_socket_memory():
    """``tcp_data_queue_ofo``: an out-of-order segment is charged its truesize when it is queued (``skb_set_owner_r``),
    so the free space every window is computed from shrinks; one the memory cannot take after pruning is dropped with
    no ACK (``TCPOFODrop``); on a SACK flow from 4.19 it grows ``rcv_ssthresh`` first; filling the hole moves it to the
    receive queue without a second charge. tcpsim once charged out-of-order data only when the hole was filled."""
    from tcpsim.components.segment import Segment

    _sc, _result, _sender, rcv = _slow_reader_run(64 << 10, 0.001)
    assert rcv.opts.ofo_grows_window and rcv.sack_ok and not rcv.opts.rcvbuf_autotune_max_bytes  # 6.18, locked
    now = rcv.kernel.now_s
    mss = 1448
    truesize = rcv._truesize(mss)

    def arrive(seq: int) -> tuple[int, int, bool]:
        drops, acks = rcv.memory_drops, rcv.acks_sent
        rcv._process_data(Segment(rcv, seq, mss, 0, 0, mss + 52, 0.0, False, now), 0)
        return rcv.memory_drops - drops, rcv.acks_sent - acks, seq in rcv.ooo

    rcv.ooo.clear()
    rcv._rq_bytes.clear()
    rcv._rq_truesize.clear()
    rcv._rmem = rcv._rq_read = 0
    rcv._rcvbuf = 1 << 20
    nxt = rcv.rcv_nxt
    rcv.right_edge = nxt + 16 * mss
    rcv._rcv_ssthresh = 4 * mss
    free = rcv._linux_free_space()
    assert arrive(nxt + mss) == (0, 1, True)  # a duplicate ACK, the segment held
    assert rcv._rmem == truesize and rcv._linux_free_space() < free
    assert rcv._rcv_ssthresh > 4 * mss  # tcp_grow_window(sk, skb, false)
    assert arrive(nxt + mss)[2] and rcv._rmem == truesize  # the same segment again: no second charge
    rcv._rcvbuf = truesize - 1  # locked and full: pruning frees nothing, the next one is dropped unACKed
    assert arrive(nxt + 3 * mss) == (1, 0, False) and rcv._rmem == truesize
    rcv._rcvbuf = 1 << 20
    assert arrive(nxt) == (0, 1, False)  # the hole filled: both segments in order, the held one charged once
    assert rcv.rcv_nxt == nxt + 2 * mss and not rcv.ooo
    assert list(rcv._rq_bytes) == [mss, mss] and rcv._rmem == sum(rcv._rq_truesize) == 2 * truesize


def test_pruning_drops_held_data_from_the_top_and_reneges_its_sack():
    """``tcp_prune_queue`` -> ``tcp_prune_ofo_queue``: when collapsing leaves the memory above the buffer, out-of-order
    skbs go from the highest sequence down, a batch of ``sk_rcvbuf / 8`` at a time until it fits (4.18 on), never those
    before the skb that asked (6.2 on), the whole queue before 4.18; the SACK blocks are reset (``tcp_sack_reset``).
    tcpsim once dropped the in-order segment instead, which the held data's charge (rule 157) made reachable."""
    from tcpsim.components.segment import Segment

    _sc, _result, _sender, rcv = _slow_reader_run(64 << 10, 0.001)
    assert rcv.opts.ofo_prune_rule == 2 and rcv.sack_ok and not rcv.opts.rcvbuf_autotune_max_bytes  # 6.18, locked
    now = rcv.kernel.now_s
    mss = 1448
    truesize = rcv._truesize(mss)
    nxt = rcv.rcv_nxt

    def hold(rule: int) -> None:
        """Eight segments held behind two holes (at nxt and nxt + mss), the buffer room for five of them."""
        rcv.opts = replace(rcv.opts, ofo_prune_rule=rule)
        rcv.ooo.clear()
        rcv._sack_blocks = []
        rcv._rq_bytes.clear()
        rcv._rq_truesize.clear()
        rcv._rmem = rcv._rq_read = rcv.ofo_pruned = 0
        rcv.rcv_nxt = nxt
        rcv._rcvbuf = 1 << 20
        rcv.right_edge = nxt + 32 * mss
        for k in range(2, 10):
            arrive(nxt + k * mss)
        assert rcv._rmem == 8 * truesize and rcv._sack_blocks
        rcv._rcvbuf = 5 * truesize

    def arrive(seq: int) -> None:
        rcv._process_data(Segment(rcv, seq, mss, 0, 0, mss + 52, 0.0, False, now), 0)

    hold(2)
    arrive(nxt)  # in order, the memory above the buffer: the top three go, then it fits
    assert rcv.rcv_nxt == nxt + mss and rcv.memory_drops == 0 and rcv.ofo_pruned == 3
    assert sorted(rcv.ooo) == [nxt + k * mss for k in range(2, 7)] and rcv._sack_blocks == []
    assert rcv._rmem == 6 * truesize
    hold(2)
    arrive(nxt + mss)  # out of order, below every held segment: pruned for as 6.2 on
    assert rcv.ofo_pruned == 3 and nxt + mss in rcv.ooo and nxt + 9 * mss not in rcv.ooo
    hold(2)
    arrive(nxt + 12 * mss)  # out of order, above them all: 6.2 on prunes nothing and drops it (TCPOFODrop)
    assert rcv.ofo_pruned == 0 and nxt + 12 * mss not in rcv.ooo and len(rcv.ooo) == 8 and rcv._sack_blocks
    hold(1)
    arrive(nxt + 12 * mss)  # 4.18-6.1: the tail goes even below the newcomer, which is then held
    assert rcv.ofo_pruned == 3 and nxt + 12 * mss in rcv.ooo
    hold(0)
    arrive(nxt)  # before 4.18: the whole queue
    assert rcv.ofo_pruned == 8 and not rcv.ooo and rcv._rmem == truesize


def test_a_sender_meets_a_reneged_sack_as_its_kernel_does():
    """An ACK that advances to data the scoreboard holds as SACKed (``FLAG_SACK_RENEGING``): Linux 4.16 on re-arms
    the retransmission timer for max(srtt / 2, 10 ms) (``tcp_check_sack_reneging``), before 4.16 it enters the loss
    state at once, clearing the SACKed marks; tcpsim once waited for the whole RTO."""
    from tcpsim.components.segment import Segment

    def sender_with_sacked_data(rule: int):
        _sc, _result, snd, _rcv = _slow_reader_run(64 << 10, 0.001)
        snd.opts = replace(snd.opts, renege_rule=rule)
        una = snd.snd_una
        assert snd.sack_ok and snd.snd_max - una >= 6 * 60 and snd.sent[0][1] == 60
        snd._board.ranges = [[una + 120, una + 240]]
        return snd, una

    def ack(snd, to: int) -> None:
        snd._process_ack(Segment(snd, 0, 0, to, snd.peer_wnd, 52, 0.0, False, snd.kernel.now_s), 0)

    snd, una = sender_with_sacked_data(2)
    ack(snd, una + 60)  # an ordinary ACK: the full timer
    now = snd.kernel.now_s
    assert snd._rto_timer.deadline - now >= snd.opts.min_rto_s
    ack(snd, una + 120)  # it stops where the SACKed data starts: reneged
    srtt = snd.rto.srtt_s
    assert srtt < 0.02 and 0.010 <= snd._rto_timer.deadline - now <= 0.010 + 2.0 / snd.opts.tick_hz
    assert snd._board.ranges  # the marks stay until the timer says the reneging persisted
    snd, una = sender_with_sacked_data(1)
    sent_again, cwnd = snd.retransmits, snd.cc.cwnd
    ack(snd, una + 120)
    # the loss state: marks cleared, the window cut, everything from snd_una sent again (the reneged bytes too)
    assert not snd._board.ranges and snd.cc.cwnd < cwnd and snd.retransmits > sent_again
    snd, una = sender_with_sacked_data(0)
    ack(snd, una + 120)
    assert snd._rto_timer.deadline - snd.kernel.now_s >= snd.opts.min_rto_s and snd._board.ranges


def test_data_skbs_count_a_gso_aggregate_once():
    """``Result.data_skbs_per_s`` counts what a sending interface counts: one unit per GSO aggregate (``lab_vm``
    on a veth sends 64 KiB writes as aggregates of up to 44 segments), one per segment without GSO."""
    from tcpsim.api import build_scenario, simulate

    gso = simulate(build_scenario(platform="lab_vm", rate="10gbit", write="64k"))
    mss = 1448
    assert gso.data_packets_per_s / 45 <= gso.data_skbs_per_s < gso.data_packets_per_s / 10
    assert gso.data_skbs_per_s >= gso.goodput_bps / 8 / (65536 - 320) * 0.99  # none above 64 KiB less headers
    assert gso.data_packets_per_s == pytest.approx(gso.goodput_bps / 8 / mss, rel=0.02)
    plain = simulate(build_scenario(rate="1gbit", sockbuf="64k"))
    assert plain.data_skbs_per_s == pytest.approx(plain.data_packets_per_s, rel=0.01)
