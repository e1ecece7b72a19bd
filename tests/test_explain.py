"""explain: the segment timeline and the payload cycle (the Sun blueprint's Nagle / deferred-ACK example)."""

import re

import pytest

from tcpsim.errors import ConfigError
from tcpsim.explain import explain

# Sun blueprint 004: 100-byte messages on Solaris; Nagle holds the small ones until an ACK comes back,
# the deferred ACK comes late, and the wire carries a 100-byte segment then a ~1400-byte one.
SUN = dict(os="solaris", message=100, message_rate=20000, delay="5us")

ROW = re.compile(r"^\s*([\d.]+)\s+sender (--->|<---) receiver\s+(data|ack)\s+(?:P?\.)\s+(\d+)\s+(\d+)\s+(\d+)\s+"
                 r"(\d+)\s*(.*)$")
FLAGS = re.compile(r"\s(data|ack)\s+(P?\.)\s+\d+\s+(\d+)\s")


def _diagram_rows(text):
    return [m.groups() for m in map(ROW.match, text.splitlines()) if m]


@pytest.fixture(scope="module")
def sun():
    return explain(segments=20, **SUN)


def test_solaris_small_messages_show_the_100_and_1400_byte_cycle(sun):
    rows = _diagram_rows(sun.text())
    assert len(rows) == 20 == len(sun.trace)
    data_lengths = {int(r[4]) for r in rows if r[2] == "data"}
    assert {100, 1400} <= data_lengths
    assert {size for size, _ in sun.cycle(2)} == {100, 1400}
    assert "payload cycle" in sun.text() and "100 B" in sun.cycle_text() and "1400 B" in sun.cycle_text()
    assert any("Nagle" in r[7] for r in rows if r[2] == "data")
    assert sun.result.limited_by == "nagle_delack"


def test_nodelay_breaks_the_cycle():
    ex = explain(segments=10, nodelay=True, **SUN)
    assert [size for size, _ in ex.cycle()] == [100]
    assert all(int(r[4]) == 100 for r in _diagram_rows(ex.text()) if r[2] == "data")


def test_arrows_and_ack_reasons_are_consistent(sun):
    rows = _diagram_rows(sun.text())
    times = [float(r[0]) for r in rows]
    assert times == sorted(times)
    assert all((r[1] == "--->") == (r[2] == "data") for r in rows)  # one-way bulk: data goes right, ACKs left
    prev = 0
    for r in rows:
        if r[2] == "ack":
            ack = int(r[5])
            assert r[7].startswith(f"acks {ack - prev} B")
            prev = ack
    first_data = next(r for r in rows if r[2] == "data")
    assert int(first_data[3]) == 0 and int(first_data[4]) == 100


def test_trace_tuples_match_rows(sun):
    rows = sun.rows()
    assert len(rows) == len(sun.trace)
    for row, t in zip(rows, sun.trace):
        assert (row.time_s, row.kind, row.seq, row.length_bytes, row.ack, row.window_bytes) == \
            (t[0], t[2], t[3], t[4], t[5], t[6])


def test_bulk_transfer_cycle_is_the_mss():
    ex = explain(segments=8, rtt="1ms", sockbuf="32k")
    assert ex.cycle(1)[0][0] == 1460
    assert len(ex.trace) == 8


@pytest.mark.parametrize("segments", [0, -3, 2.5, True])
def test_segments_must_be_a_positive_whole_number(segments):
    with pytest.raises(ConfigError):
        explain(segments=segments)


def test_plot_draws_one_arrow_per_segment(sun):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    ax = sun.plot()
    try:
        arrows = [a for a in ax.texts if getattr(a, "arrow_patch", None) is not None]
        assert len(arrows) == len(sun.trace)
        assert [t.get_text() for t in ax.get_xticklabels()] == ["sender", "receiver"]
    finally:
        plt.close(ax.figure)


def test_a_to_scale_plot_charges_the_runs_options_and_framing():
    """``Explanation.plot(to_scale=True)``: a Linux run (timestamps) through a tbf (skb_charged) draws its 1448-byte
    segment's flight as 1448 + 12 + 54 = 1514 bytes at the rate, not an 802.3 frame without options."""
    pytest.importorskip("matplotlib")
    from types import SimpleNamespace

    import matplotlib.pyplot as plt

    from tcpsim.api import build_scenario
    from tcpsim.explain import Explanation

    sc = build_scenario(os="linux", rate="100mbit", burst="64k", delay="10us")
    trace = [(0.0, "sender#0", "data", 0, 1448, 0, 65535, "app", True, ())]
    ax = Explanation(scenario=sc, result=SimpleNamespace(trace=trace), segments=1).plot(to_scale=True)
    try:
        (end_us,) = [a.xy[1] for a in ax.texts if getattr(a, "arrow_patch", None) is not None]
        assert end_us == pytest.approx((sc.link.one_way_delay_s + 1514 * 8 / 100e6) * 1e6)
    finally:
        plt.close(ax.figure)


def test_psh_marks_the_segment_that_empties_the_queue(sun):
    """RFC 1122 4.2.2.2: with Nagle, each 1400-byte segment leaves a 100-byte message queued behind it
    (no PSH); the 100-byte one that follows empties the queue (PSH). With TCP_NODELAY every message
    leaves alone and carries PSH; ACKs never do."""
    flags = [m.groups() for m in map(FLAGS.search, sun.text().splitlines()) if m]
    assert len(flags) == len(sun.trace)
    data = [(f, int(n)) for kind, f, n in flags if kind == "data"]
    assert {f for f, n in data if n == 100} == {"P."}
    assert {f for f, n in data if n == 1400} == {"."}
    assert {f for kind, f, _ in flags if kind == "ack"} == {"."}
    assert [r.push for r in sun.rows()] == [t[8] for t in sun.trace]
    nodelay = explain(segments=10, nodelay=True, **SUN)
    assert all(r.push for r in nodelay.rows() if r.kind == "data")


def test_acks_show_their_sack_blocks():
    """A queue of four frames drops part of slow start's bursts; with SACK the duplicate ACKs name the blocks
    the receiver holds above the hole (RFC 2018), latest first."""
    kw = dict(rate="100mbit", rtt="2ms", queue=4, sockbuf="256k", segments=60)
    rows = explain(sack=True, **kw).rows()
    sacked = [r for r in rows if r.sack]
    assert sacked and all(r.kind == "ack" and "SACK" in r.why for r in sacked)
    for r in sacked:
        assert all(r.ack < start < end for start, end in r.sack)
    assert not any(r.sack for r in explain(sack=False, **kw).rows())
