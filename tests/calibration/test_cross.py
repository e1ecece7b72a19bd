"""Joint fitting and leave-one-source-out, on data simulated from known shared parameters (pvlib style).

Two synthetic machines with different clocks and memory bandwidths share two physical parameters: the
cycles to send a data segment and the bytes moved per byte copied. Each machine is measured by its own
"source". Fitted on one source alone, the shared parameters must come back, and then predict the other
source's machine, which the fit never saw.
"""

from dataclasses import replace

import pytest

from tcpsim.calibration.cross import cross_outcomes, describe_fold, leave_one_source_out, source_medians
from tcpsim.calibration.fit import predict_point
from tcpsim.calibration.joint import JointModel, SharedParam, Target, fit_joint
from tcpsim.calibration.tables import Point
from tcpsim.calibration.validate import evaluate
from tcpsim.errors import ConfigError
from tcpsim.platform import CpuCost, Nic, OsTcp, Platform

CLOCK_HZ = {"syn_a": 1.0e9, "syn_b": 2.0e9}
MEMORY_BPS = {"syn_a": 0.5e9, "syn_b": 1.5e9}
SOURCE = {"syn_a": "tru64", "syn_b": "sunfire"}
TRUE_CYCLES, TRUE_BYTES_PER_BYTE = 15000.0, 3.0
CONDITIONS = [(128, 1500, "off"), (1024, 1500, "off"), (65536, 1500, "on"), (65536, 9000, "on")]
"""Write size, MTU, Nagle: one small segment per write weighs the per-packet cost, jumbo frames the per-byte one."""


def _base(pid):
    return Platform(name=pid, os=OsTcp(family="bsd", default_sndbuf_bytes=61440, default_rcvbuf_bytes=61440),
                    cpu=CpuCost(n_cpus=2, per_packet_tx_s=10e-6, per_packet_rx_s=4e-6, per_ack_tx_s=2e-6,
                                per_ack_rx_s=2e-6, per_syscall_s=3e-6, per_byte_copy_s=1e-9),
                    nic=Nic(coalesce_delay_s=30e-6, coalesce_packets=16))


def _model(cycles, bytes_per_byte):
    base = {pid: _base(pid) for pid in CLOCK_HZ}
    return JointModel((
        SharedParam("bsd.packet_tx_cycles", 1000.0, 100000.0, cycles, "cycles to send a data segment",
                    tuple(Target(pid, "cpu.per_packet_tx_s", 1.0 / hz) for pid, hz in CLOCK_HZ.items())),
        SharedParam("copy_bytes_per_byte", 0.5, 10.0, bytes_per_byte, "bytes moved per byte copied",
                    tuple(Target(pid, "cpu.per_byte_copy_s", 1.0 / bw) for pid, bw in MEMORY_BPS.items())),
    ), base)


def _points():
    """Three measurements per machine, simulated from the true parameters; each machine its own source."""
    truth = _model(TRUE_CYCLES, TRUE_BYTES_PER_BYTE).platforms()
    pts = []
    for pid, source in SOURCE.items():
        for i, (write, mtu, nagle) in enumerate(CONDITIONS):
            fields = dict(platform_sender=pid, platform_receiver=pid, mtu_bytes=str(mtu), sockbuf_bytes="262144",
                          write_bytes=str(write), nagle=nagle)
            probe = Point(source, "synthetic", source, "synthetic", f"{pid} {i}", "throughput", 1.0, "Mbps", 1e6,
                          "calibration", (), "", fields)
            value = predict_point(probe, truth)
            pts.append(replace(probe, value=value / 1e6, value_si=value))
    return pts


def test_a_shared_parameter_sets_each_machine_by_its_own_clock_and_bandwidth():
    plats = _model(12000.0, 2.0).platforms()
    assert plats["syn_a"].cpu.per_packet_tx_s == pytest.approx(12e-6)
    assert plats["syn_b"].cpu.per_packet_tx_s == pytest.approx(6e-6)
    assert plats["syn_a"].cpu.per_byte_copy_s == pytest.approx(4e-9)
    assert plats["syn_b"].cpu.per_byte_copy_s == pytest.approx(2.0 / 1.5e9)
    assert plats["syn_a"].cpu.per_packet_rx_s == _base("syn_a").cpu.per_packet_rx_s  # untouched fields stay


def test_a_residual_multiplies_the_shared_term_of_one_machine_only():
    model = _model(12000.0, 2.0)
    residual = SharedParam("syn_b.packet_tx_residual", 0.5, 2.0, 1.25, "syn_b's own share",
                           (Target("syn_b", "cpu.per_packet_tx_s"),))
    plats = JointModel(model.params + (residual,), model.base).platforms()
    assert plats["syn_b"].cpu.per_packet_tx_s == pytest.approx(6e-6 * 1.25)
    assert plats["syn_a"].cpu.per_packet_tx_s == pytest.approx(12e-6)


def test_a_parameter_no_point_constrains_is_not_free():
    model = _model(12000.0, 2.0)
    lonely = SharedParam("other.packet_rx_cycles", 100.0, 1e5, 5000.0, "a machine no point runs on",
                         (Target("syn_c", "cpu.per_packet_rx_s", 1e-9),))
    both = JointModel(model.params + (lonely,), {**model.base, "syn_c": _base("syn_c")})
    pts = [p for p in _points() if p.source_id == "sunfire"]
    assert both.free(pts) == (0, 1)
    assert len(both.constraining(both.params[0], pts)) == len(CONDITIONS)
    assert both.constraining(lonely, pts) == []


def test_bad_shared_parameters_are_one_line_config_errors():
    with pytest.raises(ConfigError, match="start"):
        SharedParam("x", 1.0, 2.0, 3.0, "", ())
    with pytest.raises(ConfigError, match="field"):
        SharedParam("x", 1.0, 2.0, 1.5, "", (Target("a", "cpu.per_warp_s"),))


@pytest.mark.slow
def test_joint_fit_recovers_shared_parameters_and_predicts_the_source_it_never_saw():
    points = _points()
    model = _model(25000.0, 1.5)
    folds = leave_one_source_out(model, points, max_nfev=12, loss="linear")
    assert set(folds) == {"tru64", "sunfire"}
    for left_out, fold in folds.items():
        assert {p.source_id for p in fold.fit_points} == {"tru64", "sunfire"} - {left_out}
        assert fold.fit.free == (0, 1)
        cycles, bpb = (p.start for p in fold.fit.model.params)
        assert cycles == pytest.approx(TRUE_CYCLES, rel=0.1), left_out
        assert bpb == pytest.approx(TRUE_BYTES_PER_BYTE, rel=0.15), left_out
        assert "constrained by" in "\n".join(describe_fold(fold))
    outcomes = cross_outcomes(evaluate(points, platforms=model.platforms()), folds)
    assert all(o.cross_error is not None and abs(o.cross_error) < 0.03 for o in outcomes)
    assert all(abs(o.error) > 0.05 for o in outcomes if o.point.get("nagle") == "off")  # the start was off
    n, _, cross = source_medians(outcomes)["tru64"]
    assert n == len(CONDITIONS) and cross < 0.03
    assert "cross_error" in outcomes[0].to_json()


@pytest.mark.slow
def test_a_joint_fit_on_one_small_measured_table():
    """Tru64 Table 2 (four scored points): the ES40's cycles per sent segment, at its 500 MHz clock."""
    from tcpsim.calibration.calibrate import fittable
    from tcpsim.calibration.tables import load_points
    from tcpsim.profiles import load_platform

    points = [p for p in load_points() if (p.source_id, p.table_id) == ("tru64", "table2") and fittable(p)]
    assert len(points) == 4  # the 61440-byte row repeats Table 1's and is scored there
    es40 = load_platform("es40_tru64")
    start_cycles = es40.cpu.per_packet_tx_s * 500e6 * 1.5
    model = JointModel((SharedParam("tru64/degpa.packet_tx_cycles", 1000.0, 50000.0, start_cycles,
                                    "cycles to send a data segment", (Target("es40_tru64", "cpu.per_packet_tx_s",
                                                                             1 / 500e6),)),),
                       {"es40_tru64": es40})
    fit = fit_joint(model, points, max_nfev=6)
    assert fit.objective < fit.start_objective
    assert fit.median_abs_rel_error < 0.05


def test_the_optimiser_recovers_an_analytic_model():
    """fit_log_vector alone, on a model with a known answer: rate = 1 / (a + b x)."""
    from tcpsim.calibration.fit import fit_log_vector

    xs = [1.0, 10.0, 100.0, 1000.0]
    measured = [1.0 / (2e-3 + 5e-6 * x) for x in xs]
    fit = fit_log_vector(lambda v: [1.0 / (v[0] + v[1] * x) for x in xs], measured, [1e-3, 1e-5],
                         [(1e-5, 1.0), (1e-8, 1e-3)], max_nfev=50)
    assert fit.values == pytest.approx((2e-3, 5e-6), rel=1e-3)
    assert fit.objective < 1e-10 < fit.start_objective


def test_a_prior_keeps_a_residual_at_its_start_where_the_data_cannot_tell_it_from_a_shared_term():
    """Only the product a * r is measured: with a prior on r, the shared a takes the change."""
    from tcpsim.calibration.fit import fit_log_vector

    measured = [6.0, 12.0]
    model = lambda v: [v[0] * v[1] * k for k in (1.0, 2.0)]  # noqa: E731
    fit = fit_log_vector(model, measured, [2.0, 1.0], [(0.1, 100.0), (0.1, 10.0)], max_nfev=50,
                         prior_sigma=[None, 0.5])
    assert fit.values[0] * fit.values[1] == pytest.approx(6.0, rel=1e-3)
    assert fit.values[1] == pytest.approx(1.0, rel=1e-3)


def test_cross_with_one_source_is_refused_in_one_line(capsys):
    from tcpsim.cli import main

    assert main(["validate", "--cross", "--source", "tru64"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--source" in err[0]


def test_the_summary_shows_a_cross_validated_column_only_when_there_is_one():
    from tcpsim.calibration.validate import Outcome, format_summary, table_summary

    pts = _points()[:2]
    plain = [Outcome(p, p.value_si * 1.1, None, None, None) for p in pts]
    crossed = [replace(o, cross_predicted=o.point.value_si * 0.8) for o in plain]
    assert "cross" not in format_summary(table_summary(plain), plain).splitlines()[0]
    text = format_summary(table_summary(crossed), crossed)
    assert "cross" in text.splitlines()[0] and "20.0%" in text.splitlines()[1]


def test_a_parameter_no_point_constrains_borrows_the_fitted_values_of_its_kind():
    """A left-out machine's own row is replaced by its kind's geometric mean over the fitted rows."""
    from tcpsim.calibration.joint import _unconstrained

    rows = tuple(SharedParam(f"{m}.packet_tx_cycles", 100.0, 1e6, 5000.0, "", (Target(m, "cpu.per_packet_tx_s", 1e-9),),
                             kind="packet_tx_cycles", borrow="packet_tx_cycles") for m in ("a", "b", "c"))
    frac = SharedParam("c.stream_frac", 1e-4, 1.0, 0.3, "", (Target("c", "cpu.per_stream_frac"),),
                       kind="stream_frac", unconstrained=1e-4)
    model = JointModel(rows + (frac,), {})
    values = _unconstrained(model, (0, 1), [2000.0, 8000.0, 99999.0, 0.3])
    assert values == pytest.approx([2000.0, 8000.0, 4000.0, 1e-4])


def test_joint_without_cross_is_a_one_line_config_error():
    from tcpsim.calibration.validate import main

    with pytest.raises(ConfigError, match="--joint"):
        main(["--joint"])


def test_a_source_outside_the_joint_model_is_predicted_without_what_was_calibrated_on_it():
    """The lab left out (validation/README.md): lab_vm's three costs fitted on the sweep come from its parts and the
    shared costs; what its probes measured or was set by hand stays, and so does every setting."""
    from dataclasses import fields

    from tcpsim.calibration.cross import uncalibrated
    from tcpsim.machine.costs import default_costs
    from tcpsim.machine.lookup import microarch_factor
    from tcpsim.machine.spec import load_machine
    from tcpsim.profiles import load_platform

    lab = load_platform("lab_vm")
    left_out = uncalibrated(["lab_vm", "vbox_centos", "ideal"])
    assert set(left_out) == {"lab_vm"}  # nothing of the others was calibrated
    fold = left_out["lab_vm"]
    changed = {f.name for f in fields(CpuCost) if getattr(fold.cpu, f.name) != getattr(lab.cpu, f.name)}
    assert changed == {"per_packet_tx_s", "per_packet_rx_s", "per_byte_copy_s"}
    assert (fold.nic, fold.os, fold.bus) == (lab.nic, lab.os, lab.bus)
    assert (fold.cost_basis, lab.cost_basis) == ("catalog", "measurements")
    parts = load_machine("lab_vm").parts
    hz = parts.cpu.clock_hz * microarch_factor(parts.cpu.microarch)[0]
    costs = default_costs()
    row, key = costs.packet_row("linux", parts.nic.driver_class)
    assert key == "family.linux"  # no row for a veth: the family's
    assert fold.cpu.per_packet_tx_s == pytest.approx(row["packet_tx_cycles"] / hz)
    assert fold.cpu.per_packet_rx_s == pytest.approx(row["packet_rx_cycles"] / hz)
    assert fold.cpu.per_byte_copy_s == pytest.approx(costs.copy_factor / parts.memory.copy_bw_Bps)


def test_the_lab_fold_predicts_with_the_uncalibrated_profile_and_says_so():
    from tcpsim.calibration.cross import Fold, uncalibrated
    from tcpsim.calibration.tables import load_points
    from tcpsim.profiles import load_platform

    point = next(p for p in load_points() if p.source_id == "lab" and p.table_id == "messages_nodelay")
    point = replace(point, fields={**point.fields, "duration_s": "0.02"})  # a short run of the same row
    fold = Fold("lab", (), None, ("lab_vm",))
    (crossed,) = cross_outcomes(evaluate([point]), {"lab": fold})
    (expected,) = evaluate([point], platforms=uncalibrated(["lab_vm"]))
    assert crossed.cross_predicted == expected.predicted != crossed.predicted
    text = "\n".join(describe_fold(fold))
    fitted = load_platform("lab_vm").cpu.per_packet_tx_s
    assert f"lab_vm cpu.per_packet_tx_s {fitted:.4g} ->" in text and "parts and the shared costs" in text
    untouched = Fold("vbox", (), None, ("vbox_centos",))
    assert "unchanged" in "\n".join(describe_fold(untouched))


def test_the_fingerprint_sees_a_profile_change(monkeypatch):
    """A refit (or a changed part) of a profile the points run on makes a cross-validation record stale."""
    import tcpsim.profiles
    from tcpsim.calibration.cross import fingerprint
    from tcpsim.calibration.tables import load_points
    from tcpsim.profiles import load_platform

    points = [p for p in load_points() if p.source_id == "lab"][:3]
    model = JointModel((), {})
    before = fingerprint(points, model)
    assert fingerprint(points, model) == before

    def refit(name, tuning=None):
        p = load_platform(name, tuning)
        return replace(p, cpu=replace(p.cpu, per_packet_tx_s=2 * p.cpu.per_packet_tx_s))

    monkeypatch.setattr(tcpsim.profiles, "load_platform", refit)
    assert fingerprint(points, model) != before
