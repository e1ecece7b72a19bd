"""tcpsim: a discrete-event TCP simulator that predicts throughput on real hosts and says what limits it.

>>> import tcpsim
>>> r = tcpsim.predict(mtu=9000, sockbuf="512k")      # doctest: +SKIP
>>> r.goodput_bps, r.limited_by                        # doctest: +SKIP

The public names are below; plotting lives in :mod:`tcpsim.plot` and is imported only when used.
"""

from .api import build_scenario, predict, simulate
from .compare import Comparison, compare
from .config import Budget, Host, Link, Scenario, TcpOptions, Workload
from .errors import BudgetError, ConfigError, TcpsimError, TuningFileError
from .platform import Bus, CpuCost, Nic, OsTcp, Platform, bus_preset, os_defaults
from .profiles import list_platforms, load_platform
from .result import Result, StreamResult
from .sweep import SweepResult, sweep

__version__ = "0.1.0"

__all__ = [
    "Budget", "Bus", "BudgetError", "Comparison", "ConfigError", "CpuCost", "Host", "Link", "Nic", "OsTcp", "Platform", "Result",
    "Scenario", "StreamResult", "SweepResult", "TcpOptions", "TcpsimError", "TuningFileError", "Workload",
    "build_scenario", "bus_preset", "compare", "list_platforms", "load_platform", "os_defaults", "predict", "simulate", "sweep",
]
