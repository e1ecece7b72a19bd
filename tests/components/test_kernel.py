"""The event kernel and its re-armable timer, with exact simulated times (simpy-style log)."""

from tcpsim.components.kernel import Kernel


def _kernel_and_log():
    kernel = Kernel(max_events=10_000, max_wall_s=10.0)
    log = []
    return kernel, log


def test_timer_fires_at_its_deadline():
    kernel, log = _kernel_and_log()
    timer = kernel.timer(lambda: log.append(kernel.now))
    timer.arm(2.0)
    kernel.run()
    assert log == [2.0] and timer.deadline is None


def test_rearming_later_moves_the_expiry_without_a_second_event():
    kernel, log = _kernel_and_log()
    timer = kernel.timer(lambda: log.append(kernel.now))
    timer.arm(1.0)
    kernel.call_at(0.5, timer.arm, 3.0)
    kernel.run()
    assert log == [3.0]


def test_a_cancelled_timer_does_not_fire():
    kernel, log = _kernel_and_log()
    timer = kernel.timer(lambda: log.append(kernel.now))
    timer.arm(1.0)
    kernel.call_at(0.5, timer.cancel)
    kernel.run()
    assert log == []


def test_rearming_earlier_fires_at_the_earlier_deadline_once():
    """An RTO that shrinks with a new round-trip sample must not wait for the longer one it replaced."""
    kernel, log = _kernel_and_log()
    timer = kernel.timer(lambda: log.append(kernel.now))
    timer.arm(5.0)
    kernel.call_at(1.0, timer.arm, 2.0)
    kernel.run()
    assert log == [2.0]


def test_rearming_after_an_early_expiry_ignores_the_stale_event():
    kernel, log = _kernel_and_log()
    timer = kernel.timer(lambda: log.append(kernel.now))
    timer.arm(5.0)
    kernel.call_at(1.0, timer.arm, 2.0)
    kernel.call_at(3.0, timer.arm, 6.0)
    kernel.run()
    assert log == [2.0, 6.0]
