"""Rule 165's check 2 (validation/README.md, "A lossy run stops without waiting for losses its rate cannot feel").

On three rare-loss paths the old rule can finish, each waived by the new bound: seed 0's answer under the new rule
must lie within its stated interval of the mean of seeds 0-4 run to the old rule, budgets lifted. The new rule is
the checkout's, with ``rule165.diff`` (beside this file; not adopted) applied; the old is ``tcpsim/stopping.py`` at
:data:`OLD_COMMIT`, read with git. Run from such a checkout:
``python validation/rule165_2026-12-03/check2.py > validation/rule165_2026-12-03/check2.txt``.
"""

import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import tcpsim.engine as engine
from tcpsim import build_scenario, simulate
from tcpsim.config import Budget

PATHS = {
    "a": dict(rate="1gbit", rtt="1ms", sockbuf="16k", loss=5e-5),
    "b": dict(rate="1gbit", rtt="100us", sockbuf="64k", loss=4e-6),
    "c": dict(os="linux", rate="100mbit", rtt="2ms", sockbuf="32k", loss=1e-5),
}
OLD_COMMIT = "4c03cd7"
"""The commit before rule 165 was written."""
LIFTED = Budget(max_events=10**10, max_wall_s=86400.0)


def old_rule():
    """The stop rule at :data:`OLD_COMMIT` (before rules 165 and 166, and after them: neither was adopted)."""
    text = subprocess.run(["git", "show", f"{OLD_COMMIT}:tcpsim/stopping.py"], check=True, capture_output=True,
                          text=True, cwd=Path(__file__).parent).stdout
    mod = types.ModuleType("tcpsim._old_stopping")
    mod.__package__ = "tcpsim"
    exec(compile(text, "old_stopping.py", "exec"), mod.__dict__)
    return mod.StopRule


def run_both(kw: dict, old, lifted: Budget) -> tuple[list, list, float]:
    """Seeds 0-4 of path ``kw`` under the checkout's stop rule, then under ``old`` with ``lifted`` budgets (and the
    latter's wall time)."""
    new_rule = engine.StopRule
    new = [simulate(build_scenario(seed=s, **kw)) for s in range(5)]
    engine.StopRule = old
    try:
        t0 = time.perf_counter()
        long = [simulate(build_scenario(seed=s, budget=lifted, **kw)) for s in range(5)]
        return new, long, time.perf_counter() - t0
    finally:
        engine.StopRule = new_rule


def main() -> int:
    old = old_rule()
    failed = 0
    for name, kw in PATHS.items():
        new, long, wall = run_both(kw, old, LIFTED)
        mean = statistics.mean(r.goodput_bps for r in long)
        r0 = new[0]
        held = abs(r0.goodput_bps - mean) <= r0.goodput_halfwidth_bps
        failed += not held
        print(f"path {name} {kw}")
        for s, (n, o) in enumerate(zip(new, long)):
            print(f"  seed {s}: new {n.goodput_bps / 1e6:9.3f} Mbit/s +-{n.goodput_halfwidth_bps / 1e6:.3f} "
                  f"({n.termination}, {n.sim_time_s:.3f} s, {n.retransmits} retransmits) | old "
                  f"{o.goodput_bps / 1e6:9.3f} +-{o.goodput_halfwidth_bps / 1e6:.3f} ({o.termination}, "
                  f"{o.sim_time_s:.1f} s, {o.retransmits} retransmits)")
        print(f"  old rule's mean over 5 seeds {mean / 1e6:.3f} Mbit/s ({wall:.0f} s wall); seed 0 new "
              f"{r0.goodput_bps / 1e6:.3f} +-{r0.goodput_halfwidth_bps / 1e6:.3f}: "
              f"{'held' if held else 'MISSED'} (off by {(r0.goodput_bps / mean - 1):+.3%})")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
