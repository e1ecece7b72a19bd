#!/bin/bash
# Rule 162, once: the fit, then lab/rr2 and lab/cpu9; nothing the runs measure is printed.
#     PY=/tmp/venv-c9/bin/python TCPSIM=/tmp/venv-c9/bin/tcpsim bash rule162.sh /tmp/x10t
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
bash step4_spin.sh
$PY -P measure_rule162.py "$OUT" >> "$OUT/log" 2>&1
ip netns list > netns_after_162.txt
date -u > rule162_done.txt
