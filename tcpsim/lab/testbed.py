"""Two network namespaces joined by a veth pair, shaped with ``tc``; removed on every exit.

Layout: the sender lives in namespace ``<prefix>-a`` (10.254.1.1), the receiver in ``<prefix>-b``
(10.254.2.1 with a delay line, 10.254.1.2 without). The rate is a ``tbf`` qdisc on each side's egress
(the data and the ACK direction alike); ``rate_bps = 0`` leaves the veth unshaped. A round-trip delay
uses ``netem`` where the kernel has it (``sch_netem``); where it has not, the path runs through a third
namespace ``<prefix>-m`` whose TUN device feeds :mod:`tcpsim.lab.relay`, a user-space delay line.

Safety: every name starts with ``tcpsim-<pid>-<random>``; addresses are private to the namespaces
(nothing is routed to the host or beyond); the namespaces, and with them the veth and TUN devices and
the processes started in them, are removed by :meth:`Testbed.close`, which runs on a normal exit, an
exception, SIGINT/SIGTERM/SIGHUP (see :func:`install_signal_handlers`) and at interpreter exit.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Optional, Sequence

from ..errors import ConfigError, TcpsimError
from .relay import MAX_S as RELAY_MAX_S
from .scenario import tbf_burst_bytes

__all__ = ["Testbed", "LabUnavailable", "tbf_burst_bytes", "missing_requirement", "has_netem", "install_signal_handlers",
           "NS_PREFIX", "list_namespaces", "stale_namespaces", "remove_stale", "SENDER_ADDR"]

NS_PREFIX = "tcpsim-"
SENDER_ADDR = "10.254.1.1"
_CMD_TIMEOUT_S = 20.0
_OPEN: dict[str, "Testbed"] = {}


class LabUnavailable(TcpsimError):
    """This machine cannot run a lab scenario (no root, no ``ip``/``tc``, no namespaces, no qdisc)."""


def _run(args: Sequence[str], check: bool = True, timeout: float = _CMD_TIMEOUT_S) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise LabUnavailable(f"{' '.join(args)} failed: {(proc.stderr or proc.stdout).strip().splitlines()[:1]}")
    return proc


def checked_relay_cpu(cpu: Optional[int]) -> Optional[int]:
    """The relay's CPU (``--relay-cpu``) if this machine has it and ``taskset``; a ConfigError or LabUnavailable
    naming what is wrong otherwise (None: where the scheduler puts it)."""
    if cpu is None:
        return None
    n = os.cpu_count() or 1
    if not 0 <= cpu < n:
        raise ConfigError("relay_cpu", cpu, f"a CPU 0..{n - 1} on this machine")
    if shutil.which("taskset") is None:
        raise LabUnavailable("--relay-cpu needs taskset (util-linux), which is not installed")
    return cpu


def parse_netstat(text: str) -> dict[str, int]:
    """The ``TcpExt`` counters of a ``/proc/net/netstat`` text (a line of names, then a line of values)."""
    lines = [line.split() for line in text.splitlines() if line.startswith("TcpExt:")]
    if len(lines) < 2 or len(lines[0]) != len(lines[1]):
        return {}
    try:
        return {name: int(value) for name, value in zip(lines[0][1:], lines[1][1:])}
    except ValueError:
        return {}


def missing_requirement() -> Optional[str]:
    """What this machine lacks for ``tcpsim lab`` (one line), or None when everything is there."""
    if not sys.platform.startswith("linux"):
        return f"tcpsim lab needs Linux network namespaces (this is {sys.platform})"
    if os.geteuid() != 0:
        return "tcpsim lab needs root (it creates network namespaces); run it with sudo"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"tcpsim lab needs the {tool!r} command (iproute2), not found on PATH"
    return None


def list_namespaces() -> list[str]:
    """Names of the network namespaces that ``ip netns`` knows."""
    out = _run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def stale_namespaces() -> list[str]:
    """``tcpsim-<pid>-...`` namespaces whose run is no longer alive (left by a run that was SIGKILLed)."""
    out = []
    for name in list_namespaces():
        if not name.startswith(NS_PREFIX):
            continue
        try:
            pid = int(name[len(NS_PREFIX):].split("-")[0])
        except ValueError:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            out.append(name)
        except PermissionError:
            pass
    return out


def remove_stale() -> list[str]:
    """Delete :func:`stale_namespaces` (the processes in them die with their run); the names removed."""
    gone = []
    for name in stale_namespaces():
        if _run(["ip", "netns", "del", name], check=False).returncode == 0:
            gone.append(name)
    return gone


_NETEM: dict[str, bool] = {}


def has_netem() -> bool:
    """Whether the kernel accepts a ``netem`` qdisc (tried once on a veth in a scratch namespace)."""
    if "ok" not in _NETEM:
        with Testbed(rate_bps=0.0, rtt_s=0.0, mtu_bytes=1500, probe=True) as tb:
            proc = _run(["tc", "-n", tb.ns_a, "qdisc", "add", "dev", tb.dev_a, "root", "netem", "delay", "1ms"],
                        check=False)
            _NETEM["ok"] = proc.returncode == 0
    return _NETEM["ok"]


def _cleanup_all() -> None:
    for tb in list(_OPEN.values()):
        tb.close()


def _on_signal(signum: int, frame: object) -> None:
    _cleanup_all()
    raise KeyboardInterrupt(f"signal {signum}")


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP end a lab run as Ctrl-C does: namespaces removed, then KeyboardInterrupt."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)


atexit.register(_cleanup_all)


@dataclass
class _Proc:
    popen: subprocess.Popen
    label: str


class Testbed:
    """The namespaces, links and shaping of one lab run; a context manager that always tears down."""

    def __init__(self, rate_bps: float, rtt_s: float, mtu_bytes: int, *, delay_line: str = "auto",
                 cc: Optional[str] = None, probe: bool = False, loss_frac: float = 0.0,
                 relay_cpu: Optional[int] = None, sack: bool = True) -> None:
        tag = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.prefix = f"{NS_PREFIX}{tag}"
        self.ns_a, self.ns_b, self.ns_m = f"{self.prefix}-a", f"{self.prefix}-b", f"{self.prefix}-m"
        short = secrets.token_hex(3)
        self.dev_a, self.dev_b = f"ts{short}a", f"ts{short}b"
        self.dev_ma, self.dev_mb, self.dev_tun = f"ts{short}ma", f"ts{short}mb", f"ts{short}t"
        self.rate_bps, self.rtt_s, self.mtu_bytes = float(rate_bps), float(rtt_s), int(mtu_bytes)
        self.cc = cc
        self.sack = bool(sack)
        """False: both ends' namespaces refuse SACK (``net.ipv4.tcp_sack=0``, per namespace): the handshake
        negotiates none, and the sender recovers by duplicate ACKs alone (``tcp_add_reno_sack``)."""
        self.loss_frac = float(loss_frac)
        """Each frame's loss probability on the delay line, both ways (:mod:`tcpsim.lab.frames`); needs the relay."""
        self.loss_seed = secrets.randbits(31)
        self.relay_cpu = checked_relay_cpu(relay_cpu)
        """The CPU the relay runs on alone (``taskset``; None: the scheduler's choice)."""
        if self.loss_frac and (self.rtt_s <= 0 or delay_line == "netem"):  # refused before anything is built
            raise LabUnavailable("loss is drawn by tcpsim's delay line: it needs an added delay (--rtt) and the relay")
        self.delay_line = "none"
        self._want_delay = delay_line
        self._probe = probe
        self._namespaces: list[str] = []
        self._procs: list[_Proc] = []
        self.receiver_addr = "10.254.1.2"

    # ---------------------------------------------------------------- set-up
    def __enter__(self) -> "Testbed":
        _OPEN[self.prefix] = self
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ns(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self._namespaces.append(name)
        _run(["ip", "-n", name, "link", "set", "dev", "lo", "up"])

    def _sysctl(self, ns: str, *pairs: str, check: bool = True) -> subprocess.CompletedProcess:
        return _run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *pairs], check=check)

    def _default_cc(self, ns: str) -> None:
        """Make ``self.cc`` the namespace's default, or else ``reno``: never leave a default whose ``init``
        paces. iperf3 sets ``TCP_CONGESTION`` only after ``connect`` returns, so its socket was first
        established under the namespace's default; ``bbr_init`` sets ``sk_pacing_status`` to
        ``SK_PACING_NEEDED`` and ``tcp_reinit_congestion_control`` (Linux ``net/ipv4/tcp_cong.c``) does not clear
        it, so a "cubic" run would be paced by ``tcp_pacing_check``'s hrtimer. A namespace other than the
        host's may only default to the host's ``tcp_allowed_congestion_control``, which always has ``reno``
        (no pacing; the tool's switch then starts the requested algorithm fresh, before any data)."""
        for cc in (self.cc, "reno"):
            if self._sysctl(ns, f"net.ipv4.tcp_congestion_control={cc}", check=False).returncode == 0:
                return
        raise LabUnavailable(f"namespace {ns}: neither {self.cc!r} nor 'reno' can be its default congestion control")

    def _build(self) -> None:
        a, b = self.ns_a, self.ns_b
        self._ns(a)
        self._ns(b)
        if self._probe:
            _run(["ip", "link", "add", self.dev_a, "netns", a, "type", "veth", "peer", "name", self.dev_b, "netns", b])
            return
        if self.cc:
            for ns in (a, b):
                self._default_cc(ns)
        if not self.sack:
            for ns in (a, b):
                self._sysctl(ns, "net.ipv4.tcp_sack=0")
        if self.rtt_s > 0 and self._want_delay in ("auto", "netem") and has_netem() and not self.loss_frac:
            self.delay_line = "netem"
        elif self.rtt_s > 0:
            if self._want_delay == "netem":
                raise LabUnavailable("--rtt with netem: this kernel has no netem qdisc (sch_netem)")
            self.delay_line = "relay"
        if self.delay_line == "relay":
            self._build_relayed()
        else:
            self._build_direct()

    def _link(self, ns: str, dev: str, addr: str) -> None:
        _run(["ip", "-n", ns, "link", "set", "dev", dev, "mtu", str(self.mtu_bytes)])
        _run(["ip", "-n", ns, "addr", "add", addr, "dev", dev])
        _run(["ip", "-n", ns, "link", "set", "dev", dev, "up"])

    def _shape(self, ns: str, dev: str, delay_s: float = 0.0) -> None:
        """tbf at ``rate_bps`` (burst: 1 ms of line or 64 KB at least) and, with netem, half the RTT."""
        if self.delay_line == "netem" and delay_s > 0:
            cmd = ["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", "delay",
                   f"{delay_s * 1e6:.0f}us", "limit", "100000"]
            _run(cmd)
            parent = ["parent", "1:1", "handle", "10:"]
        else:
            parent = ["root", "handle", "10:"]
        if self.rate_bps > 0:
            burst = tbf_burst_bytes(self.rate_bps, self.mtu_bytes)
            _run(["tc", "-n", ns, "qdisc", "add", "dev", dev, *parent, "tbf", "rate", f"{int(self.rate_bps)}bit",
                  "burst", str(burst), "limit", str(max(4 * burst, 16 << 20))])

    def _build_direct(self) -> None:
        a, b = self.ns_a, self.ns_b
        _run(["ip", "link", "add", self.dev_a, "netns", a, "type", "veth", "peer", "name", self.dev_b, "netns", b])
        self._link(a, self.dev_a, f"{SENDER_ADDR}/24")
        self._link(b, self.dev_b, f"{self.receiver_addr}/24")
        self._shape(a, self.dev_a, self.rtt_s / 2)
        self._shape(b, self.dev_b, self.rtt_s / 2)

    def _build_relayed(self) -> None:
        a, b, m = self.ns_a, self.ns_b, self.ns_m
        self._ns(m)
        self.receiver_addr = "10.254.2.1"
        _run(["ip", "link", "add", self.dev_a, "netns", a, "type", "veth", "peer", "name", self.dev_ma, "netns", m])
        _run(["ip", "link", "add", self.dev_b, "netns", b, "type", "veth", "peer", "name", self.dev_mb, "netns", m])
        self._link(a, self.dev_a, f"{SENDER_ADDR}/24")
        self._link(m, self.dev_ma, "10.254.1.254/24")
        self._link(b, self.dev_b, f"{self.receiver_addr}/24")
        self._link(m, self.dev_mb, "10.254.2.254/24")
        _run(["ip", "-n", a, "route", "add", "default", "via", "10.254.1.254"])
        _run(["ip", "-n", b, "route", "add", "default", "via", "10.254.2.254"])
        self._sysctl(m, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                     "net.ipv4.conf.all.send_redirects=0")
        argv = [sys.executable, "-m", "tcpsim.lab.relay", self.dev_tun, f"{self.rtt_s / 2:.9f}"]
        if self.loss_frac:
            argv += [str(RELAY_MAX_S), f"{self.loss_frac!r}", str(self.loss_seed)]
        relay = self.spawn(m, argv, "relay", cpu=self.relay_cpu, stdout=subprocess.PIPE)
        line = relay.stdout.readline() if relay.stdout else ""
        if not line.startswith("ready"):
            raise LabUnavailable(f"the delay line did not start ({line.strip() or 'no output'})")
        _run(["ip", "-n", m, "link", "set", "dev", self.dev_tun, "mtu", str(self.mtu_bytes)])
        _run(["ip", "-n", m, "link", "set", "dev", self.dev_tun, "up"])
        self._sysctl(m, f"net.ipv4.conf.{self.dev_tun}.rp_filter=0")
        _run(["ip", "-n", m, "route", "add", "default", "dev", self.dev_tun, "table", "100"])
        _run(["ip", "-n", m, "rule", "add", "iif", self.dev_ma, "lookup", "100", "pref", "100"])
        _run(["ip", "-n", m, "rule", "add", "iif", self.dev_mb, "lookup", "100", "pref", "101"])
        self._shape(m, self.dev_mb)  # data towards the receiver
        self._shape(m, self.dev_ma)  # ACKs towards the sender

    # ---------------------------------------------------------------- processes
    def spawn(self, ns: str, argv: Sequence[str], label: str, cpu: Optional[int] = None, **kw) -> subprocess.Popen:
        """Start ``argv`` inside namespace ``ns`` in its own process group (killed by :meth:`close`), on CPU ``cpu``
        alone when one is given (``taskset``)."""
        if cpu is not None:
            argv = ["taskset", "-c", str(cpu), *argv]
        popen = subprocess.Popen(["ip", "netns", "exec", ns, *argv], start_new_session=True, text=True, **kw)
        self._procs.append(_Proc(popen, label))
        return popen

    def exec_args(self, ns: str) -> list[str]:
        return ["ip", "netns", "exec", ns]

    def sysctls(self, names: Sequence[str], ns: Optional[str] = None) -> dict[str, str]:
        """Values of ``names`` as namespace ``ns`` (default: the sender's) sees them (missing ones left out)."""
        out: dict[str, str] = {}
        for name in names:
            proc = _run(["ip", "netns", "exec", ns or self.ns_a, "sysctl", "-n", name], check=False)
            if proc.returncode == 0:
                out[name] = " ".join(proc.stdout.split())
        return out

    def link_stats(self, ns: str, dev: str) -> dict[str, int]:
        """Packets and bytes the device sent and received so far."""
        import json

        proc = _run(["ip", "-n", ns, "-s", "-j", "link", "show", "dev", dev], check=False)
        try:
            st = json.loads(proc.stdout)[0]["stats64"]
        except (ValueError, KeyError, IndexError):
            return {}
        return {"tx_packets": st["tx"]["packets"], "tx_bytes": st["tx"]["bytes"], "rx_packets": st["rx"]["packets"],
                "rx_bytes": st["rx"]["bytes"], "tx_dropped": st["tx"].get("dropped", 0),
                "rx_dropped": st["rx"].get("dropped", 0)}

    def delay_line_drops(self) -> Optional[int]:
        """Packets the relay's devices have dropped so far (None without the relay): its TUN device counts what the
        kernel could not queue to the relay (``tun_net_xmit``) and what the relay could not hand back
        (``tun_get_user``) in its tx and rx ``dropped``, and the middle namespace's veths what they could not
        pass on. Drops the run did not ask for: a run's retransmissions are then partly the path's."""
        if self.delay_line != "relay":
            return None
        total = 0
        for dev in (self.dev_tun, self.dev_ma, self.dev_mb):
            st = self.link_stats(self.ns_m, dev)
            total += int(st.get("tx_dropped", 0)) + int(st.get("rx_dropped", 0))
        return total

    def tcp_counters(self, ns: Optional[str] = None) -> dict[str, int]:
        """Namespace ``ns``'s (default: the sender's) TCP counters of ``/proc/net/netstat`` (``TcpExt``), which the
        kernel keeps per network namespace (``net->mib.net_statistics``): empty if they cannot be read."""
        proc = _run(["ip", "netns", "exec", ns or self.ns_a, "cat", "/proc/net/netstat"], check=False)
        return parse_netstat(proc.stdout) if proc.returncode == 0 else {}

    # ---------------------------------------------------------------- teardown
    def close(self) -> None:
        """Kill what was started here, then delete the namespaces (idempotent; never raises)."""
        for p in self._procs:
            if p.popen.poll() is None:
                try:
                    os.killpg(p.popen.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in self._procs:
            try:
                p.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (p.popen.stdout, p.popen.stderr):
                if stream is not None:
                    stream.close()
        self._procs.clear()
        for name in reversed(self._namespaces):
            for _ in range(3):
                try:
                    if _run(["ip", "netns", "del", name], check=False).returncode == 0:
                        break
                except subprocess.TimeoutExpired:
                    pass
                time.sleep(0.1)
        self._namespaces.clear()
        _OPEN.pop(self.prefix, None)
