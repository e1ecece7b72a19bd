"""Helpers for the processes a lab run starts inside its namespaces (stdlib only)."""

from __future__ import annotations

import ctypes
import signal

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1
_PR_SET_TIMERSLACK = 29


def die_with_parent(timer_slack_ns: int = 0) -> None:
    """SIGKILL this process when its parent (the ``tcpsim lab`` run) dies; optionally tighten timer slack."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if timer_slack_ns:
            libc.prctl(_PR_SET_TIMERSLACK, timer_slack_ns, 0, 0, 0)
    except (OSError, AttributeError):
        pass
