#!/bin/bash
# The rule "The tenth machine again, measured with iperf3" (validation/README.md), step 4: README's step 2 on this machine's runs from A10 and A10L,
# each evaluation recorded.
#     TCPSIM=/tmp/venv-c/bin/tcpsim bash step4.sh
set -eu
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
$TCPSIM calibrate --lab runs_median.json extra_median.json --role calibration --base parts_lat.toml --max-evals 60 \
    --name B10L --out fit_lat.toml --evaluations fit_lat_evaluations.json > fit_lat.log 2>&1 &
$TCPSIM calibrate --lab runs_median.json extra_median.json --role calibration --base parts.toml --max-evals 60 \
    --name B10 --out fit.toml --evaluations fit_evaluations.json > fit.log 2>&1 &
wait
date -u > step4_done.txt
