"""tcpsim's counterpart of ``probe_cpus.py``: for one committed lab row, where each segment's receive work ran (the
socket's owner, whose backlog takes it, or the softirq of the CPU that sent it), data and ACKs apart. Counts whole
skbs (an aggregate taken whole once), by wrapping ``HostRuntime._to_owner``, ``_taken_in`` and ``_deliver`` (with
``CpuCost.rx_tcp_frac`` below 1 "owner" is TCP's part on the owner, the part before the check on the softirq's CPU).
Pure Python only (an editable install): it wraps the runtime's methods.

    python3 model_where.py MEDIAN_FILE "LABEL PART" [MACHINE_FILE]   (default W, ../streams/xeon_fit_streams.toml)
"""
import collections
import sys
from pathlib import Path

from tcpsim.calibration.own import lab_cases
from tcpsim.api import simulate
from tcpsim.lab.predict import host_platform, lab_simulation, lab_path_platform, tool_goodput_bps
from tcpsim.components import host as H
X = str(Path(__file__).resolve().parent.parent) + '/'
cnt = collections.Counter()
RT = H.HostRuntime
o_owner, o_taken, o_deliver = RT._to_owner, RT._taken_in, RT._deliver
def to_owner(self, seg, dst, cost, now):
    if not (seg.length and seg.more):
        cnt['data' if seg.length else 'ack', 'owner (its backlog)'] += 1
    return o_owner(self, seg, dst, cost, now)
def taken_in(self, seg, cpu_index, now, done):
    if not (seg.length and seg.more):
        cnt['data' if seg.length else 'ack', 'softirq'] += 1
    return o_taken(self, seg, cpu_index, now, done)
def deliver(self, seg, cpu_index):
    dst = seg.dst
    now = self.kernel.now_s
    if not (seg.length and seg.more) and dst.owner_until_s > now >= dst.owner_from_s:
        cnt['data' if seg.length else 'ack', 'softirq, then owned (TCP on the owner)'] += 1
    return o_deliver(self, seg, cpu_index)
RT._to_owner, RT._taken_in, RT._deliver = to_owner, taken_in, deliver
file, pat = sys.argv[1], sys.argv[2]
plat_file = sys.argv[3] if len(sys.argv) > 3 else X + 'streams/xeon_fit_streams.toml'
c = [c for c in lab_cases([X + file]) if pat in c.label][0]
plat = host_platform(c.sysctls, platform=lab_path_platform(plat_file), os_name=None, delay_line=c.delay_line)
sc = lab_simulation(c.scenario, plat, c.delay_line, tool=c.tool, tool_version=c.tool_version)
r = simulate(sc)
pred = tool_goodput_bps(c.scenario, r, c.duration_s)
busy = {k: [round(x, 2) for x in v] for k, v in r.cpu_utilization_frac.items()}
print(c.label, '| measured', round(c.goodput_bps / 1e6), 'pred', round(pred / 1e6), r.limited_by, busy)
for kind in ('data', 'ack'):
    tot = sum(v for (k, _), v in cnt.items() if k == kind)
    print(' ', kind, ', '.join(f"{w}: {v / tot:.0%}" for (k, w), v in sorted(cnt.items()) if k == kind), 'of', tot)
