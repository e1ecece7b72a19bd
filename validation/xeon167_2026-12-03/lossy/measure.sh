#!/bin/sh
# Rule 173 (validation/README.md, "`tcpsim lab` on a lossy path predicts for the machine it runs on"): eight lossy
# paths on the real kernel, three 10-s passes each (the median pass), predicted on --platform detect, as root, in one
# batch once the rule was committed; nothing the runs measure is printed.
#     TCPSIM=/tmp/venv-c1/bin/tcpsim sh measure.sh
set -e
cd "$(dirname "$0")"
T=${TCPSIM:-tcpsim}
run() { name=$1; shift; $T lab --duration 10s --passes 3 --platform detect --save "$name.json" "$@" > "$name.txt" 2>> log; }
run a --sack off --rate 1gbit --rtt 1ms --loss 0.1%
run b --sack off --rate 1gbit --rtt 2ms --loss 0.05%
run c --sack off --rate 500mbit --rtt 1ms --loss 0.2%
run d --sack off --rate 1gbit --rtt 0.5ms --sockbuf 256k --loss 0.1%
run e --sack off --rate 100mbit --rtt 2ms --sockbuf 64k --loss 0.3%
run f --rate 1gbit --rtt 2ms --loss 0.05%
run g --rate 1gbit --rtt 1ms --loss 0.2%
run h --rate 1gbit --rtt 4ms --loss 0.1%
ip netns list > netns_after.txt
date -u > done.txt
