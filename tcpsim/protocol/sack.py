"""Selective acknowledgment: the receiver's SACK blocks and the sender's scoreboard.

Ref: RFC 2018 (the option: a receiver holding out-of-order data reports up to four contiguous blocks of
it on each ACK, the block holding the latest arrival first, then the most recently reported others),
RFC 6675 (conservative loss recovery: a segment counts as lost once DupThresh segments, or more than
(DupThresh - 1) x SMSS bytes, above it are SACKed; ``pipe`` estimates the bytes still in the network;
``NextSeg`` picks what to send).

The sender's list of sent segments, oldest first, is ``[seq, length, sent_s, retransmitted]`` each; what
the receiver reported holding is a :class:`Scoreboard` of byte ranges.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Final, Optional, Sequence

__all__ = ["DUP_THRESH", "SACK_OPTION_BASE_BYTES", "SACK_BLOCK_BYTES", "max_blocks", "option_bytes",
           "record_arrival", "opens_block", "RECEIVER_BLOCKS", "Scoreboard", "set_pipe", "next_retransmission"]

DUP_THRESH: Final = 3
"""RFC 6675 §2 DupThresh (RFC 5681's three duplicate ACKs)."""
SACK_OPTION_BASE_BYTES: Final = 4
"""Two NOPs, kind and length (RFC 2018 §3; the NOPs align the blocks)."""
SACK_BLOCK_BYTES: Final = 8
_TCP_OPTION_SPACE_BYTES: Final = 40

_SEQ, _LEN = 0, 1


def max_blocks(other_option_bytes: int) -> int:
    """Blocks that fit beside the other options: 4 alone, 3 beside timestamps (RFC 2018 §3)."""
    return max(0, (_TCP_OPTION_SPACE_BYTES - other_option_bytes - SACK_OPTION_BASE_BYTES) // SACK_BLOCK_BYTES)


def option_bytes(n_blocks: int) -> int:
    """Bytes an ACK carrying ``n_blocks`` SACK blocks adds to its header."""
    return SACK_OPTION_BASE_BYTES + SACK_BLOCK_BYTES * n_blocks if n_blocks else 0


def record_arrival(blocks: list[list[int]], seq: int, end: int, rcv_nxt: int) -> None:
    """Update the receiver's blocks, most recent first, after out-of-order bytes ``[seq, end)`` arrived.

    The block that now holds them (merged with any it touches) moves to the front (RFC 2018 §4, first
    rule); the others keep their order of last report. Blocks at or below ``rcv_nxt`` are dropped.
    """
    start, stop = seq, end
    kept = []
    for b in blocks:
        if b[1] <= rcv_nxt:
            continue
        if b[0] <= stop and start <= b[1]:  # touches or overlaps: merge
            start, stop = min(start, b[0]), max(stop, b[1])
        else:
            kept.append(b)
    blocks[:] = [[start, stop]] + kept


RECEIVER_BLOCKS: Final = 4
"""SACK blocks a Linux receiver keeps (``TCP_NUM_SACKS``); an ACK carries as many as fit beside its other options."""


def opens_block(blocks: list[list[int]], seq: int, end: int, rcv_nxt: int) -> bool:
    """Whether out-of-order bytes ``[seq, end)`` need a block of their own: they touch none of ``blocks`` above
    ``rcv_nxt`` (Linux ``tcp_sack_new_ofo_skb`` finds no block to extend)."""
    for b in blocks:
        if b[1] > rcv_nxt and b[0] <= end and seq <= b[1]:
            return False
    return True


def _seq(entry: list) -> int:
    return entry[_SEQ]


def _stop(rng: list[int]) -> int:
    return rng[1]


class Scoreboard:
    """What the sender knows the receiver holds above ``snd_una``: sorted, disjoint ``[start, end)`` ranges.

    Kept as ranges rather than a flag per segment, so each ACK costs a few range operations, not a walk
    over every segment in flight (a window can hold thousands).
    """

    __slots__ = ("ranges", "_lost")

    def __init__(self) -> None:
        self.ranges: list[list[int]] = []
        self._lost: Optional[int] = None  # lost_below, kept until the ranges change

    def clear(self) -> None:
        self.ranges.clear()
        self._lost = None

    def add(self, blocks: Sequence[Sequence[int]], snd_una: int) -> None:
        """Merge the blocks of one ACK (RFC 2018 §4) and forget what lies below ``snd_una``."""
        r = self.ranges
        for start, stop in blocks:
            if stop <= snd_una:
                continue  # old news (or a D-SACK, RFC 2883, which this model does not send)
            i = 0
            while i < len(r) and r[i][1] < start:
                i += 1
            j = i
            while j < len(r) and r[j][0] <= stop:
                start, stop = min(start, r[j][0]), max(stop, r[j][1])
                j += 1
            r[i:j] = [[start, stop]]
        self.prune(snd_una)

    def prune(self, snd_una: int) -> None:
        self._lost = None
        r = self.ranges
        while r and r[0][1] <= snd_una:
            del r[0]
        if r and r[0][0] < snd_una:
            r[0][0] = snd_una

    @property
    def high_sacked(self) -> int:
        """One past the highest SACKed byte (0 when nothing is SACKed)."""
        return self.ranges[-1][1] if self.ranges else 0

    def lost_below(self, sent: Sequence[list], mss: int) -> int:
        """RFC 6675 §4 IsLost as a boundary: an unSACKed byte below the returned sequence number has
        DupThresh SACKed segments, or more than (DupThresh - 1) x SMSS SACKed bytes, above it.

        Asked several times per ACK in recovery (SetPipe, then each NextSeg), it is computed once per change
        of the ranges: ``sent`` changes below them only when ``snd_una`` moves, which prunes them.
        """
        if self._lost is None:
            self._lost = 0
            count = nbytes = 0
            for start, stop in reversed(self.ranges):
                nbytes += stop - start
                count += bisect_left(sent, stop, key=_seq) - bisect_left(sent, start, key=_seq)
                if count >= DUP_THRESH or nbytes > (DUP_THRESH - 1) * mss:
                    self._lost = start
                    break
        return self._lost

    def sacked_bytes(self, lo: int, hi: int) -> int:
        """SACKed bytes in ``[lo, hi)``: from the first range that ends above ``lo`` (the ranges are sorted and
        disjoint, so their ends are sorted too) to the last that starts below ``hi``. A walk over every range was
        quadratic where RACK asks it for each segment marked lost, with hundreds of ranges on a long window."""
        if hi <= lo:
            return 0
        r = self.ranges
        total = 0
        for i in range(bisect_right(r, lo, key=_stop), len(r)):
            start, stop = r[i]
            if start >= hi:
                break
            total += min(stop, hi) - max(start, lo)
        return total

    def next_unsacked(self, seq: int) -> int:
        """The first byte at or above ``seq`` that is not SACKed."""
        for start, stop in self.ranges:
            if start <= seq < stop:
                return stop
        return seq


def set_pipe(board: Scoreboard, sent: Sequence[list], snd_una: int, snd_max: int, high_rxt: int, mss: int) -> int:
    """RFC 6675 §4 SetPipe: bytes still in the network.

    An unSACKed byte counts once unless it is taken as lost, and once more if it was retransmitted in this
    recovery (below ``high_rxt``).
    """
    lost = max(board.lost_below(sent, mss), snd_una)
    pipe = (snd_max - lost) - board.sacked_bytes(lost, snd_max)
    if high_rxt > snd_una:
        pipe += (high_rxt - snd_una) - board.sacked_bytes(snd_una, high_rxt)
    return pipe


def next_retransmission(board: Scoreboard, sent: Sequence[list], snd_una: int, high_rxt: int, mss: int,
                        lost_only: bool) -> Optional[list]:
    """RFC 6675 §4 NextSeg, rules 1 and 3: the segment holding the first byte at or above ``high_rxt`` that
    is not SACKed and lies below the highest SACKed byte, provided (rule 1, ``lost_only``) it is taken as
    lost; None when there is none."""
    seq = board.next_unsacked(max(high_rxt, snd_una))
    limit = board.lost_below(sent, mss) if lost_only else board.high_sacked
    if seq >= limit:
        return None
    i = bisect_right(sent, seq, key=_seq) - 1
    if i < 0:
        return None
    entry = sent[i]
    return entry if entry[_SEQ] + entry[_LEN] > seq else None
