"""Named OS versions: ``os_version("linux-6.12")`` is that kernel's TCP with its default sysctls.

Each Linux entry sets :attr:`~tcpsim.platform.OsTcp.version`, which selects the kernel's own window rules
(:mod:`tcpsim.protocol.linux_window`), and the defaults that changed over the years:

========== =============================== ========== =============== ======= ==== =================
name       tcp_rmem (default, max)         rmem_max   adv_win_scale   IW      cc   window from buffer
========== =============================== ========== =============== ======= ==== =================
linux-2.6  87380, 4 MiB (2.6.32)           131071     2               3       cubic adv_win_scale
linux-3.10 87380, 6 MiB                    212992     1 (3.4 on)      10      cubic adv_win_scale
linux-4.19 87380, 6 MiB                    212992     1               10      cubic adv_win_scale
linux-5.15 131072, 6 MiB (4.20 on)         212992     1               10      cubic adv_win_scale
linux-6.1  131072, 6 MiB                   212992     1               10      cubic adv_win_scale
linux-6.8  131072, 6 MiB                   212992     ignored (6.6)   10      cubic truesize ratio, SO_RCVBUF at 1/2
linux-6.12 131072, 6 MiB                   212992     ignored         10      cubic truesize ratio (6.11 on)
========== =============================== ========== =============== ======= ==== =================

Sources: tcp(7) and ``Documentation/networking/ip-sysctl.rst`` for the defaults; commits b49960a05e32 (3.4,
adv_win_scale 1 and tcp_rmem[2] 6 MiB), a337531b942b (4.20, tcp_rmem[1] 128 KiB, no 10-segment cap on
the SYN's window), dfa2f0483360 (6.6, the truesize ratio), 697a6c8cec03 (6.8, default ratio 1/2),
05f76b2d634e (6.11, a buffer set with SO_RCVBUF follows the measured ratio). IW 10 since 2.6.39
(RFC 6928); 2.6.32 starts at RFC 3390's 3 segments. CUBIC is the default since 2.6.19, autocorking
(``tcp_autocorking``) since 3.14 (4.19 on here).

``linux`` alone is ``linux-6.12`` (:data:`DEFAULT_LINUX`), the kernel a student meets today; the
calibrated profiles keep their own ``[os]`` tables (unversioned) and so their fitted behaviour, and
:func:`tcpsim.platform.os_defaults` keeps the textbook 2.6 they were written against. ``solaris`` and
``bsd`` are the family defaults.
"""

from __future__ import annotations

from dataclasses import replace

from .errors import ConfigError
from .platform import OS_FAMILIES, OsTcp, os_defaults

__all__ = ["os_version", "OS_NAMES", "LINUX_VERSIONS", "DEFAULT_LINUX"]

DEFAULT_LINUX = "linux-6.12"


def _linux(version: str, *, rcvbuf: int = 131072, rcv_max: int = 6291456, rmem_max: int = 212992,
           adv_win_scale: int = 1, iw: int = 10) -> OsTcp:
    return replace(os_defaults("linux"), name=f"Linux {version}", version=version, default_sndbuf_bytes=16384,
                   default_rcvbuf_bytes=rcvbuf, max_sockbuf_bytes=rmem_max, setsockopt_doubles=True,
                   adv_win_scale=adv_win_scale, initial_cwnd_segments=iw, congestion_control="cubic",
                   autocorking=tuple(int(x) for x in version.split(".")) >= (3, 14),
                   sndbuf_autotune_max_bytes=4194304, rcvbuf_autotune_max_bytes=rcv_max)


LINUX_VERSIONS: dict[str, OsTcp] = {
    "linux-2.6": _linux("2.6.32", rcvbuf=87380, rcv_max=4194304, rmem_max=131071, adv_win_scale=2, iw=3),
    "linux-3.10": _linux("3.10", rcvbuf=87380),
    "linux-4.19": _linux("4.19", rcvbuf=87380),
    "linux-5.15": _linux("5.15"),
    "linux-6.1": _linux("6.1"),
    "linux-6.8": _linux("6.8"),
    "linux-6.12": _linux("6.12"),
}
"""Kernel versions with their default sysctls (the table above)."""

OS_NAMES = ("linux", *LINUX_VERSIONS, *(f for f in OS_FAMILIES if f != "linux"))
"""Every name :func:`os_version` takes."""


def os_version(name: str) -> OsTcp:
    """The OS called ``name``: ``linux`` (= :data:`DEFAULT_LINUX`), ``linux-2.6`` ... ``linux-6.12``,
    ``solaris`` or ``bsd``."""
    if name == "linux":
        name = DEFAULT_LINUX
    if name in LINUX_VERSIONS:
        return LINUX_VERSIONS[name]
    if name in OS_FAMILIES:
        return os_defaults(name)
    raise ConfigError("os", name, "one of " + ", ".join(OS_NAMES))
