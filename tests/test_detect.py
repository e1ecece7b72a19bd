"""``tcpsim machine detect``: a Linux host's own report becomes a machine file that loads, explains and predicts.

The parsing is tested on the text of hosts this project does not run on (an Alder Lake desktop, a Zen 3 server,
a Raspberry Pi 4); the command itself on the host the tests run on, where it is Linux.
"""

import platform
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.cli import main
from tcpsim.errors import ConfigError
from tcpsim.machine.cpuid import microarch_of, parse_cpuinfo
from tcpsim.machine.detect import (HostReport, NicReport, config_hz, default_interface, linux_version_part,
                                   pcie_bus_name, render)
from tcpsim.machine.lookup import microarch_factor, part_names
from tcpsim.machine.spec import load_machine


def _x86(vendor, family, model, name, n=4, cores=4, siblings=4, mhz="800.000"):
    block = (f"processor\t: {{i}}\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
             f"model name\t: {name}\ncpu MHz\t\t: {mhz}\nphysical id\t: 0\nsiblings\t: {siblings}\n"
             f"cpu cores\t: {cores}\n")
    return "\n".join(block.format(i=i) for i in range(n))


ALDER_LAKE = _x86("GenuineIntel", 6, 151, "12th Gen Intel(R) Core(TM) i7-12700", n=20, cores=12, siblings=20)
ZEN3 = _x86("AuthenticAMD", 25, 1, "AMD EPYC 7543 32-Core Processor", n=64, cores=32, siblings=64)
UNKNOWN_INTEL = _x86("GenuineIntel", 6, 250, "Intel(R) Future", n=2, cores=2, siblings=2)
PI4 = "\n".join(f"processor\t: {i}\nBogoMIPS\t: 108.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                f"CPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n" for i in range(4))
PI4 += "\nHardware\t: BCM2835\nRevision\t: c03114\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"


@pytest.mark.parametrize("text, machine, arch, counts", [
    (ALDER_LAKE, "x86_64", "golden-cove", (1, 12, 1)),
    (ZEN3, "x86_64", "zen3", (1, 32, 2)),
    (PI4, "aarch64", "cortex-a72", (1, 4, 1)),
])
def test_a_processor_is_told_by_its_family_and_model(text, machine, arch, counts):
    cpu = parse_cpuinfo(text, machine)
    assert microarch_of(cpu)[0] == arch
    assert (cpu.sockets, cpu.cores_per_socket, cpu.threads_per_core) == counts
    microarch_factor(arch)  # the catalog knows every class the tables name


def _with_flags(text, flags):
    return text.replace("cpu cores", f"flags\t\t: {flags}\ncpu cores")


@pytest.mark.parametrize("model, flags, arch", [
    (167, "fpu sse2 avx512f fsrm", "sunny-cove"),  # Rocket Lake, flags and model agree
    (167, "fpu sse2 avx512f fsrm amx_tile", "golden-cove"),  # a VM's template: model 167 on AMX silicon
    (85, "fpu avx512f avx512_fp16", "golden-cove"),
    (207, "fpu amx_tile", "golden-cove"),  # Emerald Rapids: the flag proves no more than its model
    (197, "fpu amx_tile", "lion-cove"),  # a newer core than the flag's floor keeps its own class
])
def test_a_flag_the_silicon_must_have_bounds_the_core_from_below(model, flags, arch):
    """A hypervisor can report another model number but cannot show a feature the silicon lacks (validation/README.md,
    "A core's flags bound its microarchitecture from below")."""
    cpu = parse_cpuinfo(_with_flags(_x86("GenuineIntel", 6, model, "Intel(R) Xeon(R) Processor", n=2, cores=2,
                                         siblings=2), flags))
    found, how = microarch_of(cpu)
    assert found == arch
    assert ("flags show" in how) == (arch != microarch_of(replace(cpu, flags=frozenset()))[0])


def test_the_raspberry_pi_is_named_by_its_board():
    assert parse_cpuinfo(PI4, "aarch64").model_name == "Raspberry Pi 4 Model B Rev 1.4"


def test_an_unknown_core_gets_its_isas_usual_class_and_says_so():
    arch, how = microarch_of(parse_cpuinfo(UNKNOWN_INTEL))
    assert arch == "skylake" and "not in tcpsim's table" in how and "set [cpu] microarch" in how


def test_every_class_the_tables_name_is_in_the_catalog():
    from tcpsim.machine import cpuid

    for arch in list(cpuid._INTEL_FAMILY6) + list(cpuid._ARM_PARTS) + list(cpuid._USUAL.values()):
        microarch_factor(arch)
    for family, model in ((0x17, 0x01), (0x17, 0x71), (0x19, 0x21), (0x19, 0x61), (0x1A, 0x02), (0xF, 0x05)):
        assert cpuid._amd(family, model) is not None


@pytest.mark.parametrize("speed, width, name", [
    ("8.0 GT/s PCIe", "4", "pcie-gen3-x4"), ("2.5 GT/s PCIe", "1", "pcie-gen1-x1"), ("5 GT/s", "8", "pcie-gen2-x8"),
    ("16.0 GT/s PCIe", "12", "pcie-gen4-x8"), ("Unknown", "4", None), (None, None, None), ("8.0 GT/s PCIe", "0", None),
])
def test_a_pcie_link_names_a_catalog_bus(speed, width, name):
    assert pcie_bus_name(speed, width) == name
    if name:
        assert name in part_names("bus")


@pytest.mark.parametrize("release, part", [
    ("6.18.44-fc-v657", "linux-6.18"), ("6.8.0-45-generic", "linux-6.8"), ("5.4.0-150-generic", "linux-5.4"),
    ("5.14.0-427.el9.x86_64", "linux-5.14"), ("3.10.0-1160.el7.x86_64", "linux-3.10"), ("2.6.32-754.el6", "linux-2.6"),
    ("2.6.18-398.el5", "linux-2.4"), ("2.4.20", "linux-2.4"), ("9.1.0", "linux-6.12"),
])
def test_the_kernel_takes_its_own_release_else_the_newest_rules_not_newer(release, part):
    """Its own release where tcpsim takes it (2.6.32 on: 5.4 gets 4.20's tcp_rmem, not 4.19's), else the newest
    named rules not newer than it."""
    assert linux_version_part(release)[0] == part


def test_a_release_that_is_not_linux_is_one_line():
    with pytest.raises(ConfigError, match="kernel release"):
        linux_version_part("Darwin")


def test_the_default_route_names_the_interface():
    route = ("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
             "eth1\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
             "eth0\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\n")
    assert default_interface(route) == "eth0"
    assert default_interface(route.splitlines()[0]) is None


def _host(cpu_text, nic, machine="x86_64", **kw):
    cpu = parse_cpuinfo(cpu_text, machine)
    return HostReport(cpu=cpu, clock_hz=4.9e9, clock_how="cpufreq", nic=nic, kernel_release="6.8.0-45-generic",
                      sysctls={"net.core.rmem_max": "212992", "net.ipv4.tcp_rmem": "4096 131072 6291456",
                               "net.ipv4.tcp_congestion_control": "bbr"}, **kw)


DESKTOP_NIC = NicReport(iface="eno1", driver="e1000e", speed_mbps=100, mtu=1500, pcie_gts=None, pcie_width=None,
                        rx_ring=256, tx_ring=256, rx_usecs=3, rx_frames=0, adaptive_rx=False)
SERVER_NIC = NicReport(iface="ens1f0", driver="ice", speed_mbps=25000, mtu=9000, pcie_gts=16.0, pcie_width=16,
                       rx_ring=2048, tx_ring=2048, rx_usecs=50, rx_frames=0, adaptive_rx=False)
ODD_NIC = NicReport(iface="enp3s0", driver="atlantic", speed_mbps=10000, mtu=1500, pcie_gts=8.0, pcie_width=4,
                    rx_ring=None, tx_ring=None, rx_usecs=None, rx_frames=None, adaptive_rx=None)


@pytest.mark.parametrize("flags, guest", [("fpu sse2 hypervisor avx2", True), ("fpu sse2 avx2", False)])
def test_a_guest_is_told_its_vcpus_may_not_run_at_its_clock(tmp_path, flags, guest):
    """A guest's file says that a vCPU's pace need not be its clock's and how to see it (validation/README.md, "What the
    fourth machine gave"); the file still loads."""
    text = render(_host(_with_flags(ZEN3, flags), SERVER_NIC), "box")
    assert ("# note: a virtual machine (/proc/cpuinfo flag hypervisor)" in text) == guest
    (tmp_path / "box.toml").write_text(text)
    assert load_machine(str(tmp_path / "box.toml")).parts.cpu.clock_hz == pytest.approx(4.9e9)


@pytest.mark.parametrize("cpu_text, nic, machine", [
    (ALDER_LAKE, DESKTOP_NIC, "x86_64"), (ZEN3, SERVER_NIC, "x86_64"), (PI4, ODD_NIC, "aarch64"),
    (ZEN3, None, "x86_64"),
])
def test_the_file_written_loads_and_says_where_each_value_came_from(tmp_path, cpu_text, nic, machine):
    text = render(_host(cpu_text, nic, machine, copy_bw_Bps=2.1e10), "box")
    path = tmp_path / "box.toml"
    path.write_text(text)
    m = load_machine(str(path))
    assert m.parts.cpu.clock_hz == pytest.approx(4.9e9)
    assert m.parts.memory.copy_bw_Bps == pytest.approx(2.1e10)
    assert m.parts.os.name == "linux-6.8"
    assert m.platform.os.max_sockbuf_bytes == 212992
    assert "bbr is not modelled" in text  # an ignored sysctl is said, not dropped silently
    if nic is not None:
        assert m.parts.nic.port_rate_bps == nic.speed_mbps * 1e6  # the negotiated rate, not the card's best
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "name", "source", "hardware", "os =")) and "[" not in line:
            assert "#" in line, line  # every value carries where it came from


def test_an_intel_dynamic_mode_keeps_the_catalogs_delay_and_a_set_delay_is_taken(tmp_path):
    from tcpsim.machine.lookup import nic_part

    for nic, delay_s in ((DESKTOP_NIC, None), (SERVER_NIC, 50e-6)):
        path = tmp_path / f"{nic.iface}.toml"
        path.write_text(render(_host(ZEN3, nic), "box"))
        m = load_machine(str(path))
        expected = delay_s if delay_s is not None else nic_part(m.parts.nic.name).coalesce_delay_s
        assert m.parts.nic.coalesce_delay_s == pytest.approx(expected)


def test_without_a_memory_probe_the_file_says_the_memory_is_assumed(tmp_path):
    text = render(_host(ZEN3, SERVER_NIC), "box")
    assert "ASSUMED, not measured" in text


def test_an_unknown_driver_is_a_part_of_its_own(tmp_path):
    path = tmp_path / "odd.toml"
    path.write_text(render(_host(PI4, ODD_NIC, "aarch64"), "odd"))
    m = load_machine(str(path))
    assert m.parts.nic.driver_class == "atlantic" and m.parts.bus.name == "pcie-gen3-x4"


linux_only = pytest.mark.skipif(platform.system() != "Linux" or not Path("/proc/cpuinfo").exists(),
                                reason="machine detect reads Linux's /proc and /sys")


@linux_only
def test_detect_on_this_host_writes_a_file_that_predicts(tmp_path, capsys):
    out = tmp_path / "here.toml"
    assert main(["machine", "detect", "--no-memory-probe", "--name", "here", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    assert main(["machine", "show", str(out)]) == 0
    assert "file here.toml" in capsys.readouterr().out
    slow = ["--rate", "10mbit", "--rtt", "1ms", "--sockbuf", "64k"]  # below any port the host's NIC may have
    assert main(["predict", "--machine", str(out), *slow]) == 0
    assert "goodput" in capsys.readouterr().out


@linux_only
@pytest.mark.parametrize("argv, field", [(["--iface", "no-such-if0"], "iface"), (["--name", "a b"], "name"),
                                         (["--wake-latency"], "--wake-latency"),
                                         (["--no-wake-latency"], "--no-wake-latency")])
def test_detect_bad_input_is_one_line(capsys, argv, field):
    assert main(["machine", "detect", "--no-memory-probe", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and field in err and "Traceback" not in err


_u32 = st.integers(0, 2**32 - 1)


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=400), machine=st.sampled_from(["x86_64", "aarch64", "riscv64", ""]))
def test_any_cpuinfo_text_parses_to_a_known_class(text, machine):
    cpu = parse_cpuinfo(text, machine)
    microarch_factor(microarch_of(cpu)[0])
    assert cpu.logical_cpus >= 1 and cpu.sockets >= 1 and cpu.cores_per_socket >= 1 and cpu.threads_per_core >= 1


@settings(max_examples=25, deadline=None)
@given(driver=st.sampled_from(["e1000e", "ice", "virtio_net", "veth", "atlantic", None]), speed=_u32, rx_ring=_u32,
       tx_ring=_u32, usecs=_u32, frames=_u32, adaptive=st.booleans(), gts=st.sampled_from([None, 2.5, 8.0, 64.0]),
       width=st.sampled_from([None, 0, 1, 3, 32]), clock_hz=st.floats(0, 1e12))
def test_whatever_the_kernel_reports_the_file_loads(tmp_path_factory, driver, speed, rx_ring, tx_ring, usecs, frames,
                                                    adaptive, gts, width, clock_hz):
    nic = NicReport(iface="x0", driver=driver, speed_mbps=speed or None, mtu=1500, pcie_gts=gts, pcie_width=width,
                    rx_ring=rx_ring or None, tx_ring=tx_ring or None, rx_usecs=usecs, rx_frames=frames,
                    adaptive_rx=adaptive)
    host = HostReport(cpu=parse_cpuinfo(ZEN3), clock_hz=clock_hz, clock_how="cpufreq", nic=nic,
                      kernel_release="5.15.0-1-generic")
    path = tmp_path_factory.mktemp("any") / "any.toml"
    path.write_text(render(host, "any"))
    load_machine(str(path))


two_cpus = pytest.mark.skipif(len(getattr(__import__("os"), "sched_getaffinity", lambda _: {0})(0)) < 2,
                              reason="the wake-up probe needs two CPUs")


def test_probe_values_go_to_fixed_cpu_and_are_the_platforms(tmp_path):
    probes = {"per_syscall_s": 5e-7, "wake_cost_s": [[1e-5, 4e-7], [2e-3, 7.5e-6]],
              "wake_latency_s": [[1e-4, 1.2e-5], [8e-3, 1.1e-4]]}
    host = HostReport(cpu=parse_cpuinfo(ZEN3), clock_hz=3.7e9, clock_how="cpufreq", nic=SERVER_NIC,
                      kernel_release="6.8.0-45-generic", probes=probes, probe_notes=("measured",))
    path = tmp_path / "probed.toml"
    path.write_text(render(host, "probed"))
    cpu = load_machine(str(path)).platform.cpu
    assert cpu.per_syscall_s == 5e-7 and cpu.wake_cost_s == ((1e-5, 4e-7), (2e-3, 7.5e-6))
    assert cpu.wake_latency_s == ((1e-4, 1.2e-5), (8e-3, 1.1e-4))


@linux_only
@two_cpus
@pytest.mark.parametrize("latency", [False, True])
@pytest.mark.parametrize("iperf3", [None, {"per_syscall_s": 2.8e-7, "per_syscall_rx_s": 8.2e-7}])
def test_the_probes_measure_a_system_call_and_a_wake_up_table(monkeypatch, iperf3, latency):
    """The probes, and iperf3's own write and read where the host can run them (here faked: its lab run is
    ``tcpsim.lab.rxtrace``'s, tested there); where it cannot, the probes' figures stay and the notes say why. The
    wake-up latency unless told not to (validation/README.md, "What the latency gave on a third core"), and the file
    says so either way."""
    from tcpsim.lab.wakeprobe import LATENCY_GAPS_S
    from tcpsim.machine import detect

    monkeypatch.setattr(detect, "_iperf3_costs", lambda: (iperf3, "iperf3's own" if iperf3 else "no iperf3 here"))
    measured, notes = detect.measure_probes(count=20, read_s=0.1, latency=latency)
    assert 1e-8 < measured["per_syscall_s"] < 1e-3
    assert 1e-8 < measured.get("per_syscall_rx_s", 1e-6) < 1e-3  # absent only if no pass was saturated (said)
    assert [g for g, _ in measured["wake_cost_s"]] == list(detect.WAKE_GAPS_S)
    assert all(c >= 0 for _, c in measured["wake_cost_s"])
    if latency:
        assert [g for g, _ in measured["wake_latency_s"]] == list(LATENCY_GAPS_S)
        assert all(0 < lateness < 0.1 for _, lateness in measured["wake_latency_s"])
    else:
        assert "wake_latency_s" not in measured
        assert any(n.startswith("wake_latency_s not measured: wake-ups run on time (tcpsim machine detect --probes "
                                "measures it unless told --no-wake-latency") for n in notes)
    if iperf3:
        assert {k: measured[k] for k in iperf3} == iperf3 and len(notes) == 3 and "iperf3's own" in notes[0]
    else:
        assert len(notes) == 5 and "not iperf3's own: no iperf3 here" in notes[-1]


@linux_only
@two_cpus
def test_spin_measures_the_latency_after_short_idles_too(monkeypatch):
    """``--spin`` (validation/README.md, "What step 2 from the short idles gave"): the spinning probe's ten gaps, from
    10 us of idle, and the note says how it was measured."""
    from tcpsim.lab import wakeprobe
    from tcpsim.machine import detect

    asked = []
    real = wakeprobe.probe_wake

    def spy(gap, count, cpus, spin=False):
        asked.append(spin)
        return real(gap, 5, cpus, spin)

    monkeypatch.setattr(detect, "_iperf3_costs", lambda: (None, "no iperf3 here"))
    monkeypatch.setattr(wakeprobe, "probe_wake", spy)
    measured, notes = detect.measure_probes(count=20, read_s=0.1, latency=True, spin=True)
    assert [g for g, _ in measured["wake_latency_s"]] == list(wakeprobe.SPIN_LATENCY_GAPS_S)
    assert asked == [True] * len(wakeprobe.SPIN_LATENCY_GAPS_S)
    assert any(n.startswith("wake_latency_s: python -m tcpsim.lab.wakeprobe --spin, the waker spinning") for n in notes)


def test_spin_without_the_latency_it_measures_is_one_line(capsys):
    from tcpsim.cli import main

    for argv in (["machine", "detect", "--spin"], ["machine", "detect", "--probes", "--no-wake-latency", "--spin"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--spin" in err


@linux_only
@two_cpus
def test_a_latency_probe_that_fails_leaves_wake_ups_on_time_and_says_why(monkeypatch):
    from tcpsim.lab import wakeprobe
    from tcpsim.machine import detect

    def refuse(*_a, **_k):
        raise RuntimeError("the wake-up probe's reader returned no measurement")

    monkeypatch.setattr(detect, "_iperf3_costs", lambda: (None, "no iperf3 here"))
    monkeypatch.setattr(wakeprobe, "probe_wake", refuse)
    measured, notes = detect.measure_probes(count=20, read_s=0.1, latency=True)
    assert "wake_latency_s" not in measured and "wake_cost_s" in measured
    assert any(n.startswith("wake_latency_s not measured (the wake-up probe's reader") for n in notes)


def _fake_trace(reader_busy, writer=True):
    tools = [{"process": "reader", "user_s_per_s": 0.2, "system_s_per_s": reader_busy - 0.2}]
    if writer:
        tools.append({"process": "writer", "user_s_per_s": 0.05, "system_s_per_s": 0.3, "cpu_s_per_call": 2.8e-7})
    return lambda *a, **k: {"tools_cpu": tools, "reader_per_read_s": 8.1e-7}


@pytest.mark.parametrize("trace, costs, said", [
    (_fake_trace(1.0), {"per_syscall_s": 2.8e-7, "per_syscall_rx_s": 8.1e-7}, "rxtrace --untraced"),
    (_fake_trace(0.6), None, "0.60 CPU-s a second busy, not saturated"),
    (_fake_trace(1.0, writer=False), None, "no iperf3 reader and writer"),
])
def test_iperf3s_own_write_and_read_need_a_saturated_reader(monkeypatch, trace, costs, said):
    """A reader that idles spends part of its time not reading, so its time per read is not a read's cost."""
    from tcpsim.lab import rxtrace

    monkeypatch.setattr(rxtrace, "_trace_run", trace)
    got, how = rxtrace.iperf3_call_costs()
    assert got == costs and said in how


def _fake_sysfs(root: Path) -> Path:
    """A /sys/class/net with a bond over a PCIe NIC and a wireless card (files only, no ioctl answers)."""
    eth = root / "eth0"
    (eth / "device").mkdir(parents=True)
    (eth / "speed").write_text("1000\n")
    (eth / "mtu").write_text("1500\n")
    (eth / "device" / "current_link_speed").write_text("2.5 GT/s PCIe\n")
    (eth / "device" / "current_link_width").write_text("1\n")
    for q, mask in (("rx-0", "0\n"), ("rx-1", "00000000,0000000c\n"), ("tx-0", None)):
        (eth / "queues" / q).mkdir(parents=True)
        if mask is not None:
            (eth / "queues" / q / "rps_cpus").write_text(mask)
    bond = root / "bond0"
    bond.mkdir()
    (bond / "lower_eth0").symlink_to(eth)
    wl = root / "wlp2s0"
    (wl / "device").mkdir(parents=True)
    (wl / "wireless").mkdir()
    return root


def test_a_bond_is_described_by_its_device_and_a_wireless_link_says_what_is_not_modelled(tmp_path):
    from tcpsim.machine.detect import read_nic

    sys_net = _fake_sysfs(tmp_path)
    bond = read_nic("bond0", str(sys_net))
    assert bond.speed_mbps == 1000 and bond.pcie_gts == 2.5 and bond.pcie_width == 1 and "eth0" in bond.note
    assert (bond.rx_queues, bond.rps_cpus) == (2, 2)  # rx-0 and rx-1 (tx-0 is not one); rx-1 steers to CPUs 2, 3
    assert read_nic("wlp2s0", str(sys_net)).rx_queues is None
    assert "wireless" in read_nic("wlp2s0", str(sys_net)).note
    with pytest.raises(ConfigError, match="eth0"):
        read_nic("nope0", str(sys_net))


@pytest.mark.parametrize("cpu_text, machine, part", [
    (ALDER_LAKE, "x86_64", "core-i7-12700"), (PI4, "aarch64", "bcm2711"), (ZEN3, "x86_64", "epyc-7543"),
    (UNKNOWN_INTEL, "x86_64", None)])
def test_a_catalog_processor_is_named_as_the_catalogs_part(tmp_path, cpu_text, machine, part):
    path = tmp_path / "named.toml"
    path.write_text(render(_host(cpu_text, None, machine), "named"))
    cpu = load_machine(str(path)).parts.cpu
    assert (cpu.name == part) if part else cpu.name == "named-cpu"
    assert cpu.clock_hz == pytest.approx(4.9e9)  # the clock the host reports, over the catalog's where they differ


@pytest.mark.parametrize("nic, spread", [
    (replace(SERVER_NIC, rx_queues=1), False),             # ice spreads by RSS; this one has one queue
    (replace(SERVER_NIC, rx_queues=8), None),              # as its part: no row
    (replace(DESKTOP_NIC, rx_queues=1, rps_cpus=4), True),  # one queue, RPS over four CPUs
    (replace(DESKTOP_NIC, rx_queues=1), None),
    (replace(ODD_NIC, rx_queues=4), True),                 # a driver of its own: always said
])
def test_receive_queues_and_rps_decide_whether_interrupts_spread(tmp_path, nic, spread):
    text = render(_host(ZEN3, nic), "box")
    rows = [line for line in text.splitlines() if line.startswith("interrupts_spread")]
    assert len(rows) == (spread is not None)
    path = tmp_path / "box.toml"
    path.write_text(text)
    m = load_machine(str(path))
    if spread is not None:
        assert m.parts.nic.interrupts_spread is spread and "queues" in rows[0]
        assert m.platform.cpu.interrupts_on_one_cpu is (not spread)


def test_a_host_whose_default_qdisc_is_fq_is_paced(tmp_path):
    host = _host(ZEN3, SERVER_NIC)
    text = render(replace(host, sysctls={**host.sysctls, "net.core.default_qdisc": "fq"}), "box")
    assert "fq_qdisc = true" in text
    path = tmp_path / "box.toml"
    path.write_text(text)
    m = load_machine(str(path))
    assert m.platform.os.fq_qdisc
    plain = render(replace(host, sysctls={**host.sysctls, "net.core.default_qdisc": "fq_codel"}), "box")
    assert "fq_qdisc" not in plain


def test_the_kernels_tick_rate_goes_to_the_os_part_where_it_is_not_the_default(tmp_path):
    """CUBIC counts its time in the kernel's ticks (``OsTcp.hz``): a kernel built with ``CONFIG_HZ=1000`` says so in
    the file; 250, the default, and an unreadable config write nothing."""
    assert config_hz("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n") == 1000
    assert config_hz("# CONFIG_HZ is not set\n") is None
    host = _host(ZEN3, SERVER_NIC)
    text = render(replace(host, config_hz=1000), "box")
    assert "hz = 1000" in text
    path = tmp_path / "box.toml"
    path.write_text(text)
    m = load_machine(str(path))
    assert m.platform.os.hz == 1000
    for quiet in (250, None):
        assert "\nhz = " not in render(replace(host, config_hz=quiet), "box")
