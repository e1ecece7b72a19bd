"""SACK: the receiver's blocks (RFC 2018) and the sender's scoreboard, pipe and NextSeg (RFC 6675)."""

import pytest

from tcpsim.protocol import sack
from tcpsim.protocol.congestion import NewReno

MSS = 1000


def segments(n, start=0):
    """The sender's list of ``n`` full segments from ``start``: [seq, length, sent_s, retransmitted]."""
    return [[start + i * MSS, MSS, 0.0, False] for i in range(n)]


def board(*ranges, una=0):
    b = sack.Scoreboard()
    b.add([r for r in ranges], una)
    return b


@pytest.mark.parametrize("others, n", [(0, 4), (12, 3), (40, 0)])
def test_blocks_that_fit_in_the_option_space(others, n):
    """RFC 2018 §3: 40 option bytes; 2 NOPs, kind and length, then 8 bytes a block."""
    assert sack.max_blocks(others) == n
    assert others + sack.option_bytes(n) <= 40


def test_the_block_holding_the_latest_arrival_comes_first():
    """RFC 2018 §4: first the block with the segment that triggered the ACK, then the others, latest first."""
    blocks = []
    sack.record_arrival(blocks, 2000, 3000, 1000)
    sack.record_arrival(blocks, 5000, 6000, 1000)
    assert blocks == [[5000, 6000], [2000, 3000]]
    sack.record_arrival(blocks, 3000, 4000, 1000)  # extends the older block: it moves to the front
    assert blocks == [[2000, 4000], [5000, 6000]]
    sack.record_arrival(blocks, 4000, 5000, 1000)  # fills the gap between them: one block
    assert blocks == [[2000, 6000]]
    sack.record_arrival(blocks, 8000, 9000, 7000)  # the cumulative ACK passed the old block
    assert blocks == [[8000, 9000]]


def test_scoreboard_merges_reports_and_forgets_what_is_acknowledged():
    b = board([3000, 4000], [6000, 7000])
    b.add([[4000, 5000]], 0)
    assert b.ranges == [[3000, 5000], [6000, 7000]]
    b.add([[5000, 6000]], 0)
    assert b.ranges == [[3000, 7000]]
    b.prune(4000)
    assert b.ranges == [[4000, 7000]] and b.high_sacked == 7000
    b.prune(7000)
    assert b.ranges == [] and b.high_sacked == 0


def test_a_segment_is_lost_once_three_segments_above_it_are_sacked():
    """RFC 6675 §4 IsLost: DupThresh SACKed segments (or more than 2 SMSS SACKed bytes) above."""
    sent = segments(10)
    assert sack.Scoreboard().lost_below(sent, MSS) == 0
    assert board([1000, 3000]).lost_below(sent, MSS) == 0  # two segments SACKed: nothing lost yet
    assert board([1000, 4000]).lost_below(sent, MSS) == 1000  # three: segment 0 is lost
    assert board([2000, 3000], [5000, 6000], [8000, 9000]).lost_below(sent, MSS) == 2000  # three, apart


def test_pipe_counts_what_is_neither_sacked_nor_lost_and_each_retransmission():
    """RFC 6675 §4 SetPipe, with ten segments out and 1, 2, 3 and 5 received."""
    sent = segments(10)
    b = board([1000, 4000], [5000, 6000])
    # Lost: segment 0 (four SACKed above). In the network: 4, 6, 7, 8, 9.
    assert sack.set_pipe(b, sent, 0, 10 * MSS, 0, MSS) == 5 * MSS
    # Segment 0 retransmitted (HighRxt = 1000): it is in the network again.
    assert sack.set_pipe(b, sent, 0, 10 * MSS, 1000, MSS) == 6 * MSS


def test_next_segment_takes_the_lost_hole_first_then_other_holes_below_the_highest_sack():
    """RFC 6675 §4 NextSeg: rule 1 (lost, not yet retransmitted), rule 3 (any hole below the highest SACK)."""
    sent = segments(10)
    b = board([1000, 4000], [5000, 6000])
    assert sack.next_retransmission(b, sent, 0, 0, MSS, True) is sent[0]
    assert sack.next_retransmission(b, sent, 0, 1000, MSS, True) is None  # segment 4 has one SACKed above
    assert sack.next_retransmission(b, sent, 0, 1000, MSS, False) is sent[4]  # rule 3
    assert sack.next_retransmission(b, sent, 0, 5000, MSS, False) is None  # nothing below 6000 left


def test_sack_recovery_sets_cwnd_to_ssthresh_and_keeps_it():
    """RFC 6675 §5 step 4.2: cwnd = ssthresh, no inflation per duplicate ACK, none at a partial ACK, and
    no deflation below ssthresh when recovery ends (NewReno's min(ssthresh, FlightSize + SMSS) would
    leave one segment after a recovery that emptied the pipe)."""
    cc = NewReno(MSS, initial_window_segments=20, sack=True)
    flight = 20 * MSS
    assert [cc.on_dupack(flight, 20 * MSS, 0) for _ in range(3)] == [False, False, True]
    assert cc.cwnd == cc.ssthresh == 10 * MSS
    cc.on_dupack(flight, 20 * MSS, 0)
    assert cc.cwnd == 10 * MSS
    assert not cc.on_new_ack(5 * MSS, 5 * MSS, 15 * MSS)  # partial ACK: the scoreboard decides
    assert cc.cwnd == 10 * MSS
    cc.on_new_ack(15 * MSS, 20 * MSS, 0)  # full ACK, nothing in flight
    assert not cc.in_recovery and cc.cwnd == 10 * MSS
