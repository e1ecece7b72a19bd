"""Exceptions raised by tcpsim.

::

    TcpsimError
     +-- ConfigError (also a ValueError)   bad input: names the field and the accepted range
     |    +-- TuningFileError              a sysctl/ndd/sysconfig file tcpsim cannot map
     +-- OutputError                        the OS cannot take the output (disk full, I/O error): the CLI exits 1
     +-- BudgetError                        a simulation hit its event or time budget (only when asked to raise)

    AuditError (an AssertionError)          a window invariant broke (only checked when auditing is on)
"""

from __future__ import annotations

__all__ = ["TcpsimError", "ConfigError", "TuningFileError", "OutputError", "BudgetError", "AuditError"]


class TcpsimError(Exception):
    """Base class for every error tcpsim raises on purpose."""


class ConfigError(TcpsimError, ValueError):
    """An input outside its accepted range; the message is one line: ``field=value: must be ...``."""

    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self._init_args: tuple = (field, value, allowed)
        super().__init__(f"{field}={value!r}: must be {allowed}")

    def __reduce__(self):
        """Rebuilt from its constructor's arguments, so a point refused in a worker process reaches the caller as
        itself (a pickled exception is otherwise rebuilt from its message alone, which this ``__init__`` refuses)."""
        return type(self), self._init_args


class TuningFileError(ConfigError):
    """A line of a tuning file that tcpsim does not understand, with its line number."""

    def __init__(self, path: str, line_no: int, text: str, why: str) -> None:
        self.path = path
        self.line_no = line_no
        self.text = text
        TcpsimError.__init__(self, f"{path}:{line_no}: {why}: {text.strip()!r}")
        self._init_args = (path, line_no, text, why)
        self.field = f"{path}:{line_no}"
        self.value = text
        self.allowed = why


class OutputError(TcpsimError):
    """A write the OS could not complete although the path was good (disk full, quota, I/O error)."""


class BudgetError(TcpsimError):
    """Raised only by callers that ask for it; a normal run reports the budget in ``Result.termination``."""


class AuditError(AssertionError):
    """An invariant of the sliding window broke (only checked when auditing is on, see
    :func:`tcpsim.components.endpoint.audit`): a bug in tcpsim, not in its input."""
