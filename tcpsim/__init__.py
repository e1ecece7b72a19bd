"""tcpsim: a discrete-event TCP simulator that predicts throughput and says what limits it."""
__version__ = "0.1.0"
