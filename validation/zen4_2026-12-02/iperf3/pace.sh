#!/bin/bash
# Rule 156 ("The kernel's pace from one probe run"), once: the probe on A10L, then lab/cpu4 and lab/cpu5 in three
# pinned passes each; nothing the table runs measure is printed.
#     PY=/tmp/venv-c3/bin/python bash pace.sh /tmp/x10p
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P -m tcpsim.machine.paceprobe parts_lat.toml --out parts_pace.toml > pace.log 2>&1
for t in cpu4 cpu5; do
    $PY -P ../../vm3_2026-12-01/measure_tables.py $t "$OUT/$t" >> "$OUT/log" 2>&1
done
ip netns list > netns_after_pace.txt
date -u > pace_done.txt
