"""``tcpsim.machine.paceprobe``: the CPU work a segment costs, measured and predicted, and the clock at which a machine
file's CPUs do as much (validation/README.md, "The kernel's pace from one probe run"). The real-kernel run itself is
rule 156's; here the arithmetic and the search."""

import pytest

from tcpsim.machine.paceprobe import (CLOCK_RANGE, measured_kernel_work_s, measured_work_s, pace_clock, predicted_work_s,
                                     with_calls, with_clock)

TEXT = 'name = "m"\n\n[cpu]\nmicroarch = "zen4"\nclock_hz = 2.596e+09   # /proc/cpuinfo\n\n[memory]\ncopy_bw_Bps = 2.5e10\n'


def test_the_measured_work_is_the_pinned_cpus_busy_time_over_the_segments():
    shares = {"cpu0": {"idle": 0.4}, "cpu1": {"idle": 0.7}, "cpu2": {"idle": 0.0}}  # cpu2 is not pinned
    segments_per_s = 1e9 / 8 / 1448
    assert measured_work_s(shares, [0, 1], 1e9) == pytest.approx(0.9 / segments_per_s)


def test_the_predicted_work_sums_every_host_cpu():
    from types import SimpleNamespace

    r = SimpleNamespace(cpu_utilization_frac={"sender": [0.5, 0.1], "receiver": [0.3]}, data_packets_per_s=1e5)
    assert predicted_work_s(r) == pytest.approx(0.9e-5)


def test_only_the_clock_line_changes():
    out = with_clock(TEXT, 1.3e9, "probe")
    assert "clock_hz = 1.3e+09  # probe" in out
    assert out.replace("clock_hz = 1.3e+09  # probe", "") == TEXT.replace("clock_hz = 2.596e+09   # /proc/cpuinfo", "")
    with pytest.raises(ValueError, match="clock_hz"):
        with_clock(TEXT.replace("clock_hz", "hz"), 1e9, "x")


@pytest.mark.parametrize("pace", [0.31, 0.5, 1.0, 2.7])
def test_the_search_finds_the_clock_at_which_the_work_matches(pace):
    """Work of clock-bound costs (inverse in the clock) plus a fixed part (the measured write), as a file gives it."""
    nominal = 2.596e9

    def predict(text):
        hz = float(text.split("clock_hz = ")[1].split()[0])
        return 1.5e-6 + 3e-6 * nominal / hz

    target = 1.5e-6 + 3e-6 / pace
    clock, tried = pace_clock(TEXT, target, predict, steps=20)
    assert clock == pytest.approx(pace * nominal, rel=1e-3)
    assert all(CLOCK_RANGE[0] * nominal <= hz <= CLOCK_RANGE[1] * nominal for hz, _ in tried)


def test_the_kernel_work_leaves_out_idle_and_user_time():
    """The request/response probe's generator is Python: its user time is not a machine file's cost."""
    shares = {"cpu0": {"idle": 0.4, "user": 0.2}, "cpu1": {"idle": 0.5, "user": 0.1}, "cpu2": {"idle": 0.0, "user": 1}}
    assert measured_kernel_work_s(shares, [0, 1], 1e5) == pytest.approx(0.8 / 1e5)


def test_only_the_call_lines_change():
    text = TEXT + "\n[fixed.cpu]\nper_syscall_s = 1.161e-06\nper_syscall_rx_s = 2.682e-06   # iperf3's\n"
    out = with_calls(text, {"per_syscall_s": 8.47e-7, "per_syscall_rx_s": 2.002e-6}, "kernel")
    assert "per_syscall_s = 8.47e-07  # kernel" in out and "per_syscall_rx_s = 2.002e-06  # kernel" in out
    assert out.count("\n") == text.count("\n") and "clock_hz = 2.596e+09" in out
    with pytest.raises(ValueError, match="per_syscall_rx_s"):
        with_calls(TEXT, {"per_syscall_rx_s": 1e-6}, "x")


def test_the_calls_file_must_hold_both_calls(tmp_path):
    from tcpsim.errors import TcpsimError
    from tcpsim.machine.paceprobe import _kernel_calls

    good = tmp_path / "calls.toml"
    good.write_text("[fixed.cpu]\nper_syscall_s = 8.47e-07\nper_syscall_rx_s = 2.002e-06\n")
    assert _kernel_calls(str(good)) == {"per_syscall_s": 8.47e-07, "per_syscall_rx_s": 2.002e-06}
    bad = tmp_path / "bad.toml"
    bad.write_text("[fixed.cpu]\nper_syscall_s = 8.47e-07\nper_syscall_rx_s = -1\n")
    with pytest.raises(TcpsimError, match="per_syscall_rx_s") as exc:
        _kernel_calls(str(bad))
    assert "\n" not in str(exc.value) and "bad.toml" in str(exc.value)
