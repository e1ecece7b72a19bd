"""Delayed-ACK rule sets: when a receiver ACKs at once and when it arms its timer.

Ref: RFC 1122 §4.2.3.2 (ACK at least every second full-sized segment, delay < 0.5 s);
RFC 5681 §4.2 (ACK out-of-order segments at once); 4.4BSD ``tcp_input`` (every second segment, 200 ms
fast timer); Linux ``__tcp_ack_snd_check`` (quick-ACK at start, ACK when more than one full frame is
unacknowledged, 40 ms minimum timer); Solaris 8 ``tcp_deferred_acks_max`` with the rules the Sun
blueprint gives (Figure 8 and "Potential Impact of ACK Packets").
"""

from __future__ import annotations

from typing import Final

__all__ = ["DelayedAck", "make_delack", "ACK_NOW", "ACK_LATER", "comp_sack_delay_s"]

ACK_NOW: Final = True
ACK_LATER: Final = False


def comp_sack_delay_s(rcv_rtt_s: float, srtt_s: float, rtt_frac: float, cap_s: float, slack_s: float) -> float:
    """When Linux's SACK compression timer fires after it is armed (``__tcp_ack_snd_check``): ``rtt_frac`` of the round
    trip, at most ``cap_s`` (``tcp_comp_sack_delay_ns``), plus the hrtimer's slack (``tcp_comp_sack_slack_ns``: the
    clock event is programmed for the hard expiry, which a quiet CPU reaches with no earlier interrupt). The round
    trip is the receiver's own estimate (``rcv_rtt_est``), or the socket's srtt where that is smaller; 0 when neither
    is known (a measured 0 waits only for the slack, as the kernel's does)."""
    rtt = rcv_rtt_s
    if srtt_s > 0.0 and (srtt_s < rtt or rtt <= 0.0):
        rtt = srtt_s
    delay = rtt * rtt_frac
    if delay > cap_s:
        delay = cap_s
    return delay + slack_s


class DelayedAck:
    """Base rule set: ACK every segment (delayed ACK off)."""

    __slots__ = ("mss", "held_segments", "held_bytes", "quick")
    timeout_s = 0.0

    def __init__(self, mss_bytes: int) -> None:
        self.mss = mss_bytes
        self.held_segments = 0
        self.held_bytes = 0
        self.quick = False
        """The last ACK_NOW was quick-ACK mode's (Linux ``tcp_in_quickack_mode``), not a full-frame rule's."""

    def on_segment(self, length_bytes: int, in_order: bool) -> bool:
        """Account one arriving data segment; True means send an ACK now."""
        return ACK_NOW

    def fit_window(self, window_bytes: int) -> None:
        """Adapt to the receive window the connection offers (once the MSS is known); most rules don't."""

    def set_quickack(self, segments: int) -> None:
        """Quick-ACK mode for this many ACKs from now (Linux); other rules have none."""

    def in_quickack(self) -> bool:
        """Linux ``tcp_in_quickack_mode``: the next ACK goes at once whatever else holds it; other rules have none."""
        return False

    def end_quickack(self) -> None:
        """Leave quick-ACK mode (Linux ``__tcp_select_window`` with little free space); other rules have none."""

    def on_ack_sent(self) -> None:
        """An ACK (pure or piggybacked on data) covered everything held."""
        self.held_segments = 0
        self.held_bytes = 0

    def deadline_s(self, now_s: float) -> float:
        """When the delayed-ACK timer armed at ``now_s`` fires: a timeout from now (a per-connection timer)."""
        return now_s + self.timeout_s


class BsdDelayedAck(DelayedAck):
    """4.4BSD / Tru64: ACK every second segment; otherwise within the delayed-ACK timer (200 ms)."""

    __slots__ = ("timeout_s",)

    def __init__(self, mss_bytes: int, timeout_s: float = 0.2) -> None:
        super().__init__(mss_bytes)
        self.timeout_s = timeout_s

    def on_segment(self, length_bytes: int, in_order: bool) -> bool:
        self.held_segments += 1
        self.held_bytes += length_bytes
        return not in_order or self.held_segments >= 2


class Bsd44DelayedAck(BsdDelayedAck):
    """4.4BSD-Lite (Net/3) and its descendants of the era: in-order data only sets ``TF_DELACK``.

    Both the header-prediction path and ``TCP_REASS`` leave the ACK to the 200 ms fast timer; what ACKs
    a bulk stream in practice is the window update ``tcp_output`` sends when the receiving process has
    read two segments' worth (PRU_RCVD at the end of ``soreceive``). So the ACK clock is the reader's,
    not the wire's (Stevens, TCP/IP Illustrated vol. 2, §27.6 and §28.12). The explicit every-second-
    segment rule (``DELAY_ACK``) came later, with FreeBSD 3.
    """

    __slots__ = ()

    def on_segment(self, length_bytes: int, in_order: bool) -> bool:
        self.held_segments += 1
        self.held_bytes += length_bytes
        return not in_order

    def deadline_s(self, now_s: float) -> float:
        """The next tick of ``tcp_fasttimo``, which runs every 200 ms for all connections and ACKs those
        with TF_DELACK set: a held ACK waits between 0 and 200 ms, 100 ms on average (Stevens vol. 2 §25.2)."""
        period = self.timeout_s
        return (int(now_s / period) + 1) * period


class LinuxDelayedAck(DelayedAck):
    """Linux: quick-ACK mode at start, then ACK once more than one full frame is unacknowledged.

    Quick-ACK mode lasts a number of ACKs that acknowledge new data (``tcp_dec_quickack_mode``, from
    ``tcp_event_ack_sent``), not of segments received: a GSO aggregate costs one. The receiver's notion of a
    full frame (``rcv_mss``) follows the segment sizes it sees, so a stream of small segments is ACKed every
    second segment too.
    """

    __slots__ = ("timeout_s", "quick_left", "rcv_mss")

    def __init__(self, mss_bytes: int, timeout_s: float = 0.04, quickack_segments: int = 16) -> None:
        super().__init__(mss_bytes)
        self.timeout_s = timeout_s
        self.quick_left = quickack_segments
        self.rcv_mss = min(536, mss_bytes)

    def set_quickack(self, segments: int) -> None:
        """``tcp_incr_quickack``: quick-ACK mode covers at least ``segments`` more ACKs."""
        if segments > self.quick_left:
            self.quick_left = segments

    def in_quickack(self) -> bool:
        return self.quick_left > 0

    def end_quickack(self) -> None:
        """``__tcp_select_window``: ``icsk_ack.quick = 0`` when the free space is below half the window."""
        self.quick_left = 0
        self.quick = False

    def on_segment(self, length_bytes: int, in_order: bool) -> bool:
        self.held_segments += 1
        self.held_bytes += length_bytes
        if length_bytes > self.rcv_mss:
            self.rcv_mss = min(length_bytes, self.mss)
        if not in_order:
            return ACK_NOW
        if self.quick_left > 0:
            self.quick = True
            return ACK_NOW
        self.quick = False
        return self.held_bytes > self.rcv_mss

    def on_ack_sent(self) -> None:
        """``tcp_event_ack_sent`` -> ``tcp_dec_quickack_mode``: an ACK of new data spends one quick ACK."""
        if self.held_segments and self.quick_left > 0:
            self.quick_left -= 1
        self.held_segments = 0
        self.held_bytes = 0


class SolarisDelayedAck(DelayedAck):
    """Solaris 8: hold up to ``tcp_deferred_acks_max`` segments, with the blueprint's immediate-ACK rule.

    * The number of segments that may be held (``tcp_rack_cur_max``) starts at one and grows by one with
      each ACK sent for reaching it, up to ``tcp_deferred_acks_max`` (``tcp_rack_abs_max``).
    * A segment shorter than the MSS is ACKed at once when the data already held unacknowledged is not a
      multiple of the MSS (the Sun blueprint's two conditions). "Already held" means before this
      segment, as Solaris's ``tcp_rput_data`` computes it (``udif = tcp_rnxt - tcp_rack`` before
      ``tcp_rnxt`` advances), and the reading under which the blueprint's Figure 8 holds (the first
      100-byte segment is deferred, the 1400-byte one that follows is ACKed at once).
    * No more than half the receive window is held: ``tcp_rack_abs_max`` is ``min(tcp_deferred_acks_max,
      rwnd / mss / 2)`` segments (``tcp_rwnd_set``), so a small window is not left waiting for the timer.
    """

    __slots__ = ("timeout_s", "abs_max", "cur_max")

    def __init__(self, mss_bytes: int, timeout_s: float = 0.1, deferred_acks_max: int = 8) -> None:
        super().__init__(mss_bytes)
        self.timeout_s = timeout_s
        self.abs_max = deferred_acks_max
        self.cur_max = 1

    def fit_window(self, window_bytes: int) -> None:
        self.abs_max = max(1, min(self.abs_max, window_bytes // self.mss // 2))
        self.cur_max = min(self.cur_max, self.abs_max)

    def on_segment(self, length_bytes: int, in_order: bool) -> bool:
        held_before = self.held_bytes
        self.held_segments += 1
        self.held_bytes += length_bytes
        if not in_order:
            self.cur_max = 1
            return ACK_NOW
        if length_bytes < self.mss and held_before % self.mss != 0:
            return ACK_NOW
        if self.held_segments >= self.cur_max:
            if self.cur_max < self.abs_max:
                self.cur_max += 1
            return ACK_NOW
        return ACK_LATER


def make_delack(rule: str, mss_bytes: int, timeout_s: float, deferred_acks_max: int,
                quickack_segments: int) -> DelayedAck:
    """The rule set called ``rule`` ("bsd", "bsd44", "linux", "solaris" or "off")."""
    if rule == "bsd":
        return BsdDelayedAck(mss_bytes, timeout_s)
    if rule == "bsd44":
        return Bsd44DelayedAck(mss_bytes, timeout_s)
    if rule == "linux":
        return LinuxDelayedAck(mss_bytes, timeout_s, quickack_segments)
    if rule == "solaris":
        return SolarisDelayedAck(mss_bytes, timeout_s, deferred_acks_max)
    return DelayedAck(mss_bytes)
