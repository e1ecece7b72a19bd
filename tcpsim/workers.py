"""tcpsim's own worker processes (sweep, validate, calibrate): they leave Ctrl-C to the parent, end with it, and
are stopped, not waited for, when the parent stops early.

A worker that took Ctrl-C itself raised outside the pool's task and printed a traceback of its own under the
parent's one line; a worker whose parent was killed (SIGTERM, SIGKILL) stayed blocked on its pipe for ever, holding
the caller's stderr open. Linux ends it with its parent (``prctl(PR_SET_PDEATHSIG)``).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

__all__ = ["init_worker", "new_pool", "stop_workers", "worker_pool"]

_PR_SET_PDEATHSIG = 1
"""``linux/prctl.h``: the signal a process gets when the thread that created it exits."""


def init_worker(parent_pid: int | None = None) -> None:
    """In a new worker: ignore Ctrl-C (the parent takes it and stops the workers, :func:`stop_workers`), let SIGTERM
    and SIGHUP kill it (a forked worker inherits the parent's handlers, :func:`tcpsim.cliutil.stop_on_term`'s,
    which would turn ``terminate()`` into an exception its task returns) and, on Linux, get SIGTERM when the parent
    dies; a parent already gone (``parent_pid`` no longer the parent) ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # no libc symbol: the parent's own handlers still stop the pool
        return
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's worker processes now, rather than wait for their current tasks."""
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14
    if callable(stop):
        stop()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()


def new_pool(n_workers: int) -> ProcessPoolExecutor:
    """A process pool of ``n_workers`` whose workers :func:`init_worker` sets up."""
    return ProcessPoolExecutor(max_workers=n_workers, initializer=init_worker, initargs=(os.getpid(),))


@contextmanager
def worker_pool(n_workers: int) -> Iterator[ProcessPoolExecutor]:
    """A :func:`new_pool` for a ``with`` block: an error, Ctrl-C or SIGTERM in the block stops its workers and
    drops the tasks not yet started, where ``ProcessPoolExecutor.__exit__`` would wait for every task submitted."""
    pool = new_pool(n_workers)
    try:
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
