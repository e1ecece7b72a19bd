"""Receive-window advertisement: receiver silly-window avoidance and window scaling.

Ref: RFC 1122 §4.2.3.3 (move the right edge only by at least min(half the buffer, one MSS));
RFC 9293 §3.8.6.2.2; RFC 7323 §2 (window scale: advertised windows are multiples of 2**shift,
shift at most 14).
"""

from __future__ import annotations

__all__ = ["window_shift", "scale_window", "advertised_window", "read_update_due", "WINDOW_UPDATE_RULES"]

WINDOW_UPDATE_RULES = ("bsd", "linux", "solaris")


def window_shift(max_window_bytes: int, window_scaling: bool) -> int:
    """Smallest RFC 7323 shift that lets ``max_window_bytes`` fit the 16-bit window field."""
    if not window_scaling:
        return 0
    shift = 0
    while (max_window_bytes >> shift) > 65535 and shift < 14:
        shift += 1
    return shift


def scale_window(window_bytes: int, shift: int) -> int:
    """The window as the peer sees it: rounded down to a multiple of 2**shift, 16-bit field."""
    return min(window_bytes >> shift, 65535) << shift


def advertised_window(free_bytes: int, rcv_nxt: int, right_edge: int, mss_bytes: int, buffer_bytes: int) -> int:
    """Window to advertise so that the right edge never shrinks and grows only in SWS-safe steps.

    ``right_edge`` is RCV.NXT + RCV.WND as last advertised. Returns the new window (bytes from rcv_nxt).
    """
    new_edge = rcv_nxt + max(free_bytes, 0)
    step = min(buffer_bytes // 2, mss_bytes)
    if new_edge - right_edge >= step:
        return new_edge - rcv_nxt
    return max(right_edge - rcv_nxt, 0)


def read_update_due(rule: str, left_bytes: int, free_bytes: int, buffer_bytes: int, mss_bytes: int,
                    sws_step_bytes: int) -> bool:
    """Whether a read that freed buffer space sends a window update of its own.

    ``left_bytes`` is the window the peer has left (the last right edge advertised minus RCV.NXT),
    ``free_bytes`` what could be offered now, so the right edge can move by ``free_bytes - left_bytes``.
    An update that SWS avoidance would advertise with the old edge repeats the last ACK exactly, which the
    peer counts toward a fast retransmit (RFC 5681 §2); the Linux and Solaris rules never send one.

    * ``bsd``: the edge can move by two segments or half the buffer (4.4BSD ``tcp_output``);
    * ``linux``: the window left is at most half the buffer and the read at least doubles it
      (``tcp_cleanup_rbuf``, "raised significantly"; 2.4 ``cleanup_rbuf`` alike);
    * ``solaris``: the window left had fallen to half the buffer or below one MSS, and the peer will see
      it grow by an MSS (``tcp_rsrv``).
    """
    opened = free_bytes - left_bytes
    if rule == "solaris":
        return opened >= sws_step_bytes and (2 * left_bytes <= buffer_bytes or left_bytes < mss_bytes)
    if rule == "linux":
        return 2 * left_bytes <= buffer_bytes and free_bytes >= 2 * left_bytes and opened >= sws_step_bytes
    return opened >= 2 * mss_bytes or 2 * opened >= buffer_bytes
