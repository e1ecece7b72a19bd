#!/bin/bash
# Rule 171 ("An eleventh machine", validation/README.md), its steps 1-3, once. Root, nothing else running, a compiled
# install of tcpsim (PY, TCPSIM); nothing the runs measure is printed: each step's output goes to its file, the
# tools' to $OUT/log.
#     PY=/tmp/venv-c1/bin/python TCPSIM=/tmp/venv-c1/bin/tcpsim bash measure.sh /tmp/x11
set -u
OUT="$1"
PY=${PY:-python3}
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
mkdir -p "$OUT" smallest
$TCPSIM machine detect --probes --spin -o parts_spin.toml > "$OUT/detect_spin.out" 2> "$OUT/detect_spin.err"
$TCPSIM machine detect --probes -o parts_lat.toml > "$OUT/detect.out" 2> "$OUT/detect.err"
PYTHON=$PY bash ../vm3_2026-12-01/measure.sh "$OUT"
for i in 1 2 3; do
    $TCPSIM lab --rate 1gbit --rtt 1ms --sockbuf 64k --json > smallest/u_$i.json 2>> "$OUT/log"
done
ip netns list > netns_after.txt
date -u > done.txt
