#!/bin/bash
# The rule "A tenth machine" (validation/README.md), scored once with ../vm3_2026-12-01/score.py.
#     PY=/tmp/venv-c/bin/python bash score.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
$PY -P ../vm3_2026-12-01/score.py --folder . --files A10L=parts_lat.toml A10=parts.toml B10L=fit_lat.toml B10=fit.toml \
    N=lab_vm B8=../zen5_2026-12-02/fit.toml B7=../zen3_2026-12-02/fit_lat.toml --json scores.json > scores.log 2>&1
date -u > score_done.txt
