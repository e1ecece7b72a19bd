"""Proportional Rate Reduction: how much a Linux sender may send on each ACK of its loss recovery.

Ref: RFC 6937 and Linux ``net/ipv4/tcp_input.c`` (``tcp_init_cwnd_reduction``, ``tcp_cwnd_reduction``,
``tcp_end_cwnd_reduction``), the recovery of every congestion control without its own ``cong_control`` since
3.2. While more is in flight than ssthresh, the reduction is spread over a round trip: ssthresh / prior cwnd of
what was delivered. Below ssthresh the sender sends what was delivered (packet conservation) or, when the repair
goes well, a segment more (slow start up to ssthresh); the versions differ in when that is.

Counts are in bytes and rounded to whole segments where the kernel counts packets.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PRR_RULES", "prr_sndcnt"]

PRR_RULES: Final = {0: "none (RFC 6675: cwnd = ssthresh at once)", 1: "3.2-4.2, PRR-SSRB",
                    2: "4.3-5.10, slow start once retransmitted data is acknowledged",
                    3: "5.11-5.18, slow start once snd_una advances with no new loss",
                    4: "5.19 on, conservation with the delivery banked"}
"""``TcpOptions.prr_rule``: which kernel's ``tcp_cwnd_reduction``."""


def prr_sndcnt(rule: int, *, ssthresh: int, prior_cwnd: int, prr_delivered: int, prr_out: int, pipe: int,
               delivered: int, mss: int, una_advanced: bool, newly_lost: bool, retrans_acked: bool) -> int:
    """Bytes ``tcp_cwnd_reduction`` lets out beyond ``pipe`` after an ACK that delivered ``delivered`` bytes
    (``prr_delivered`` already includes them; ``prr_out``: bytes sent since recovery began).

    * ``pipe`` > ssthresh: ``ceil(ssthresh x prr_delivered / prior_cwnd) - prr_out`` (proportional).
    * otherwise, ``delta = ssthresh - pipe`` bounds it, and within that: rule 1 (3.2-4.2)
      ``max(prr_delivered - prr_out, delivered) + 1 segment`` always; rule 2 (4.3-5.10, "tcp: PRR uses CRB mode
      by default and SS mode conditionally") the same if retransmitted data was acknowledged (and no retransmission
      found lost, which tcpsim finds only by its timer), else ``delivered``; rule 3 (5.11-5.18, "tcp: avoid slow
      start during fast recovery on new losses") the same if ``snd_una`` advanced and nothing was newly lost, else
      ``delivered``; rule 4 (5.19 on, "tcp: improve PRR loss recovery") ``max(prr_delivered - prr_out,
      delivered)``, a segment more if ``snd_una`` advanced and nothing was newly lost.
    * at least one segment before anything was sent (the fast retransmit), never below zero.
    """
    if pipe > ssthresh:
        allowed = -(-ssthresh * prr_delivered // (prior_cwnd * mss)) * mss  # ceil, in whole segments
        sndcnt = allowed - prr_out
    else:
        banked = max(prr_delivered - prr_out, delivered)
        if rule == 1:
            sndcnt = banked + mss
        elif rule == 2:
            sndcnt = banked + mss if retrans_acked else delivered
        elif rule == 3:
            sndcnt = banked + mss if una_advanced and not newly_lost else delivered
        else:
            sndcnt = banked + mss if una_advanced and not newly_lost else banked
        sndcnt = min(ssthresh - pipe, sndcnt)
    return max(sndcnt, 0 if prr_out else mss)
