#!/bin/bash
# Rule 171, scored once with ../vm3_2026-12-01/score.py.
#     PY=/tmp/venv-c1/bin/python bash score.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
$PY -P ../vm3_2026-12-01/score.py --folder . --files A11S=parts_spin.toml A11L=parts_lat.toml B11S=fit_spin.toml \
    B11L=fit_lat.toml N=lab_vm B9L=../xeon167_2026-12-02/fit_lat.toml --json scores.json > scores.log 2>&1
date -u > score_done.txt
