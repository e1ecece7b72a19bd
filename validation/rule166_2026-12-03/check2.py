"""Rule 166's check 2 (validation/README.md, "A lossy run stops without waiting for losses its rate cannot feel, a
stall counted for every loss").

On rare-loss paths, each of seeds 0-4 that the rule waived (converged with fewer than the twenty losses the old rule
waits for expected in its measured span) must lie within its stated interval of the mean of seeds 0-4 run to the old
rule (rule 165's ``check2.old_rule``, the stop rule before rules 165-166), budgets lifted: events and wall
time without bound, simulated time to Budget's most (3600 s). Run from a checkout with ``rule166.diff`` (beside
this file) applied:
``python validation/rule166_2026-12-03/check2.py > validation/rule166_2026-12-03/check2.txt``.
"""

import importlib.util
import statistics
import sys
from pathlib import Path

from tcpsim.config import Budget
from tcpsim.stopping import losses_needed

PATHS = {
    "d": dict(os="linux", rate="10mbit", rtt="20ms", sockbuf="16k", loss=1e-5),
    "e": dict(rate="1mbit", rtt="10ms", sockbuf="8k", loss=4e-5),
    "a": dict(rate="1gbit", rtt="1ms", sockbuf="16k", loss=5e-5),
}
LIFTED = Budget(max_events=1 << 40, max_wall_s=86400.0, max_sim_time_s=3600.0)


def _rule165_check():
    here = Path(__file__).parent.parent / "rule165_2026-12-03" / "check2.py"
    spec = importlib.util.spec_from_file_location("rule165_check2", here)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def old_rule():
    """Rule 165's check's old rule, taking and dropping the stall this rule's engine passes."""
    rule = _rule165_check().old_rule()

    def make(*, stall_s: float, **kw):
        return rule(**kw)  # the old rule knows no stall: every loss is felt
    return make


def waived(r, loss: float) -> bool:
    return r.termination == "converged" and loss * r.data_packets_per_s * r.measure_time_s < losses_needed(0)


def main() -> int:
    old, run_both = old_rule(), _rule165_check().run_both
    failed = 0
    for name, kw in PATHS.items():
        new, long, wall = run_both(kw, old, LIFTED)
        mean = statistics.mean(r.goodput_bps for r in long)
        print(f"path {name} {kw}")
        for s, (n, o) in enumerate(zip(new, long)):
            w = waived(n, kw["loss"])
            held = abs(n.goodput_bps - mean) <= n.goodput_halfwidth_bps
            failed += w and not held
            print(f"  seed {s}: new {n.goodput_bps / 1e6:9.4f} Mbit/s +-{n.goodput_halfwidth_bps / 1e6:.4f} "
                  f"({n.termination}, {n.sim_time_s:.2f} s, {n.retransmits} retransmits"
                  f"{', waived: ' + ('held' if held else 'MISSED') if w else ''}; off by {n.goodput_bps / mean - 1:+.2%})"
                  f" | old {o.goodput_bps / 1e6:9.4f} +-{o.goodput_halfwidth_bps / 1e6:.4f} ({o.termination}, "
                  f"{o.sim_time_s:.0f} s, {o.retransmits} retransmits)")
        print(f"  old rule's mean over 5 seeds {mean / 1e6:.4f} Mbit/s ({wall:.0f} s wall)")
        sys.stdout.flush()
    print("check 2:", "MISSED" if failed else "held on every waived seed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
