"""A machine is made of parts: CPU, memory, bus, NIC and OS, each from a data sheet.

``load_machine("rx2600_ixgb")`` resolves a profile (or a machine file) into a :class:`Machine`: its
:class:`~tcpsim.machine.parts.Parts`, the runtime :class:`~tcpsim.platform.Platform` the engine uses,
and where every value came from. ``compose(parts)`` is the physics alone (no per-machine residuals).
Modules: ``parts`` (the dataclasses), ``lookup`` (the catalog), ``bus`` (bus efficiency from
transactions), ``costs`` (cycles and bandwidth to seconds), ``compose``, ``machinefile`` and ``schema``
(reading files), ``resolve`` (stacking profile, file and flags), ``show`` (``tcpsim machine show``).
"""

from __future__ import annotations

from .compose import compose, compose_traced
from .costs import CostCatalog, default_costs
from .layers import Layer
from .lookup import bus_part, cpu_part, memory_part, nic_part, os_part, part_names
from .parts import BusPart, Cpu, Memory, NicPart, OsPart, Parts
from .resolve import Machine, resolve_layers
from .spec import flag_layer, layers_for, load_machine, machine_platform

__all__ = ["BusPart", "Cpu", "Memory", "NicPart", "OsPart", "Parts", "Machine", "Layer", "CostCatalog",
           "compose", "compose_traced", "default_costs", "load_machine", "layers_for", "flag_layer",
           "machine_platform", "resolve_layers", "cpu_part", "memory_part", "bus_part", "nic_part", "os_part",
           "part_names"]
