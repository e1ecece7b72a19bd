"""``tcpsim.machine.paceprobe``: the CPU work a segment costs, measured and predicted, and the clock at which a machine
file's CPUs do as much (validation/README.md, "The kernel's pace from one probe run"). The real-kernel run itself is
rule 156's; here the arithmetic and the search."""

import pytest

from tcpsim.machine.paceprobe import CLOCK_RANGE, measured_work_s, pace_clock, predicted_work_s, with_clock

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
