#!/bin/bash
# Rule 174, scored once with ../vm3_2026-12-01/score.py --table cpu10g.
#     PY=/tmp/venv-c1/bin/python bash score_rule174.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
$PY -P ../vm3_2026-12-01/score.py --folder . --table cpu10g --files B11S=fit_spin.toml A11S=parts_spin.toml \
    B11L=fit_lat.toml A11L=parts_lat.toml --json scores_cpu10g.json > scores_cpu10g.log 2>&1
date -u > score_rule174_done.txt
