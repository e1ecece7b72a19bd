#!/bin/bash
# The rule "A sixth machine: a Zen 2 EPYC never seen, and the path probe as the default" (validation/README.md), its
# steps 1-5, once. Root, nothing else running, a compiled install of tcpsim (PY, TCPSIM); nothing the runs measure is
# printed: each step's output goes to its file, the tools' to $OUT/log.
#     PY=/tmp/venv-c/bin/python TCPSIM=/tmp/venv-c/bin/tcpsim bash measure.sh /tmp/z6
set -u
OUT="$1"
PY=${PY:-python3}
TCPSIM=${TCPSIM:-tcpsim}
cd "$(dirname "$0")"
mkdir -p "$OUT" smallest
$TCPSIM machine detect --probes -o parts.toml > "$OUT/detect.out" 2> "$OUT/detect.err"
PYTHON=$PY bash ../vm3_2026-12-01/measure.sh "$OUT"
$PY -P -m tcpsim.lab.dataset "$OUT/window" --kind window --runs window_runs.json >> "$OUT/log" 2>&1
for i in 1 2 3; do
    $TCPSIM lab --rate 1gbit --rtt 1ms --sockbuf 64k --json > smallest/u_$i.json 2>> "$OUT/log"
    $TCPSIM lab --rate 1gbit --rtt 1ms --sockbuf 64k --path-probe auto --json > smallest/a_$i.json 2>> "$OUT/log"
done
cp "${XDG_CACHE_HOME:-$HOME/.cache}"/tcpsim/pathprobe-*.json pathprobe_auto.json
$PY -P -m tcpsim.lab.pathprobe --rtt 0,0.5ms,2ms --mtu 1500,9000 --size 56,1400,8000,16000 --passes 3 \
    --relay-cpu 0 > pathprobe2.json 2>> "$OUT/log"
ip netns list > netns_after.txt
date -u > done.txt
