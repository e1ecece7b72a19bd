#!/bin/bash
# The rule "A window table of the seventh build joins the lab source, with its delay line" (validation/README.md):
# window8 three times with the default placement and this build's pinned probe, then the median of the three.
# Root, nothing else running, nothing printed while the runs go on, no file of the package edited meanwhile.
set -u
PY=${PY:-python}
cd "$(dirname "$0")"
for n in 1 2 3; do
    $PY -m tcpsim.lab.dataset /tmp/b7_window8_$n --kind window8 --path-probe pathprobe_relay0.json \
        --runs window8_$n.json > /dev/null 2>> measure_window8.err
done
ip netns list > netns_after_window8.txt
date -u > done_window8.txt
