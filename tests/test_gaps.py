"""A running CPU that loses short gaps to the system (``CpuCost.preempt_per_s``, ``preempt_s``) and the probe that
measures them (validation/README.md, "A running CPU loses short gaps to the system, as measured")."""

import json
import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.components.resources import GapSchedule, Server
from tcpsim.config import Budget
from tcpsim.engine import run
from tcpsim.errors import ConfigError
from tcpsim.lab import gapprobe
from tcpsim.platform import CpuCost, mid_quantiles, quantile_at

ONE = 1.0 - math.exp(-1.0)
"""A uniform draw whose exponential is exactly its mean: gaps 1 / rate apart."""


def _every_10s_for_2s() -> Server:
    """A CPU whose gaps begin 10 s after the last one ended and last 2 s: 10-12, 22-24, ..."""
    cpu = Server("cpu0")
    cpu.set_gaps(GapSchedule(0.1, lambda draw: 2.0, lambda: ONE))
    return cpu


def test_work_waits_out_a_gap_that_begins_before_it_is_done():
    cpu = _every_10s_for_2s()
    assert cpu.run(9.0, 2.0) == pytest.approx(13.0)  # 9-10, the gap 10-12, then 12-13
    assert cpu.busy_s == 2.0  # the gap is the system's time, not the work's


def test_work_arriving_in_a_gap_starts_at_its_end_and_an_idle_gap_is_passed_by():
    cpu = _every_10s_for_2s()
    assert cpu.run(10.5, 1.0) == pytest.approx(13.0)
    assert cpu.run(20.0, 1.0) == pytest.approx(21.0)  # before the next gap (22-24)
    assert cpu.run(25.0, 1.0) == pytest.approx(26.0)  # the 22-24 gap came and went while idle


def test_work_spanning_several_gaps_waits_out_each():
    cpu = _every_10s_for_2s()
    assert cpu.run(0.0, 25.0) == pytest.approx(29.0)  # 0-10, the gap 10-12, 12-22, the gap 22-24, 24-29


def test_without_gaps_a_cpu_is_the_plain_fifo():
    cpu = Server("cpu0")
    assert cpu.run(1.0, 2.0) == 3.0 and cpu.run(2.0, 1.0) == 4.0 and cpu.gap_at == math.inf


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e-3), st.floats(0, 1e-4)), min_size=1, max_size=40),
       st.integers(0, 2**32 - 1))
def test_work_never_ends_sooner_than_without_gaps_nor_later_than_its_gaps_allow(jobs, seed):
    import numpy as np

    lengths = (1e-6, 2e-6, 5e-6, 2e-5)
    gapped = Server("g")
    gapped.set_gaps(GapSchedule(2000.0, lambda d: quantile_at(lengths, d), np.random.default_rng(seed).random))
    plain = Server("p")
    now = 0.0
    last = 0.0
    for step, cost in jobs:
        now += step
        done = gapped.run(now, cost)
        ideal = plain.run(now, cost)
        assert done >= ideal - 1e-15 and done >= last  # FIFO: in order, never sooner
        last = done
    assert gapped.busy_s == pytest.approx(plain.busy_s)


def test_the_length_is_drawn_between_the_quantiles():
    q = (1e-6, 3e-6, 9e-6)
    assert quantile_at(q, 0.0) == 1e-6 and quantile_at(q, 0.999) == 9e-6
    assert quantile_at(q, 0.5) == pytest.approx(3e-6)
    assert 1e-6 < quantile_at(q, 0.3) < 3e-6


@given(st.lists(st.floats(1e-7, 1e-3), min_size=1, max_size=60), st.integers(1, 40))
def test_the_probes_quantiles_are_what_the_model_draws_back(values, steps):
    """What the probes write (:func:`mid_quantiles`, ``preempt_s`` and ``wake_latency_spread``) is what
    :func:`quantile_at` reads: a draw at a step's middle gives that step's quantile, within the values' range."""
    q = mid_quantiles(values, steps)
    assert len(q) == steps and q == sorted(q) and min(values) <= q[0] and q[-1] <= max(values)
    for k in range(steps):
        assert quantile_at(tuple(q), (k + 0.5) / steps) == pytest.approx(q[k], rel=1e-9, abs=1e-18)


@pytest.mark.parametrize("field, bad", [("preempt_per_s", -1.0), ("preempt_per_s", 1e7),
                                        ("preempt_s", (2e-6, 1e-6)), ("preempt_s", (1e-6, 2.0)),
                                        ("preempt_s", ("soon",))])
def test_a_bad_gap_field_is_one_error_naming_it(field, bad):
    with pytest.raises(ConfigError, match=field):
        CpuCost(**{field: bad})


GAPS = dict(preempt_per_s=2000.0, preempt_s=(2e-6, 5e-6, 1e-5, 4e-5))


def _row_48k(seed: int = 0, **gaps):
    """`lab/cpu3`'s 48 KiB unshaped row as validate runs it, its `lab_vm` hosts given ``gaps``, 20 ms simulated."""
    from dataclasses import replace

    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.calibration.tables import load_points

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "cpu3" and "unshaped" in p.row
                 and "mtu 1500" in p.row and int(p.get("write_bytes")) == 49152)
    plats = {k: replace(pl, cpu=replace(pl.cpu, **gaps)) for k, pl in platforms_for_point(point).items()}
    budget = Budget(rel_tol=1e-6, min_sim_time_s=0.02, max_sim_time_s=0.02)
    return replace(scenario_for(point, plats), seed=seed, budget=budget)


def test_gaps_are_drawn_from_the_seed_and_change_nothing_without_both_fields():
    a, b = run(_row_48k(0, **GAPS)), run(_row_48k(0, **GAPS))
    assert a.goodput_bps == b.goodput_bps and a.events == b.events
    plain = run(_row_48k(0))
    assert run(_row_48k(0, preempt_per_s=0.0, preempt_s=GAPS["preempt_s"])).goodput_bps == plain.goodput_bps
    assert run(_row_48k(0, preempt_per_s=GAPS["preempt_per_s"])).goodput_bps == plain.goodput_bps


def test_gaps_break_the_whole_write_lockstep_of_a_cpu_bound_stream():
    """validation/README.md, "What keeps tcpsim in the whole-write state": 48 KiB writes on `lab_vm` go whole, one skb
    a write, until something delays one ACK past the next write's push; then each write's partial segment is held
    and sent alone, as the kernel does (1.5-1.8 skbs a write)."""
    per_write = lambda r: r.data_skbs_per_s / (r.goodput_bps / 8 / 49152)  # noqa: E731
    plain, gapped = run(_row_48k(0)), run(_row_48k(0, **GAPS))
    assert per_write(plain) < 1.1, per_write(plain)
    assert per_write(gapped) > 1.5, per_write(gapped)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="the probe pins itself (Linux sched_setaffinity)")
def test_the_probe_measures_gaps_on_every_cpu_and_pools_them(tmp_path):
    out = gapprobe.probe_gaps(seconds=0.05, passes=1)
    assert set(out["per_cpu"]) == {str(c) for c in out["cpus"]}
    q = out["preempt_s"]
    # each quantile is a gap above GAP_NS, printed to three significant digits (1,001 ns reads 1e-06 s)
    floor_s = float(f"{gapprobe.GAP_NS * 1e-9:.3g}")
    assert out["preempt_per_s"] >= 0 and q == sorted(q) and all(g >= floor_s for g in q)
    assert len(q) in (0, gapprobe.QUANTILES) and 0.0 <= out["cpu_taken_frac"] < 1.0
    path = tmp_path / "gaps.json"
    assert gapprobe.main(["--duration", "0.05s", "--passes", "1", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["gap_ns"] == gapprobe.GAP_NS


def test_the_probe_refuses_a_run_without_bounds(capsys):
    with pytest.raises(SystemExit) as e:
        gapprobe.main(["--duration", "10min"])
    assert e.value.code == 2 and "duration" in capsys.readouterr().err
