"""A :class:`Layer` is what one source says about a machine: a machine file, or command-line flags.

Layers stack: a profile, then a ``--machine`` file, then flags; :mod:`tcpsim.machine.resolve` applies
them in order and remembers which layer set each value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from ..platform import Provenance

__all__ = ["Layer", "RESIDUAL_TABLES"]

RESIDUAL_TABLES = ("calibration", "fixed")
"""``[calibration.*]``: runtime values a fit produced (``tcpsim calibrate``); ``[fixed.*]``: runtime values the
file sets by hand. Both override what the parts and physics give, for this machine only."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Layer:
    """One source of machine settings."""

    label: str
    """How ``machine show`` names this source: ``file rx2600_ixgb.toml``, ``flag``."""
    path: str = ""
    text: str = ""
    name: Optional[str] = None
    base: Optional[str] = None
    provenance: Optional[Provenance] = None
    parts: Mapping[str, str] = field(default_factory=dict)
    """Part kind -> catalog name (``os`` -> OS version)."""
    fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Part kind -> field overrides."""
    calibration: Mapping[str, Any] = field(default_factory=dict)
    """Runtime key (``cpu.per_packet_tx_s``) -> fitted value."""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """Runtime key -> value set by hand in the file."""
    runtime: Mapping[str, Any] = field(default_factory=dict)
    """Runtime key -> value a flag sets directly (``--cpus``: ``cpu.n_cpus``)."""
    fit: tuple = ()
    fit_label: str = ""
    tuning: Mapping[str, str] = field(default_factory=dict)
    flag_names: Mapping[str, str] = field(default_factory=dict)
    """Key -> the flag that set it, for labels."""

    def origin(self, key: str) -> str:
        """How ``machine show`` names the source of ``key`` set by this layer."""
        flag = self.flag_names.get(key)
        return f"flag {flag}" if flag else self.label
