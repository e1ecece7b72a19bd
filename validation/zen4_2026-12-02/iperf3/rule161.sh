#!/bin/bash
# Rule 161, once: the spinning probe and A10S, then lab/rr and lab/cpu8; nothing the runs measure is printed.
#     PY=/tmp/venv-c9/bin/python bash rule161.sh /tmp/x10s
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P measure_rule161.py "$OUT" >> "$OUT/log" 2>&1
ip netns list > netns_after_161.txt
date -u > rule161_done.txt
