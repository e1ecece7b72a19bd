"""simpy-driven parts of a run: they spend time; the rules in :mod:`tcpsim.protocol` decide."""

__all__ = ["hot_path_compiled", "hot_path_label"]


def hot_path_compiled() -> bool:
    """Whether this install runs the event loop and the TCP machinery compiled by mypyc (see ``setup.py``)."""
    from . import kernel

    return not kernel.__file__.endswith(".py")


def hot_path_label() -> str:
    """``"compiled"`` or ``"pure-Python"``, for the lines that report timings and versions."""
    return "compiled" if hot_path_compiled() else "pure-Python"
