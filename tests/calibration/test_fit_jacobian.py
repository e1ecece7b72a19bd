"""The fits' own Jacobian: forward differences of a relative step, every column from one batched call."""

import math

import pytest

from tcpsim.calibration.fit import FD_STEP, fit_log_vector


def _model(v):
    a, b = v
    return [a * 2.0, a * b, b ** 0.5 * 10.0]


def test_a_batched_jacobian_finds_the_parameters_and_is_called_once_per_step():
    truth = (3.0, 7.0)
    measured = _model(truth)
    calls = []

    def jacobian(vectors):
        calls.append(len(vectors))
        return [_model(v) for v in vectors]

    vf = fit_log_vector(_model, measured, (1.0, 1.0), [(0.1, 100.0), (0.1, 100.0)], max_nfev=30, jacobian=jacobian)
    assert vf.values == pytest.approx(truth, rel=1e-3)
    assert vf.n_jacobians == len(calls) >= 1
    assert set(calls) == {3}  # the base and one vector per parameter, in one call


def test_the_step_is_relative_and_goes_backward_at_the_upper_bound():
    seen = []

    def jacobian(vectors):
        seen.append(vectors)
        return [_model(v) for v in vectors]

    fit_log_vector(_model, _model((3.0, 7.0)), (2.0, 100.0), [(0.1, 100.0), (0.1, 100.0)], max_nfev=1,
                   jacobian=jacobian)
    base, da, db = seen[0]
    assert math.log(da[0] / base[0]) == pytest.approx(FD_STEP)
    assert math.log(db[1] / base[1]) == pytest.approx(-FD_STEP)  # at its bound, b steps down



def test_broyden_differences_once_and_still_finds_the_parameters():
    truth = (3.0, 7.0)
    calls = []

    def jacobian(vectors):
        calls.append(len(vectors))
        return [_model(v) for v in vectors]

    vf = fit_log_vector(_model, _model(truth), (2.0, 5.0), [(0.1, 100.0), (0.1, 100.0)], max_nfev=40,
                        jacobian=jacobian, broyden=True)
    assert vf.values == pytest.approx(truth, rel=1e-2)
    assert calls == [3]  # one differenced Jacobian; every later one is an update
