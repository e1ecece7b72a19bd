#!/bin/bash
# Rule 153, step 5 for the fourth machine again: its first two fits parted at evaluation 12 (a 48-s run met the 60-s
# wall budget under load in one of them); run again once calibrate gave its runs a fit's wall budget (600 s).
set -eu
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
V=..
for keep in objective median; do
    suffix=""; [ $keep = median ] && suffix=_median
    $TCPSIM calibrate --lab $V/vm4_2026-12-01/runs_median.json $V/vm4_2026-12-01/extra_median.json --role calibration \
        --base $V/vm4_2026-12-01/parts.toml --max-evals 60 --keep $keep --name B4 --out others/vm4${suffix}.toml \
        --evaluations others/vm4${suffix}_evaluations.json > others/vm4${suffix}.log 2>&1
done
