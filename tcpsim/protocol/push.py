"""PSH: which segments a sender marks, and when a receiver hands queued data up to the socket.

A sender marks the segment that carries the last data it has (RFC 1122 §4.2.2.2); stacks add their own
reasons. A receiver may deliver data without waiting for PSH, and BSD and Linux make every in-order
segment readable at once; Solaris keeps in-order data in TCP's receive list (``tcp_rcv_list``) and passes
it up to the stream head in one ``putnext`` when a segment with PSH or FIN arrives, when a segment
shorter than the MSS ends a record, or when the list reaches ``tcp_rcv_push_wait`` bytes, so a bulk
stream of full segments reaches its reader in batches while short messages go up one by one.

Ref: RFC 9293 §3.9.1 (PSH and the SEND call); RFC 1122 §4.2.2.2; 4.4BSD ``tcp_output`` (PSH when the
segment empties the send buffer); Linux ``tcp_sendmsg`` (``forced_push``: at least every half of the
peer's largest window); Solaris ``tcp_wput_slow`` (``usable -= len; if (usable == 0) flags |= TH_PUSH``:
also the last segment a window lets out) and ``tcp_rput_data`` (``(flags & (TH_PSH|TH_FIN)) ||
rcv_cnt + seg_len >= tcp_rcv_push_wait``, default 16384), Solaris ``tcp.c`` 1.156 (1996) and 1.242 (1998);
the short-segment rule is in the same files' copyout path (a reader blocked in ``read``: it is woken on
``(flags & (TH_PSH|TH_FIN)) || seg_len < tcp_mss``) and in Solaris NCA's ``nca_tcp_input`` (1999: "send
the received data up only when we might have something of interest (i.e. a complete record): PSH | FIN,
current segment len < a mss").
"""

from __future__ import annotations

__all__ = ["sender_sets_push", "receiver_pushes"]


def sender_sets_push(end_seq: int, written_bytes: int, length_bytes: int, usable_bytes: int,
                     at_window_edge: bool, forced_every_bytes: int, last_push_seq: int) -> bool:
    """True when a new segment ending at ``end_seq`` carries PSH.

    Every stack marks the segment that empties the unsent data (``end_seq == written_bytes``).
    ``at_window_edge`` (Solaris) also marks the one that uses up the usable window (``length_bytes >=
    usable_bytes``); ``forced_every_bytes`` > 0 (Linux, half the peer's largest window) marks one at least
    that often after the last push while the writer keeps the queue full.
    """
    if end_seq >= written_bytes:
        return True
    if at_window_edge and length_bytes >= usable_bytes:
        return True
    return forced_every_bytes > 0 and end_seq - last_push_seq > forced_every_bytes


def receiver_pushes(push_flag: bool, length_bytes: int, mss_bytes: int, queued_bytes: int,
                    push_wait_bytes: int) -> bool:
    """True when the receive list (``queued_bytes``, this segment's ``length_bytes`` included) goes up to
    the socket.

    ``push_wait_bytes`` 0 means the OS hands every in-order segment up at once (BSD, Linux).
    """
    return (push_wait_bytes <= 0 or push_flag or length_bytes < mss_bytes
            or queued_bytes >= push_wait_bytes)
