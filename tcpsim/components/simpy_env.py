"""simpy's environment on the kernel's clock (plain Python: the compiled kernel keeps its time in a native field).

:class:`tcpsim.components.kernel.Kernel` moves its own ``now_s`` once per event; an environment whose ``_now``
is that field needs no Python attribute set per event (a dict write, some 4 % of a run), and simpy's
processes and timeouts on it still see, and when the kernel takes their events set, the same time.
"""

from __future__ import annotations

from typing import Any

import simpy

__all__ = ["KernelEnvironment"]


class KernelEnvironment(simpy.Environment):
    """A :class:`simpy.Environment` whose clock is ``kernel.now_s``."""

    def __init__(self, kernel: Any) -> None:
        self._kernel = kernel
        super().__init__()

    @property  # type: ignore[override]
    def _now(self) -> float:
        return self._kernel.now_s

    @_now.setter
    def _now(self, value: float) -> None:
        self._kernel.now_s = value
