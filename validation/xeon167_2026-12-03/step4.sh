#!/bin/bash
# Rule 171's step 4, once: README's step 2 from A11S (B11S) and from A11L (B11L), each evaluation recorded.
#     TCPSIM=/tmp/venv-c1/bin/tcpsim bash step4.sh
set -eu
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
$TCPSIM calibrate --lab runs_median.json extra_median.json --role calibration --base parts_spin.toml --max-evals 60 \
    --name B11S --out fit_spin.toml --evaluations fit_spin_evaluations.json > fit_spin.log 2>&1
$TCPSIM calibrate --lab runs_median.json extra_median.json --role calibration --base parts_lat.toml --max-evals 60 \
    --name B11L --out fit_lat.toml --evaluations fit_lat_evaluations.json > fit_lat.log 2>&1
date -u > step4_done.txt
