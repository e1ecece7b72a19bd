#!/bin/bash
# Rule 172, scored once with ../zen4_2026-12-02/iperf3/score_rule161.py.
#     PY=/tmp/venv-c1/bin/python bash score_rule172.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
$PY -P ../zen4_2026-12-02/iperf3/score_rule161.py --folder . --rr rr2 --cpu cpu9 --files B11S=fit_spin.toml \
    B11L=fit_lat.toml A11S=parts_spin.toml A11L=parts_lat.toml --json scores_rule172.json > scores_rule172.log 2>&1
date -u > score_rule172_done.txt
