"""simpy-driven parts of a run: they spend time; the rules in :mod:`tcpsim.protocol` decide."""

__all__ = ["hot_path_compiled"]


def hot_path_compiled() -> bool:
    """Whether this install runs the event loop and the TCP machinery compiled by mypyc (see ``setup.py``)."""
    from . import kernel

    return not kernel.__file__.endswith(".py")
