"""Capacity planning: the answers are the smallest that reach the target, and say why."""

import pytest

from tcpsim import predict
from tcpsim.errors import ConfigError
from tcpsim.plan import jumbo_frames_help, smallest_cpus, smallest_sockbuf


def test_smallest_sockbuf_reaches_the_target_and_a_smaller_one_does_not():
    target = 400e6
    ans = smallest_sockbuf("400mbit", rtt="1ms")
    assert ans.sockbuf_bytes is not None and ans.sockbuf_bytes % 1024 == 0
    assert predict(rtt="1ms", sockbuf=ans.sockbuf_bytes).goodput_bps >= target
    assert predict(rtt="1ms", sockbuf=int(ans.sockbuf_bytes * 0.9)).goodput_bps < target
    assert ans.goodput_bps >= target and f"--sockbuf {ans.sockbuf_bytes // 1024}k" in ans.reason
    # the window rule: about target x RTT of buffer (the RTT measured includes queueing, hence the range)
    assert 400e6 / 8 * 1e-3 <= ans.sockbuf_bytes <= 2 * 400e6 / 8 * 1e-3


def test_the_sockbuf_search_starts_at_the_window_the_round_trip_needs(monkeypatch):
    """A connection moves at most one window per round trip: no buffer under target x propagation round
    trip is simulated, and where the window limits, the first guess (target x unloaded round trip) is
    close, so a few runs find the answer (bisection from 4 KiB took a dozen)."""
    import tcpsim.plan as plan

    tried = []
    real = plan._run

    def spy(**kw):
        tried.append(kw["sockbuf"])
        return real(**kw)

    monkeypatch.setattr(plan, "_run", spy)
    kw = dict(rtt="20ms", rate="100mbit")
    ans = plan.smallest_sockbuf("80mbit", **kw)
    assert min(tried) >= 80e6 * 20e-3 / 8 and len(tried) <= 4
    assert predict(sockbuf=ans.sockbuf_bytes, **kw).goodput_bps >= 80e6
    assert predict(sockbuf=int(ans.sockbuf_bytes * 0.98), **kw).goodput_bps < 80e6


def test_target_above_the_line_is_not_reachable():
    ans = smallest_sockbuf("2gbit", rtt="1ms")
    assert ans.sockbuf_bytes is None and ans.limited_by == "line"
    assert ans.reason.startswith("not reachable") and ans.text == ans.reason


def test_the_linux_buffer_cap_is_named():
    ans = smallest_sockbuf("900mbit", platform="p4_linux", rtt="10ms")
    assert ans.sockbuf_bytes is None and ans.limited_by == "window"
    assert "caps" in ans.reason and "--sysctl" in ans.reason


def test_smallest_cpus_is_minimal():
    kw = dict(platform="es40_tru64", sockbuf="512k")
    ans = smallest_cpus("500mbit", **kw)
    assert ans.n_cpus is not None and ans.n_cpus >= 1
    assert predict(cpus=ans.n_cpus, **kw).goodput_bps >= 500e6
    if ans.n_cpus > 1:
        assert predict(cpus=ans.n_cpus - 1, **kw).goodput_bps < 500e6
    assert f"--cpus {ans.n_cpus}" in ans.reason


def test_smallest_cpus_unreachable_within_the_limit():
    ans = smallest_cpus("2gbit", max_cpus=2, platform="es40_tru64")
    assert ans.n_cpus is None and "not reachable" in ans.reason


def test_jumbo_frames_help_a_cpu_bound_host():
    ans = jumbo_frames_help(platform="es40_tru64", sockbuf="512k")  # large buffers: the CPU binds at MTU 1500
    assert ans.helps and ans.gain_frac > 0.05
    assert ans.limited_by_1500.startswith("cpu_")
    assert ans.goodput_9000_bps > ans.goodput_1500_bps
    assert "jumbo frames help" in ans.reason and "per-packet" in ans.reason


def test_jumbo_frames_do_not_fix_a_window_limit():
    ans = jumbo_frames_help(rtt="10ms", sockbuf="64k")
    assert not ans.helps
    assert ans.limited_by_1500 == "window" and "sockbuf" in ans.reason


@pytest.mark.parametrize("target", ["fast", "0", -5])
def test_bad_targets(target):
    with pytest.raises(ConfigError):
        smallest_sockbuf(target)
    with pytest.raises(ConfigError):
        smallest_cpus(target)


def test_a_capped_linux_buffer_points_to_autotuning():
    """Linux caps setsockopt at rmem_max (128 KiB doubled), so no requested buffer covers a 10 ms path at
    500 Mbit/s; a socket that sets none autotunes past it, and the answer says so."""
    ans = smallest_sockbuf("500mbit", os="linux", rtt="10ms")
    assert ans.sockbuf_bytes is None and "caps the buffer" in ans.reason
    assert "or set none: this OS autotunes" in ans.reason
    bsd = smallest_sockbuf("500mbit", os="bsd", rtt="10ms")
    assert bsd.sockbuf_bytes is not None and "autotunes" not in bsd.reason


def test_the_cap_lines_of_an_unreachable_answer_make_it_reachable():
    """The capped answer names the tuning lines that let the needed request through; with them applied (as a
    --sysctl file would be) the same question has an answer."""
    import re

    from tcpsim.api import build_scenario
    from tcpsim.tuning import apply_tuning, parse_tuning

    ans = smallest_sockbuf("500mbit", os="linux-6.8", rtt="10ms")
    assert ans.sockbuf_bytes is None
    lines = re.findall(r"'([^']+)'", ans.reason)
    assert lines and all("mem_max" in line for line in lines)
    tuned = apply_tuning(build_scenario(os="linux-6.8").sender.platform, parse_tuning("\n".join(lines))).platform
    again = smallest_sockbuf("500mbit", sender=tuned, receiver=tuned, rtt="10ms")
    assert again.sockbuf_bytes is not None and again.goodput_bps >= 500e6
