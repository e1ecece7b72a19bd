"""Receive-window advertisement: receiver silly-window avoidance and window scaling.

Ref: RFC 1122 §4.2.3.3 (move the right edge only by at least min(half the buffer, one MSS));
RFC 9293 §3.8.6.2.2; RFC 7323 §2 (window scale: advertised windows are multiples of 2**shift,
shift at most 14).
"""

from __future__ import annotations

__all__ = ["window_shift", "scale_window", "advertised_window", "window_update_due"]


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


def window_update_due(new_window_bytes: int, last_window_bytes: int, mss_bytes: int, buffer_bytes: int) -> bool:
    """Send a pure window update when reading opened the window by 2 MSS or half the buffer (4.4BSD)."""
    opened = new_window_bytes - last_window_bytes
    return opened >= 2 * mss_bytes or 2 * opened >= buffer_bytes
