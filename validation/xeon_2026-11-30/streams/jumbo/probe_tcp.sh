#!/bin/bash
# One tcpsim lab run with tcp:tcp_probe and the sock send/recv length events traced for 20 ms after its first
# 1.5 s (root, tracefs). Usage: probe_tcp.sh "LAB ARGS" OUT.txt   (the run's JSON goes to OUT.txt.json)
set -u
T=/sys/kernel/tracing
off() { echo 0 > $T/tracing_on; echo 0 > $T/events/enable; echo > $T/trace; }
trap off EXIT
off
for e in tcp/tcp_probe sock/sock_send_length sock/sock_recv_length; do echo 1 > $T/events/$e/enable; done
echo 65536 > $T/buffer_size_kb
tcpsim lab $1 --duration 3s --json > "$2.json" &
P=$!
sleep 1.5
echo 1 > $T/tracing_on; sleep 0.02; echo 0 > $T/tracing_on
cat $T/trace > "$2"
wait $P
