"""The joint model of the sources' machines (calibration/shared.py): shared rows, priors, and what a fold sees."""

import math

import pytest

from tcpsim.calibration.calibrate import fittable
from tcpsim.calibration.joint import _unconstrained
from tcpsim.calibration.shared import COPY_FACTOR_PRIOR, MACHINES, joint_model
from tcpsim.calibration.tables import load_points
from tcpsim.machine.lookup import microarch_factor
from tcpsim.machine.spec import load_machine


@pytest.fixture(scope="module")
def model():
    return joint_model()


def _param(model, name):
    return next(p for p in model.params if p.name == name)


def test_the_two_10gbe_hosts_share_the_linux_ixgb_row_each_at_its_own_clock(model):
    prm = _param(model, "linux/ixgb.packet_tx_cycles")
    assert prm.platform_ids == {"rx2600_ixgb", "se7501_ixgb"}
    plats = model.platforms()
    for pid in prm.platform_ids:
        cpu = load_machine(pid).parts.cpu
        hz = cpu.clock_hz * microarch_factor(cpu.microarch)[0]
        assert plats[pid].cpu.per_packet_tx_s == pytest.approx(prm.start / hz)


def test_a_fit_starts_from_the_committed_residuals_and_a_left_out_machine_gets_priors(model):
    """Residuals start at the profiles' fitted values; unconstrained, at 1 or the driver's default."""
    assert _param(model, "copy_factor").start == COPY_FACTOR_PRIOR
    plats = model.platforms()
    for pid in MACHINES:
        m = load_machine(pid)
        assert plats[pid].nic.coalesce_delay_s == pytest.approx(m.platform.nic.coalesce_delay_s)
        assert plats[pid].cpu.per_byte_copy_s == pytest.approx(m.platform.cpu.per_byte_copy_s)
        assert _param(model, f"{pid}.copy_residual").unconstrained == 1.0
        assert _param(model, f"{pid}.coalesce_delay_s").unconstrained == pytest.approx(m.physics.nic.coalesce_delay_s)
    assert load_machine("es40_tru64").platform.nic.coalesce_delay_s != pytest.approx(
        _param(model, "es40_tru64.coalesce_delay_s").unconstrained)  # the profile's fitted delay is not the prior


def test_a_fold_without_tru64_gives_the_es40_only_what_other_machines_say(model):
    points = [p for p in load_points() if fittable(p) and p.source_id in ("sunfire", "tengbe")]
    free = model.free(points)
    names = [model.params[i].name for i in free]
    assert not any(n.startswith(("tru64", "es40")) for n in names)
    assert "copy_factor" in names and "solaris/ce.packet_tx_cycles" in names
    values = _unconstrained(model, free, [p.start for p in model.params])
    by = dict(zip(model.names, values))
    others = [by["linux/ixgb.packet_tx_cycles"], by["solaris/ce.packet_tx_cycles"]]
    assert by["tru64/tigon2.packet_tx_cycles"] == pytest.approx(math.sqrt(others[0] * others[1]))
    assert by["es40_tru64.copy_residual"] == 1.0
    assert by["es40_tru64.coalesce_delay_s"] == pytest.approx(load_machine("es40_tru64").physics.nic.coalesce_delay_s)
    assert by["tru64.syscall_cycles"] == pytest.approx(math.sqrt(by["linux.syscall_cycles"] * by["solaris.syscall_cycles"]))
