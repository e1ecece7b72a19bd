#!/usr/bin/env bash
# The rule "A third machine never seen" (validation/README.md): this machine's rows, measured once (root, nothing
# else running, about 15 minutes). Three pinned passes of the 46 RTT-0 rows and of the Xeon's three extra calibration
# runs, then window6 once. Output in $1 (scratch); nothing the runs measure is printed (the tools' output to $1/log).
#     bash measure.sh /tmp/v3
# then, from this folder:
#     python -m tcpsim.lab.dataset data/lab --median-of $1/x?_*.json --runs runs_median.json
#     python -m tcpsim.lab.dataset extra_data --median-of $1/extra/pass*.json --runs extra_median.json
#     python -m tcpsim.lab.dataset data/lab --from-runs $1/window6.json   (window6's one pass)
set -euo pipefail
out="$1"
py="${PYTHON:-python3}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
for i in 1 2 3; do
    for k in writes messages messages2 messages3 cpu2 cpu3 unshaped; do
        "$py" -P -m tcpsim.lab.dataset "$out/p${i}_$k" --kind "$k" --pin 0,1 --runs "$out/x${i}_$k.json" >> "$out/log" 2>&1
    done
done
"$py" -P "$here/measure_extra.py" "$out/extra" >> "$out/log" 2>&1
"$py" -P -m tcpsim.lab.dataset "$out/w6" --kind window6 --runs "$out/window6.json" >> "$out/log" 2>&1
echo done >> "$out/log"
