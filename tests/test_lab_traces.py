"""tcpsim lab's traces and probes: the scheduler, receive and packet traces, the call probe, tracefs, perf.

The real-kernel ones run only as root with namespaces, tracefs and the tools they follow; elsewhere they are
skipped with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tcpsim.lab.schedtrace import tracefs_has

from lab_env import needs_lab


def _traces_iperf3(event: str):
    """A real-kernel test that traces iperf3's processes: root and namespaces, tracefs with ``event``, iperf3."""
    marks = (needs_lab,
             pytest.mark.skipif(not tracefs_has(f"events/{event}"), reason=f"no tracefs with the {event} event here"),
             pytest.mark.skipif(shutil.which("iperf3") is None,
                                reason="iperf3 is not installed: the trace follows iperf3's processes"))

    def mark(test):
        for m in marks:
            test = m(test)
        return test
    return mark


def test_a_wake_up_whose_switch_in_is_not_traced_ends_at_the_process_s_own_next_event():
    """Linux 6.18 here traces a reader's switch-out to the idle task and its ``sched_waking``, but not the idle task's
    switch back to it: such a wake-up ends at the first event in the process's own context (its ``select``'s
    ``sys_exit``) less the return path the traced switch-ins show (validation/README.md, "A wake-up ends when the
    process is switched in")."""
    from tcpsim.lab.schedtrace import parse_trace, parse_wakes

    untraced = """\
          iperf3-19157   [001] d..2. 100.000000: sched_switch: prev_comm=iperf3 prev_pid=19157 prev_prio=120 \
prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          iperf3-19158   [000] d.s5. 100.000050: sched_waking: comm=iperf3 pid=19157 prio=120 target_cpu=001
          iperf3-19158   [000] ..... 100.000055: sys_exit: NR 1 = 262144
          iperf3-19157   [001] ..... 100.000063: sys_exit: NR 270 = 1
          iperf3-19157   [001] ..... 100.000070: sys_exit: NR 0 = 195480""".splitlines()
    assert parse_wakes(untraced) == [(pytest.approx(50e-6), pytest.approx(13e-6))]  # no return path to take off
    switched = untraced[:2] + ["          <idle>-0       [001] d..2. 100.000060: sched_switch: prev_comm=swapper/1 "
                               "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=iperf3 next_pid=19157 "
                               "next_prio=120"] + untraced[2:]
    trace = parse_trace(switched)
    assert trace.switched == [(pytest.approx(50e-6), pytest.approx(10e-6))] and not trace.own
    assert trace.return_path_s == [pytest.approx(3e-6)]  # the switch-in to its select's sys_exit
    assert parse_wakes(untraced[1:]) == []  # its block not seen: left out
    both = parse_trace(untraced)
    both.extend(trace)
    assert both.wakes() == [(pytest.approx(50e-6), pytest.approx(10e-6)), (pytest.approx(50e-6), pytest.approx(10e-6))]


@_traces_iperf3("sched/sched_waking")
def test_the_scheduler_trace_times_iperf3s_wake_ups_in_a_short_run(capsys):
    from tcpsim.lab import schedtrace

    assert schedtrace.main(["--rtt", "1ms", "--mtu", "1500", "--duration", "0.5s"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"][0]["wakes"] > 10
    assert all(0 < late < 0.05 for _, late in out["wake_latency_s"])
    assert Path("/sys/kernel/tracing/events/sched/sched_switch/enable").read_text().strip() == "0"


@_traces_iperf3("sched/sched_waking")
def test_the_scheduler_trace_runs_a_scenario_of_lab_arguments(capsys):
    """``--scenario``: any tcpsim lab run (here 60-byte messages with TCP_NODELAY), its wake-ups a second beside its
    goodput; a scenario tcpsim lab refuses is one line and exit 2."""
    from tcpsim.lab import schedtrace

    assert schedtrace.main(["--scenario", "--rate 1gbit --rtt 0 --message 60 --nodelay", "--duration", "0.5s"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    # how often iperf3's processes complete a sleep here varies from run to run (tens to thousands a second)
    assert run["scenario"].endswith("--nodelay") and run["goodput_bps"] > 0
    assert run["wakes_per_s"] == pytest.approx(run["wakes"] / 0.5)
    assert sum(b["n"] for b in run["buckets"]) == run["wakes"]
    assert schedtrace.main(["--scenario", "--rate -3", "--duration", "0.5s"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


@_traces_iperf3("tcp/tcp_probe")
def test_the_receive_trace_says_where_each_segment_was_processed(capsys):
    from tcpsim.lab import rxtrace

    assert rxtrace.main(["--scenario", "--rate 0 --write 16k", "--window", "0.1s"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    data = [r for r in run["rates"] if r["event"] == "tcp_probe" and r["kind"] == "data"]
    assert run["goodput_bps"] > 0 and sum(r["per_s"] for r in data) > 1000
    assert {r["context"] for r in run["rates"]} >= {"softirq", "writer", "reader"}
    assert {t["process"] for t in run["tools_cpu"]} == {"writer", "reader"}
    assert all(0 <= t["user_s_per_s"] + t["system_s_per_s"] <= 1.5 for t in run["tools_cpu"])
    assert Path("/sys/kernel/tracing/events/tcp/tcp_probe/enable").read_text().strip() == "0"


@needs_lab
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the reader is iperf3's")
def test_the_untraced_sample_times_a_saturated_reader_s_read(capsys):
    """``rxtrace --untraced``: no tracepoint on, the processes named from their command lines, and on a run of small
    messages the reader's CPU time per read, how lab_vm's ``per_syscall_rx_s`` is measured: a microsecond or two here,
    between the loopback probe's system time alone and ten times it."""
    from tcpsim.lab import rxtrace

    assert rxtrace.main(["--untraced", "--scenario", "--rate 1gbit --message 40", "--window", "0.2s"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["runs"][0]
    assert out["traced"] is False and run["rates"] == [] and run["goodput_bps"] > 0
    assert {t["process"] for t in run["tools_cpu"]} == {"writer", "reader"}
    assert 0.2e-6 < run["reader_per_read_s"] < 20e-6
    # /proc/PID/io counts each tool's calls: 40-byte messages at most a gigabit, so no more writes than that allows
    by_role = {t["process"]: t for t in run["tools_cpu"]}
    assert 0 < by_role["writer"]["writes_per_s"] <= 1.2 * 1e9 / 8 / 40 and by_role["reader"]["reads_per_s"] > 0
    assert all(0.1e-6 < t["cpu_s_per_call"] < 50e-6 for t in run["tools_cpu"])
    assert rxtrace.main(["--untraced", "--scenario", "--rate 1gbit", "--window", "1s", "--duration", "2s"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


@needs_lab
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the trace streams with iperf3")
def test_the_receiver_s_packet_trace_reads_a_short_run(capsys):
    """``python -m tcpsim.lab.skbtrace``: a packet socket in the receiver's namespace sees the skbs and the ACKs;
    the window it offers is within the buffer's (a 32 KiB SO_RCVBUF holds at most 64 KiB)."""
    from tcpsim.lab import skbtrace

    assert skbtrace.main(["--rtt", "1ms", "--sockbuf", "32k", "--duration", "1s"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["data_skbs"] > 100 and out["acks"] > 100 and out["goodput_bps"] > 0
    assert 0 < max(w["bytes"] for w in out["windows_offered"]) <= 65536

def test_the_call_probe_reads_syscall_pairs_and_phases():
    """``tcpsim.lab.callprobe``: enter/exit pairs of one process become durations, and each phase's call is the
    one it made most (a stray call in a phase is left out)."""
    from tcpsim.lab.callprobe import _by_phase, parse_syscalls

    lines = []
    t = 100.0
    for nr, d, n in ((44, 1.2e-6, 4), (1, 9e-6, 1), (45, 0.9e-6, 4), (110, 0.4e-6, 4), (1, 1.5e-6, 4)):
        for _ in range(n):
            lines += [f" python-7 [000] ..... {t:.7f}: sys_enter: NR {nr} (3, 0, 0)",
                      f" python-7 [000] ..... {t + d:.7f}: sys_exit: NR {nr} = -11"]
            t += 1e-5
    calls = parse_syscalls(["# tracer: nop", *lines])
    assert len(calls) == 17 and calls[0][0] == 44 and calls[0][1] == pytest.approx(1.2e-6, abs=1e-9)
    means = _by_phase(calls, 4)
    # the queued writes' phase is write(2) (NR 1), which also made the stray call of the first phase
    assert means == pytest.approx({"send": 1.2e-6, "recv": 0.9e-6, "getppid": 0.4e-6, "queue": 1.5e-6}, abs=1e-9)


def test_the_call_probe_times_a_send_that_moves_nothing():
    """On loopback only, bounded: an EAGAIN send costs something, and more than the probe's own loop."""
    from tcpsim.lab.callprobe import can_trace, probe_calls

    got = probe_calls(calls=300, passes=1, method="python")
    assert got["method"] == "python" and got["send_s"] > 0 and got["recv_s"] > 0 and got["queue_send_s"] > 0
    if not can_trace():
        pytest.skip("the kernel-timestamp path needs root and tracefs with raw_syscalls events")
    got = probe_calls(calls=300, passes=1, method="tracefs")
    assert 0 < got["send_s"] < 1e-3 and 0 < got["queue_send_s"] < 1e-3 and got["passes"][0]["overhead_s"] > 0
    event = Path("/sys/kernel/tracing/events/raw_syscalls/sys_enter")
    assert (event / "enable").read_text().strip() == "0" and (event / "filter").read_text().strip() == "none"


def test_tracefs_is_mounted_only_at_its_usual_place(tmp_path, monkeypatch):
    """The trace tools look for their events in tracefs, mounting it (root) only at /sys/kernel/tracing, never
    elsewhere."""
    from tcpsim.lab import schedtrace

    calls = []
    monkeypatch.setattr(schedtrace, "TRACEFS", tmp_path)
    monkeypatch.setattr(schedtrace.subprocess, "run", lambda *a, **k: calls.append(a))
    assert not schedtrace.tracefs_has("events/sched/sched_waking") and calls == []
    (tmp_path / "events/sched/sched_waking").mkdir(parents=True)
    assert schedtrace.tracefs_has("events/sched/sched_waking") and calls == []


def test_one_trace_at_a_time_holds_tracefs(tmp_path, monkeypatch):
    """tracefs has one set of events and one buffer per machine: a second ``traced`` waits for the first (its
    lock), and says so in one line when the wait runs out; the first's exit frees it."""
    from tcpsim.lab import schedtrace

    for event in schedtrace.EVENTS:
        (tmp_path / "events" / event).mkdir(parents=True)
    monkeypatch.setattr(schedtrace, "TRACEFS", tmp_path)
    monkeypatch.setattr(schedtrace, "LOCK_PATH", tmp_path / "tracefs.lock")
    with schedtrace.traced():
        assert (tmp_path / "tracing_on").read_text() == "1"
        with pytest.raises(schedtrace.TracefsBusy, match="in use by another trace"):
            with schedtrace.traced(lock_wait_s=0.1):
                pass
        assert (tmp_path / "tracing_on").read_text() == "1"  # the refused one touched nothing
    assert (tmp_path / "tracing_on").read_text() == "0"
    with schedtrace.traced(lock_wait_s=0.1):
        pass


PERF_SCRIPT = """\
iperf3 [000]
\tffffffff81000001 tcp_rcv_established+0x10
\tffffffff81000002 tcp_v4_do_rcv+0x20
\tffffffff81000003 tcp_v4_rcv+0x30
\tffffffff81000004 ip_local_deliver+0x40
iperf3 [000]
\tffffffff81000005 ip_rcv_core+0x10
\tffffffff81000006 __netif_receive_skb_one_core+0x20
iperf3 [001]
\tffffffff81000007 tcp_rcv_established+0x10
\tffffffff81000008 tcp_v4_do_rcv+0x20
\tffffffff81000009 __release_sock+0x30
\tffffffff8100000a tcp_recvmsg+0x40
iperf3 [001]
\tffffffff8100000b do_select+0x10
python [001]
\tffffffff8100000c ip_rcv_core+0x10
iperf3 [000]
\tffffffff8100000d veth_xmit+0x10
\tffffffff8100000e tcp_v4_rcv+0x10
"""


def test_perf_parts_gives_each_sample_to_its_innermost_part():
    """``python -m tcpsim.lab.perfparts``: TCP's part by where it ran (the softirq, under ``tcp_v4_rcv``, or the
    owner's backlog, under ``__release_sock``), the part before TCP, a transmit inside a receive counted as the
    transmit, the measuring side's samples left out; and ``rx_tcp_frac`` one minus the median part before TCP."""
    from tcpsim.lab.perfparts import parts, rx_tcp_frac

    out = parts(PERF_SCRIPT)
    assert out["samples"] == 5  # python's sample is the measuring side's
    assert out["cpu0"] == {"receive, TCP, in the softirq": 0.3333, "receive, before TCP": 0.3333, "transmit": 0.3333}
    assert out["cpu1"] == {"receive, TCP, from the owner's backlog": 0.5, "select (iperf3's loop)": 0.5}
    assert out["receive_before_tcp_frac"] == pytest.approx(1 / 3, abs=1e-3)
    assert out["tcp_part_from_backlog_frac"] == 0.5
    assert rx_tcp_frac([{"receive_before_tcp_frac": f} for f in (0.388, 0.499, 0.631, 0.492, 0.435, 0.453)]) == 0.53


def test_perf_parts_without_perf_or_root_is_one_line(monkeypatch, capsys):
    from tcpsim.lab import perfparts

    monkeypatch.setattr(perfparts.shutil, "which", lambda name: None)
    assert perfparts.main(["--scenario", "--rate 0 --write 16k"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["python -m tcpsim.lab.perfparts: needs root (tcpsim lab makes namespaces) and perf on the PATH"]
    assert perfparts.main(["--scenario", "--rate 0"] * 13) == 2
    assert capsys.readouterr().err.strip().endswith("13 given, at most 12")


@needs_lab
@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed: the probe samples with perf record")
@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed: the probe's samples are iperf3's")
@pytest.mark.skipif(shutil.which("taskset") is None, reason="--pin runs the tools under taskset (util-linux)")
def test_perf_parts_measures_a_real_run(capsys):
    """One short unshaped run: the receive work is found, and the share printed is a fraction a machine file takes."""
    from tcpsim.lab import perfparts

    assert perfparts.main(["--scenario", "--rate 0 --write 16k", "--window", "0.3s"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"^rx_tcp_frac = (\d\.\d\d)", out, re.M)
    assert m and 0.0 < float(m[1]) < 1.0, out
