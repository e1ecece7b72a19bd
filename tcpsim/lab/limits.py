"""The limit a pinned lab run measured, where its CPU shares make it plain, and tcpsim's named limit scored against it.

A run whose tools were pinned to two CPUs (``tcpsim lab --pin 0,1``) records each CPU's shares
(``measured.cpu_shares``). Where one side's CPU is saturated and plainly busier than the other's, that side limited
the run; where both are busy (most CPU-limited runs on a two-vCPU VM) or neither is, the shares do not say, and the
run is not scored (validation/README.md, "The limit tcpsim names, scored where the kernel's is plain").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

__all__ = ["BUSIER_BY", "BUSY_AT_LEAST", "pinned_busy", "measured_limit", "LimitCheck", "limit_summary"]

BUSIER_BY = 0.2
"""How much busier one pinned CPU must be than the other, measured, to name it the side that limits."""
BUSY_AT_LEAST = 0.8
"""How busy (1 - idle) that CPU must be: a side 20 points busier but itself a third idle limited nothing."""


_EPS = 1e-9  # shares are ratios of /proc/stat ticks: 0.8 - 0.6 must count as 0.2 apart


def pinned_busy(shares: Any, pin: Any) -> Optional[tuple[float, float]]:
    """The sending and the receiving CPU's busy shares (1 - idle) of a run pinned to two CPUs (``pin``, the sender's
    first), from ``measured.cpu_shares``; None when the run was not so pinned, or a share is missing or out of range."""
    try:
        if pin is None or len(set(pin[:2])) != 2:
            return None
        busy = tuple(1.0 - float(shares[f"cpu{n}"]["idle"]) for n in pin[:2])
    except (KeyError, TypeError, ValueError):
        return None
    return (busy[0], busy[1]) if all(0.0 <= b <= 1.0 for b in busy) else None


def measured_limit(busy: Optional[tuple[float, float]]) -> Optional[str]:
    """``cpu_sender`` or ``cpu_receiver`` (:data:`tcpsim.result.LIMITS`) when that side's CPU is at least
    :data:`BUSY_AT_LEAST` busy and :data:`BUSIER_BY` busier than the other's; None where the shares do not say."""
    if busy is None:
        return None
    for side, mine, other in (("cpu_sender", busy[0], busy[1]), ("cpu_receiver", busy[1], busy[0])):
        if mine >= BUSY_AT_LEAST - _EPS and mine - other >= BUSIER_BY - _EPS:
            return side
    return None


@dataclass(frozen=True)
class LimitCheck:
    """One pinned run: its measured busy shares and limit, and what the prediction named and how busy it ran."""

    label: str
    busy_frac: tuple[float, float]
    measured: Optional[str]
    """:func:`measured_limit`; None: not scored."""
    predicted: str
    """The prediction's ``limited_by``."""
    predicted_busy_frac: tuple[float, float]

    @property
    def agrees(self) -> Optional[bool]:
        """Whether the prediction names the measured limit; None for a run the shares do not decide."""
        return None if self.measured is None else self.predicted == self.measured


def limit_summary(checks: Sequence[LimitCheck]) -> list[str]:
    """Lines for a report: how many decided runs the prediction names rightly, each miss with both sides' shares,
    and what it names on the runs the shares leave undecided."""
    from ..result import LIMIT_NAMES

    decided = [c for c in checks if c.measured is not None]
    if not checks:
        return []
    right = sum(1 for c in decided if c.agrees)
    lines = [f"the limit named: {right} of {len(decided)} pinned runs whose busier CPU is plain (at least "
             f"{BUSY_AT_LEAST:.0%} busy and {BUSIER_BY:.0%} above the other) named rightly; "
             f"{len(checks) - len(decided)} not decided by their shares"]
    for c in decided:
        if not c.agrees:
            lines.append(f"  {c.label}: measured {LIMIT_NAMES[c.measured]} (sender {c.busy_frac[0]:.0%}, receiver "
                         f"{c.busy_frac[1]:.0%}), predicted {LIMIT_NAMES.get(c.predicted, c.predicted)} (sender "
                         f"{c.predicted_busy_frac[0]:.0%}, receiver {c.predicted_busy_frac[1]:.0%})")
    return lines
