#!/bin/sh
# Rule 168's check 2 (validation/README.md, "Without SACK, the head Linux marks lost waits for PRR's count"): three
# new lossy paths with SACK off on the real kernel, three 10-s passes each (the median pass), as root.
set -e
cd "$(dirname "$0")"
run() { name=$1; shift; tcpsim lab --sack off --duration 10s --passes 3 --save "$name.json" "$@" > "$name.txt"; }
run path5 --rate 100mbit --rtt 5ms --sockbuf 128k --loss 0.5%
run path6 --rate 1gbit --rtt 1ms --loss 0.1%
run path7 --rate 50mbit --rtt 8ms --sockbuf 64k --loss 0.2%
