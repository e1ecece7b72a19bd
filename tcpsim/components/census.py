"""A run's counters summed over its streams, for the engine's samples (:meth:`tcpsim.engine._Run.run`).

Compiled with the hot path (setup.py): a run samples its counters every few round trips, and summing them over
twenty streams in interpreted loops took a tenth of such a run.
"""

from __future__ import annotations

from .app import Reader, RequestResponse
from .endpoint import TcpEndpoint

__all__ = ["stream_totals", "transactions"]


def stream_totals(senders: list[TcpEndpoint], receivers: list[TcpEndpoint],
                  readers: list[Reader]) -> tuple[int, int, int, int]:
    """Bytes the readers took, bytes the senders sent (``snd_max``), data segments sent either way and those sent
    again, each summed over the streams (``senders[i]`` and ``receivers[i]`` are stream i's two ends)."""
    delivered = 0
    for reader in readers:
        delivered += reader.delivered_bytes
    sent = segments = again = 0
    for i in range(len(senders)):
        a, b = senders[i], receivers[i]
        sent += a.snd_max
        segments += a.data_segments + b.data_segments
        again += a.retransmits + b.retransmits
    return delivered, sent, segments, again


def transactions(pairs: list[RequestResponse]) -> int:
    """Request/response transactions completed, summed over the streams."""
    done = 0
    for rr in pairs:
        done += rr.transactions
    return done
