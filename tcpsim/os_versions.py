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

Any other release from 2.6.32 to 7.x is taken too (``linux-5.4``, ``linux-6.18``, ``linux-5.14.0``:
:func:`linux_release`): the defaults above by the release that changed each, and the version-gated rules of that
release itself. Where a default changed between two named releases at a release not confirmed here,
``net.core.rmem_max``'s 131071 -> 212992 (between 2.6.32 and 3.10), the change is taken at the later one.

``linux`` alone is ``linux-6.12`` (:data:`DEFAULT_LINUX`), the kernel a student meets today; the
calibrated profiles keep their own ``[os]`` tables (unversioned) and so their fitted behaviour, and
:func:`tcpsim.platform.os_defaults` keeps the textbook 2.6 they were written against. ``solaris`` and
``bsd`` are the family defaults.

Besides Linux, the table has the other OSes of the sources and of the machines users bring
(:data:`OS_VERSIONS`): Tru64 4/5, Solaris 8/10, HP-UX 11, FreeBSD 4-14, Windows NT/2000/2003, with each
version's TCP defaults and where they come from; ``linux-2.4`` and ``linux-2.6-plain`` are unversioned
(the simpler window model the calibrated profiles were fitted with). Values marked *approximate* are the
defaults as commonly quoted for that release; a machine file or a ``--sysctl`` file sets the real ones.
Each entry also names the row of the per-packet cost catalog (:mod:`tcpsim.machine.costs`) and the
receive backlog (``netdev_max_backlog``) the NIC part needs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .errors import ConfigError
from .platform import OsTcp, os_defaults

__all__ = ["os_version", "os_entry", "OsVersion", "OS_VERSIONS", "OS_NAMES", "LINUX_VERSIONS", "tsq_default_bytes",
           "comp_sack_defaults", "DEFAULT_LINUX", "linux_release", "OLDEST_LINUX", "ACCEPTED"]

DEFAULT_LINUX = "linux-6.12"
OLDEST_LINUX = (2, 6, 32)
"""The oldest Linux release :func:`linux_release` takes: the oldest named one (``linux-2.6``)."""
_NEWEST_MAJOR = 7
"""The newest major release taken: later ones would be a guess at rules not yet written."""


def tsq_default_bytes(version: tuple[int, ...]) -> int:
    """``tcp_limit_output_bytes`` as a kernel of ``version`` ships it (TCP small queues; 0 before 3.6).

    131072 from TSQ's start in 3.6 (``tcp_output.c``: "Default TSQ limit of two TSO segments"); 262144 after
    "tcp: double default TSQ output bytes limit" (June 2015, so from 4.2; 3.10 has 131072); 16 x 65536 = 1 MiB
    from "tcp: tsq: no longer use limit_output_bytes for paced flows" (``tcp_sk_init``, ``tcp_ipv4.c``: in
    trees before 5.8, so 5.15 to 6.12 have it); 4 MiB from a 2025 patch ("Default TSQ limit of 4 MB", after
    6.12; the lab VM's 6.18 reports 4194304), taken here from 6.16. **Not confirmed**: the release of the 1 MiB
    change (after 4.19 is assumed, so 4.19 has 262144) and of the 4 MiB one (6.13-6.16).
    """
    if version < (3, 6):
        return 0
    if version < (4, 2):
        return 131072
    if version < (5, 0):
        return 262144
    if version < (6, 16):
        return 1 << 20
    return 4 << 20


def _linux(version: str, *, rcvbuf: int = 131072, rcv_max: int = 6291456, rmem_max: int = 212992,
           adv_win_scale: int = 1, iw: int = 10) -> OsTcp:
    v = tuple(int(x) for x in version.split("."))
    return replace(os_defaults("linux"), name=f"Linux {version}", version=version, default_sndbuf_bytes=16384,
                   default_rcvbuf_bytes=rcvbuf, max_sockbuf_bytes=rmem_max, setsockopt_doubles=True,
                   adv_win_scale=adv_win_scale, initial_cwnd_segments=iw, congestion_control="cubic",
                   autocorking=v >= (3, 14), limit_output_bytes=tsq_default_bytes(v),
                   sndbuf_autotune_max_bytes=4194304, rcvbuf_autotune_max_bytes=rcv_max,
                   **comp_sack_defaults(v))


def comp_sack_defaults(version: tuple[int, ...]) -> dict:
    """The SACK compression sysctls as a kernel of ``version`` ships them (4.18 on; ``tcp_sk_init``): the hrtimer's
    100-us slack from 5.8 ("tcp: add hrtimer slack to sack compression"; 0 before), and the wait's share of the round
    trip 5 % until ``tcp_comp_sack_rtt_percent`` (default 100) replaced it (a November 2025 patch, taken from 6.19:
    **not confirmed**)."""
    return dict(comp_sack_slack_s=1e-4 if version >= (5, 8) else 0.0,
                comp_sack_rtt_percent=100 if version >= (6, 19) else 5)


def linux_release(version: str) -> OsTcp:
    """Linux ``version`` (``"5.4"``, ``"6.18.44"``; 2.6.32 on) with the default sysctls of the table above, each from
    the release that changed it: ``tcp_rmem[1]`` 87380 -> 131072 at 4.20, ``tcp_rmem[2]`` 4 -> 6 MiB and
    ``tcp_adv_win_scale`` 2 -> 1 at 3.4, the initial window 3 -> 10 segments at 2.6.39, ``net.core.rmem_max``
    131071 -> 212992 taken at 3.10 (the release between 2.6.32 and 3.10 not confirmed)."""
    v = tuple(int(x) for x in version.split("."))
    return _linux(version, rcvbuf=87380 if v < (4, 20) else 131072, rcv_max=4194304 if v < (3, 4) else 6291456,
                  rmem_max=131071 if v < (3, 10) else 212992, adv_win_scale=2 if v < (3, 4) else 1,
                  iw=3 if v < (2, 6, 39) else 10)


LINUX_VERSIONS: dict[str, OsTcp] = {
    "linux-2.6": linux_release("2.6.32"),
    **{f"linux-{v}": linux_release(v) for v in ("3.10", "4.19", "5.15", "6.1", "6.8", "6.12")},
}
"""Kernel versions with their default sysctls (the table above), by name; :func:`os_entry` takes other releases."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OsVersion:
    """One OS version: its TCP defaults and what the cost catalog and the receive path need of it."""

    name: str
    cost_family: str
    """Row of the per-packet cost catalog (the code path a packet takes): tru64, solaris, hpux, linux,
    freebsd, windows, generic."""
    tcp: OsTcp
    backlog_packets: int = 1000
    source: str = ""


_SOLARIS = os_defaults("solaris")

_PLAIN = os_defaults("linux")
_L24 = replace(_PLAIN, name="Linux 2.4", max_sockbuf_bytes=65535, sndbuf_autotune_max_bytes=131072,
               rcvbuf_autotune_max_bytes=0)
_S10 = replace(_SOLARIS, name="Solaris 10", default_sndbuf_bytes=49152, default_rcvbuf_bytes=49152,
               deferred_acks_max=2, timestamps=True, sack=True, maxpsz_multiplier=10)
_TRU64 = OsTcp(family="bsd", name="Tru64 UNIX 5", default_sndbuf_bytes=61440, default_rcvbuf_bytes=61440,
               max_sockbuf_bytes=1048576, delack="bsd44")
_HPUX = replace(_SOLARIS, name="HP-UX 11i", default_sndbuf_bytes=32768, default_rcvbuf_bytes=32768,
                max_sockbuf_bytes=4194304, deferred_acks_max=22, delack_timeout_s=0.05, min_rto_s=0.5,
                initial_cwnd_segments=4, sack=True, maxpsz_multiplier=0, naglim_bytes=None,
                rcv_push_wait_bytes=0)


def _freebsd(major: int) -> OsTcp:
    """FreeBSD ``net.inet.tcp`` defaults by major release (tcp_subr.c, tcp_input.c, uipc_sockbuf.c)."""
    auto = 0 if major < 7 else (262144 if major == 7 else 2097152)
    return OsTcp(family="bsd", name=f"FreeBSD {major}", default_sndbuf_bytes=32768, default_rcvbuf_bytes=65536,
                 max_sockbuf_bytes=262144 if major < 7 else 2097152, delack="bsd", delack_timeout_s=0.1,
                 min_rto_s=1.0 if major < 5 else 0.23, timestamps=True, sack=major >= 6,
                 limited_transmit=major >= 5, initial_cwnd_segments=10 if major >= 11 else (4 if major >= 5 else 1),
                 sndbuf_autotune_max_bytes=auto, rcvbuf_autotune_max_bytes=auto)


def _windows(name: str, window: int, scaling: bool, sack: bool) -> OsTcp:
    return OsTcp(family="bsd", name=name, default_sndbuf_bytes=8192, default_rcvbuf_bytes=window,
                 max_sockbuf_bytes=1 << 30 if scaling else 65535, delack="bsd", delack_timeout_s=0.2,
                 window_scaling=scaling, sack=sack, min_rto_s=0.3, initial_cwnd_segments=2)


_ENTRIES = [
    OsVersion(name="bsd", cost_family="generic", tcp=os_defaults("bsd"),
              source="tcpsim's generic BSD defaults (4.4BSD: 64 KiB buffers, 200 ms delayed ACK)"),
    OsVersion(name="linux", cost_family="linux", tcp=LINUX_VERSIONS[DEFAULT_LINUX],
              source=f"the Linux default: {DEFAULT_LINUX}"),
    OsVersion(name="solaris", cost_family="solaris", tcp=_SOLARIS,
              source="family default = solaris-8 (tcpsim.platform.os_defaults)"),
    OsVersion(name="tru64-4", cost_family="tru64", tcp=replace(_TRU64, name="Tru64 UNIX 4", default_sndbuf_bytes=32768,
                                                                default_rcvbuf_bytes=32768),
              source="Tru64 best practice (May 2001): tcp_sendspace/recvspace 32768 before 5.0"),
    OsVersion(name="tru64-5", cost_family="tru64", tcp=_TRU64,
              source="Tru64 best practice (May 2001): 61440-byte buffers from 5.0; sb_max 1 MiB assumed; "
                     "4.4BSD delayed ACK"),
    OsVersion(name="solaris-8", cost_family="solaris", tcp=replace(_SOLARIS, name="Solaris 8"),
              source="Sun blueprint (Solaris 8 ndd defaults); Solaris tcp.c tcp_param_arr"),
    OsVersion(name="solaris-10", cost_family="solaris", tcp=_S10,
              source="OpenSolaris tcp.c tcp_param_arr: xmit/recv_hiwat 49152, deferred_acks_max 2, "
                     "slow_start_initial 4, sack_permitted 2, tstamp_if_wscale 1, maxpsz_multiplier 10"),
    OsVersion(name="hpux-11", cost_family="hpux", tcp=_HPUX,
              source="HP-UX 11i ndd defaults, approximate: Mentat-derived STREAMS TCP as Solaris; "
                     "tcp_xmit/recv_hiwater_def 32768, tcp_deferred_ack_max 22, rexmit_interval_min 500 ms"),
    OsVersion(name="linux-2.4", cost_family="linux", tcp=_L24, backlog_packets=300,
              source="Linux 2.4 (unversioned window model): tcp_wmem 4096 16384 131072, tcp_rmem 4096 87380 174760, [rw]mem_max 65535, "
                     "netdev_max_backlog 300, no receive autotuning (tcp_rcv_space_adjust is 2.6.7)"),
    OsVersion(name="linux-2.6-plain", cost_family="linux", tcp=replace(_PLAIN, name="Linux 2.6"),
              source="Linux 2.6.17+ textbook defaults (tcp_[rw]mem[2] 4 MiB, [rw]mem_max 131071) with the "
                     "unversioned window model the calibrated profiles were fitted with (tcpsim.platform.os_defaults)"),
    *[OsVersion(name=name, cost_family="linux", tcp=tcp, source="LINUX_VERSIONS (the table above)")
      for name, tcp in LINUX_VERSIONS.items()],
    *[OsVersion(name=f"freebsd-{m}", cost_family="freebsd", tcp=_freebsd(m),
                source="FreeBSD defaults, approximate: sendspace 32768, recvspace 65536, delacktime 100 ms; "
                       "rfc3042 from 5, SACK from 6, buffer autotuning from 7, initial cwnd 10 from 11")
      for m in range(4, 15)],
    OsVersion(name="windows-nt", cost_family="windows", tcp=_windows("Windows NT 4.0", 8760, False, False),
              source="Windows NT 4.0 TcpWindowSize 8760 (6 x 1460 on Ethernet), no RFC 1323, approximate"),
    OsVersion(name="windows-2000", cost_family="windows", tcp=_windows("Windows 2000", 17520, True, True),
              source="Windows 2000 TcpWindowSize 17520, Tcp1323Opts scaling on request, SackOpts 1, approximate"),
    OsVersion(name="windows-2003", cost_family="windows", tcp=_windows("Windows Server 2003", 65535, True, True),
              source="Windows Server 2003: 64 KiB window at 100 Mbit/s and faster, SackOpts 1, approximate"),
]

OS_VERSIONS: dict[str, OsVersion] = {e.name: e for e in _ENTRIES}
"""Every OS :func:`os_version` knows, by name."""

OS_NAMES = tuple(OS_VERSIONS)
"""Every named OS; :func:`os_entry` also takes any Linux release from :data:`OLDEST_LINUX` to 7.x (``linux-5.4``)."""

ACCEPTED = (", ".join(OS_NAMES) + f", or any Linux release from {'.'.join(map(str, OLDEST_LINUX))} to "
            f"{_NEWEST_MAJOR}.x (linux-5.4, linux-6.18.44)")
"""What an OS name may be, for help and error messages."""

_RELEASE = re.compile(r"linux-(\d{1,2})\.(\d{1,3})(?:\.(\d{1,4}))?")


def os_entry(name: str) -> OsVersion:
    """The :class:`OsVersion` called ``name``, or a Linux release ``linux-X.Y[.Z]`` (:func:`linux_release`);
    ConfigError naming what is accepted otherwise."""
    try:
        return OS_VERSIONS[name]
    except (KeyError, TypeError):
        pass
    m = _RELEASE.fullmatch(name) if isinstance(name, str) else None
    if m:
        v = tuple(int(x) for x in m.groups() if x is not None)
        if OLDEST_LINUX <= v and v[0] <= _NEWEST_MAJOR:
            version = ".".join(map(str, v))
            return OsVersion(name=name, cost_family="linux", tcp=linux_release(version),
                             source=f"Linux {version}: the named releases' defaults by the release that changed each "
                                    "(tcpsim.os_versions.linux_release), its own version's rules")
    raise ConfigError("os", name, "one of " + ACCEPTED) from None


def os_version(name: str) -> OsTcp:
    """The OS called ``name``: ``linux`` (= :data:`DEFAULT_LINUX`), ``linux-2.4``, ``linux-2.6`` ...
    ``linux-6.12`` or any release from 2.6.32 to 7.x, ``solaris-8``, ``freebsd-5``, ``tru64-5``, ``windows-2000`` ...,
    ``solaris`` or ``bsd``."""
    return os_entry(name).tcp
