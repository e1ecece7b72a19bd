#!/bin/sh
# Rule 169's check 2 (validation/README.md, "A lossy lab path is scored on the lab's own host, not an ideal one"):
# four new lossy paths on the real kernel, three 10-s passes each (the median pass), as root, measured after the
# rule was committed.
set -e
cd "$(dirname "$0")"
run() { name=$1; shift; tcpsim lab --duration 10s --passes 3 --save "$name.json" "$@" > "$name.txt"; }
run path8 --sack off --rate 1gbit --rtt 2ms --loss 0.05%
run path9 --sack off --rate 500mbit --rtt 1ms --loss 0.2%
run path10 --sack off --rate 1gbit --rtt 0.5ms --sockbuf 256k --loss 0.1%
run path11 --rate 1gbit --rtt 2ms --loss 0.05%
