"""``tcpsim lab``: the same scenario on this machine's real kernel, between two network namespaces.

Modules: :mod:`~tcpsim.lab.scenario` (what to run), :mod:`~tcpsim.lab.testbed` (namespaces, veth, tc;
always torn down), :mod:`~tcpsim.lab.relay` (a user-space delay line where the kernel has no netem),
:mod:`~tcpsim.lab.generator` (the built-in traffic generator), :mod:`~tcpsim.lab.iperf3` (iperf3 ``-J``),
:mod:`~tcpsim.lab.tcpinfo` (TCP_INFO), :mod:`~tcpsim.lab.measure` (one run), :mod:`~tcpsim.lab.predict`
(tcpsim's answer for it), :mod:`~tcpsim.lab.cli`, :mod:`~tcpsim.lab.plot` (matplotlib, only there).
"""

from .scenario import LabScenario, lab_scenario

__all__ = ["LabScenario", "lab_scenario"]
