"""The closed-form ceilings count per-packet work as the simulation does: once per GSO aggregate on a path that
carries aggregates whole (``nic.gso_whole``, a versioned Linux sender), once per segment elsewhere."""

from dataclasses import replace

from tcpsim import ceilings
from tcpsim.api import build_scenario, simulate
from tcpsim.profiles import load_platform


def _lab_unshaped(gso_whole=True):
    """lab_vm unshaped, with the costs of its fit of 2026-11-27 (fifth session) pinned: the tests are of the
    ceilings, and a refit of lab_vm (the seventh session's puts 0.19 ns on a byte, and the run then reaches 86 %
    of its ceiling) should not move them."""
    plat = load_platform("lab_vm")
    cpu = replace(plat.cpu, per_syscall_s=1.299e-06, per_byte_copy_s=3.482e-11, per_packet_tx_s=6.133e-06,
                  per_packet_rx_s=6.133e-06)
    plat = replace(plat, cpu=cpu, nic=replace(plat.nic, gso_whole=gso_whole))
    return build_scenario(platform=plat, rate=0, delay=0, mtu=1500, write="64k")


def test_cpu_ceiling_bounds_and_names_a_cpu_bound_gso_run():
    """lab_vm unshaped (its receiver's CPU binds): the run stays under its CPU ceilings and the nearer one is
    within 10 % of it (per segment, the ceiling was 8.3 Gbit/s under a run of 13.9). A strict xfail from HyStart's
    rule (10.6 %: 44.9 Gbit/s under 49.6) until Linux 6.16's receive-buffer growth (7.1 %: 46.4 under 49.6;
    validation/README.md, "What Linux 6.16's receive-buffer growth gave")."""
    sc = _lab_unshaped()
    r = simulate(sc)
    assert r.limited_by.startswith("cpu_")
    cpu = min(ceilings.cpu_ceiling_bps(sc, sc.sender, "sender"), ceilings.cpu_ceiling_bps(sc, sc.receiver, "receiver"))
    assert r.goodput_bps <= cpu <= 1.10 * r.goodput_bps, (r.goodput_bps, cpu)


def test_per_segment_where_the_path_cuts_aggregates():
    sc, whole = _lab_unshaped(False), _lab_unshaped(True)
    assert ceilings.segments_per_aggregate(sc) == 1 and ceilings.acks_every(sc) == 2.0
    assert ceilings.segments_per_aggregate(whole) == (65536 - 320) // 1448  # 64 KiB less headers
    assert ceilings.cpu_ceiling_bps(whole, whole.receiver, "receiver") > ceilings.cpu_ceiling_bps(sc, sc.receiver,
                                                                                                   "receiver")


def test_aggregate_is_at_most_half_the_window_and_one_segment_for_small_messages():
    small = build_scenario(platform="lab_vm", rate="1gbit", rtt="1ms", sockbuf="16k")
    wnd = min(small.sender.tcp.sndbuf_limit_bytes, small.receiver.tcp.window_limit_bytes) // 1448
    assert ceilings.segments_per_aggregate(small) == max(wnd // 2, 1) < 45
    msgs = build_scenario(platform="lab_vm", rate="1gbit", delay=0, message=200, nodelay=True)
    assert ceilings.segments_per_aggregate(msgs) == 1
