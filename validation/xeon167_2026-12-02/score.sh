#!/bin/bash
# The rule "A ninth machine" (validation/README.md), scored once: this machine's files, then each earlier machine's B
# and B^m on its own rows (seen tables), with ../vm3_2026-12-01/score.py.
#     PY=/tmp/venv-c2/bin/python bash score.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
H=$(pwd)
S=../vm3_2026-12-01/score.py
$PY -P $S --folder . --files A9L=parts_lat.toml A9=parts.toml B9L=fit_lat.toml B9=fit.toml B9m=fit_median.toml \
    B9Lm=fit_lat_median.toml N=lab_vm B3=../vm3_2026-12-01/fit.toml --json scores.json > scores.log 2>&1
for m in xeon_2026-11-30:xeon vm3_2026-12-01:vm3 vm4_2026-12-01:vm4 epyc_2026-12-01:epyc zen2_2026-12-02:zen2 \
         zen3_2026-12-02:zen3 zen5_2026-12-02:zen5; do
    folder=${m%%:*}; name=${m##*:}
    $PY -P $S --folder ../$folder --files B=$H/others/$name.toml Bm=$H/others/${name}_median.toml \
        --json others/${name}_scores.json > others/${name}_scores.log 2>&1
done
date -u > score_done.txt
