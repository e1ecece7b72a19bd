"""Speed of the core engine: simulated data segments per wall second, events per segment, time to answer.

Run: ``python benchmarks/bench_core.py``. Figures, not assertions: speed goals live here, not in tests.
Per scenario: one run to a converged answer (what a user waits for), and the best of three runs for a
fixed 0.2 s of simulated time (steady-state speed of the engine; the best, as ``timeit`` does, because
a shared machine only ever slows a run down). Scenarios with the host model on also print how many
times slower they are than the same scenario with ideal hosts (issue 3's goal: at most 2x).
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace

from tcpsim.components import hot_path_compiled
from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.platform import Platform
from tcpsim.engine import run


def _bulk(rate_bps, mtu, buf, delay_s, **wl):
    opts = TcpOptions(sndbuf_bytes=buf, rcvbuf_bytes=buf)
    return Scenario(sender=Host(tcp=opts), receiver=Host(tcp=opts),
                    link=Link(rate_bps=rate_bps, mtu_bytes=mtu, one_way_delay_s=delay_s),
                    workload=Workload(**wl))


def scenarios() -> dict[str, Scenario]:
    sol = TcpOptions.for_os("solaris", sockbuf_bytes=65536)
    nagle = Scenario(sender=Host(tcp=sol), receiver=Host(tcp=sol), link=Link(one_way_delay_s=5e-6),
                     workload=Workload(write_bytes=100, message_rate_hz=20_000))
    from tcpsim.api import build_scenario

    return {
        "1G bulk, MTU 1500, 64 KB, RTT 100 us": _bulk(1e9, 1500, 65536, 50e-6),
        "same, host model on (es40_tru64 profile)": build_scenario(platform="es40_tru64", sockbuf="64k", rtt="100us"),
        "10G, 4 streams, rx2600_ixgb driver tuning": build_scenario(platform="rx2600_ixgb", tuning="driver",
                                                                  rate="10gbit", mtu=9000, sockbuf="256k",
                                                                  streams=4, delay="1us"),
        "10G bulk, MTU 9000, 256 KB": _bulk(10e9, 9000, 262144, 50e-6),
        "4 streams bidirectional, 1G": _bulk(1e9, 1500, 262144, 50e-6, n_streams=4, bidirectional=True),
        "100-byte messages, Nagle + Solaris deferred ACK": nagle,
        # SACK recovery walks its scoreboard on every ACK: windows of thousands of segments build up while
        # a lost retransmission waits for the timer, so this guards the range scoreboard's cost.
        "1 % random loss, SACK, 1 ms, 4 MB": build_scenario(rtt="1ms", sockbuf="4M", loss=0.01, sack=True),
    }


def ideal_hosts(sc: Scenario) -> Scenario:
    """The same scenario with the host model off: no CPU costs, no bus, no interrupt coalescing."""
    return replace(sc, sender=replace(sc.sender, platform=Platform()),
                   receiver=replace(sc.receiver, platform=Platform()))


def segments_per_wall_s(sc: Scenario, repeats: int = 3) -> tuple[float, float]:
    """Best simulated data segments per wall second over ``repeats`` fixed-length runs, and events per segment."""
    fixed = replace(sc, budget=Budget(rel_tol=1e-6, max_sim_time_s=0.2, min_sim_time_s=0.15))
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        rf = run(fixed)
        wall = time.perf_counter() - t
        segments = rf.data_packets_per_s * rf.sim_time_s
        best = max(best, segments / wall)
    return best, rf.events / max(segments, 1)


def measure(sc: Scenario) -> dict[str, float]:
    t = time.perf_counter()
    r = run(sc)
    converged_wall = time.perf_counter() - t
    rate, events_per_segment = segments_per_wall_s(sc)
    m = {"segments_per_wall_s": rate, "events_per_segment": events_per_segment,
         "wall_to_converged_s": converged_wall, "termination": r.termination, "goodput_mbps": r.goodput_bps / 1e6}
    if sc.sender.platform.host_model_on or sc.receiver.platform.host_model_on:
        m["slowdown_vs_ideal_hosts"] = segments_per_wall_s(ideal_hosts(sc))[0] / rate
    return m


def sweep_20_points_s() -> float:
    from tcpsim.sweep import sweep

    t = time.perf_counter()
    sweep({"platform": "es40_tru64"}, sockbuf=["16k", "32k", "64k", "128k", "256k"], mtu=[1500, 9000],
          write=["8k", "64k"])
    return time.perf_counter() - t


def predict_startup_s() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tcpsim", "predict", "--mtu", "9000", "--sockbuf", "512k"],
                   check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    why_pure = "editable install, TCPSIM_PURE_PYTHON=1, or no compiler"
    print("hot path:", "compiled (mypyc)" if hot_path_compiled() else f"pure Python ({why_pure})")
    print(f"{'scenario':50s} {'seg/wall s':>11s} {'ev/seg':>7s} {'converged in':>13s} {'goodput':>12s}")
    for name, sc in scenarios().items():
        m = measure(sc)
        print(f"{name:50s} {m['segments_per_wall_s']:11,.0f} {m['events_per_segment']:7.2f} "
              f"{m['wall_to_converged_s']:11.3f} s {m['goodput_mbps']:8.1f} Mb/s  ({m['termination']})")
        if "slowdown_vs_ideal_hosts" in m:
            print(f"{'':50s} {m['slowdown_vs_ideal_hosts']:.2f}x slower than with ideal hosts")
    print(f"sweep of 20 points (es40_tru64, all cores): {sweep_20_points_s():.1f} s")
    try:
        print(f"tcpsim predict --mtu 9000 --sockbuf 512k, wall time including start-up: {predict_startup_s():.2f} s")
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:  # the CLI may not be installed
        print(f"tcpsim predict not measured: {exc}")


if __name__ == "__main__":
    main()
