#!/bin/bash
# Rule 163, once: the two request/response calibration runs, the fit (B10R), then lab/rr3 and lab/cpu10; nothing the
# runs measure is printed.
#     PY=/tmp/venv-c9/bin/python TCPSIM=/tmp/venv-c9/bin/tcpsim bash rule163.sh /tmp/x10u
set -eu
OUT="$1"
PY=${PY:-python3}
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P measure_rule163.py cal "$OUT" >> "$OUT/log" 2>&1
$TCPSIM calibrate --lab runs_median.json extra_median.json rr_cal_median.json --role calibration --base parts_spin.toml \
    --max-evals 60 --name B10R --out fit_rr.toml --evaluations fit_rr_evaluations.json > fit_rr.log 2>&1
$PY -P measure_rule163.py tables "$OUT" >> "$OUT/log" 2>&1
ip netns list > netns_after_163.txt
date -u > rule163_done.txt
