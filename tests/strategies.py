"""Hypothesis strategies: small scenarios that run in a fraction of a second."""

from dataclasses import replace

from hypothesis import strategies as st

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.os_versions import os_version
from tcpsim.platform import CpuCost, Nic, Platform, bus_preset, os_defaults


@st.composite
def scenarios(draw, bulk_only: bool = False, lossless: bool = True):
    family = draw(st.sampled_from(["bsd", "linux", "solaris"]))
    buf = draw(st.sampled_from([None, 4096, 8192, 16384, 65536, 262144, 1 << 20]))  # None: OS default (Linux autotunes)
    nodelay = draw(st.booleans())
    tcp = TcpOptions.for_os(family, sockbuf_bytes=buf, nodelay=nodelay)
    delack = draw(st.sampled_from([None, "bsd", "bsd44", "linux", "solaris", "off"]))
    if delack:
        tcp = replace(tcp, delack=delack)
    tcp = replace(tcp, sack=draw(st.booleans()))  # RFC 2018 / 6675 recovery, or NewReno's
    if not lossless and draw(st.booleans()):
        # A 2 ms floor lets retransmission timeouts, and timeouts of the retransmissions, fire in a short run.
        tcp = replace(tcp, min_rto_s=2e-3)
    link = Link(rate_bps=draw(st.sampled_from([1e8, 1e9, 1e10])),
                one_way_delay_s=draw(st.sampled_from([1e-6, 20e-6, 200e-6, 1e-3])),
                mtu_bytes=draw(st.sampled_from([576, 1500, 4000, 9000])),
                switch_hops=draw(st.sampled_from([0, 0, 1, 2])),
                loss_frac=0.0 if lossless else draw(st.sampled_from([0.0, 0.001, 0.01])),
                queue_packets=None if lossless else draw(st.sampled_from([None, 16, 64])))
    kind = "bulk" if bulk_only else draw(st.sampled_from(["bulk", "bulk", "rr"]))
    rate = draw(st.sampled_from([None, None, 2e3, 5e4])) if kind == "bulk" else None
    workload = Workload(kind=kind, write_bytes=draw(st.sampled_from([1, 100, 1460, 8192, 65536])),
                        n_streams=draw(st.integers(1, 3)), bidirectional=kind == "bulk" and draw(st.booleans()),
                        message_rate_hz=rate)
    budget = Budget(max_sim_time_s=0.02, min_sim_time_s=0.001, max_events=150_000)
    return Scenario(sender=Host(tcp=tcp), receiver=Host(tcp=tcp), link=link, workload=workload,
                    seed=draw(st.integers(0, 2**16)), budget=budget)


@st.composite
def platforms(draw, family: str):
    """A host with random but physical costs: CPUs, interrupts, small rings and backlog, maybe a slow bus."""
    us = st.sampled_from([0.0, 0.5e-6, 2e-6, 10e-6])
    cpu = CpuCost(n_cpus=draw(st.integers(1, 3)), per_syscall_s=draw(us), per_byte_copy_s=draw(st.sampled_from([0.0, 1e-9])),
                  per_byte_csum_s=draw(st.sampled_from([0.0, 1e-9])), per_packet_tx_s=draw(us),
                  per_packet_rx_s=draw(us), per_ack_tx_s=draw(us), per_ack_rx_s=draw(us), per_interrupt_s=draw(us),
                  per_push_s=draw(us), per_stream_frac=draw(st.sampled_from([0.0, 0.05])), interrupts_on_one_cpu=draw(st.booleans()))
    nic = Nic(tx_ring_packets=draw(st.sampled_from([1, 4, 256])),
              rx_ring_packets=draw(st.sampled_from([4, 64, 256])), backlog_packets=draw(st.sampled_from([8, 1000])),
              coalesce_packets=draw(st.sampled_from([1, 8, 64])),
              coalesce_delay_s=draw(st.sampled_from([0.0, 20e-6, 200e-6])), drain_ring=draw(st.booleans()),
              coalesce_idle_timer=draw(st.booleans()),
              tx_checksum_offload=draw(st.booleans()), rx_checksum_offload=draw(st.booleans()))
    bus = bus_preset(draw(st.sampled_from(["none", "pci-32-33", "pci-64-66", "pcix-64-133"])))
    os = os_defaults(family)
    return Platform(cpu=cpu, nic=nic, bus=bus, os=os)


@st.composite
def host_scenarios(draw, lossless: bool = False):
    """:func:`scenarios` with the host model on at both ends."""
    sc = draw(scenarios(lossless=lossless))
    family = {"bsd": "bsd", "linux": "linux", "solaris": "solaris"}[sc.sender.tcp.delack] \
        if sc.sender.tcp.delack in ("bsd", "linux", "solaris") else "bsd"
    return Scenario(sender=Host(platform=draw(platforms(family)), tcp=sc.sender.tcp),
                    receiver=Host(platform=draw(platforms(family)), tcp=sc.receiver.tcp),
                    link=replace(sc.link, rx_on_sending_cpu=draw(st.booleans())), workload=sc.workload, seed=sc.seed,
                    budget=sc.budget)


@st.composite
def linux_versioned_scenarios(draw):
    """:func:`scenarios` on a versioned Linux (its own window rules, TSO sizing and deferral, TCP small queues,
    autocorking, the whole-skb writer, pacing by fq or by a socket's cap), maybe with aggregates carried whole to
    the peer (``nic.gso_whole``, as
    on a veth). Writes of at least 100 bytes: on a host that charges nothing, a 1-byte writer's calls are handed
    over one by one while less than a segment is unsent (each may let Nagle send), tens of thousands of calls a
    simulated millisecond, so such a run takes seconds to minutes of wall time."""
    sc = draw(scenarios(lossless=False))
    # each of Linux's PRR rules (3.10, 4.19, 5.15, 6.1 on) in recovery
    os = os_version(draw(st.sampled_from(["linux-3.10", "linux-4.19", "linux-5.15", "linux-6.1", "linux-6.12"])))
    os = replace(os, fq_qdisc=draw(st.booleans()))  # fq paces every flow
    buf = draw(st.sampled_from([None, 8192, 16384, 65536, 262144]))
    # SO_MAX_PACING_RATE: TCP's own pacing, from 4.13
    cap = draw(st.sampled_from([0.0, 0.0, 5e7, 5e8])) if os.version_tuple >= (4, 13) else 0.0
    tcp = replace(TcpOptions.for_os(os, sockbuf_bytes=buf, nodelay=sc.sender.tcp.nodelay, max_pacing_rate_bps=cap),
                  sack=sc.sender.tcp.sack, min_rto_s=sc.sender.tcp.min_rto_s)
    host = Host(platform=Platform(nic=Nic(gso_whole=draw(st.booleans())), os=os), tcp=tcp)
    write = draw(st.sampled_from([100, 1460, 8192, 65536]))
    return replace(sc, sender=host, receiver=host, workload=replace(sc.workload, write_bytes=write))
