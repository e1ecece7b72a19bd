"""The rule "tcpsim calibrate steps in each cost's own scale" (validation/README.md): README's step 2 on a machine
folder with the committed fitter (old) or the candidate (new: the committed ``own_fit.py`` with the edits below,
fitting u = ln(cost / start) with a finite-difference step of 0.1); one JSON line.

    python -P drive.py old|new MACHINE_FOLDER OUT.toml
"""
import json
import os
import sys

import tcpsim.calibration.own as own
import tcpsim.calibration.own_fit as of

CANDIDATE = (
    ("    def residuals(x: np.ndarray) -> np.ndarray:\n",
     "    def residuals(u: np.ndarray) -> np.ndarray:\n        x = x0 + np.asarray(u, dtype=float)\n"),
    ("sol = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.05,",
     "sol = least_squares(residuals, np.zeros_like(x0), bounds=(lo - x0, hi - x0), diff_step=0.1,"),
)

mode, folder, out = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "new":
    source = open(of.__file__).read()
    for old, new in CANDIDATE:
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
