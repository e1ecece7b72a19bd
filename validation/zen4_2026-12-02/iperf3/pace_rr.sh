#!/bin/bash
# Rule 160 ("The kernel's pace from a request/response probe"), once: the probe on A10L with the kernel-only calls of
# ../parts.toml, then lab/cpu6 and lab/cpu7 in three pinned passes each; nothing the table runs measure is printed.
#     PY=/tmp/venv-c9/bin/python bash pace_rr.sh /tmp/x10r
set -eu
OUT="$1"
PY=${PY:-python3}
cd "$(dirname "$0")"
mkdir -p "$OUT"
$PY -P -m tcpsim.machine.paceprobe parts_lat.toml --rr ../parts.toml --out parts_rr.toml > pace_rr.log 2>&1
for t in cpu6 cpu7; do
    $PY -P ../../vm3_2026-12-01/measure_tables.py $t "$OUT/$t" >> "$OUT/log" 2>&1
done
ip netns list > netns_after_rr.txt
date -u > pace_rr_done.txt
