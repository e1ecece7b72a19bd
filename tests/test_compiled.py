"""The compiled hot path (``setup.py``, mypyc) gives exactly what its Python source gives.

mypyc runs the same source with native ints and floats and checks the annotations at run time; a
mismatch there would change results or raise only in the compiled build, which is what CI installs.
The comparison runs the source of the very same install in a subprocess that ignores the compiled
modules, on workloads that between them reach every hot-path module.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tcpsim.components import hot_path_compiled

_RUN = r"""
import importlib.util
import json
import pathlib
import sys


class SourceOnly:
    # Finds tcpsim's modules as .py files, so the compiled extensions beside them are never loaded.

    def find_spec(self, name, path, target=None):
        if not name.startswith("tcpsim.") or path is None:
            return None
        for folder in path:
            source = pathlib.Path(folder) / (name.rpartition(".")[2] + ".py")
            if source.is_file():
                return importlib.util.spec_from_file_location(name, source)
        return None


if sys.argv[1] == "source":
    sys.meta_path.insert(0, SourceOnly())

from tcpsim.api import build_scenario, simulate
from tcpsim.components import hot_path_compiled
from tcpsim.config import Budget

budget = Budget(rel_tol=0.05, max_sim_time_s=0.05, record_trace=True, trace_limit=300)
cases = {
    "host model, 2 streams both ways": dict(platform="rx2600_ixgb", tuning="driver", streams=2, bidir=True),
    "Tru64, 9000 MTU": dict(platform="es40_tru64", mtu=9000, sockbuf="256k"),
    "Nagle and deferred ACKs": dict(platform="sunfire6800_ce", message=100),
    "request/response": dict(platform="p4_linux", rr="1k", response="4k"),
    "1 % loss, SACK": dict(loss=0.01, sack=True, rtt="1ms", sockbuf="1M"),
    "1 % loss, NewReno": dict(loss=0.01, sack=False, rtt="1ms", sockbuf="1M"),
}
out = {"compiled": hot_path_compiled()}
for name, kw in cases.items():
    r = simulate(build_scenario(budget=budget, **kw))
    out[name] = [r.events, r.sim_time_s, r.termination, r.goodput_bps, r.data_packets_per_s, r.ack_packets_per_s,
                 r.transactions_per_s, r.retransmits, r.limited_by, r.cpu_utilization_frac, r.drops,
                 sorted(r.payload_histogram.items()), r.trace]
print(json.dumps(out, default=repr))
"""


def _run(mode: str) -> dict:
    # -P: the installed package, not a checkout in the working directory
    proc = subprocess.run([sys.executable, "-P", "-c", _RUN, mode], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.skipif(not hot_path_compiled(), reason="this install runs the hot path from source")
def test_the_compiled_hot_path_gives_exactly_what_its_source_gives():
    compiled, source = _run("compiled"), _run("source")
    assert compiled.pop("compiled") and not source.pop("compiled")
    assert compiled == source
