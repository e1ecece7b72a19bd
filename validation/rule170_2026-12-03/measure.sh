#!/bin/sh
# Rule 170's check 2 (validation/README.md, "An ACK that covers a retransmission is timed by its timestamp echo, or
# not at all"): three new lossy paths on the real kernel, three 10-s passes each (the median pass), as root,
# measured after the change was written.
set -e
cd "$(dirname "$0")"
run() { name=$1; shift; tcpsim lab --duration 10s --passes 3 --save "$name.json" "$@" > "$name.txt"; }
run path12 --sack off --rate 1gbit --rtt 0.5ms --sockbuf 128k --loss 0.1%
run path13 --rate 1gbit --rtt 1ms --loss 0.2%
run path14 --sack off --rate 500mbit --rtt 2ms --sockbuf 256k --loss 0.05%
