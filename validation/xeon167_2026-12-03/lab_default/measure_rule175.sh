#!/usr/bin/env bash
# Rule 175 ("tcpsim lab predicts for the machine it runs on, on lossless paths too", validation/README.md), once:
# root, nothing else running, a compiled install of tcpsim (PY, TCPSIM); nothing the runs measure is printed (the
# tools' output goes to $1/log). About 6 minutes.
#     PY=/tmp/venv-c1/bin/python TCPSIM=/tmp/venv-c1/bin/tcpsim bash measure_rule175.sh /tmp/x175
# then, from this folder:
#     python -m tcpsim.lab.dataset data/lab --median-of $1/w9_*.json --runs window9_median.json
set -euo pipefail
out="$1"
py="${PY:-python3}"
tcpsim="${TCPSIM:-tcpsim}"
cd "$(dirname "$0")"
mkdir -p "$out" smallest
"$tcpsim" machine detect --probes -o detected.toml > "$out/detect.out" 2> "$out/detect.err"
for i in 1 2 3; do
    "$py" -P -m tcpsim.lab.dataset "$out/p$i" --kind window9 --runs "$out/w9_$i.json" >> "$out/log" 2>&1
done
cp "$out"/w9_*.json .
for i in 1 2 3 4 5; do
    "$tcpsim" lab --rate 1gbit --rtt 1ms --sockbuf 64k --json > "smallest/u_$i.json" 2>> "$out/log"
done
ip netns list > netns_after.txt
date -u > done.txt
