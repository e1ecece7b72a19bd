"""The lab sweep against issue 22's targets (validation/README.md, "The Linux lab sweep").

Window-limited rows (``lab/window`` and ``lab/streams`` rows measured below 80 % of their shaped rate): median
|error| within 5 %, none above 15 %, with no fitted parameter. Small messages (Nagle on and off) and the
10 Gbit/s rows: median within 15 % after ``lab_vm``'s costs were fitted on the calibration tables. A known
miss is a strict xfail naming why, so a fix shows up as an XPASS.
"""

import statistics
from concurrent.futures import ProcessPoolExecutor

import pytest

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate

WINDOW_TARGET, WINDOW_MAX, CPU_TARGET = 0.05, 0.15, 0.15

KNOWN_MISSES = {
    "window-limited max": ("22.6 % (1 of 30 rows above 15 %): MTU 9000, 32 KiB at 0.5 ms is 23 % low; the "
                           "kernel's window grows from three segments to four once a small skb arrives alone "
                           "after iperf3's writer stalls (traced, 0.32 s into a run after a 2 ms stall); "
                           "tcpsim's writer never stalls"),
    "messages_nodelay": ("29.0 %: each no-delay write is one segment, so the calibration cannot tell the "
                         "per-write from the per-unit cost (the per-write is fixed at the measured 0.97 us "
                         "system call since the eighth session), and tcpsim ACKs every segment (the kernel about "
                         "0.5-0.7 an ACK a segment); the 200-byte row's three passes were 187, 412 and 246 Mbit/s"),
    "tengig": ("33.7 %: the rows measure the user-space delay line (a Python TUN relay in a third namespace on "
               "the same 2 vCPUs), which moved 2.8-9.1 Gbit/s on the quiet machine and differs by up to 40 % "
               "between passes; its stage, fitted on ICMP echoes of at most 32 KB, bounds 64 KB aggregates at "
               "about 9.8 Gbit/s, and with tcp_tso_should_defer the 1 ms rows fall 34-58 % low"),
}


def _miss(key):
    return pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[key]) if key in KNOWN_MISSES else ()


@pytest.fixture(scope="module")
def lab():
    points = [p for p in load_points() if p.source_id == "lab"]
    with ProcessPoolExecutor(2) as ex:
        return evaluate(points, ex)


def _errors(outcomes, keep):
    return [abs(o.error) for o in outcomes if o.error is not None and keep(o.point)]


def _window_limited(p):
    rate = float(p.get("rate_bps") or 0)
    return p.table_id in ("window", "streams") and rate > 0 and p.value_si < 0.8 * rate


@pytest.mark.slow
@pytest.mark.parametrize("check", [pytest.param("median", marks=_miss("window-limited median")),
                                   pytest.param("max", marks=_miss("window-limited max"))])
def test_window_limited_rows_within_target(lab, check):
    errors = _errors(lab, _window_limited)
    assert len(errors) == 30
    if check == "median":
        assert statistics.median(errors) <= WINDOW_TARGET
    else:
        assert max(errors) <= WINDOW_MAX


@pytest.mark.slow
@pytest.mark.parametrize("table", [pytest.param(t, marks=_miss(t)) for t in ("messages_nodelay", "messages_nagle",
                                                                             "tengig")])
def test_cpu_bound_rows_within_target_after_calibration(lab, table):
    errors = _errors(lab, lambda p: p.table_id == table)
    assert errors and statistics.median(errors) <= CPU_TARGET
