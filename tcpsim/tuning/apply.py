"""Knobs onto a :class:`~tcpsim.platform.Platform`: each under its OS family's rules, in file order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from ..errors import ConfigError, TuningFileError
from ..platform import Platform
from .knobs import _FAMILY_NAMES, KNOBS, Knob, _show

__all__ = ["TuningResult", "apply_tuning"]


@dataclass(frozen=True, slots=True)
class TuningResult:
    """A platform with the knobs applied, the MTU if a line set one, and what each knob did, in order."""

    platform: Platform
    mtu_bytes: Optional[int]
    """MTU set by an ``ifconfig``/``ip link`` line: a scenario input (``Link.mtu_bytes``), not a platform field."""
    effects: tuple[tuple[Knob, str], ...]

    @property
    def ignored(self) -> tuple[Knob, ...]:
        """Knobs accepted but without effect on the model."""
        return tuple(k for k, what in self.effects if k.target == "ignored" or what.startswith("ignored"))

    def explain(self) -> str:
        """One line per knob: where it was set and what it did."""
        return "\n".join(f"line {k.line_no}: {k.name} = {_show(k.value)}: {what}" for k, what in self.effects)



def apply_tuning(platform: Platform, knobs: Iterable[Knob], path: str = "<tuning>") -> TuningResult:
    """``platform`` with the knobs applied in order (a later line wins), the MTU if set, and each effect.

    A knob of another OS family than the platform's (an ``ndd`` line on a Linux host) raises
    TuningFileError: its semantics would not hold. Driver and registry knobs apply to any platform.
    """
    effects: list[tuple[Knob, str]] = []
    mtu: Optional[int] = None
    for k in knobs:
        if k.name == "mtu":
            mtu = k.value
            effects.append((k, f"link.mtu_bytes = {mtu} (a scenario input, not a platform field)"))
            continue
        spec = KNOBS[k.name]
        if spec.apply is None:
            effects.append((k, f"ignored: {spec.note}"))
            continue
        if spec.family is not None and spec.family != platform.os.family:
            raise TuningFileError(path, k.line_no, k.text,
                                  f"{k.name} is a {_FAMILY_NAMES[spec.family]} knob but platform {platform.name!r} "
                                  f"runs {platform.os.name} ({platform.os.family})")
        try:
            platform, what = spec.apply(platform, k.value)
        except ConfigError as exc:
            if isinstance(exc, TuningFileError):
                raise
            raise TuningFileError(path, k.line_no, k.text, f"{k.name} = {_show(k.value)}: {exc}") from None
        effects.append((k, what))
    return TuningResult(platform=platform, mtu_bytes=mtu, effects=tuple(effects))
