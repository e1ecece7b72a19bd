"""A blocked application that wakes late (``CpuCost.wake_latency_s``) and the probe that measures it."""

import json
import os
from dataclasses import replace

import pytest

from tcpsim.api import build_scenario, predict, simulate
from tcpsim.errors import ConfigError
from tcpsim.lab import wakeprobe
from tcpsim.os_versions import os_version
from tcpsim.platform import CpuCost, Platform
from tcpsim.profiles import load_platform, save_platform

TABLE = ((1e-4, 20e-6), (1e-3, 60e-6))
COSTS = CpuCost(per_syscall_s=1e-6, per_packet_tx_s=2e-6, per_packet_rx_s=2e-6)


def test_the_latency_rises_from_zero_between_points_and_stays_flat_after_the_last():
    cpu = CpuCost(wake_latency_s=TABLE)
    assert cpu.wake_latency_after_s(0.0) == 0.0
    assert cpu.wake_latency_after_s(5e-5) == pytest.approx(10e-6)
    assert cpu.wake_latency_after_s(5.5e-4) == pytest.approx(40e-6)
    assert cpu.wake_latency_after_s(1.0) == pytest.approx(60e-6)
    assert CpuCost().wake_latency_after_s(1.0) == 0.0
    assert not CpuCost(wake_latency_s=TABLE).is_free


_BAD_TABLES = [((1e-3, 1e-5), (1e-4, 1e-5)), ((1e-4, -1e-6),), ((0.0, 1e-6),), ((1e-4,),), (("x", 1e-6),),
               ((1e-4, 1e-5), (1e-4, 2e-5))]


@pytest.mark.parametrize("field, bad", [("wake_latency_s", b) for b in _BAD_TABLES]
                         + [("wake_cost_s", b) for b in _BAD_TABLES + [(), "soon"]])
def test_a_bad_table_is_one_error_naming_the_field(field, bad):
    with pytest.raises(ConfigError, match=field):
        CpuCost(**{field: bad})


@pytest.mark.parametrize("field, table", [("wake_latency_s", ((1e-4, 20e-6), (1e-3, 60e-6))),
                                          ("wake_cost_s", ((1e-5, 1e-6), (2e-5, 5e-6), (5e-4, 7e-6)))])
def test_a_profile_with_a_table_reads_back_equal(tmp_path, field, table):
    platform = Platform(cpu=replace(COSTS, **{field: table}))
    assert load_platform(save_platform(platform, tmp_path / "m.toml")) == platform


def test_a_profile_with_a_malformed_table_names_its_file_and_field(tmp_path):
    good = save_platform(Platform(cpu=replace(COSTS, wake_latency_s=TABLE)), tmp_path / "m.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(good.replace("[0.0001, 2e-05]", '[0.0001, "soon"]'))
    with pytest.raises(ConfigError) as err:
        load_platform(bad)
    assert "bad.toml" in str(err.value) and "cpu.wake_latency_s" in str(err.value)
    assert "\n" not in str(err.value)


def _goodput(platform, **kw):
    sc = build_scenario(platform=platform, rate="1gbit", rtt="1ms", write="128k", **kw)
    return simulate(sc).goodput_bps


def test_each_side_of_a_request_response_wakes_late_once_a_transaction():
    """Client and server each block in ``recv`` for a round trip's part and run 100 us late: a transaction
    takes 200 us longer, no more and no less."""
    linux = os_version("linux-6.8")
    times = [1 / simulate(build_scenario(platform=Platform(cpu=replace(COSTS, wake_latency_s=table), os=linux),
                                         rate="1gbit", rtt="1ms", rr="100", response="100")).transactions_per_s
             for table in ((), ((1e-5, 100e-6),))]
    assert times[1] - times[0] == pytest.approx(200e-6, rel=0.05)


def test_a_writer_that_wakes_late_slows_a_send_buffer_limited_transfer():
    """A writer blocked on a full send buffer refills it 100 us after the ACK frees a third of it: the
    buffer-limited transfer loses about that much of every round trip, not more."""
    linux = os_version("linux-6.8")
    on_time = Platform(cpu=COSTS, os=linux)
    late = Platform(cpu=replace(COSTS, wake_latency_s=((1e-5, 100e-6),)), os=linux)
    fast, slow = _goodput(on_time, sndbuf="16k", rcvbuf="1m"), _goodput(late, sndbuf="16k", rcvbuf="1m")
    assert slow < 0.97 * fast
    assert slow > fast * 1e-3 / (1e-3 + 2 * 100e-6) * 0.9


def test_a_host_whose_table_is_empty_runs_as_before():
    linux = os_version("linux-6.8")
    assert _goodput(Platform(cpu=COSTS, os=linux), sockbuf="32k") == \
        _goodput(Platform(cpu=replace(COSTS, wake_latency_s=()), os=linux), sockbuf="32k")


def test_the_probe_times_wake_ups_within_its_bounds():
    s = wakeprobe.probe_wake(2e-4, count=20)
    assert 1 <= s["n"] <= 20
    assert 0 < s["p10_s"] <= s["median_s"] <= s["p90_s"] < 0.1
    table = wakeprobe.wake_table([dict(s, cpus=[0, 1]), dict(s, cpus=[0, 1], median_s=3 * s["median_s"]),
                                  dict(s, cpus=[0, 0], gap_s=1e-3)])
    assert table == [[2e-4, 2 * s["median_s"]]]
    CpuCost(wake_latency_s=table)


def test_a_spinning_probe_waits_for_each_wake_up_so_its_waker_never_runs_ahead():
    """Rule 161: with ``spin`` every stamp is read before the next is written, so none waits behind another and each
    latency is one wake-up's, even at a gap far shorter than a wake-up (the reader idles the gap, no stamp queues)."""
    import time

    t0 = time.perf_counter()
    s = wakeprobe.probe_wake(1e-5, count=50, spin=True)
    spent = time.perf_counter() - t0
    assert s["spin"] is True and s["n"] == 50
    assert 0 < s["median_s"] < 0.01 and s["p90_s"] < 0.05
    # every wake-up waited for: 50 of them cannot take less than 50 medians (the spinning gaps add to that)
    assert spent >= 50 * s["median_s"]


def test_the_spin_option_measures_short_gaps_and_is_not_the_wakers(capsys):
    assert wakeprobe.SPIN_LATENCY_GAPS_S[:3] == (1e-5, 2e-5, 5e-5)
    assert wakeprobe.main(["--spin", "--gap", "0.02ms", "--count", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sets"][0]["spin"] is True and out["wake_latency_s"][0][0] == 2e-5
    assert wakeprobe.main(["--spin", "--waker"]) == 2
    assert "spin" in capsys.readouterr().err


def test_the_probe_command_prints_json_and_refuses_a_bad_gap(capsys):
    assert wakeprobe.main(["--gap", "0.1ms", "--count", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["sets"]) == 1 and out["sets"][0]["n"] >= 1
    assert wakeprobe.main(["--gap", "1s"]) == 2
    assert "gap" in capsys.readouterr().err


TRACE = """\
# tracer: nop
          iperf3-101     [000] d..2.    9.999000: sched_switch: prev_comm=iperf3 prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [001] d.s4.   10.004000: sched_waking: comm=iperf3 pid=101 prio=120 target_cpu=000
          <idle>-0       [001] d.s4.   10.004010: sched_waking: comm=iperf3 pid=101 prio=120 target_cpu=000
          <idle>-0       [000] d..2.   10.004030: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=101 next_prio=120
          iperf3-101     [000] d..2.   10.004100: sched_switch: prev_comm=iperf3 prev_pid=101 prev_prio=120 prev_state=R+ ==> next_comm=python next_pid=7 next_prio=120
          python-7       [000] d..2.   10.004200: sched_switch: prev_comm=python prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=iperf3 next_pid=101 next_prio=120
          iperf3-101     [000] d..2.   10.004300: sched_switch: prev_comm=iperf3 prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [001] d.s4.   10.004350: sched_waking: comm=iperf3 pid=101 prio=120 target_cpu=000
          <idle>-0       [000] d..2.   10.004360: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=101 next_prio=120
          <idle>-0       [001] d.s4.   10.005000: sched_waking: comm=iperf3 pid=202 prio=120 target_cpu=001
          <idle>-0       [001] d..2.   10.005020: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=202 next_prio=120
"""


def test_a_trace_gives_each_wake_up_its_idle_gap_and_latency():
    """The first waking counts, a preemption is no block, and a process whose block was not seen is left out."""
    from tcpsim.lab.schedtrace import parse_wakes, wake_buckets, wake_table

    wakes = parse_wakes(TRACE.splitlines())
    assert [(round(g * 1e6), round(l * 1e6)) for g, l in wakes] == [(5000, 30), (50, 10)]
    buckets = wake_buckets(wakes)
    assert [(b["gap_max_s"], b["n"]) for b in buckets] == [(1e-4, 1), (None, 1)]
    assert wake_table(wakes) == [[5e-05, 1e-05], [0.005, 3e-05]]
    CpuCost(wake_latency_s=wake_table(wakes))


def test_the_spread_is_each_wake_up_over_its_gap_bucket_s_median_stalls_left_out():
    from tcpsim.lab.schedtrace import latency_spread

    short = [(5e-5, late) for late in (10e-6, 20e-6, 30e-6, 40e-6)]  # median 25 us: 0.4, 0.8, 1.2, 1.6
    long = [(5e-3, 30e-6), (5e-3, 30e-6), (5e-3, 2e-3)]  # median 30 us: 1, 1, and a stall (over 1 ms) left out
    assert latency_spread(short + long, steps=2) == [0.8, 1.2]  # the quantiles at 25 and 75 % of six
    spread = latency_spread(short + long)
    assert len(spread) == 20 and spread == sorted(spread) and spread[0] == 0.4 and spread[-1] == 1.6
    assert latency_spread([(5e-3, 2e-3)]) == []


SPREAD = (0.5, 1.0, 2.0)


def test_a_spread_factor_is_the_inverse_distribution_linear_between_its_quantiles():
    cpu = CpuCost(wake_latency_s=TABLE, wake_latency_spread=SPREAD)  # quantiles at 1/6, 3/6 and 5/6
    assert cpu.wake_latency_factor(0.0) == 0.5 and cpu.wake_latency_factor(1 / 6) == pytest.approx(0.5)
    assert cpu.wake_latency_factor(1 / 3) == pytest.approx(0.75)
    assert cpu.wake_latency_factor(0.5) == pytest.approx(1.0)
    assert cpu.wake_latency_factor(0.999) == 2.0
    assert CpuCost().wake_latency_factor(0.3) == 1.0
    assert cpu.wake_draws and not CpuCost(wake_latency_spread=SPREAD).wake_draws  # a spread of no latency draws nothing


@pytest.mark.parametrize("bad", [(1.0, 0.5), (-0.1, 1.0), (1.0, 200.0), ("x",), 3.0])
def test_a_bad_spread_is_one_error_naming_the_field(bad):
    with pytest.raises(ConfigError, match="wake_latency_spread"):
        CpuCost(wake_latency_spread=bad)


def test_a_profile_with_a_spread_reads_back_equal_and_shows_it(tmp_path, capsys):
    from tcpsim.cli import main

    platform = Platform(cpu=replace(COSTS, wake_latency_s=TABLE, wake_latency_spread=SPREAD))
    path = save_platform(platform, tmp_path / "m.toml")
    assert load_platform(path) == platform
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace("[0.5, 1.0, 2.0]", '[0.5, "x"]'))
    with pytest.raises(ConfigError, match="bad.toml.*cpu.wake_latency_spread"):
        load_platform(bad)
    assert main(["machine", "show", "lab_vm"]) == 0
    assert any("cpu.wake_latency_spread" in line and "0.125" in line for line in capsys.readouterr().out.splitlines())


def test_a_spread_draws_each_wake_up_s_latency_from_the_run_s_generator():
    from tcpsim.components.host import HostRuntime
    from tcpsim.components.kernel import Kernel

    cpu = replace(COSTS, wake_latency_s=TABLE, wake_latency_spread=SPREAD)
    host = HostRuntime(Kernel(10, 1.0), Platform(cpu=cpu), "h", 1, iter([0.0, 0.5, 0.999]).__next__)
    assert [host.wake_delay_s(1.0) for _ in range(3)] == pytest.approx([30e-6, 60e-6, 120e-6])
    same = [simulate(build_scenario(platform=Platform(cpu=cpu, os=os_version("linux-6.8")), rate="1gbit", rtt="1ms",
                                    write="128k", sndbuf="16k", seed=3)).goodput_bps for _ in range(2)]
    assert same[0] == same[1]


def test_the_trace_command_refuses_bad_arguments_in_one_line(capsys):
    from tcpsim.lab import schedtrace

    assert schedtrace.main(["--duration", "60s"]) == 2
    assert schedtrace.main(["--rtt", "soon"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "duration" in err[0] and "rtt" in err[1]


def _exit_code(main, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return exc.value.code


@pytest.mark.parametrize("argv, field", [
    (["--read-delay", "1s"], "read_delay"), (["--read-delay", "soon"], "read_delay"),
    (["--duration", "-1"], "duration"), (["--duration", "nan"], "duration"), (["--rate", "fast"], "rate"),
    (["--rtt", "5"], "rtt"), (["--mtu", "lots"], "mtu")])
def test_the_window_probe_refuses_bad_arguments_in_one_line(capsys, argv, field):
    from tcpsim.lab import winprobe

    assert _exit_code(winprobe.main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err


@pytest.mark.parametrize("argv, field", [(["--calls", "0"], "calls"), (["--calls", "-5"], "calls"),
                                         (["--calls", "100001"], "calls"), (["--passes", "0"], "passes"),
                                         (["--passes", "11"], "passes"), (["--queue-bytes", "0"], "queue_bytes")])
def test_the_call_probe_refuses_bad_counts_in_one_line(capsys, argv, field):
    from tcpsim.lab import callprobe

    assert _exit_code(callprobe.main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err


def test_machine_show_reads_a_wake_up_table_in_plain_units(tmp_path, capsys):
    from tcpsim.cli import main

    path = tmp_path / "vm.toml"
    path.write_text('name = "vm"\nbase = "rx2600_ixgb"\n[fixed.cpu]\nwake_latency_s = [[0.001, 5e-5], [0.004, 1.5e-4]]\n')
    assert main(["machine", "show", str(path)]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if "cpu.wake_latency_s" in l)
    assert "after 1 ms: 50 us, after 4 ms: 150 us" in line


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the waker probe places a reader on a second CPU")
def test_the_waker_probe_times_the_waking_write_in_three_placements(capsys):
    assert wakeprobe.main(["--waker", "--count", "20"]) == 0
    sets = json.loads(capsys.readouterr().out)["sets"]
    assert [s["placement"] for s in sets] == list(wakeprobe.WAKER_PLACEMENTS)
    for s in sets:
        assert s["n"] == 20 and 0 < s["p10_s"] <= s["median_s"] <= s["p90_s"] < 0.1
    assert sets[1]["cpus"][0] == sets[1]["cpus"][1] != sets[0]["cpus"][1]
    with pytest.raises(ValueError, match="placement"):
        wakeprobe.probe_waker("awake", count=1)


def _lab_like(wake_cost_s, **kw):
    """lab_vm unshaped, its reader at the send call's cost (a reader that drains and sleeps once a message), with
    the segment and byte costs lab_vm had when these tests were written, so that a refit of the profile does not
    move the mechanism they test."""
    base = load_platform("lab_vm")
    cpu = replace(base.cpu, wake_cost_s=wake_cost_s, per_syscall_rx_s=None, per_packet_tx_s=2.5e-6,
                  per_packet_rx_s=2.5e-6, per_byte_copy_s=2.7e-10)
    return predict(platform=replace(base, cpu=cpu), rate=0, veth=True, **kw)


def test_waking_a_sleeping_reader_costs_the_cpu_that_delivers():
    """validation/README.md, "Waking a process costs the CPU that wakes it": on a veth the sender's CPU runs the
    delivery, so a reader that sleeps between 16 KiB writes (20,000 a second, well below what the CPUs can move) is
    woken by the sending CPU, which pays at least the wake cost for each write; the receiver's CPU pays less (since work
    on a veth runs where its segment is processed, data an ACK releases on the receiver's CPU wakes the reader from
    there).
    (It compared the goodput of a CPU-bound run before 2026-11-29, a 0.1 % margin that CUBIC's growth before its
    first loss turned: the reader there no longer sleeps once a write.)"""
    free, costly = (_lab_like(w, write="16k", message_rate=20_000) for w in (0.0, 6.74e-6))
    snd_free, snd_costly = free.cpu_utilization_frac["sender"][0], costly.cpu_utilization_frac["sender"][0]
    assert snd_costly - snd_free >= 0.9 * 20_000 * 6.74e-6
    rcv_free, rcv_costly = free.cpu_utilization_frac["receiver"][0], costly.cpu_utilization_frac["receiver"][0]
    assert rcv_costly - rcv_free < 0.5 * (snd_costly - snd_free)
    assert costly.goodput_bps == pytest.approx(free.goodput_bps, rel=0.01)  # the writes' rate, either way


def test_a_wake_cost_is_range_checked():
    with pytest.raises(ConfigError, match="wake_cost_s"):
        CpuCost(wake_cost_s=-1e-6)


COST_TABLE = ((1e-5, 1e-6), (2e-5, 5e-6), (5e-4, 7e-6))


def test_a_wake_cost_table_is_flat_beyond_both_ends_and_linear_between():
    """validation/README.md, "A wake-up's cost by how long since the last"."""
    cpu = CpuCost(wake_cost_s=[list(p) for p in COST_TABLE])
    assert cpu.wake_cost_s == COST_TABLE
    assert cpu.wake_cost_after_s(0.0) == cpu.wake_cost_after_s(1e-5) == 1e-6
    assert cpu.wake_cost_after_s(1.5e-5) == pytest.approx(3e-6)
    assert cpu.wake_cost_after_s(1.0) == cpu.wake_cost_after_s(float("inf")) == 7e-6
    assert CpuCost(wake_cost_s=4e-6).wake_cost_after_s(1e-6) == 4e-6
    assert not cpu.is_free


def test_wake_ups_soon_after_the_last_cost_the_waker_less():
    """A reader woken for every 60-byte message (TCP_NODELAY, a few microseconds apart) costs the sending CPU the
    table's cheap short-gap figure, so the run is faster than with the long-gap figure everywhere, and no faster
    than with no wake cost at all."""
    table = ((1e-5, 1e-6), (5e-5, 7e-6))
    kw = dict(message=60, nodelay=True)
    free, cheap, flat = _lab_like(0.0, **kw), _lab_like(table, **kw), _lab_like(7e-6, **kw)
    assert flat.goodput_bps < cheap.goodput_bps <= free.goodput_bps


def test_the_receive_trace_counts_by_context_and_names_the_two_processes():
    from tcpsim.lab.rxtrace import count_events

    lines = ["# tracer: nop",
             "  iperf3-10  [000] ..... 1.000000: sock_send_length: sk=x family=AF_INET protocol=IPPROTO_TCP ret=60",
             "  iperf3-11  [001] ..... 1.000010: sock_recv_length: sk=y family=AF_INET protocol=IPPROTO_TCP ret=60",
             "  iperf3-10  [000] ..s1. 1.000020: tcp_probe: family=AF_INET src=a:1 dest=b:2 mark=0x0 data_len=60 x",
             "  iperf3-11  [001] ..... 1.000030: tcp_probe: family=AF_INET src=a:1 dest=b:2 mark=0x0 data_len=60 x",
             "  iperf3-10  [000] ..... 1.000040: tcp_probe: family=AF_INET src=b:2 dest=a:1 mark=0x0 data_len=0 x",
             "  <idle>-0  [001] d.h1. 1.000050: ipi_send_cpu: cpu=0 callsite=x callback=y"]
    counts, span_s, roles = count_events(lines)
    assert span_s == pytest.approx(5e-5) and roles == {10: "writer", 11: "reader"}
    assert counts[("tcp_probe", "data", "softirq", "000")] == 1
    assert counts[("tcp_probe", "data", "reader", "001")] == 1
    assert counts[("tcp_probe", "ack", "writer", "000")] == 1
    assert counts[("ipi_send_cpu", "", "<idle>", "001")] == 1


def test_the_receive_trace_refuses_a_bad_window_in_one_line(capsys):
    from tcpsim.lab import rxtrace

    assert _exit_code(rxtrace.main, ["--scenario", "--rate 0", "--window", "5s"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "window" in err[0]


# ---------------------------------------------------------------- rare stalls (CpuCost.wake_stall_frac)

@pytest.mark.parametrize("field, bad", [("wake_stall_frac", -0.1), ("wake_stall_frac", 1.5), ("wake_stall_s", -1e-3),
                                        ("wake_stall_s", 2.0)])
def test_a_stall_figure_out_of_range_is_one_error_naming_the_field(field, bad):
    with pytest.raises(ConfigError, match=field):
        CpuCost(**{field: bad})


def test_a_stall_is_drawn_per_wake_up_with_its_probability():
    from tcpsim.components.host import HostRuntime
    from tcpsim.components.kernel import Kernel

    def host(frac, draws):
        return HostRuntime(Kernel(10, 1.0), Platform(cpu=replace(COSTS, wake_stall_frac=frac, wake_stall_s=2e-3)),
                           "h", 1, iter(draws).__next__)

    always, never = host(1.0, [0.999] * 3), host(0.0, [0.0] * 3)
    assert [always.wake_delay_s(1e-4) for _ in range(3)] == [2e-3] * 3
    assert [never.wake_delay_s(1e-4) for _ in range(3)] == [0.0] * 3
    some = host(0.25, [0.1, 0.3, 0.2, 0.9])
    assert [some.wake_delay_s(1e-4) for _ in range(4)] == [2e-3, 0.0, 2e-3, 0.0]
    # without a generator (a host built by hand) it never stalls
    assert HostRuntime(Kernel(10, 1.0), Platform(cpu=replace(COSTS, wake_stall_frac=1.0, wake_stall_s=2e-3)),
                       "h", 1).wake_delay_s(1e-4) == 0.0


def test_stalls_slow_a_send_buffer_limited_transfer_and_repeat_with_the_seed():
    """A writer that blocks every round trip and stalls 2 ms on a fifth of its wake-ups loses about that share
    of 2 ms per wake-up; the same seed gives the same run, link loss draws apart."""
    linux = os_version("linux-6.8")
    stalls = Platform(cpu=replace(COSTS, wake_stall_frac=0.2, wake_stall_s=2e-3), os=linux)
    on_time = _goodput(Platform(cpu=COSTS, os=linux), sndbuf="16k", rcvbuf="1m")
    runs = [simulate(build_scenario(platform=stalls, rate="1gbit", rtt="1ms", write="128k", sndbuf="16k",
                                    rcvbuf="1m", seed=seed)) for seed in (1, 1, 2)]
    assert runs[0].goodput_bps == runs[1].goodput_bps
    assert runs[0].goodput_bps < 0.9 * on_time
    assert runs[0].goodput_bps > 0.3 * on_time


def test_the_probe_pools_its_stalls():
    sets = [{"cpus": [0, 1], "n": 1000, "stall_n": 2, "stall_mean_s": 1.5e-3},
            {"cpus": [0, 1], "n": 3000, "stall_n": 2, "stall_mean_s": 2.5e-3},
            {"cpus": [0, 0], "n": 1000, "stall_n": 900, "stall_mean_s": 9e-3}]  # same CPU: left out
    tail = wakeprobe.stall_tail(sets)
    assert tail["wake_stall_frac"] == pytest.approx(4 / 4000)
    assert tail["wake_stall_s"] == pytest.approx(2e-3)
    assert wakeprobe.stall_tail([])["wake_stall_frac"] == 0.0
    CpuCost(wake_stall_frac=tail["wake_stall_frac"], wake_stall_s=tail["wake_stall_s"])


@pytest.mark.parametrize("family, after", [("linux", True), ("bsd", False), ("solaris", False)])
def test_only_linux_transmits_what_an_ack_frees_before_it_wakes_the_writer(family, after):
    from tcpsim.config import TcpOptions
    from tcpsim.platform import os_defaults

    assert TcpOptions.for_os(os_defaults(family), sockbuf_bytes=65536).wake_after_output is after


@pytest.mark.xfail(strict=True, reason=(
    "since an aggregate taken whole is acknowledged whole, sending first shortens the round trip by 1.6 us, not 10 "
    "(1,256.5 against 1,258.1 us since the send buffer counts truesize; 7.9 us before), and gives less goodput, not "
    "5 % more (278.0 against 291.1 Mbit/s): the "
    "order's effect on this pinned row was measured with ACKs of part of an aggregate; not re-traced "
    "(validation/README.md, 'What acknowledging an aggregate whole gave')"))
def test_a_linux_ack_s_transmit_does_not_wait_for_the_writer_s_wake_up():
    """tcp_data_snd_check: tcp_push_pending_frames, then tcp_check_space. On the lab's path (the ACK's receive work and
    the transmit it triggers on one CPU), a wake-up that costs that CPU 200 us holds what the ACK freed if the writer
    is woken first; sent first, it leaves at once: a shorter round trip and more goodput for a writer-limited run."""
    from tcpsim.lab.predict import host_platform, lab_simulation
    from tcpsim.lab.scenario import lab_scenario

    host = host_platform({}, "lab_vm", None, "relay")
    # lab_vm's costs of 2026-11-29, pinned: the test is about the order at the end of an ACK, not the fit
    host = replace(host, cpu=replace(host.cpu, wake_cost_s=200e-6, wake_latency_s=(), wake_stall_frac=0.0,
                                     per_packet_tx_s=1.727e-6, per_packet_rx_s=1.808e-6, per_byte_copy_s=7.872e-11))
    sc = lab_simulation(lab_scenario(rate="1gbit", rtt="1ms", sockbuf="32k", write="128k", duration="1s"), host,
                        "relay", 0, "iperf3")
    assert sc.sender.tcp.wake_after_output
    first = simulate(sc)
    waking_first = simulate(replace(sc, sender=replace(sc.sender, tcp=replace(sc.sender.tcp, wake_after_output=False))))
    assert first.rtt_s < waking_first.rtt_s - 10e-6, (first.rtt_s, waking_first.rtt_s)
    assert first.goodput_bps > 1.05 * waking_first.goodput_bps


class _Host:
    """What a :class:`~tcpsim.components.app.Process` asks of its host: wake-ups counted, 10 us late."""

    wakes_late = True

    def __init__(self):
        self.charged = 0

    def charge_wake(self, last_woken_s):
        self.charged += 1
        return 0.0

    def wake_delay_s(self, idle_s):
        return 10e-6


def test_streams_of_one_process_sleep_once_and_wake_once():
    """iperf3 before 3.16 serves every stream from one ``select`` loop: the process sleeps only once none of its
    streams can go on, the first that can wakes it (one wake-up's cost, its lateness), and a second stream that can
    go on meanwhile waits only until the process runs."""
    from tcpsim.components.app import Process

    host = _Host()
    shared = Process(host)
    shared.join(True)
    shared.join(True)  # two readers, nothing to read yet, blocked since time 0
    assert shared.wake(1e-3) == pytest.approx(10e-6) and host.charged == 0  # never slept: no wake-up to pay
    assert shared.wake(1e-3 + 4e-6) == pytest.approx(6e-6)  # the other waits for the process, no new latency
    shared.block(2e-3)
    assert not shared.asleep  # one stream still has work
    shared.block(2.1e-3)
    assert shared.asleep
    assert shared.wake(3e-3) == pytest.approx(10e-6) and host.charged == 1
    assert shared.wake(3e-3 + 20e-6) == 0.0 and host.charged == 1  # awake: the second stream pays nothing
    apart = [Process(host), Process(host)]
    for p in apart:
        p.join(False)
        p.block(2e-3)
        p.wake(3e-3)
    assert host.charged == 3  # a process a stream: a wake-up each


def test_one_stream_runs_the_same_in_one_process_or_its_own():
    sc = build_scenario(platform="lab_vm", rate=0, veth=True, write="128k", rtt=0)
    one = simulate(replace(sc, workload=replace(sc.workload, one_process=True)))
    assert one.goodput_bps == simulate(sc).goodput_bps


def test_one_thread_makes_one_call_at_a_time_and_serves_its_members_in_turn():
    """iperf3 before 3.16 serves each ready socket in turn from one thread: a member that could call while another's
    call has not returned queues; when a call returns the queued members go first; one with nothing to do passes on."""
    from tcpsim.components.app import Process

    proc = Process(_Host(), one_thread=True)
    order = []
    a, b, c = object(), object(), object()
    proc.takes(a)
    assert proc.queues(b, lambda: order.append("b")) and proc.queues(c, lambda: order.append("c"))
    assert not proc.queues(a, lambda: order.append("a"))  # its own call: it goes on
    assert proc.returns(a, lambda: order.append("a")) and order == ["b"]  # b's turn, a queues behind c
    assert proc.holder is None  # b made no call (its resumption took nothing) ...
    proc.pass_on()
    assert order == ["b", "c"]  # ... so c's turn
    proc.takes(c)
    assert not proc.returns(b, lambda: None)  # not in a call: nothing to hand over
    assert proc.returns(c, lambda: order.append("c")) and order == ["b", "c", "a"]
    several = Process(_Host())  # a process per stream (or threads): no queue
    several.takes(a)
    assert not several.queues(b, lambda: None)


def test_streams_of_one_thread_share_the_work_of_both_cpus_on_a_veth():
    """The rule of validation/README.md, "Work runs where its segment is processed": pinned, the kernel's iperf3 moved
    about 65 Gbit/s with one to four streams (an ACK taken in outside the writer's call sends from the reader's CPU,
    and the data it sends is taken in there); tcpsim's multi-stream runs had fallen to 47 Gbit/s, the sender's CPU
    doing every stream's receive work."""
    from tcpsim.lab.predict import host_platform, lab_simulation
    from tcpsim.lab.scenario import lab_scenario

    def run(streams):
        sc = lab_scenario(rate="0", rtt="0", mtu=1500, sockbuf=None, write=131072, nodelay=False, duration="3s",
                          streams=streams)
        return simulate(lab_simulation(sc, host_platform({}, "lab_vm", None, "none"), "none", 0, "iperf3"))

    one, four = run(1), run(4)
    assert four.goodput_bps > 0.9 * one.goodput_bps
