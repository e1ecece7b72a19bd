"""The rules "tcpsim calibrate steps in each cost's own scale" and "A unit-free step of a factor 2" (validation/README.md):
README's step 2 on a machine folder with the committed fitter (old) or a candidate (new, new2: the committed
``own_fit.py`` with the edits in ``CANDIDATES``); one JSON line.

    python -P drive.py old|new|new2 MACHINE_FOLDER OUT.toml
"""
import json
import os
import sys

import tcpsim.calibration.own as own
import tcpsim.calibration.own_fit as of

_CALL = ("    sol = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.05, max_nfev=max(1, max_nfev // (len(x0) + "
         "1)),\n                        method=\"trf\", loss=\"soft_l1\", f_scale=ROBUST_SCALE)\n")
_FITTED_IN_U = """    cache = {}

    def residuals_u(u):
        r = residuals(x0 + u)
        cache.clear()
        cache[np.asarray(u, dtype=float).tobytes()] = r
        return r

    def jacobian(u):
        u = np.asarray(u, dtype=float)
        f0 = cache.get(u.tobytes())
        if f0 is None:
            f0 = residuals_u(u)
        cols = []
        for i in range(len(u)):
            h = @STEP@ if x0[i] + u[i] + @STEP@ <= hi[i] else -@STEP@
            v = u.copy()
            v[i] += h
            cols.append((residuals(x0 + v) - f0) / h)
        return np.column_stack(cols)

    sol = least_squares(residuals_u, np.zeros_like(x0), jac=jacobian, bounds=(lo - x0, hi - x0), x_scale=@XSCALE@,
                        max_nfev=max(1, max_nfev // (len(x0) + 1)), method="trf", loss="soft_l1",
                        f_scale=ROBUST_SCALE)
"""
CANDIDATES = {
    "new": ((_CALL, _FITTED_IN_U.replace("@STEP@", "0.1").replace("@XSCALE@", "1.0")),),
    "new2": ((_CALL, _FITTED_IN_U.replace("@STEP@", "math.log(2.0)").replace("@XSCALE@", "math.log(2.0)")),),
}
"""The candidates as edits of the committed ``own_fit.py``: the fit in u = ln(cost / start), its Jacobian by forward
differences of a fixed step in u (backward at an upper bound), the first trust region ``x_scale`` (rules "tcpsim
calibrate steps in each cost's own scale", new: 0.1 and 1; "A unit-free step of a factor 2", new2: ln 2 and ln 2).
A first build (2026-12-02) passed the step to scipy's ``diff_step``, which at u = 0 falls back to 1.5e-8: withdrawn."""

mode, folder, out = sys.argv[1], sys.argv[2], sys.argv[3]
if mode in CANDIDATES:
    source = open(of.__file__).read()
    for old, new in CANDIDATES[mode]:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    exec(compile(source, of.__file__, "exec"), of.__dict__)
captured = []
orig = of.fit_costs_restarts


def wrap(*a, **k):
    fit, fits = orig(*a, **k)
    captured.append(fit)
    return fit, fits


own.fit_costs_restarts = wrap
own.fit_costs = of.fit_costs
os.chdir(folder)
rc = own.main(["--lab", "runs_median.json", "extra_median.json", "--role", "calibration", "--base", "parts.toml",
               "--max-evals", "60", "--out", out])
f = captured[-1]
print("RESULT " + json.dumps({"mode": mode, "folder": folder, "rc": rc, "objective": f.objective,
                              "median": f.median_abs_rel_error, "n_evaluations": f.n_evaluations,
                              "names": f.names, "values": f.values, "start": f.start, "message": f.message}))
