#!/bin/bash
# tcp_probe + iperf3 sched_switch during one pinned unshaped 4 KiB write run
W=${1:-4k}; OUT=${2:-/tmp/s41/trace_$W.txt}
T=/sys/kernel/tracing/instances/s41
mkdir -p $T
echo 0 > $T/tracing_on; echo > $T/trace; echo 262144 > $T/buffer_size_kb

echo 1 > $T/events/tcp/tcp_probe/enable
echo 'prev_comm == "iperf3" || next_comm == "iperf3"' > $T/events/sched/sched_switch/filter
echo 1 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on
cd /tmp && timeout 60 /tmp/venv-rep/bin/python -P -m tcpsim lab --rate 0 --write $W --pin 0,1 --duration ${DUR:-2s} --json > ${RUN:-/tmp/s41/run_$W.json}
echo 0 > $T/tracing_on
cat $T/trace > $OUT
echo 0 > $T/events/tcp/tcp_probe/enable; echo 0 > $T/events/sched/sched_switch/enable
echo > $T/trace; rmdir $T
wc -l $OUT; python3 -c "import json;d=json.load(open('${RUN:-/tmp/s41/run_$W.json}'));print(d['measured']['goodput_bps']/1e9)"
