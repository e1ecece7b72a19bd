#!/bin/sh
# Rule 167's check 2 (validation/README.md, "Linux recovers a flow without SACK as tcp_input.c does"): the four
# lossy paths with SACK off on the real kernel, three 10-s passes each (the median pass), as root.
set -e
cd "$(dirname "$0")"
run() { name=$1; shift; tcpsim lab --sack off --duration 10s --passes 3 --save "$name.json" "$@" > "$name.txt"; }
run path1 --rate 100mbit --rtt 2ms --sockbuf 64k --loss 0.3%
run path2 --rate 100mbit --rtt 10ms --loss 0.1%
run path3 --rate 1gbit --rtt 4ms --loss 0.03%
run path4 --rate 10mbit --rtt 20ms --sockbuf 16k --loss 1%
