"""When the sender may put a segment on the wire: Nagle and sender silly-window avoidance.

Ref: RFC 896 (Nagle); RFC 1122 §4.2.3.4 (when to send data: a full segment, or all queued data with
nothing unacknowledged or TCP_NODELAY, or at least half the largest window the peer offered);
4.4BSD ``tcp_output`` (the half-window rule applies with data unacknowledged too); Linux
``tcp_minshall_check`` (Minshall's variant); Sun blueprint and Solaris ``tcp_wput_data`` (Solaris holds
data while unacknowledged data exists, less than ``tcp_naglim`` bytes can go and the last segment sent
was short, and builds segments from whole messages).
"""

from __future__ import annotations

__all__ = ["may_send_bytes", "solaris_nagle_holds", "whole_message_length"]


def may_send_bytes(length_bytes: int, unsent_bytes: int, mss_bytes: int, in_flight_bytes: int,
                   nodelay: bool, max_sndwnd_bytes: int, half_window_beats_nagle: bool = False,
                   small_unacked: bool | None = None) -> bool:
    """RFC 1122 §4.2.3.4 for a byte-stream sender (BSD, Linux) about to send ``length_bytes``.

    ``length_bytes`` is already limited by the MSS, the unsent data and the usable window. RFC 1122
    sends a piece of at least half the largest window the peer offered only with nothing
    unacknowledged (its bracketed "[SND.NXT = SND.UNA and]"); 4.4BSD ``tcp_output`` sends it whatever is
    in flight (``half_window_beats_nagle``), which is what keeps a window of less than two segments
    moving (a jumbo MSS against a small buffer).

    ``small_unacked`` selects Minshall's variant of Nagle (Linux ``tcp_minshall_check`` since 2.4): a
    short segment waits only while an earlier short segment is unacknowledged, not for full ones, so a
    request one byte over the MSS does not wait for a delayed ACK. None = RFC 896 as written.
    """
    if length_bytes <= 0:
        return False
    if length_bytes >= mss_bytes:
        return True
    idle = nodelay or in_flight_bytes == 0
    if (idle or small_unacked is False) and length_bytes >= unsent_bytes:
        return True
    return (idle or half_window_beats_nagle) and 2 * length_bytes >= max_sndwnd_bytes


def solaris_nagle_holds(sendable_bytes: int, in_flight_bytes: int, naglim_bytes: int,
                        last_sent_bytes: int = 0) -> bool:
    """Solaris: with data unacknowledged, hold while less than ``naglim`` bytes can go, unless the last
    segment sent was itself at least ``naglim``.

    ``sendable_bytes`` is min(unsent, usable window); ``naglim`` is min(MSS, ``tcp_naglim_def``, 4095 by
    default); ``tcp_naglim_def`` = 1 disables Nagle. Ref: Sun blueprint ("Small Packet Traffic Issues",
    Figure 8); the rule as Solaris's ``tcp_wput_data`` writes it (its "our Nagle algorithm" comment in
    the OpenSolaris source, which also keeps ``tcp_last_sent_len``). ``tcp_wput_data`` applies it once per
    call (a write, an ACK) and then sends everything it may, so the short tail of the queue leaves right
    behind a segment that passed: with 100-byte messages, 1400 then 100 (the blueprint's pairs).
    """
    return in_flight_bytes > 0 and sendable_bytes < naglim_bytes and last_sent_bytes < naglim_bytes


def whole_message_length(messages, limit_bytes: int, mss_bytes: int) -> int:
    """Bytes of one Solaris segment built from queued messages without splitting one to fill the MSS.

    ``messages`` are the unsent message sizes in order; ``limit_bytes`` = min(MSS, usable window).
    A message larger than the MSS is cut into MSS pieces (as for bulk writes); a first message that fits
    the MSS but not the window gives 0 (wait for window). Ref: Sun blueprint, Figure 8 and TABLE 2
    (100-byte messages go out as 1400-byte segments, 536-byte ones as 1072).
    """
    total = 0
    for size in messages:
        if total == 0 and size > mss_bytes:
            return min(mss_bytes, limit_bytes) if limit_bytes >= mss_bytes else 0
        if total + size > limit_bytes:
            break
        total += size
    return total
