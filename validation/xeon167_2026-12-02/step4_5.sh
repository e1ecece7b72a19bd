#!/bin/bash
# The rule "A ninth machine" (validation/README.md), steps 4 and 5: README's step 2 on this machine's runs from A9 and
# A9L, and on each earlier machine's own calibration runs from the file detect's default gave it; each fit twice, once
# keeping the evaluation of least objective (today's default) and once of least median |error| (--keep median), the
# same search path (the fit is deterministic and the kept point does not steer it), every evaluation recorded.
#     TCPSIM=/tmp/venv-new/bin/tcpsim bash step4_5.sh
set -eu
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
fit() {  # NAME BASE OUT_PREFIX RUNS...
    local name=$1 base=$2 out=$3; shift 3
    for keep in objective median; do
        local suffix=""; [ $keep = median ] && suffix=_median
        $TCPSIM calibrate --lab "$@" --role calibration --base "$base" --max-evals 60 --keep $keep \
            --name "$name" --out "${out}${suffix}.toml" --evaluations "${out}${suffix}_evaluations.json" \
            > "${out}${suffix}.log" 2>&1
    done
}
fit B9 parts.toml fit runs_median.json extra_median.json
fit B9L parts_lat.toml fit_lat runs_median.json extra_median.json
mkdir -p others
V=..
fit B1 $V/xeon_2026-11-30/xeon_parts.toml others/xeon $V/xeon_2026-11-30/runs_median.json
fit B3 $V/vm3_2026-12-01/parts.toml others/vm3 $V/vm3_2026-12-01/runs_median.json $V/vm3_2026-12-01/extra_median.json
fit B4 $V/vm4_2026-12-01/parts.toml others/vm4 $V/vm4_2026-12-01/runs_median.json $V/vm4_2026-12-01/extra_median.json
fit B5 $V/epyc_2026-12-01/parts.toml others/epyc $V/epyc_2026-12-01/runs_median.json $V/epyc_2026-12-01/extra_median.json
fit B6 $V/zen2_2026-12-02/parts.toml others/zen2 $V/zen2_2026-12-02/runs_median.json $V/zen2_2026-12-02/extra_median.json
fit B7 $V/zen3_2026-12-02/parts.toml others/zen3 $V/zen3_2026-12-02/runs_median.json $V/zen3_2026-12-02/extra_median.json
fit B8 $V/zen5_2026-12-02/parts_nolat.toml others/zen5 $V/zen5_2026-12-02/runs_median.json $V/zen5_2026-12-02/extra_median.json
date -u > step4_5_done.txt
