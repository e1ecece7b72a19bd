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

PATH = ("with the handshake's round trip as the first RTT sample (sixth session) the MTU 1500 rows at 4 ms came "
        "to -1..+1 % from +18..+34 %, but the 16 KiB one to -17 % (the kernel offered the same 13-segment window "
        "as tcpsim when re-measured on 2026-11-27, 34.5 Mbit/s against the dataset's 43.8: that row's measurement "
        "is high); MTU 9000 with 16 KiB at 0.2 ms -22 %, and the MTU 9000 32 KiB rows at 0.2 and 0.5 ms 16-30 % "
        "low (the kernel's window grows from three segments to four once a small skb arrives alone after iperf3's "
        "writer stalls, 0.32 s into the traced run after a 2 ms stall; tcpsim's writer never stalls)")
KNOWN_MISSES = {
    "window-limited max": "30.2 % (4 of 31 rows above 15 %): " + PATH,
    "messages_nodelay": ("37.2 %: lab_vm's costs were fitted with each frame serialized at 1 Gbit/s; behind the tbf "
                         "bucket a segment reaches the reader at once and is ACKed alone (one ACK per segment against "
                         "0.58), which the CPU-bound sender pays for (60-1000 bytes 37-52 % low); the refit on the "
                         "bucket did not lower the calibration median (31.3 against 28.9 %) and was not kept"),
    "tengig": ("16.3 %: the rows measure the user-space delay line (a Python TUN relay in a third namespace on the same "
               "2 vCPUs), which moved 2.8-9.1 Gbit/s on the quiet machine; its stage, fitted on ICMP echoes of at most "
               "32 KB, bounds 64 KB aggregates at about 9.8 Gbit/s and the rows come out -52..+52 %"),
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
    assert len(errors) == 31
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
