"""A machine tcpsim never saw, against the issues' targets: the Intel Xeon VM of 2026-11-30.

Its lab tables (``validation/xeon_2026-11-30/data``: 46 rows without a delay line, three pinned passes each, and
``window6`` once; ``window7`` and ``cpu8`` to ``cpu15`` came later, each to judge a rule) were measured on a
machine none of tcpsim's rules or fits had met, by the rule written before (validation/README.md, "A machine never
seen"), and scored as a class would: the machine file ``tcpsim machine detect --probes`` wrote (A, nothing fitted)
and the one ``tcpsim calibrate --lab`` fitted on its nine calibration rows (B). The figures below are under the two
rules that followed ("On the lab's path a machine's interface is the veth it runs over", "A machine on the lab's path
is placed as the lab places it"), written with A's first scores in view: these tables are seen for them. Since "A
veth's round trip is the hosts' work, a second time" (decided by ``lab/cpu6``, measured after it) B was
``xeon_fit_veth.toml``, refitted by the same command under that rule, and since "The gaps with the refit started from
the committed costs" (decided by ``lab/cpu10``) it was that file with the gaps a running CPU loses, refitted from its
costs; since "The calibration runs weigh the receiving side" (decided by ``lab/cpu11``) that file refitted from its
costs with a read's cost freed, on the nine runs and a two-stream and two jumbo-frame runs; since "The receive work
divides at the socket's lock" (decided by ``lab/cpu16``) that file with TCP's share of a received frame's work as
``perf`` measured it (``CpuCost.rx_tcp_frac`` 0.53), refitted by the same command from its costs (W'). A known miss is
a strict xfail.
"""

import statistics
from pathlib import Path

import pytest

from machine_scores import errors as _errors, score_folder, tables_not_below_the_calculator, window_limited

HERE = Path(__file__).resolve().parent.parent / "validation" / "xeon_2026-11-30"
CPU_TABLES = ("cpu4", "cpu5", "cpu6", "cpu7")
"""The Xeon's CPU-bound tables each measured after a rule and used once to decide it."""
CPU_TARGET, WINDOW_TARGET, WINDOW_MAX = 0.15, 0.05, 0.15
FILES = {"xeon_parts": "xeon_parts.toml", "xeon_calibrated": "split/xeon_fit_split.toml"}
"""A: what ``machine detect --probes`` wrote; since "A modern core's copy from the other modern machine" (decided by
``lab/cpu18``) and "A copy factor for cores with fast short string moves" its copy is priced at the catalog's factor
for FSRM cores, from ``lab_vm``'s machine (as ``split/xeon_parts_copy.toml``, A*, set it by hand; nothing of this
machine fitted); since "The first Xeon's parts file as machine detect writes it today" and "... follows detect
again" its write and read are iperf3's own on that machine, 0.411 and 1.173 us (``xeon_parts_as_detected.toml`` keeps
the probes' figures as detect first wrote them, 0.866 and 0.851 us; every calibrated file starts from that one); B:
the calibrated file, since "The receive work divides at the socket's
lock" (decided by ``lab/cpu16``) W': the last file (the gaps a running CPU loses, a read's cost freed, twelve runs)
with ``rx_tcp_frac`` 0.53, refitted from its costs."""

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HERE.is_dir(), reason="run from a checkout (validation/)")]


@pytest.fixture(scope="module")
def scored():
    return score_folder(HERE, FILES)


def _held_out_cpu_rows(p):
    return p.table_id not in ("window6", "window7", *JUDGING_CPU_TABLES, *CPU_TABLES) and p.get("role") == "holdout"


def test_the_tables_are_the_measured_ones(scored):
    outcomes = scored["xeon_parts"]
    assert len(outcomes) == 234
    assert len(_errors(outcomes, _held_out_cpu_rows)) == 37 and len(_errors(outcomes, window_limited)) == 19
    assert len(_errors(outcomes, lambda p: window_limited(p, "window7"))) == 20
    assert [len(_errors(outcomes, lambda p, t=t: p.table_id == t)) for t in CPU_TABLES] == [10] * len(CPU_TABLES)
    assert len(_errors(outcomes, lambda p: p.table_id == "cpu8")) == 8
    assert len(_errors(outcomes, lambda p: p.table_id == "cpu9")) == 9
    assert len(_errors(outcomes, lambda p: p.table_id == "cpu10")) == 9
    assert len(_errors(outcomes, lambda p: p.table_id == "cpu11")) == 10
    later = ("cpu12", "cpu13", "cpu14", "cpu15", "cpu16", "cpu17", "cpu18")
    assert [len(_errors(outcomes, lambda p, t=t: p.table_id == t)) for t in later] == [10] * len(later)


@pytest.mark.parametrize("table,name", [(t, n) for t in CPU_TABLES for n in ("xeon_parts", "xeon_calibrated")])
def test_a_cpu_table_measured_after_every_rule_within_target(scored, table, name):
    """lab/cpu4 to lab/cpu7 (10 rows each: unshaped writes at both MTUs, several streams, small messages with Nagle
    on and off), each fixed and measured after a rule, held out from it (validation/README.md, "A fit that also weighs
    where the CPU time went", "Which read cost a class should measure", "A veth's round trip is the hosts' work, a
    second time", "How a class calibrates, judged again"): issue 22's 15 % after calibrating, and issue 21's from the
    parts."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == table)) <= CPU_TARGET


@pytest.mark.parametrize("name", ["xeon_parts", "xeon_calibrated"])
def test_the_held_out_cpu_and_message_rows_within_target(scored, name):
    """Issue 22's 15 % on the small-message and CPU-bound rows after calibrating (B), and issue 21's 15 % for a
    machine left out, predicted from its parts (A): the 37 held-out rows without a delay line."""
    assert statistics.median(_errors(scored[name], _held_out_cpu_rows)) <= CPU_TARGET


def test_below_the_calculator_on_every_table_from_the_parts(scored):
    assert tables_not_below_the_calculator(scored["xeon_parts"]) == []


@pytest.mark.parametrize("name,check", [(n, c) for n in ("xeon_parts", "xeon_calibrated") for c in ("median", "max")])
def testwindow_limited_rows_within_target(scored, name, check):
    errors = _errors(scored[name], window_limited)
    assert (statistics.median(errors) <= WINDOW_TARGET) if check == "median" else (max(errors) <= WINDOW_MAX)


WINDOW7_MISSES = {
    ("xeon_parts", "max"): "window7's window-limited max 15.7 % from the parts (2.9 % median): the 4.5 ms, MTU 1500, "
                           "22 KiB row, -15.7 %, a protocol row (W, the calibrated file before, had it too); not "
                           "traced "
                           "(validation/README.md, 'What lab/window7 decided')",
    ("xeon_calibrated", "median"): "window7's window-limited median 5.1 % calibrated (10.2 % max; W's 3.6 / 15.7 %): "
                                   "the six 0.55 ms rows +0.3..+10.2 %, W' faster than W where the hosts' work sets "
                                   "part of the round trip (its segment taken in at 0.06 us, not identified by its "
                                   "runs; validation/README.md, 'What dividing the receive work gave')",
}


@pytest.mark.parametrize("name,check", [
    pytest.param(n, c, marks=pytest.mark.xfail(strict=True, reason=WINDOW7_MISSES[n, c]))
    if (n, c) in WINDOW7_MISSES else (n, c)
    for n in ("xeon_parts", "xeon_calibrated") for c in ("median", "max", "table")])
def test_the_window_table_that_judged_the_queues_skbs_within_target(scored, name, check):
    """lab/window7 (21 rows at round trips and buffers no other table has), fixed and measured on this Xeon to judge
    a Linux sender of its send queue's skbs, scored once by that rule (validation/README.md, "The queue's skbs judged
    by a window table measured for it"): issue 22's window-limited 5 / 15 % with no fitted parameter, the holdout
    tables' 20 % on the whole."""
    limited = _errors(scored[name], lambda p: window_limited(p, "window7"))
    if check == "median":
        assert statistics.median(limited) <= WINDOW_TARGET
    elif check == "max":
        assert max(limited) <= WINDOW_MAX
    else:
        assert statistics.median(_errors(scored[name], lambda p: p.table_id == "window7")) <= 0.20


JUDGING_CPU_TABLES = {
    "cpu8": "the wake-up probe's stall (validation/README.md, \"A streaming process does not meet the wake-up probe's "
            "stalls\")",
    "cpu9": "the gaps a running CPU loses (validation/README.md, \"A running CPU loses short gaps to the system, as "
            "measured\")",
    "cpu10": "the gaps with the refit started from the committed costs (validation/README.md, \"The gaps with the "
             "refit started from the committed costs\")",
    "cpu11": "calibration runs that weigh the receiving side (validation/README.md, \"The calibration runs weigh the "
             "receiving side: two streams and jumbo frames\")",
    "cpu12": "the write's cost from the kernel's timestamps (validation/README.md, \"The Xeon's write cost from the "
             "kernel's timestamps\")",
    "cpu13": "a calibration run the kernel's reader limits (validation/README.md, \"A calibration run the kernel's "
             "reader limits\")",
    "cpu14": "a fit that weighs the limit named (validation/README.md, \"A fit that weighs the limit named beside the "
             "goodput\")",
    "cpu15": "the kernel's per-event costs (validation/README.md, \"The kernel's per-event costs in the machine "
             "file\")",
    "cpu16": "the receive work divided at the socket's lock (validation/README.md, \"The receive work divides at the "
             "socket's lock\")",
    "cpu17": "the ownership check at its instant (validation/README.md, \"The check at its instant\")",
    "cpu18": "a modern core's copy from the other modern machine (validation/README.md, \"A modern core's copy from "
             "the other modern machine\")",
}
"""The CPU-bound tables of unshaped rows at write sizes no other table has, each fixed and measured on this Xeon to
judge one rule and scored once by it."""

_STALL = "validation/README.md, 'What a streaming process's wake-ups gave'"
_GAPS = "validation/README.md, 'What the gaps gave'"
_GAPS2 = "validation/README.md, 'What the gaps from the committed costs gave'"
_SPLIT = "validation/README.md, 'What dividing the receive work gave'"
_PARTS = "validation/README.md, 'What the first Xeon's parts file gave'"
_STREAMS = ("validation/README.md, 'What the receiving-side runs gave', and 'Several streams from one iperf3 thread: "
            "tcpsim gains where the kernel does not'")
CPU_TABLE_MISSES = {
    ("cpu11", "xeon_calibrated"): (
        "16.8 % calibrated (W's 27.3 %, 30.5 % under the file before it, which this table replaced): too fast on the "
        "two- and three-stream rows (+13..+85 %), the jumbo 5 KiB row -31 % "
        f"({_STREAMS}; {_SPLIT})"),
    ("cpu15", "xeon_calibrated"): (
        f"17.9 % calibrated (W's 6.8 %): 2.5 KiB and jumbo 6 KiB writes -25 %, 20 KiB +21 %, no-delay 60 and 200-byte "
        f"messages +31, +20 % ({_SPLIT})"),
}

_PARTS_FIGURES = {
    "cpu9": "18.1 % (max 34.9 %, the 14 KiB rows of one and two streams +12 and +23 %)",
    "cpu17": "17.7 % (max 55.2 %, every row low)",
}
"""Each judging table from the parts file, where it misses issue 21's 15 %."""
CPU_TABLE_MISSES.update({(t, "xeon_parts"): f"{v} from the parts: the catalog's cycles ({_PARTS})"
                         for t, v in _PARTS_FIGURES.items()})


@pytest.mark.parametrize("table, name", [
    pytest.param(t, n, marks=pytest.mark.xfail(strict=True, reason=CPU_TABLE_MISSES[t, n]))
    if (t, n) in CPU_TABLE_MISSES else (t, n) for t in JUDGING_CPU_TABLES for n in ("xeon_parts", "xeon_calibrated")])
def test_the_cpu_tables_that_judged_a_rule_within_target(scored, table, name):
    """Each of :data:`JUDGING_CPU_TABLES` against issue 22's 15 % after calibrating and issue 21's from the parts.
    Three misses were met once rule 164 scored rows without the delay line unpaged, as step 2 fits them
    (validation/README.md, "What keeping a machine's own receive skbs off the delay line gave"): ``cpu12`` calibrated
    16.2 -> 12.8 %, ``cpu17`` calibrated 15.7 -> 10.0 %, ``cpu16`` from the parts 15.1 -> 14.5 %."""
    assert statistics.median(_errors(scored[name], lambda p: p.table_id == table)) <= CPU_TARGET
