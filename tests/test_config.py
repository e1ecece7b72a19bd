"""Scenario inputs are frozen and reject bad values with one line naming the field and the range."""

import dataclasses

import pytest

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload
from tcpsim.errors import ConfigError
from tcpsim.platform import Bus, CpuCost, OsTcp, os_defaults


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
    (lambda: OsTcp(min_rto_s=0.0), "os.min_rto_s"),
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


@pytest.mark.parametrize("cls, kw, field", [
    (Link, dict(queue_packets=2.5), "queue_packets"), (Link, dict(rx_on_sending_cpu="yes"), "rx_on_sending_cpu"),
    (TcpOptions, dict(nodelay="yes"), "nodelay"), (TcpOptions, dict(sndbuf_bytes="64k"), "sndbuf_bytes"),
    (Workload, dict(n_streams=1.5), "n_streams"), (Workload, dict(kind=5), "kind"),
    (Budget, dict(record_trace="yes"), "record_trace"), (Host, dict(platform="lab_vm"), "platform"),
    (Host, dict(tcp="x"), "tcp"), (Scenario, dict(link="x"), "link"), (Scenario, dict(seed=1.5), "seed"),
    (OsTcp, dict(family=5), "os.family"), (OsTcp, dict(hz="fast"), "os.hz"),
    (Bus, dict(width_bits=6.5), "bus.width_bits"),
])
def test_a_field_of_the_wrong_type_is_a_config_error_naming_it(cls, kw, field):
    """Compiled, the engine's classes take only the declared types: a float where an int belongs was a TypeError,
    a profile's name where a Platform belongs an AttributeError, each naming nothing."""
    with pytest.raises(ConfigError) as info:
        cls(**kw)
    assert info.value.field == field and len(str(info.value).splitlines()) == 1


def test_numpy_scalars_and_whole_floats_become_plain_numbers():
    """What a notebook's ``np.arange`` or arithmetic gives is taken, as the plain type the field declares."""
    np = pytest.importorskip("numpy")
    link = Link(mtu_bytes=np.int64(9000), rate_bps=np.float32(1e9), rx_on_sending_cpu=np.True_)
    assert (type(link.mtu_bytes), type(link.rate_bps), type(link.rx_on_sending_cpu)) == (int, float, bool)
    assert Workload(n_streams=np.int32(2), write_bytes=65536.0) == Workload(n_streams=2, write_bytes=65536)
    assert Scenario(seed=np.int64(3)).seed == 3 and type(Scenario(seed=np.int64(3)).seed) is int
