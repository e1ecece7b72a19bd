#!/bin/bash
# The rule "The tenth machine again, measured with iperf3" (validation/README.md), its steps 1-3, once. Root, nothing else running, a compiled
# install of tcpsim (PY, TCPSIM); nothing the runs measure is printed: each step's output goes to its file, the
# tools' to $OUT/log.
#     PY=/tmp/venv-c/bin/python TCPSIM=/tmp/venv-c/bin/tcpsim bash measure.sh /tmp/x10i
set -u
OUT="$1"
PY=${PY:-python3}
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
mkdir -p "$OUT" smallest
$TCPSIM machine detect --probes -o parts_lat.toml > "$OUT/detect.out" 2> "$OUT/detect.err"
PYTHON=$PY bash ../../vm3_2026-12-01/measure.sh "$OUT"
for i in 1 2 3; do
    $TCPSIM lab --rate 1gbit --rtt 1ms --sockbuf 64k --json > smallest/u_$i.json 2>> "$OUT/log"
done
ip netns list > netns_after.txt
date -u > done.txt
