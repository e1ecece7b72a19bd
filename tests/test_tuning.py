"""tcpsim.tuning: the sources' own scripts parse and map onto the model with each OS's semantics; bad lines
name their line number.

The scripts below are copied from the seed documents as printed (copying artefacts included, and said so).
"""

from dataclasses import replace

import pytest

from tcpsim.config import TcpOptions
from tcpsim.errors import ConfigError, TuningFileError
from tcpsim.platform import Platform, os_defaults
from tcpsim.tuning import IGNORABLE, KNOBS, apply_tuning, parse_tuning

LINUX = Platform(name="linux-test", os=os_defaults("linux"))
SOLARIS = Platform(name="solaris-test", os=os_defaults("solaris"))
BSD = Platform(name="bsd-test", os=os_defaults("bsd"))

# 10 GbE report (003), Appendix B (set_normal) as the author ran it: one command per line.
APPENDIX_B = """#! /bin/tcsh
sysctl -w net.ipv4.tcp_rmem="4096 87380 174760"
sysctl -w net.ipv4.tcp_wmem="4096 16384 131072"
sysctl -w net.ipv4.tcp_mem="97280 97792 98304"
sysctl -w net.core.netdev_max_backlog=300
sysctl -w net.core.rmem_default=65535
sysctl -w net.core.wmem_default=65535
sysctl -w net.core.rmem_max=65535
sysctl -w net.core.wmem_max=65535
sysctl -w net.core.optmem_max=20480
sysctl -w net.ipv4.tcp_sack=1
sysctl -w net.ipv4.tcp_timestamps=1
sysctl -w net.ipv4.tcp_tw_recycle=0
sysctl -w net.ipv4.tcp_tw_reuse=0
ifconfig eth2 down; rmmod ixgb
modprobe ixgb
ifup /etc/sysconfig/network-scripts/ifcfg-eth2 boot
ifconfig eth2 up
"""

# Appendix B as the seed text prints it: the PDF extraction moved the end of the tcp_wmem line above it.
APPENDIX_B_AS_PRINTED = """
#! /bin/tcsh
sysctl -w net.ipv4.tcp_rmem="4096
                                         87380 174760"
                                         16384 131072"
sysctl -w net.ipv4.tcp_wmem="4096
sysctl -w net.ipv4.tcp_mem="97280
"""

# Appendix C (set_ktuned), verbatim: duplicate lines, and tcp_rmem/tcp_wmem/tcp_mem with two numbers.
APPENDIX_C = """#! /bin/tcsh

sysctl -w net.ipv4.tcp_sack=0
sysctl -w net.ipv4.tcp_timestamps=0
sysctl -w net.core.rmem_default=524287
sysctl -w net.core.wmem_default=524287
sysctl -w net.core.rmem_max=524287
sysctl -w net.core.wmem_max=524287
sysctl -w net.core.wmem_max=524287
sysctl -w net.core.optmem_max=524287
sysctl -w net.core.netdev_max_backlog=300000
sysctl -w net.ipv4.tcp_rmem="10000000 100000000"
sysctl -w net.ipv4.tcp_wmem="10000000 10000000"
sysctl -w net.ipv4.tcp_wmem="10000000 10000000"
sysctl -w net.ipv4.tcp_mem="10000000 100000000"
sysctl -w net.ipv4.tcp_tw_recycle=1
sysctl -w net.ipv4.tcp_tw_recycle=1
"""

# Appendix D (set_improved), verbatim: the driver options wrap "XsumTX=1" onto line 17.
APPENDIX_D = """#! /bin/tcsh
sysctl -w net.ipv4.tcp_sack=0
sysctl -w net.ipv4.tcp_timestamps=0
sysctl -w net.core.rmem_default=524287
sysctl -w net.core.wmem_default=524287
sysctl -w net.core.rmem_max=524287
sysctl -w net.core.wmem_max=524287
sysctl -w net.core.optmem_max=524287
sysctl -w net.core.netdev_max_backlog=300000
sysctl -w net.ipv4.tcp_rmem="10000000 10000000 10000000"
sysctl -w net.ipv4.tcp_wmem="10000000 10000000 10000000"
sysctl -w net.ipv4.tcp_mem="10000000 10000000 10000000"
sysctl -w net.ipv4.tcp_tw_recycle=1
sysctl -w net.ipv4.tcp_tw_reuse=1
ifconfig eth2 down; rmmod ixgb
modprobe ixgb RxIntDelay=0 RxDescriptors=2048 TxDescriptors=2048 XsumRX=1
XsumTX=1
ifup /etc/sysconfig/network-scripts/ifcfg-eth2 boot
ifconfig eth2 mtu 16114;ifconfig eth2 up
"""

# Appendix E (full tuning, Linux32), verbatim: quoted values broken over two lines.
APPENDIX_E = """#! /bin/tcsh
sysctl -w net.ipv4.tcp_sack=0
sysctl -w net.ipv4.tcp_timestamps=0
sysctl -w net.core.rmem_default=524287
sysctl -w net.core.wmem_default=524287
sysctl -w net.core.rmem_max=524287
sysctl -w net.core.wmem_max=524287
sysctl -w net.core.optmem_max=81920
sysctl -w net.core.netdev_max_backlog=30000
sysctl -w net.ipv4.tcp_rmem="409600 873800
                                            1747600"
sysctl -w net.ipv4.tcp_wmem="409600 163840
                                           1310720"
sysctl -w net.ipv4.tcp_mem="972800 977920
                                             983040"
sysctl -w net.ipv4.tcp_tw_recycle=1
sysctl -w net.ipv4.tcp_tw_reuse=1
ifconfig eth2 down; rmmod ixgb
modprobe ixgb RxIntDelay=0 RxDescriptors=2048 TxDescriptors=2048 XsumRX=1
XsumTX=1
ifup /etc/sysconfig/network-scripts/ifcfg-eth2 boot
ifconfig eth2 mtu 16114;ifconfig eth2 up
"""

# VirtualBox note (001), "Tuning commands".
VBOX_SOLARIS = """ndd -set /dev/tcp tcp_xmit_hiwat 983040
ndd -set /dev/tcp tcp_recv_hiwat 983040
ndd -set /dev/tcp tcp_max_buf 4194304
"""
VBOX_LINUX = """sysctl -w net.ipv4.tcp_rmem="40960 1048560 4194304"
sysctl -w net.ipv4.tcp_wmem="40960 196608 4194304"
sysctl -w net.core.rmem_max=4194304
sysctl -w net.core.wmem_max=4194304
"""

# Tru64 best practice (000), step 2b and step 3 (without the "# " root prompt the document prints).
TRU64 = """sysconfig -r inet tcp_sendspace=524288
sysconfig -r inet tcp_recvspace=524288
ifconfig alt0 ipmtu 9000
"""

# Gigabit-NIC article (002), "Configuring Linux and FreeBSD" and the Windows section, as printed.
GIGNIC_FREEBSD = """kern.ipc.maxsockbuf=262144
net.inet.tcp.sendspace=65536
net.inet.tcp.recvspace=65536
net.inet.tcp.rfc1323=1
kern.ipc.nmbclusters=32768
"""
GIGNIC_LINUX = """net.core.wmem_max=8388608
net.core.wmem_default = 65536
net.core.rmem_default = 65536
net.ipv4.tcp_window_scaling=1
net.ipv4.tcp_mem= 98304 131072 196608
"""
GIGNIC_WINDOWS = """TcpWindowSize = 131400
Tcp1323Opts = 3
ForwardBufferMemory 80000
NumForwardPackets 60000
"""


def tuned(platform: Platform, text: str):
    return apply_tuning(platform, parse_tuning(text, "t.conf"), "t.conf")


# ---------------------------------------------------------------- 10 GbE report


def test_appendix_b_is_the_normal_linux_of_the_10gbe_report():
    r = tuned(LINUX, APPENDIX_B)
    os = r.platform.os
    assert (os.default_rcvbuf_bytes, os.default_sndbuf_bytes) == (87380, 16384)
    assert os.max_sockbuf_bytes == 65535 and os.max_sndbuf_bytes == 65535
    assert os.sack and os.timestamps and r.platform.nic.backlog_packets == 300
    assert r.mtu_bytes is None
    ignored = {k.name for k in r.ignored}
    assert {"net.ipv4.tcp_mem", "net.core.rmem_default", "net.core.optmem_max", "net.ipv4.tcp_tw_reuse"} <= ignored


def test_appendix_b_caps_gensinks_setsockopt_and_appendix_c_lifts_the_cap():
    """GenSink asks for 262144: Appendix B's rmem_max 65535 gives 2 x 65535, Appendix C's 524287 gives 2 x 262144."""
    normal = tuned(LINUX, APPENDIX_B).platform
    capped = TcpOptions.for_os(normal.os, sockbuf_bytes=262144)
    assert capped.rcvbuf_bytes == 131070 and capped.sndbuf_bytes == 131070
    kernel = tuned(normal, APPENDIX_C).platform
    full = TcpOptions.for_os(kernel.os, sockbuf_bytes=262144)
    assert full.rcvbuf_bytes == 524288 and full.sndbuf_bytes == 524288
    assert not full.sack and not full.timestamps


def test_appendix_c_two_number_tcp_rmem_sets_min_and_default_only():
    r = tuned(tuned(LINUX, APPENDIX_B).platform, APPENDIX_C)
    assert r.platform.os.default_rcvbuf_bytes == 100_000_000  # the second of "10000000 100000000"
    assert r.platform.os.default_sndbuf_bytes == 10_000_000
    assert r.platform.nic.backlog_packets == 300000
    effect = dict((k.line_no, e) for k, e in r.effects)[12]
    assert "maximum keeps its previous value" in effect


def test_the_third_tcp_rmem_number_bounds_autotuning_where_the_kernel_autotunes():
    r = tuned(LINUX, "net.ipv4.tcp_rmem = 4096 87380 1048576\nnet.ipv4.tcp_wmem = 4096 16384 524288\n")
    assert r.platform.os.rcvbuf_autotune_max_bytes == 1048576
    assert r.platform.os.sndbuf_autotune_max_bytes == 524288
    old = replace(LINUX, os=replace(LINUX.os, rcvbuf_autotune_max_bytes=0))  # a kernel before 2.6.7
    r = tuned(old, "net.ipv4.tcp_rmem = 4096 87380 1048576\n")
    assert r.platform.os.rcvbuf_autotune_max_bytes == 0
    assert "does not do here" in r.effects[0][1]
    off = tuned(LINUX, "net.ipv4.tcp_moderate_rcvbuf = 0\n")
    assert off.platform.os.rcvbuf_autotune_max_bytes == 0


def test_one_number_tcp_rmem_changes_the_minimum_only():
    r = tuned(LINUX, "net.ipv4.tcp_rmem = 8192\n")
    assert r.platform.os.default_rcvbuf_bytes == LINUX.os.default_rcvbuf_bytes
    assert "minimum only" in r.effects[0][1]


def test_appendix_b_as_the_seed_prints_it_is_refused_at_the_stray_line():
    with pytest.raises(TuningFileError) as exc:
        parse_tuning(APPENDIX_B_AS_PRINTED, "set_normal")
    assert exc.value.line_no == 5 and "16384 131072" in exc.value.text
    assert "set_normal:5:" in str(exc.value)


def test_appendix_d_driver_options_and_the_wrapped_line():
    knobs = parse_tuning(APPENDIX_D)
    xsum_tx = next(k for k in knobs if k.name == "ixgb.XsumTX")
    assert xsum_tx.line_no == 17 and xsum_tx.value is True
    r = apply_tuning(replace(LINUX, nic=replace(LINUX.nic, coalesce_delay_s=72 * 1.024e-6)), knobs)
    nic = r.platform.nic
    assert nic.coalesce_delay_s == 0.0 and nic.rx_ring_packets == 2048 and nic.tx_ring_packets == 2048
    assert nic.tx_checksum_offload and nic.rx_checksum_offload
    assert r.mtu_bytes == 16114
    assert r.platform.os.default_rcvbuf_bytes == 10_000_000


def test_appendix_e_quoted_values_broken_over_lines():
    knobs = parse_tuning(APPENDIX_E)
    by_name = {k.name: k for k in knobs}
    assert by_name["net.ipv4.tcp_rmem"].value == (409600, 873800, 1747600)
    assert by_name["net.ipv4.tcp_wmem"].line_no == 12  # the line the statement starts on
    assert by_name["net.ipv4.tcp_tw_recycle"].line_no == 16
    r = apply_tuning(LINUX, knobs)
    assert (r.platform.os.default_rcvbuf_bytes, r.platform.os.default_sndbuf_bytes) == (873800, 163840)
    assert r.platform.nic.backlog_packets == 30000 and r.mtu_bytes == 16114


def test_rx_int_delay_is_in_units_of_1024_ns():
    r = tuned(LINUX, "modprobe ixgb RxIntDelay=72\n")
    assert r.platform.nic.coalesce_delay_s == pytest.approx(72 * 1.024e-6)


@pytest.mark.parametrize("rx, tx", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_checksum_offload_is_set_per_direction(rx, tx):
    start = replace(LINUX, nic=replace(LINUX.nic, rx_checksum_offload=not rx, tx_checksum_offload=not tx))
    nic = tuned(start, f"modprobe ixgb XsumRX={rx} XsumTX={tx}\n").platform.nic
    assert (nic.rx_checksum_offload, nic.tx_checksum_offload) == (bool(rx), bool(tx))
    assert nic.checksum_offload is bool(rx and tx)


# ---------------------------------------------------------------- VirtualBox note, Tru64, Sun blueprint


def test_vbox_solaris_lines_give_the_960_kbyte_window_iperf_printed():
    r = tuned(SOLARIS, VBOX_SOLARIS)
    assert r.platform.os.default_rcvbuf_bytes / 1024 == 960.0
    assert r.platform.os.max_sockbuf_bytes == 4194304


def test_vbox_linux_lines_give_the_192_kbyte_window_iperf_printed():
    r = tuned(LINUX, VBOX_LINUX)
    assert r.platform.os.default_sndbuf_bytes / 1024 == 192.0  # tcp_wmem's middle value
    assert r.platform.os.default_rcvbuf_bytes == 1048560
    assert r.platform.os.sndbuf_autotune_max_bytes == r.platform.os.rcvbuf_autotune_max_bytes == 4194304
    assert TcpOptions.for_os(r.platform.os, sockbuf_bytes=4 << 20).rcvbuf_bytes == 2 * 4194304


def test_tru64_sysconfig_lines_and_ipmtu():
    r = tuned(BSD, TRU64)
    assert r.platform.os.default_sndbuf_bytes == r.platform.os.default_rcvbuf_bytes == 524288
    assert r.mtu_bytes == 9000
    one_line = parse_tuning("sysconfig -r inet tcp_sendspace=524288 tcp_recvspace=524288")
    assert [k.name for k in one_line] == ["tcp_sendspace", "tcp_recvspace"] and {k.line_no for k in one_line} == {1}


def test_sun_blueprint_ndd_knobs():
    text = """ndd -set /dev/tcp tcp_naglim_def 1
ndd -set /dev/tcp tcp_deferred_acks_max 1
ndd -set /dev/tcp tcp_deferred_ack_interval 50
ndd -set /dev/tcp tcp_maxpsz_multiplier 10
"""
    os = tuned(SOLARIS, text).platform.os
    assert os.naglim_bytes == 1 and os.deferred_acks_max == 1 and os.maxpsz_multiplier == 10
    assert os.delack_timeout_s == pytest.approx(0.05)
    assert TcpOptions.for_os(os).nodelay  # tcp_naglim_def 1 disables Nagle
    nine = tuned(SOLARIS, "ndd -set /dev/tcp tcp_local_dacks_max 4\nndd -set /dev/tcp tcp_local_dack_interval 20\n")
    assert nine.platform.os.deferred_acks_max == 4 and nine.platform.os.delack_timeout_s == pytest.approx(0.02)
    assert tuned(SOLARIS, "ndd -set /dev/tcp tcp_deferred_acks_max 0").platform.os.deferred_acks_max == 1



def test_tcp_rcv_push_wait_sets_the_receive_list_limit():
    """Solaris tcp_rcv_push_wait (default 16384); 0 makes every in-order segment readable at once."""
    assert SOLARIS.os.rcv_push_wait_bytes == 16384
    os = tuned(SOLARIS, "ndd -set /dev/tcp tcp_rcv_push_wait 0").platform.os
    assert os.rcv_push_wait_bytes == 0 and TcpOptions.for_os(os).rcv_push_wait_bytes == 0
    assert TcpOptions.for_os(tuned(SOLARIS, "ndd -set /dev/tcp tcp_rcv_push_wait 32768").platform.os) \
        .rcv_push_wait_bytes == 32768


def test_etc_system_ce_taskq_disable_is_known_and_ignored():
    (k,) = parse_tuning("set ce:ce_taskq_disable = 1")
    assert k.target == "ignored" and k.note


# ---------------------------------------------------------------- gigabit-NIC article: FreeBSD, Linux, Windows


def test_gignic_freebsd_settings():
    r = tuned(replace(BSD, os=replace(BSD.os, window_scaling=False, timestamps=False)), GIGNIC_FREEBSD)
    os = r.platform.os
    assert os.max_sockbuf_bytes == 262144 and os.default_sndbuf_bytes == os.default_rcvbuf_bytes == 65536
    assert os.window_scaling and os.timestamps  # rfc1323 is both options
    assert [k.name for k in r.ignored] == ["kern.ipc.nmbclusters"]


@pytest.mark.parametrize("value, on", [("1", True), ("0", False)])
def test_freebsd_rfc3042_sets_limited_transmit(value, on):
    r = tuned(BSD, f"net.inet.tcp.rfc3042={value}")
    assert r.platform.os.limited_transmit is on
    assert TcpOptions.for_os(r.platform.os).limited_transmit is on
    assert not TcpOptions.for_os(BSD.os).limited_transmit and TcpOptions.for_os(os_defaults("linux")).limited_transmit


def test_gignic_linux_settings_raise_the_send_cap_only():
    r = tuned(LINUX, GIGNIC_LINUX)
    os = r.platform.os
    assert os.max_sndbuf_bytes == 8388608
    assert os.max_sockbuf_bytes == LINUX.os.max_sockbuf_bytes  # rmem_max untouched: receive still capped
    assert os.default_rcvbuf_bytes == LINUX.os.default_rcvbuf_bytes  # rmem_default does not reach TCP
    assert {k.name for k in r.ignored} == {"net.core.wmem_default", "net.core.rmem_default", "net.ipv4.tcp_mem"}
    tcp_mem = next(k for k in r.ignored if k.name == "net.ipv4.tcp_mem")
    assert tcp_mem.value == (98304, 131072, 196608) and tcp_mem.note


def test_rmem_max_alone_keeps_the_old_send_cap():
    os = tuned(LINUX, "net.core.rmem_max = 4194304").platform.os
    assert os.max_sockbuf_bytes == 4194304 and os.max_sndbuf_bytes == LINUX.os.max_sockbuf_bytes
    opts = TcpOptions.for_os(os, sockbuf_bytes=1 << 20)
    assert opts.rcvbuf_bytes == 2 << 20 and opts.sndbuf_bytes == 2 * LINUX.os.max_sockbuf_bytes


@pytest.mark.parametrize("opts, ws, ts", [(3, True, True), (1, True, False), (2, False, True), (0, False, False)])
def test_windows_registry_values(opts, ws, ts):
    r = tuned(BSD, GIGNIC_WINDOWS.replace("Tcp1323Opts = 3", f"Tcp1323Opts = {opts}"))
    os = r.platform.os
    assert os.default_rcvbuf_bytes == os.default_sndbuf_bytes == 131400
    assert (os.window_scaling, os.timestamps) == (ws, ts)
    assert {k.name for k in r.ignored} == {"ForwardBufferMemory", "NumForwardPackets"}


def test_reg_file_form():
    text = """Windows Registry Editor Version 5.00

[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters]
"TcpWindowSize"=dword:00020148
"Tcp1323Opts"=dword:00000003
"""
    assert [(k.name, k.value) for k in parse_tuning(text)] == [("TcpWindowSize", 131400), ("Tcp1323Opts", 3)]


# ---------------------------------------------------------------- the other line forms


def test_other_forms_of_the_same_knob():
    forms = ['net.core.rmem_max = 4194304', 'net.core.rmem_max="4194304"', 'sysctl net.core.rmem_max=4194304',
             'sysctl -w net.core.rmem_max=4194304', 'echo 4194304 > /proc/sys/net/core/rmem_max',
             'net.core.rmem_max = 4194304   # trailing comment', 'sysctl -w net/core/rmem_max=4194304']
    for text in forms:
        (k,) = parse_tuning(text)
        assert (k.name, k.value, k.target) == ("net.core.rmem_max", 4194304, "os.max_sockbuf_bytes"), text


def test_several_pairs_on_one_sysctl_line_and_mtu_forms():
    knobs = parse_tuning('sysctl -w net.ipv4.tcp_sack=0 net.ipv4.tcp_rmem="4096 87380 174760"')
    assert [(k.name, k.value) for k in knobs] == [("net.ipv4.tcp_sack", False),
                                                  ("net.ipv4.tcp_rmem", (4096, 87380, 174760))]
    for text in ("ifconfig eth2 mtu 9000", "ifconfig alt0 ipmtu 9000", "ip link set dev eth2 mtu 9000",
                 "ifconfig ce0 mtu 9000 up"):
        assert tuned(LINUX, text).mtu_bytes == 9000, text


def test_comments_blank_lines_and_the_allowed_noise_set_nothing():
    text = "# a comment\n\n; sysctl.conf comment\n#! /bin/tcsh\nrmmod ixgb\nmodprobe ixgb\nmodprobe -r ixgb\n" \
           "ifup /etc/sysconfig/network-scripts/ifcfg-eth2 boot\nifdown eth2\nifconfig eth2 down\n" \
           "ip link set dev eth2 up\n"
    assert parse_tuning(text) == []
    assert len(IGNORABLE) >= 5 and all(len(entry) == 2 for entry in IGNORABLE)


def test_later_lines_win():
    r = tuned(LINUX, "net.ipv4.tcp_sack = 0\nnet.ipv4.tcp_sack = 1\n")
    assert r.platform.os.sack and len(r.effects) == 2


def test_knobs_carry_target_note_and_the_explanation_names_lines():
    r = tuned(LINUX, APPENDIX_C)
    assert all(k.target and k.note for k, _ in r.effects)
    assert all(k.target.startswith(("os.", "nic.", "link.")) or k.target == "ignored" for k in KNOBS.values())
    lines = r.explain().splitlines()
    assert len(lines) == len(r.effects) and lines[0].startswith("line 3: net.ipv4.tcp_sack")


def test_apply_leaves_the_input_platform_alone():
    tuned(LINUX, APPENDIX_C)
    assert LINUX.os == os_defaults("linux")


# ---------------------------------------------------------------- bad lines


@pytest.mark.parametrize("line, why", [
    ("net.ipv4.tcp_magic = 1", "unknown knob 'net.ipv4.tcp_magic'"),
    ("ndd -set /dev/tcp tcp_deferred_acks_interval 100", "tcp_deferred_ack_interval"),
    ("XsumTX=1", "modprobe ixgb XsumTX=N"),
    ("modprobe e1000 RxIntDelay=0", "unknown knob 'e1000.RxIntDelay'"),
    ("tcp_sendspace = 524288", "sysconfig -r inet tcp_sendspace=N"),
    ("sysconfig -r socket tcp_sendspace=524288", "sysconfig -r inet"),
    ("ndd -set /dev/ip tcp_xmit_hiwat 65536", "ndd -set /dev/tcp"),
    ("ethtool -K eth2 tso on", "not a sysctl"),
    ("echo hello", "echo VALUE > /proc/sys"),
    ("ifconfig eth2 promisc", "sets no MTU"),
    ('sysctl -w net.ipv4.tcp_rmem="4096 87380', "unbalanced quote"),
])
def test_unknown_or_malformed_line_names_its_line(line, why):
    with pytest.raises(TuningFileError) as exc:
        parse_tuning(f"# tuned\nnet.core.rmem_max = 4194304\n{line}\n", "my.conf")
    assert exc.value.line_no == 3 and exc.value.path == "my.conf"
    assert why in str(exc.value) and str(exc.value).startswith("my.conf:3:")


@pytest.mark.parametrize("line", [
    "net.core.rmem_max = 12k", "net.core.rmem_max = -1", "net.core.rmem_max = 1 2",
    'net.ipv4.tcp_rmem = "1 2 3 4"', "net.ipv4.tcp_sack = yes", "ndd -set /dev/tcp tcp_deferred_ack_interval 0",
    "modprobe ixgb RxDescriptors=10", "Tcp1323Opts = 4", "ifconfig eth2 mtu 40",
])
def test_bad_value_is_an_error_with_the_line(line):
    with pytest.raises(TuningFileError) as exc:
        parse_tuning(f"\n{line}\n")
    assert exc.value.line_no == 2 and "bad value" in str(exc.value)
    assert isinstance(exc.value, ConfigError)


def test_a_value_the_model_refuses_is_caught_at_apply_with_its_line():
    knobs = parse_tuning("# ok\nTcpWindowSize = 0\n")
    with pytest.raises(TuningFileError) as exc:
        apply_tuning(BSD, knobs, "win.reg")
    assert exc.value.line_no == 2 and "default_sndbuf_bytes" in str(exc.value)


def test_a_knob_of_another_os_family_is_refused():
    with pytest.raises(TuningFileError) as exc:
        tuned(LINUX, "# solaris\nndd -set /dev/tcp tcp_xmit_hiwat 65536\n")
    assert exc.value.line_no == 2 and "Solaris" in str(exc.value)
    with pytest.raises(TuningFileError):
        tuned(SOLARIS, "net.core.rmem_max = 1048576")
    # driver and registry knobs belong to no OS family
    assert tuned(SOLARIS, "modprobe ixgb RxIntDelay=0\nTcpWindowSize = 65536\n").platform.nic.coalesce_delay_s == 0


def test_a_modern_linux_sysctl_dump_is_accepted_and_each_knob_says_what_it_did():
    """The lab sweep's own sysctl header (a Linux 6.18 host): every knob is accepted; the ones a kernel
    version does not have are ignored for that version, the ones tcpsim does not model say so."""
    from tcpsim.os_versions import os_version

    text = ("net.ipv4.tcp_rmem = 4096 131072 33554432\nnet.ipv4.tcp_adv_win_scale = 1\n"
            "net.ipv4.tcp_autocorking = 1\nnet.ipv4.tcp_limit_output_bytes = 4194304\n"
            "net.ipv4.tcp_notsent_lowat = 4294967295\nnet.ipv4.tcp_slow_start_after_idle = 1\n"
            "net.core.default_qdisc = fq\nnet.ipv4.tcp_ecn = 2\nnet.ipv4.tcp_tso_win_divisor = 4\n")

    def effects(version, autocorking):
        p = replace(Platform(), os=replace(os_version(version), autocorking=autocorking))
        r = apply_tuning(p, parse_tuning(text))
        return r, {k.name: what for k, what in r.effects}

    new, e = effects("linux-6.12", False)
    assert new.platform.os.autocorking and e["net.ipv4.tcp_autocorking"] == "os.autocorking = True"
    assert e["net.ipv4.tcp_adv_win_scale"].startswith("ignored: Linux 6.12")
    assert e["net.ipv4.tcp_limit_output_bytes"] == "os.limit_output_bytes = 4194304"
    assert new.platform.os.limit_output_bytes == 4194304
    assert e["net.ipv4.tcp_tso_win_divisor"] == "os.tso_win_divisor = 4"
    assert TcpOptions.for_os(new.platform.os).tso_win_divisor == 4
    old, e = effects("linux-2.6", False)
    assert not old.platform.os.autocorking
    assert e["net.ipv4.tcp_autocorking"] == "ignored: Linux 2.6.32 has no tcp_autocorking (3.14 on)"
    assert e["net.ipv4.tcp_limit_output_bytes"] == "ignored: Linux 2.6.32 has no TCP small queues (3.6 on)"
    assert e["net.ipv4.tcp_adv_win_scale"] == "os.adv_win_scale = 1"
    assert e["net.ipv4.tcp_tso_win_divisor"].startswith("ignored (not modelled)")
    assert {k.name for k in old.ignored} >= {"net.ipv4.tcp_notsent_lowat", "net.core.default_qdisc", "net.ipv4.tcp_ecn"}
