"""The event kernel and its re-armable timer, with exact simulated times (simpy-style log)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.components.kernel import Kernel


@pytest.mark.parametrize("actions, fired", [
    ([(0.0, "arm", 2.0)], [2.0]),                                    # fires at its deadline
    ([(0.0, "arm", 1.0), (0.5, "arm", 3.0)], [3.0]),                 # re-armed later: moves, no second expiry
    ([(0.0, "arm", 1.0), (0.5, "cancel", None)], []),                # cancelled: never fires
    # an RTO that shrinks with a new round-trip sample must not wait for the longer one it replaced
    ([(0.0, "arm", 5.0), (1.0, "arm", 2.0)], [2.0]),
    ([(0.0, "arm", 5.0), (1.0, "arm", 2.0), (3.0, "arm", 6.0)], [2.0, 6.0]),  # the stale event is ignored
], ids=["deadline", "later", "cancel", "earlier", "stale"])
def test_timer(actions, fired):
    kernel = Kernel(max_events=10_000, max_wall_s=10.0)
    log = []
    timer = kernel.timer(lambda: log.append(kernel.now))
    for at_s, verb, deadline_s in actions:
        if verb == "arm":
            kernel.call_at(at_s, timer.arm, deadline_s)
        else:
            kernel.call_at(at_s, timer.cancel)
    kernel.run()
    assert log == fired
    assert timer.deadline is None


def test_simpy_events_and_callbacks_run_in_one_order():
    """A simpy timeout on ``env`` runs in its turn among the callbacks: by time, then by when it was scheduled."""
    kernel = Kernel(max_events=10_000, max_wall_s=10.0)
    log = []
    kernel.call_at(1.0, log.append, "call at 1 (first)")
    kernel.env.timeout(1.0).callbacks.append(lambda _event: log.append(f"timeout at {kernel.now}"))
    kernel.call_at(1.0, log.append, "call at 1 (last)")
    kernel.env.timeout(0.5).callbacks.append(lambda _event: kernel.call_in(1.0, log.append, f"call at {kernel.now + 1.0}"))
    kernel.call_at(2.0, log.append, "call at 2")
    assert not kernel.run()
    assert log == ["call at 1 (first)", "timeout at 1.0", "call at 1 (last)", "call at 1.5", "call at 2"]
    assert kernel.env.now == 2.0


def test_lanes_keep_the_order_of_plain_calls():
    """Calls through lanes, in order or not (a call due before its lane's last one), run in exactly the order
    the same calls made with ``call_at`` run: by time, then by when they were scheduled."""
    import random

    rng = random.Random(7)
    plan = [(rng.randrange(3), round(rng.uniform(0.0, 2.0), 1)) for _ in range(300)]
    plan += [(lane, t + 0.05) for lane, t in plan[:40]]  # some during the run, some due at once

    def order(use_lanes):
        kernel = Kernel(max_events=10_000, max_wall_s=10.0)
        log = []
        lanes = [kernel.lane(log.append) for _ in range(3)]

        def schedule(i, lane, at_s):
            if use_lanes:
                lanes[lane].call_at(at_s, i)
            else:
                kernel.call_at(at_s, log.append, i)

        for i, (lane, at_s) in enumerate(plan[:300]):
            schedule(i, lane, at_s)
        for i, (lane, at_s) in enumerate(plan[300:], 300):
            kernel.call_at(at_s - 0.05, schedule, i, lane, at_s - 0.05 * (i % 2))
        kernel.run()
        return log, kernel.n_events

    assert order(True) == order(False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), max_size=200))
def test_the_heap_gives_calls_back_in_time_then_scheduling_order(ops):
    """The hand-written heap (``_push``, ``_pop``) is ``heapq`` on (time, eid): pushes and pops in any mix."""
    import heapq

    from tcpsim.components.kernel import _Call, _pop, _push

    heap, ref, eid = [], [], 0
    for t, pop in ops:
        if pop and heap:
            call = _pop(heap)
            assert (call.time_s, call.eid) == heapq.heappop(ref)
        else:
            _push(heap, _Call(t / 4, eid, print, ()))
            heapq.heappush(ref, (t / 4, eid))
            eid += 1
    assert [(c.time_s, c.eid) for c in iter(lambda: _pop(heap) if heap else None, None)] == sorted(ref)


def test_a_call_takes_any_number_of_arguments():
    kernel = Kernel(max_events=100, max_wall_s=10.0)
    log = []
    kernel.call_at(1.0, lambda *a: log.append(a))
    kernel.call_at(2.0, lambda *a: log.append(a), "x")
    kernel.call_at(3.0, lambda *a: log.append(a), "x", None)
    kernel.call_at(4.0, lambda *a: log.append(a), "x", "y", "z")
    kernel.lane(lambda *a: log.append(a)).call_at(5.0, None)
    kernel.run()
    assert log == [(), ("x",), ("x", None), ("x", "y", "z"), (None,)]


def test_mypyc_attr_without_mypy_extensions_leaves_the_class_as_it_is():
    """``tcpsim.components.native``: where ``mypy_extensions`` is not installed (a pure-Python install without mypy),
    its decorator returns the class unchanged, so the hot path imports and runs the same."""
    import importlib
    import sys

    import tcpsim.components.native as native

    saved = sys.modules.get("mypy_extensions")
    sys.modules["mypy_extensions"] = None  # type: ignore[assignment]  # import now raises ImportError
    try:
        fallback = importlib.reload(native)

        class Plain:
            pass

        assert fallback.mypyc_attr(free_list_len=1)(Plain) is Plain
    finally:
        if saved is None:
            del sys.modules["mypy_extensions"]
        else:
            sys.modules["mypy_extensions"] = saved
        importlib.reload(native)
