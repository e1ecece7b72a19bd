#!/bin/bash
# Rule 162 ("Step 2 from the short idles' latency"), its fit, once: README's step 2 from A10S as step4.sh ran it from
# A10L, each evaluation recorded.
#     TCPSIM=/tmp/venv-c9/bin/tcpsim bash step4_spin.sh
set -eu
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
$TCPSIM calibrate --lab runs_median.json extra_median.json --role calibration --base parts_spin.toml --max-evals 60 \
    --name B10S --out fit_spin.toml --evaluations fit_spin_evaluations.json > fit_spin.log 2>&1
date -u > step4_spin_done.txt
