"""Measured tables, calibration of platform parameters, and validation against every source number.

Imports scipy lazily (only :mod:`tcpsim.calibration.fit` needs it); nothing here is imported by
``import tcpsim``.
"""
