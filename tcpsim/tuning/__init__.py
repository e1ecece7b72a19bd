"""Read the tuning files users already have and map each knob onto the model, with its OS's semantics.

Give tcpsim the very file you would apply. Any mix of these lines is read:

=========================================  ===========================================================
``net.core.rmem_max = 4194304``            sysctl.conf (Linux, FreeBSD); the value may be quoted
``sysctl [-w] name=value [name=value]``    the command form (``"4096 87380 174760"`` quoted)
``echo 4194304 > /proc/sys/net/core/...``  the /proc form
``ndd -set /dev/tcp name value``           Solaris
``set ce:ce_taskq_disable = 1``            Solaris ``/etc/system``
``sysconfig -r inet name=value ...``       Tru64 (several pairs on a line)
``TcpWindowSize = 131400``                 Windows registry values (also ``Name value`` and .reg files)
``modprobe ixgb RxIntDelay=0 ...``         Intel PRO/10GbE driver options
``ifconfig eth2 mtu 9000``                 MTU (``ipmtu`` on Tru64; ``ip link set dev eth2 mtu 9000``)
=========================================  ===========================================================

Comments (``#``, ``;``), blank lines and the shell noise of the sources' scripts (:data:`IGNORABLE`) are
skipped; every other line must set a knob of :data:`KNOBS`, or :class:`~tcpsim.errors.TuningFileError`
names the line. Knobs tcpsim knows but does not model (``tcp_mem``, ``tcp_tw_recycle``...) become knobs
with target ``"ignored"`` and the reason in ``note``. Two copying artefacts of the sources are repaired
because their intent is certain: a quoted value broken over lines (10 GbE report, Appendix E) and driver
options wrapped onto the next line (Appendices D and E).

Three modules, one step each: :mod:`~tcpsim.tuning.knobs` (the table: what each knob parses and sets),
:mod:`~tcpsim.tuning.parse` (text to range-checked knobs), :mod:`~tcpsim.tuning.apply` (knobs onto a
:class:`~tcpsim.platform.Platform` under the rules of its OS family).

Ref: socket(7), tcp(7) (Linux); Sun blueprint 004 and Solaris Tunable Parameters (ndd); Tru64 best
practice 000 (sysconfig); gigabit-NIC article 002 (FreeBSD, Windows); 10 GbE report 003 (Appendices B-E).
"""

from __future__ import annotations

from .apply import TuningResult, apply_tuning
from .knobs import KNOBS, Knob, KnobSpec
from .parse import IGNORABLE, parse_tuning

__all__ = ["Knob", "KnobSpec", "TuningResult", "parse_tuning", "apply_tuning", "KNOBS", "IGNORABLE"]
