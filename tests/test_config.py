"""Scenario inputs are frozen and reject bad values with one line naming the field and the range."""

import dataclasses

import pytest

from tcpsim.config import Budget, Link, Scenario, TcpOptions, Workload
from tcpsim.errors import ConfigError
from tcpsim.platform import CpuCost, OsTcp, os_defaults


@pytest.mark.parametrize("make, field", [
    (lambda: Link(mtu_bytes=67), "mtu_bytes"),
    (lambda: Link(mtu_bytes=65536), "mtu_bytes"),
    (lambda: Link(rate_bps=0), "rate_bps"),
    (lambda: Link(one_way_delay_s=-1e-6), "one_way_delay_s"),
    (lambda: Link(rx_on_sending_cpu="no"), "rx_on_sending_cpu"),
    (lambda: TcpOptions(sndbuf_bytes=0), "sndbuf_bytes"),
    (lambda: TcpOptions(rcvbuf_bytes=-5), "rcvbuf_bytes"),
    (lambda: TcpOptions(delack="sometimes"), "delack"),
    (lambda: Workload(kind="ftp"), "workload.kind"),
    (lambda: Workload(n_streams=0), "n_streams"),
    (lambda: Budget(rel_tol=0), "rel_tol"),
    (lambda: Scenario(seed=-1), "seed"),
    (lambda: CpuCost(per_packet_tx_s=-1.0), "per_packet_tx_s"),
    (lambda: OsTcp(family="plan9"), "os.family"),
])
def test_bad_inputs_raise_one_line(make, field):
    with pytest.raises(ConfigError) as exc:
        make()
    msg = str(exc.value)
    assert msg.startswith(f"{field}=") and "must be" in msg and "\n" not in msg
    assert isinstance(exc.value, ValueError)


def test_inputs_are_frozen():
    link = Link()
    with pytest.raises(dataclasses.FrozenInstanceError):
        link.mtu_bytes = 9000
    assert dataclasses.replace(link, mtu_bytes=9000).mtu_bytes == 9000


def test_linux_setsockopt_doubles_and_caps():
    """socket(7): the kernel doubles the value, capped at rmem_max first."""
    linux = os_defaults("linux")  # rmem_max 131071
    t = TcpOptions.for_os(linux, sockbuf_bytes=262144)
    assert t.rcvbuf_bytes == 2 * 131071
    assert t.rcv_window_bytes == 2 * 131071 - (2 * 131071 >> 2)  # tcp_adv_win_scale 2


def test_bsd_and_solaris_keep_the_request():
    assert TcpOptions.for_os("bsd", sockbuf_bytes=65536).rcvbuf_bytes == 65536
    sol = TcpOptions.for_os("solaris", sockbuf_bytes=65536)
    assert sol.sndbuf_bytes == 65536 and sol.whole_message_segments and sol.delack == "solaris"


def test_linux_autotunes_only_the_buffers_the_application_leaves_unset():
    linux = os_defaults("linux")
    unset = TcpOptions.for_os(linux)
    assert unset.sndbuf_autotune_max_bytes == linux.sndbuf_autotune_max_bytes
    assert unset.rcv_window_autotune_max_bytes == linux.window_bytes(linux.rcvbuf_autotune_max_bytes)
    assert unset.window_limit_bytes > unset.max_window_bytes and unset.sndbuf_limit_bytes > unset.sndbuf_bytes
    snd_set = TcpOptions.for_os(linux, sndbuf_bytes=65536)  # SOCK_SNDBUF_LOCK: the send side stays
    assert snd_set.sndbuf_autotune_max_bytes is None and snd_set.rcv_window_autotune_max_bytes is not None
    both = TcpOptions.for_os(linux, sockbuf_bytes=65536)
    assert both.sndbuf_limit_bytes == both.sndbuf_bytes and both.window_limit_bytes == both.max_window_bytes
    bsd = TcpOptions.for_os("bsd")
    assert bsd.sndbuf_autotune_max_bytes is None and bsd.rcv_window_autotune_max_bytes is None
    assert unset.cwnd_validation and not bsd.cwnd_validation


def test_autotune_limits_below_the_starting_buffer_are_refused():
    with pytest.raises(ConfigError, match="sndbuf_autotune_max_bytes"):
        TcpOptions(sndbuf_bytes=65536, sndbuf_autotune_max_bytes=1024)


def test_window_without_scaling_is_64k_at_most():
    t = TcpOptions(rcvbuf_bytes=1 << 20, window_scaling=False)
    assert t.max_window_bytes == 65535
