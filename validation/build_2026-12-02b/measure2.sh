#!/bin/bash
# The rule "The pinned lab as the default, decided on a seventh build" (validation/README.md), steps 2-3 made again
# with U named explicitly (--relay-cpu none --pin none): the first attempt ran under code edited while it ran.
# Root, nothing else running. Each step's output goes to its file; nothing is printed while the runs go on.
set -u
PY=${PY:-python}
cd "$(dirname "$0")"
T="--relay-cpu 0 --pin 0,1"
U="--relay-cpu none --pin none"
# step 1 ran in measure.sh (pathprobe_relay0.json)
: $PY -m tcpsim.lab.pathprobe --rtt 0,0.5ms,2ms --mtu 1500,9000 --size 56,1400,8000,16000 --passes 3 \
    --relay-cpu 0
for pass in 1 2; do
    for kind in window2 window3; do
        $PY -m tcpsim.lab.dataset /tmp/b7_tables_u --kind $kind $U --runs runs/u_${kind}_${pass}.json > /dev/null 2>> measure.err
        $PY -m tcpsim.lab.dataset /tmp/b7_tables_t --kind $kind $T --runs runs/t_${kind}_${pass}.json > /dev/null 2>> measure.err
    done
done
for i in 1 2 3; do
    $PY -m tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k $U --json > smallest/u_$i.json 2>> measure.err
    $PY -m tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k $T --json > smallest/t_$i.json 2>> measure.err
done
ip netns list > netns_after.txt
date -u > done.txt
