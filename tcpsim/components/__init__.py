"""simpy-driven parts of a run: they spend time; the rules in :mod:`tcpsim.protocol` decide."""
