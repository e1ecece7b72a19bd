#!/bin/bash
# One pinned, unshaped tcpsim lab run of WRITE-byte writes traced in its own tracefs instance: tcp:tcp_probe (every
# segment each socket takes) and the iperf3 processes' sched:sched_switch (root; the instance removed at the end).
#   DUR=3s RUN=run_4k.json ./ktrace.sh 4k trace_4k.txt    # then stall_flow.py trace_4k.txt run_4k.json
set -eu
W=${1:-4k}; OUT=${2:-/tmp/trace_$W.txt}; RUN=${RUN:-/tmp/run_$W.json}; PY=${PYTHON:-python3}
T=/sys/kernel/tracing/instances/tcpsim_ktrace_$$
mkdir "$T"
cleanup() { echo 0 > "$T/tracing_on" || true; echo 0 > "$T/events/enable" || true; rmdir "$T" || true; }
trap cleanup EXIT
echo 262144 > "$T/buffer_size_kb"
echo 1 > "$T/events/tcp/tcp_probe/enable"
echo 'prev_comm == "iperf3" || next_comm == "iperf3"' > "$T/events/sched/sched_switch/filter"
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/tracing_on"
timeout 60 "$PY" -P -m tcpsim lab --rate 0 --write "$W" --pin 0,1 --duration "${DUR:-2s}" --json > "$RUN"
echo 0 > "$T/tracing_on"
cat "$T/trace" > "$OUT"
