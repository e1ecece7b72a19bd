"""Proportional Rate Reduction (RFC 6937) as each Linux version's ``tcp_cwnd_reduction`` has it."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpsim.config import TcpOptions
from tcpsim.os_versions import os_version
from tcpsim.protocol.prr import PRR_RULES, prr_sndcnt


def kernel_sndcnt(rule, ssthresh, prior_cwnd, prr_delivered, prr_out, in_flight, newly, una_advanced, newly_lost,
                  retrans_acked):
    """The kernel's own arithmetic, in packets, transcribed version by version (``net/ipv4/tcp_input.c``)."""
    delta = ssthresh - in_flight
    if delta < 0:
        sndcnt = (ssthresh * prr_delivered + prior_cwnd - 1) // prior_cwnd - prr_out
    elif rule == 1:  # 3.2-4.2
        sndcnt = min(delta, max(prr_delivered - prr_out, newly) + 1)
    elif rule == 2:  # 4.3-5.10: (flag & (FLAG_RETRANS_DATA_ACKED | FLAG_LOST_RETRANS)) == FLAG_RETRANS_DATA_ACKED
        sndcnt = min(delta, max(prr_delivered - prr_out, newly) + 1) if retrans_acked else min(delta, newly)
    elif rule == 3:  # 5.11-5.18
        sndcnt = min(delta, max(prr_delivered - prr_out, newly) + 1) if una_advanced and not newly_lost \
            else min(delta, newly)
    else:  # 5.19 on
        sndcnt = max(prr_delivered - prr_out, newly)
        if una_advanced and not newly_lost:
            sndcnt += 1
        sndcnt = min(delta, sndcnt)
    return max(sndcnt, 0 if prr_out else 1)


@given(rule=st.sampled_from([1, 2, 3, 4]), mss=st.sampled_from([536, 1448, 8948]),
       prior_cwnd=st.integers(2, 3000), ssthresh_frac=st.floats(0.3, 0.8), delivered_total=st.integers(1, 4000),
       out_frac=st.floats(0.0, 1.2), flight_frac=st.floats(0.0, 1.5), newly=st.integers(1, 50),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_bytes_as_the_kernel_counts_packets(rule, mss, prior_cwnd, ssthresh_frac, delivered_total, out_frac,
                                            flight_frac, newly, flags):
    """tcpsim counts bytes; with whole segments it lets out exactly the kernel's packets, for every version (the
    flight drawn on both sides of ssthresh, what was sent on both sides of what was delivered)."""
    ssthresh = max(int(prior_cwnd * ssthresh_frac), 2)
    out, in_flight = int(delivered_total * out_frac), int(ssthresh * flight_frac)
    newly = min(newly, delivered_total)
    una_advanced, newly_lost, retrans_acked = flags
    want = kernel_sndcnt(rule, ssthresh, prior_cwnd, delivered_total, out, in_flight, newly, una_advanced,
                         newly_lost, retrans_acked)
    got = prr_sndcnt(rule, ssthresh=ssthresh * mss, prior_cwnd=prior_cwnd * mss, prr_delivered=delivered_total * mss,
                     prr_out=out * mss, pipe=in_flight * mss, delivered=newly * mss, mss=mss,
                     una_advanced=una_advanced, newly_lost=newly_lost, retrans_acked=retrans_acked)
    assert got == max(want, 0) * mss


def one_loss_recovery(rule, window, ssthresh):
    """A window of ``window`` segments with its first lost; each later segment's ACK delivers one (SACKed). Returns
    the segments sent after each ACK, the flight each ACK left before them, and the flight at the end."""
    pipe = window - 1  # the lost one has left the network (IsLost)
    sent_total = delivered = 0
    sent, pipes = [], []
    for _ in range(window - 1):
        delivered += 1
        pipe -= 1
        allowed = prr_sndcnt(rule, ssthresh=ssthresh, prior_cwnd=window, prr_delivered=delivered, prr_out=sent_total,
                             pipe=pipe, delivered=1, mss=1, una_advanced=False, newly_lost=False,
                             retrans_acked=False)
        sent.append(allowed)
        pipes.append(pipe)
        sent_total += allowed
        pipe += allowed
    return sent, pipes, pipe


@pytest.mark.parametrize("rule", [1, 2, 3, 4])
def test_one_loss_spreads_the_reduction_over_the_round_trip(rule):
    """RFC 6937 §3: the first ACK lets the fast retransmit out; then ssthresh / prior cwnd of each delivery is
    sent, never withheld and then burst (RFC 6675 sends nothing for the first 0.3 of a CUBIC window), until the
    flight has come down to ssthresh, where it ends the round trip."""
    window, ssthresh = 100, 70
    sent, pipes, end_pipe = one_loss_recovery(rule, window, ssthresh)
    assert sent[0] == 1
    assert max(sent) == 1  # one segment at most per delivered segment: no burst
    total = 0
    for delivered, (n, pipe) in enumerate(zip(sent, pipes), start=1):
        total += n
        share = math.ceil(ssthresh * delivered / window)
        assert total == share if pipe > ssthresh else total <= share
    assert sum(p > ssthresh for p in pipes) > 90  # proportional for almost all the round trip
    assert end_pipe == ssthresh


def test_each_linux_version_has_its_rule_and_other_stacks_none():
    rules = {name: TcpOptions.for_os(os_version(name)).prr_rule
             for name in ("linux-2.6", "linux-3.10", "linux-4.19", "linux-5.15", "linux-6.1", "linux-6.12")}
    assert rules == {"linux-2.6": 0, "linux-3.10": 1, "linux-4.19": 2, "linux-5.15": 3, "linux-6.1": 4,
                     "linux-6.12": 4}
    assert TcpOptions.for_os("linux").prr_rule == 0 and TcpOptions.for_os("solaris").prr_rule == 0
    assert set(PRR_RULES) == {0, 1, 2, 3, 4}
