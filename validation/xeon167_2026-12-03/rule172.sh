#!/bin/bash
# Rule 172, once: lab/rr2 and lab/cpu9 on this build; nothing the runs measure is printed.
#     PY=/tmp/venv-c1/bin/python bash rule172.sh /tmp/x11r
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P measure_rule172.py "$OUT" >> "$OUT/log" 2>&1
ip netns list > netns_after_172.txt
date -u > rule172_done.txt
