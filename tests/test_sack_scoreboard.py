"""The sender's SACK scoreboard (RFC 2018 section 4, RFC 6675): its ranges stay sorted and disjoint whatever blocks
arrive, and the bytes it counts SACKed in a span are the bytes of the blocks' union in that span."""

from hypothesis import given, strategies as st

from tcpsim.protocol.sack import Scoreboard

_block = st.tuples(st.integers(0, 400), st.integers(1, 60)).map(lambda t: (t[0], t[0] + t[1]))


@given(acks=st.lists(st.lists(_block, min_size=1, max_size=4), max_size=40), una_steps=st.lists(st.integers(0, 30)),
       lo=st.integers(-10, 480), width=st.integers(-20, 500))
def test_sacked_bytes_is_the_union_of_the_blocks_above_snd_una(acks, una_steps, lo, width):
    board, una, held = Scoreboard(), 0, set()
    for i, blocks in enumerate(acks):
        una += una_steps[i] if i < len(una_steps) else 0
        board.add(blocks, una)
        held |= {b for start, stop in blocks for b in range(start, stop)}
        held = {b for b in held if b >= una}
        r = board.ranges
        assert all(a < b for a, b in r) and all(r[k][1] < r[k + 1][0] for k in range(len(r) - 1))
    hi = lo + width
    assert board.sacked_bytes(lo, hi) == sum(1 for b in held if lo <= b < hi)
