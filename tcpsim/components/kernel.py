"""A thin, budgeted layer over :class:`simpy.Environment`: schedule a call at a time, count events.

Components schedule plain callbacks rather than generator processes: a callback event costs about a
third of a process resume, and a TCP run is millions of them. Ties are broken by simpy's insertion
counter, so runs are deterministic.
"""

from __future__ import annotations

import time

import simpy
from simpy.events import NORMAL, Event

__all__ = ["Kernel", "BudgetExhausted"]


class BudgetExhausted(Exception):
    """Raised inside the event loop when the event or wall-clock budget is spent."""

    def __init__(self, which: str) -> None:
        super().__init__(which)
        self.which = which


def _dispatch(event: "_Call") -> None:
    event.fn(*event.args)


class _Call(Event):
    """An already-triggered event whose only callback calls ``fn(*args)``."""

    def __init__(self, env: simpy.Environment, fn, args) -> None:  # noqa: D107 - no super(): hot path
        self.env = env
        self.callbacks = [_dispatch]
        self._value = None
        self._ok = True
        self.fn = fn
        self.args = args


class Kernel:
    """The event queue of one run, with an event budget and a wall-clock budget."""

    __slots__ = ("env", "n_events", "max_events", "max_wall_s", "wall_start")

    def __init__(self, max_events: int, max_wall_s: float) -> None:
        self.env = simpy.Environment()
        self.n_events = 0
        self.max_events = max_events
        self.max_wall_s = max_wall_s
        self.wall_start = time.perf_counter()

    @property
    def now(self) -> float:
        return self.env._now

    def call_in(self, delay_s: float, fn, *args) -> None:
        """Call ``fn(*args)`` after ``delay_s`` simulated seconds."""
        n = self.n_events = self.n_events + 1
        if n & 0x3FFF == 0:
            if n > self.max_events:
                raise BudgetExhausted("event_budget")
            if time.perf_counter() - self.wall_start > self.max_wall_s:
                raise BudgetExhausted("wall_budget")
        env = self.env
        env.schedule(_Call(env, fn, args), NORMAL, delay_s if delay_s > 0.0 else 0.0)

    def call_at(self, time_s: float, fn, *args) -> None:
        """Call ``fn(*args)`` at simulated time ``time_s`` (now, if that is already past)."""
        self.call_in(time_s - self.env._now, fn, *args)

    def run(self, until: Event) -> None:
        self.env.run(until=until)
