"""A thin, budgeted layer over :class:`simpy.Environment`: schedule a call at a time, count events.

Components schedule plain callbacks rather than generator processes: a TCP run is millions of events,
and a process resume costs several times a call. Callbacks wait in the kernel's own binary heap of
:class:`_Call` entries, compared by (time, insertion counter) inline (:func:`_push`, :func:`_pop`): heapq on
simpy's tuples spent a fifth of a run in tuple and float comparisons, and heapq on the entries a tenth in
dispatching to their ``__lt__``. The counter is simpy's, and :meth:`Kernel.run`
takes simpy's own queue in its turn, so simpy processes and timeouts on ``env`` still run, in order.
Ties are broken by the insertion counter, so runs are deterministic. A FIFO stage schedules through a
:class:`Lane`, which keeps the heap to one entry per busy stage without changing that order.
"""

from __future__ import annotations

import time
from heapq import heappop
from typing import Any, Callable, Final

from simpy.events import NORMAL

from .native import i64, mypyc_attr
from .simpy_env import KernelEnvironment

__all__ = ["Kernel", "BudgetExhausted", "Timer", "Lane"]

_simpy_pop: Final = heappop
"""heapq's pop for simpy's own queue, as a final: compiled, a C static, where an imported name is a dict lookup."""


_NO_ARG: Final = object()
"""An argument not given (:meth:`Kernel.call_at`, :meth:`Lane.call_at`)."""


@mypyc_attr(free_list_len=1)  # an event is freed as the next is scheduled: no allocator call for it
class _Call:
    """A scheduled callback at ``time_s``: ``fn(arg)`` or ``fn(arg, arg2)`` (``nargs`` 1 or 2, no tuple made per
    call), else ``fn(*args)``; ``eid`` orders equal times (scheduling order).

    ``next`` is the call after it on its :class:`Lane`, which enters the heap when this one leaves it;
    ``ran`` tells a lane that its last call has left the heap (so the next one must enter it)."""

    __slots__ = ("time_s", "eid", "fn", "args", "arg", "arg2", "nargs", "next", "ran")

    def __init__(self, time_s: float, eid: int, fn: Callable[..., object], args: tuple) -> None:
        self.time_s = time_s
        self.eid = eid
        self.fn = fn
        self.args = args
        self.arg: object = None
        self.arg2: object = None
        self.nargs = -1
        self.next: _Call | None = None
        self.ran = False

    def take(self, arg: object, arg2: object) -> None:
        """Hold up to two arguments (:data:`_NO_ARG`: not given) in fields rather than a tuple."""
        if arg2 is not _NO_ARG:
            self.arg, self.arg2, self.nargs = arg, arg2, 2
        elif arg is not _NO_ARG:
            self.arg, self.nargs = arg, 1


def _push(heap: list[_Call], call: _Call) -> None:
    """``heapq.heappush`` on calls, comparing (time, eid) inline. Any binary heap pops them in one order, since
    eids are unique."""
    t, e = call.time_s, call.eid
    pos: i64 = len(heap)  # native indices (compiled): no tagged-integer checks in the loop
    heap.append(call)
    while pos > 0:
        up = (pos - 1) >> 1
        parent = heap[up]
        if t < parent.time_s or (t == parent.time_s and e < parent.eid):
            heap[pos] = parent
            pos = up
        else:
            break
    heap[pos] = call


def _pop(heap: list[_Call]) -> _Call:
    """``heapq.heappop`` on calls (see :func:`_push`)."""
    last = heap.pop()
    if not heap:
        return last
    top = heap[0]
    _sift_down(heap, last)
    return top


def _sift_down(heap: list[_Call], call: _Call) -> None:
    """Put ``call`` in the place of the heap's root, which leaves it, and sift it down: ``heapq.heapreplace``'s
    work (see :func:`_push`). Popping the root and pushing a call costs two sifts; replacing it, one."""
    n: i64 = len(heap)
    t, e = call.time_s, call.eid
    pos: i64 = 0
    child: i64 = 1
    while child < n:
        c = heap[child]
        if child + 1 < n:
            r = heap[child + 1]
            if r.time_s < c.time_s or (r.time_s == c.time_s and r.eid < c.eid):
                child += 1
                c = r
        if c.time_s < t or (c.time_s == t and c.eid < e):
            heap[pos] = c
            pos = child
            child = 2 * pos + 1
        else:
            break
    heap[pos] = call


_WALL_CHECK_EVERY = 0x100
"""Most events between two reads of the clock for the wall-time budget (and calls to :attr:`Kernel.poll`).

A read costs some 50 ns against a microsecond or more per event. Where events are slow (thousands of
streams), the gap shrinks until reads are :data:`_WALL_CHECK_GAP_S` apart, so a run ends well within a
second of its wall budget and Ctrl-C is seen as soon; work known to be slow (a burst of calls at one
instant, bounded by :data:`tcpsim.components.app.MAX_CALLS_PER_INSTANT`; the engine's samples) reads the
clock itself (:meth:`Kernel.check_wall`)."""
_WALL_CHECK_GAP_S = 0.02


class _Counter:
    """simpy's insertion counter (``Environment._eid``), read natively by the kernel and by ``next()`` in simpy."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0

    def __iter__(self) -> _Counter:
        return self

    def __next__(self) -> object:  # not "int": mypyc 1.x then emits a tp_iternext of the wrong C type
        n = self.n
        self.n = n + 1
        return n


def _no_poll() -> None:
    pass


class BudgetExhausted(Exception):
    """Raised inside the event loop when the event or wall-clock budget is spent."""

    def __init__(self, which: str) -> None:
        super().__init__(which)
        self.which = which


class Kernel:
    """The event queue of one run, with an event budget and a wall-clock budget."""

    __slots__ = ("env", "now_s", "n_events", "max_events", "max_wall_s", "wall_start", "stopped", "_calls", "_eid", "_check_at",
                 "poll", "_every", "_checked_s")

    def __init__(self, max_events: int, max_wall_s: float) -> None:
        self.now_s = 0.0
        """The simulated time: a field of this class, not an attribute of a Python object, so the components
        read it at native speed; ``env`` reads its clock from here (:class:`KernelEnvironment`)."""
        self.env = KernelEnvironment(self)
        self._calls: list[_Call] = []
        self._eid = _Counter()
        self.env._eid = self._eid  # type: ignore[assignment]  # one counter orders simpy's events and ours
        self.stopped = False
        self.n_events = 0
        self.max_events = max_events
        self.max_wall_s = max_wall_s
        self.wall_start = time.perf_counter()
        self._every = 16  # grows to _WALL_CHECK_EVERY while events are quick
        self._checked_s = self.wall_start
        self._check_at = min(self._every, max_events + 1)
        self.poll: Callable[[], None] = _no_poll
        """Called with every clock read: the engine passes a plain Python function, whose call lets the
        interpreter run pending signal handlers (Ctrl-C) even when this loop is compiled code."""

    @property
    def now(self) -> float:
        return self.now_s

    def call_in(self, delay_s: float, fn, *args) -> None:
        """Call ``fn(*args)`` after ``delay_s`` simulated seconds."""
        self._schedule(self.now_s + delay_s, fn, args)

    def call_at(self, time_s: float, fn: Callable[..., object], arg: object = _NO_ARG, arg2: object = _NO_ARG,
                *more: object) -> None:
        """Call ``fn`` with the arguments given at simulated time ``time_s`` (now, if that is already past)."""
        call = self._new_call(time_s, fn, more)
        if more:
            call.args = (arg, arg2, *more)
        else:
            call.take(arg, arg2)
        _push(self._calls, call)

    def _schedule(self, time_s: float, fn, args: tuple) -> None:
        _push(self._calls, self._new_call(time_s, fn, args))

    def _new_call(self, time_s: float, fn, args: tuple) -> _Call:
        """Count one more event against the budgets; the call, not yet queued."""
        now = self.now_s
        if time_s < now:
            time_s = now
        n = self.n_events = self.n_events + 1
        if n >= self._check_at:
            self._check_budgets(n)
        eid = self._eid.n
        self._eid.n = eid + 1
        return _Call(time_s, eid, fn, args)

    def lane(self, fn: Callable[..., object]) -> "Lane":
        """A :class:`Lane` on this queue whose calls are to ``fn``."""
        return Lane(self, fn)

    def _check_budgets(self, n: int) -> None:
        """Raise when the event budget (exact) or the wall-clock budget (read every thousand events) is spent."""
        if n > self.max_events:
            raise BudgetExhausted("event_budget")
        gap_s = self.check_wall() - self._checked_s
        self._checked_s += gap_s
        if gap_s > _WALL_CHECK_GAP_S:
            self._every = max(self._every // 2, 1)
        elif gap_s < _WALL_CHECK_GAP_S / 4 and self._every < _WALL_CHECK_EVERY:
            self._every *= 2
        self._check_at = min(n + self._every, self.max_events + 1)

    def check_wall(self) -> float:
        """Raise when the wall-clock budget is spent, after letting pending signals be handled; returns the
        clock read. For work outside the event loop too (building a run, sampling, the result)."""
        self.poll()
        now_s = time.perf_counter()
        if now_s - self.wall_start > self.max_wall_s:
            raise BudgetExhausted("wall_budget")
        return now_s

    def timer(self, callback) -> "Timer":
        """A :class:`Timer` on this queue that calls ``callback()`` when it expires."""
        return Timer(self, callback)

    def stop(self) -> None:
        """Make :meth:`run` return after the current event."""
        self.stopped = True

    def run(self) -> bool:
        """Process events until :meth:`stop` is called; False if the queue ran dry first.

        Callbacks of :meth:`call_at` and :meth:`call_in` run in order of time, then of scheduling; any simpy
        event (a process, a timeout) scheduled on ``env`` is taken in its turn and processed exactly as
        simpy would (:meth:`_step_simpy`). Use this, not ``env.run()``, which does not know callbacks.
        """
        calls = self._calls
        simpy_queue: list[Any] = self.env._queue
        while not self.stopped:
            if simpy_queue and self._simpy_first(simpy_queue[0]):
                self._step_simpy()
                continue
            if not calls:
                return False
            call = calls[0]
            if call.next is not None:  # the call's lane successor takes its place in the heap
                _sift_down(calls, call.next)
            else:
                _pop(calls)
            call.ran = True
            self.now_s = call.time_s
            n = call.nargs
            if n == 1:
                call.fn(call.arg)
            elif n == 2:
                call.fn(call.arg, call.arg2)
            else:
                call.fn(*call.args)
        return True

    def _simpy_first(self, entry: tuple) -> bool:
        """Whether simpy's next event (``(time, priority, counter, event)``) comes before the next callback,
        which has simpy's priority NORMAL."""
        if not self._calls:
            return True
        call = self._calls[0]
        return (entry[0], entry[1], entry[2]) < (call.time_s, NORMAL, call.eid)

    def _step_simpy(self) -> None:
        """:meth:`simpy.Environment.step` without its end-of-queue check."""
        env = self.env
        entry: Any = _simpy_pop(env._queue)
        self.now_s = entry[0]
        event = entry[3]
        callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]  # simpy's own idiom
        for callback in callbacks:
            callback(event)
        if not event._ok and not hasattr(event, "_defused"):
            raise event._value


class Lane:
    """Calls to one function scheduled mostly in the order they come due: the completions of one FIFO server
    (a CPU, a bus, a link direction). Only the earliest pending call of a lane waits in the kernel's heap, the
    rest behind it in a chain, so the heap holds one entry per busy lane rather than one per event: a busy
    host queues thousands of frames' work, and each heap operation on thousands of entries costs several
    times one on a few dozen. A call due before the lane's last one goes into the heap on its own; either way
    the kernel runs calls in the same order as :meth:`Kernel.call_at` would. The function is bound once, not
    per call (a bound method is an object made each time)."""

    __slots__ = ("_kernel", "_fn", "_tail")

    def __init__(self, kernel: Kernel, fn: Callable[..., object]) -> None:
        self._kernel = kernel
        self._fn = fn
        self._tail: _Call | None = None

    def call_at(self, time_s: float, arg: object = _NO_ARG, arg2: object = _NO_ARG) -> None:
        """:meth:`Kernel.call_at` of the lane's function with up to two arguments, through this lane."""
        kernel = self._kernel
        call = kernel._new_call(time_s, self._fn, ())
        call.take(arg, arg2)
        tail = self._tail
        if tail is not None and not tail.ran and tail.time_s <= call.time_s:
            tail.next = call  # after the tail in (time, counter) order: it enters the heap when the tail leaves
        else:
            _push(kernel._calls, call)
        self._tail = call


class Timer:
    """A timer re-armed far more often than it expires (retransmission, delayed ACK, receive push).

    Arming again to a later deadline only moves :attr:`deadline`: the pending kernel event re-aims itself
    when it comes due early, so the common re-arm costs no event. A deadline moved earlier (an RTO that
    shrank with a new round-trip sample) gets an event of its own, and the later one is then ignored.
    """

    __slots__ = ("_kernel", "_callback", "deadline", "_event_s", "_event_id")

    def __init__(self, kernel: Kernel, callback) -> None:
        self._kernel = kernel
        self._callback = callback
        self.deadline: float | None = None
        self._event_s: float | None = None  # when the live kernel event comes due
        self._event_id = 0

    def arm(self, deadline_s: float) -> None:
        """Expire at ``deadline_s`` (replacing any earlier or later deadline)."""
        self.deadline = deadline_s
        if self._event_s is None or deadline_s < self._event_s:
            self._schedule(deadline_s)

    def cancel(self) -> None:
        self.deadline = None

    def _schedule(self, at_s: float) -> None:
        self._event_s = at_s
        self._event_id += 1
        self._kernel.call_at(at_s, self._fire, self._event_id)

    def _fire(self, event_id: int) -> None:
        if event_id != self._event_id:
            return  # superseded by an event for an earlier deadline
        self._event_s = None
        deadline = self.deadline
        if deadline is None:
            return
        if self._kernel.now_s < deadline - 1e-12:
            self._schedule(deadline)
            return
        self.deadline = None
        self._callback()
