"""Calibration inverts its own forward model: simulate a table from known parameters, fit, recover them."""

from dataclasses import replace

import pytest

from tcpsim.calibration.fit import PARAMS, apply_params, fit_platform, predict_point
from tcpsim.calibration.tables import Point
from tcpsim.platform import CpuCost, Nic, OsTcp, Platform

TRUE = Platform(name="synthetic", os=OsTcp(family="bsd", default_sndbuf_bytes=61440, default_rcvbuf_bytes=61440),
                cpu=CpuCost(n_cpus=2, per_packet_tx_s=15e-6, per_packet_rx_s=9e-6, per_ack_tx_s=4e-6,
                            per_ack_rx_s=4e-6, per_syscall_s=4e-6, per_byte_copy_s=6e-9),
                nic=Nic(coalesce_delay_s=50e-6, coalesce_packets=64))
CONDITIONS = [(128, 61440, "on"), (1024, 61440, "on"), (65536, 61440, "on"), (65536, 32768, "on"),
              (65536, 262144, "on"), (8192, 524288, "on"), (1024, 61440, "off"), (128, 61440, "off")]
"""Write size, buffer, Nagle. With full segments the per-packet and the per-byte cost weigh every byte in
the same proportion when one CPU does both (a connection's copy, then its transmit work); the Nagle-off
runs, one small segment per write, are what tell them apart."""


def _points(platform):
    pts = []
    for i, (write, buf, nagle) in enumerate(CONDITIONS):
        fields = dict(platform_sender="synthetic", platform_receiver="synthetic", mtu_bytes="1500",
                      sockbuf_bytes=str(buf), write_bytes=str(write), nagle=nagle)
        probe = Point("tru64", "synthetic", "synthetic", "synthetic", str(i), "throughput", 1.0, "Mbps", 1e6,
                      "calibration", (), "", fields)
        value = predict_point(probe, {"synthetic": platform})
        pts.append(replace(probe, value=value / 1e6, value_si=value))
    return pts


@pytest.mark.slow
@pytest.mark.parametrize("loss, max_nfev, polish_nfev", [("linear", 25, 40), ("soft_l1", 12, 0)])
def test_fit_recovers_known_parameters(loss, max_nfev, polish_nfev):
    """Both losses; the robust one without the Powell stage (its least-squares stage alone recovers them)."""
    points = _points(TRUE)
    names = ["cpu.per_packet_tx_s", "cpu.per_byte_copy_s"]
    start = apply_params(TRUE, names, [25e-6, 3e-9])
    fit = fit_platform("synthetic", points, {"synthetic": start}, names, max_nfev=max_nfev,
                       polish_nfev=polish_nfev, loss=loss)
    assert fit.median_abs_rel_error < 0.01
    assert fit.values[0] == pytest.approx(15e-6, rel=0.1)
    assert fit.values[1] == pytest.approx(6e-9, rel=0.1)


def test_parameters_have_physical_bounds():
    for p in PARAMS.values():
        assert 0 < p.lo < p.hi
        assert p.meaning


def test_each_platform_is_fitted_on_its_own_calibration_tables_only():
    from tcpsim.calibration.calibrate import FIT_PLAN, FIT_TABLES, calibration_points
    from tcpsim.calibration.tables import load_points

    points = load_points()
    for pid in FIT_PLAN:
        assert len(FIT_PLAN[pid]) <= 8
        chosen = calibration_points(pid, points)
        assert chosen
        assert {f"{p.source_id}/{p.table_id}" for p in chosen} == set(FIT_TABLES[pid])
        assert all(p.role == "calibration" for p in chosen)
        assert not any("inconsistent" in p.flags for p in chosen)


def test_an_unknown_loss_is_a_one_line_config_error():
    from tcpsim.errors import ConfigError

    with pytest.raises(ConfigError, match="loss='huber': must be one of linear, soft_l1"):
        fit_platform("synthetic", [], {"synthetic": TRUE}, [], loss="huber")


def test_calibrate_writes_the_fit_into_a_copy_of_the_profile(tmp_path, monkeypatch, capsys):
    """The command end to end, two evaluations: values and record land in the profile, comments stay."""
    import tcpsim.profiles as profiles
    from tcpsim.calibration.calibrate import FIT_PLAN, main
    from tcpsim.calibration.tables import find_data_dir
    from tcpsim.profiles import load_platform

    src = profiles.profile_path("es40_tru64")
    copy = tmp_path / "es40_tru64.toml"
    copy.write_text(src.read_text())
    monkeypatch.setattr(profiles, "profile_path", lambda name: copy)
    data = tmp_path / "data" / "tru64"
    data.mkdir(parents=True)
    table = find_data_dir() / "tru64" / "table2.csv"  # five points keep the test short
    (data / "table2.csv").write_text(table.read_text())
    assert main(["--platform", "es40_tru64", "--max-evals", "2", "--polish-evals", "0", "--workers", "1",
                 "--data", str(tmp_path / "data")]) == 0
    assert "objective (soft_l1)" in capsys.readouterr().out
    fit = dict(load_platform(copy).fit)
    assert list(fit["params"]) == FIT_PLAN["es40_tru64"] and fit["objective"] <= fit["start_objective"]
    comments = [ln for ln in src.read_text().splitlines() if ln.startswith("#")]
    assert comments and comments == [ln for ln in copy.read_text().splitlines() if ln.startswith("#")]
