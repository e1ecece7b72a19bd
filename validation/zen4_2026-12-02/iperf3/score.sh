#!/bin/bash
# The rule "The tenth machine again, measured with iperf3" (validation/README.md), scored once with
# ../../vm3_2026-12-01/score.py; G10 is rule 154's B10, calibrated on the built-in generator's runs.
#     PY=/tmp/venv-c/bin/python bash score.sh
set -eu
PY=${PY:-python3}
cd "$(dirname "$0")"
$PY -P ../../vm3_2026-12-01/score.py --folder . --files A10L=parts_lat.toml A10=parts.toml B10L=fit_lat.toml \
    B10=fit.toml N=lab_vm B8=../../zen5_2026-12-02/fit.toml B7=../../zen3_2026-12-02/fit_lat.toml G10=../fit.toml \
    --json scores.json > scores.log 2>&1
date -u > score_done.txt
