#!/bin/bash
# Rule 174, once: lab/cpu10g on this build; nothing the runs measure is printed.
#     PY=/tmp/venv-c1/bin/python bash rule174.sh /tmp/x11g
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P measure_rule174.py "$OUT" >> "$OUT/log" 2>&1
ip netns list > netns_after_174.txt
date -u > rule174_done.txt
