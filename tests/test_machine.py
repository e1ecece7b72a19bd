"""tcpsim.machine: machines made of parts. The shipped profiles resolve to exactly the platforms they were
before parts; replacing a part changes no other part; costs follow clock and memory bandwidth; bus
efficiency follows the transactions; the OS rule keeps a profile's settings within a family."""

from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpsim.errors import ConfigError
from tcpsim.machine import Layer, compose, flag_layer, load_machine, part_names
from tcpsim.machine.bus import bus_efficiency, runtime_bus
from tcpsim.machine.compose import DEPENDS_ON
from tcpsim.machine.lookup import bus_part, cpu_part, nic_part
from tcpsim.machine.spec import platform_for
from tcpsim.os_versions import OS_VERSIONS, os_version
from tcpsim.platform import BUS_PRESETS, os_defaults
from tcpsim.profiles import load_platform

LEGACY = Path(__file__).parent / "data" / "legacy_profiles"
MACHINES = ["es40_tru64", "rx2600_ixgb", "se7501_ixgb", "sunfire6800_ce", "p4_linux", "p4_freebsd", "vbox_centos",
            "vbox_opensolaris", "modern_linux", "lab_vm"]


@pytest.mark.parametrize("name", MACHINES + ["ideal"])
def test_every_profile_resolves_to_the_platform_it_was_before_parts(name):
    """tests/data/legacy_profiles holds each profile as main 1c08a75 resolved it, every field explicit (no
    bus preset, whose numbers now come from the transaction model); ``lab_vm`` as it was before it was made of parts
    (29451cf). A deliberate refit that moves a profile replaces its file here in the same commit (``save_platform``
    of the new platform with a full [bus])."""
    assert load_platform(name) == load_platform(LEGACY / f"{name}.toml")


def test_the_profiles_are_made_of_parts_with_named_residuals():
    assert len(MACHINES) == 10
    for name in MACHINES:
        m = load_machine(name)
        fitted = {k for k, v in m.origins.items() if k.startswith("runtime.") and v.startswith("calibration")}
        params = dict(m.platform.fit).get("params", ())
        assert bool(fitted) == bool(params), name  # calibrated profiles, and only they, carry calibration residuals
        assert all(k.startswith(("runtime.cpu.", "runtime.nic.", "runtime.bus.")) for k in fitted)


def _kinds_of(machine):
    return {k: getattr(machine.parts, k) for k in ("cpu", "memory", "bus", "nic", "os")}


KINDS = ("cpu", "memory", "bus", "nic", "os")


def _swap(kind, name):
    """The layer ``--cpu NAME`` (``--bus``, ``--nic``, ``--os``) makes; memory has no flag: a file's [memory] part."""
    return Layer(label="flag", parts={kind: name}, flag_names={kind: f"--{kind}", f"{kind}.part": f"--{kind}"})


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(MACHINES), st.sampled_from(KINDS), st.data())
def test_replacing_one_part_changes_no_other_part(name, kind, data):
    """Issue 21's done-when, over the whole catalog: a part replaced on any profile leaves every other part's
    parameters, and every runtime value made only of the other parts, exactly as they were."""
    value = data.draw(st.sampled_from(part_names(kind)), label=kind)
    before = load_machine(name)
    after = load_machine(name, extra=(_swap(kind, value),))
    assert getattr(after.parts, kind).name == value  # the part was replaced
    for other, part in _kinds_of(before).items():
        if other != kind:
            assert _kinds_of(after)[other] == part, other
    for key, deps in DEPENDS_ON.items():
        if kind not in deps:  # made only of parts that stayed: the same value, residual or not
            kind_, field_ = key.split(".")
            assert getattr(getattr(after.platform, kind_), field_) == getattr(getattr(before.platform, kind_), field_), key


def test_a_new_nic_does_not_bring_the_old_drivers_fitted_timing():
    """The issue's case: the rx2600's fitted 229 us interrupt delay must not follow its CPU to another NIC."""
    rx = load_machine("rx2600_ixgb")
    other = load_machine("rx2600_ixgb", extra=(flag_layer(nic="e1000"),))
    assert rx.platform.nic.coalesce_delay_s == pytest.approx(228.95e-6)
    assert other.platform.nic.coalesce_delay_s == nic_part("e1000").coalesce_delay_s
    assert other.platform.cpu.per_syscall_s == rx.platform.cpu.per_syscall_s  # made of cpu and os: kept
    assert any("coalesce_delay_s" in n and "nic replaced" in n for n in other.notes)


def test_bus_flag_drops_the_fitted_bus_residual_and_says_so():
    rx = load_machine("rx2600_ixgb")
    swapped = load_machine("rx2600_ixgb", extra=(flag_layer(bus="pcix-64-100"),))
    assert rx.origins["runtime.bus.efficiency_frac"].startswith("calibration")
    assert swapped.platform.bus == runtime_bus(bus_part("pcix-64-100"), rx.parts.nic)
    assert any("bus.efficiency_frac" in n and "does not carry over" in n for n in swapped.notes)
    assert rx.platform.cpu == swapped.platform.cpu and rx.platform.nic == swapped.platform.nic


def test_os_version_keeps_the_profiles_own_settings_unless_the_family_changes():
    rx = load_platform("rx2600_ixgb")  # Appendix B: rmem_max = wmem_max = 65535, backlog 300
    same = platform_for("rx2600_ixgb", os="linux-2.6")
    assert same.os.max_sockbuf_bytes == same.os.max_sndbuf_bytes == 65535 and same.nic.backlog_packets == 300
    assert same.cpu == rx.cpu and same.bus == rx.bus  # the OS family is the same: every residual stays
    assert (same.os.name, same.os.version, same.os.congestion_control) == ("Linux 2.6.32", "2.6.32", "cubic")
    modern = platform_for("modern_linux", os="linux-6.12")  # its unversioned model gives way to 6.12's
    assert modern.os == replace(os_version("linux-6.12"), max_sockbuf_bytes=modern.os.max_sockbuf_bytes)
    other = platform_for("rx2600_ixgb", os="solaris-8")
    assert other.os == os_version("solaris-8")
    assert platform_for(None, os="linux").os == os_version("linux")  # --os FAMILY: the family default
    assert platform_for("ideal", os="solaris").os == os_defaults("solaris")


def test_os_versions_are_valid_and_the_family_entries_are_the_defaults():
    for family in ("solaris", "bsd"):
        assert os_version(family) == os_defaults(family)
    assert os_version("linux-2.6-plain") == replace(os_defaults("linux"), name="Linux 2.6")
    needed = {"tru64-5", "solaris-8", "solaris-10", "hpux-11", "linux-2.4", "linux-2.6", "linux-3.10", "linux-4.19",
              "linux-5.15", "linux-6.12", "windows-nt", "windows-2000", "windows-2003"} | \
        {f"freebsd-{m}" for m in range(4, 15)}
    assert needed <= set(OS_VERSIONS)
    with pytest.raises(ConfigError, match="linux-2.6"):
        os_version("linux-9")


def test_costs_follow_clock_microarchitecture_and_memory_bandwidth():
    m = load_machine("rx2600_ixgb")
    base = compose(m.parts)
    fast = compose(replace(m.parts, cpu=replace(m.parts.cpu, clock_hz=2 * m.parts.cpu.clock_hz)))
    for key in ("per_packet_tx_s", "per_packet_rx_s", "per_ack_rx_s", "per_syscall_s", "per_interrupt_s"):
        assert getattr(fast.cpu, key) == pytest.approx(getattr(base.cpu, key) / 2)
    assert fast.cpu.per_byte_copy_s == base.cpu.per_byte_copy_s  # memory-bound: the clock does not move it
    wide = compose(replace(m.parts, memory=replace(m.parts.memory, copy_bw_Bps=2 * m.parts.memory.copy_bw_Bps)))
    assert wide.cpu.per_byte_copy_s == pytest.approx(base.cpu.per_byte_copy_s / 2)
    assert wide.cpu.per_packet_tx_s == base.cpu.per_packet_tx_s
    core2 = compose(replace(m.parts, cpu=cpu_part("xeon-5160")))
    netburst = compose(replace(m.parts, cpu=replace(cpu_part("xeon-5160"), microarch="netburst")))
    assert core2.cpu.per_packet_tx_s < netburst.cpu.per_packet_tx_s  # more work per clock, less time


def test_cpu_clock_flag_scales_a_calibrated_cost_by_the_physics_ratio():
    rx = load_machine("rx2600_ixgb")
    faster = load_machine("rx2600_ixgb", extra=(flag_layer(cpu_ghz=3.0),))
    assert faster.platform.cpu.per_packet_tx_s == pytest.approx(rx.platform.cpu.per_packet_tx_s / 2)
    assert faster.platform.cpu.per_byte_copy_s == rx.platform.cpu.per_byte_copy_s
    assert "scaled" in faster.origins["runtime.cpu.per_packet_tx_s"]


def test_bus_efficiency_comes_from_transactions():
    nic = nic_part("e1000")
    for name in ("pci-32-33", "pcix-64-133", "pcie-gen1-x1"):
        bus = bus_part(name)
        small, mtu, jumbo = (bus_efficiency(bus, nic, n) for n in (64, 1518, 9018))
        assert small < mtu < jumbo < 1.0  # fixed costs per frame and per burst weigh less on larger frames
    pci = bus_part("pci-32-33")
    assert bus_efficiency(pci, nic, 1518, read=True) < bus_efficiency(pci, nic, 1518, read=False)  # reads wait
    lat = replace(pci, read_latency_s=2 * pci.read_latency_s)
    assert bus_efficiency(lat, nic, 1518, read=True) < bus_efficiency(pci, nic, 1518, read=True)
    pcie = bus_part("pcie-gen1-x4")
    bigger_tlp = replace(pcie, burst_bytes=256)
    assert bus_efficiency(bigger_tlp, nic, 1518) > bus_efficiency(pcie, nic, 1518)
    for name, bus in BUS_PRESETS.items():  # the runtime line stays within half a burst of the model
        if bus.clock_hz:
            part = bus_part(name)
            typical = replace(nic, descriptor_batch=1)
            for n in (64, 1518, 9018):
                exact = 8 * n / bus.raw_bps / bus_efficiency(part, typical, n)
                assert bus.transfer_s(n) == pytest.approx(exact, rel=0.15, abs=1e-7)


def test_presets_cover_pcix_266_533_and_every_pcie_width_and_generation():
    for name in ("pcix-64-266", "pcix-64-533", "pcie-gen1-x1", "pcie-gen1-x4", "pcie-gen5-x16", "pcie-gen2-x4"):
        assert name in BUS_PRESETS and 0.01 < BUS_PRESETS[name].efficiency_frac <= 1
    assert BUS_PRESETS["pcie-gen1-x4"].raw_bps == 4 * 2e9
    assert BUS_PRESETS["pcix-64-266"].raw_bps == 2 * BUS_PRESETS["pcix-64-133"].raw_bps


def test_ports_of_one_card_and_other_cards_share_its_bus():
    bus = bus_part("pci-64-66")
    one = runtime_bus(bus, nic_part("pro1000pt-dual"))
    both = runtime_bus(bus, replace(nic_part("pro1000pt-dual"), active_ports=2))
    assert one.other_load_frac == 0 and 0.2 < both.other_load_frac <= 0.5
    card = runtime_bus(replace(bus, other_cards_bps=1e9), nic_part("e1000"))
    assert card.other_load_frac == pytest.approx(1e9 / (bus.width_bits * bus.data_rate_hz * card.efficiency_frac))
    flood = runtime_bus(replace(bus, other_cards_bps=1e11), nic_part("e1000"))
    assert flood.other_load_frac == 0.5  # arbitration leaves the modelled card its fair share


def test_flags_alone_build_a_machine_and_name_it():
    p = platform_for(None, cpu="itanium2", cpu_ghz=1.6, cpus=4, bus="pcix-64-133", nic="e1000", os="linux-2.6")
    assert p.os.version == "2.6.32"  # the kernel's own window rules
    assert p.name == "itanium2+pcix-64-133+e1000+linux-2.6"
    assert p.cpu.n_cpus == 4 and p.bus.kind == "pcix-64-133" and p.os == os_version("linux-2.6")
    with pytest.raises(ConfigError, match="nic"):
        platform_for(None, cpu="itanium2")
    with pytest.raises(ConfigError, match="made of parts"):
        platform_for("ideal", nic="e1000")


def test_every_catalog_part_composes():
    m = load_machine("p4_linux")
    for kind in ("cpu", "memory", "nic", "bus", "os"):
        for name in part_names(kind):
            load_machine("p4_linux", extra=(flag_layer(**{kind: name}) if kind != "memory" else
                                            replace(flag_layer(cpu="pentium4"), parts={"memory": name}),))
    assert {f.name for f in fields(m.parts)} == {"cpu", "memory", "bus", "nic", "os"}


def test_every_catalog_cpu_builds_a_machine_from_flags_alone():
    """``--cpu NAME --nic NAME`` with no memory flag takes the CPU's usual memory from the catalog."""
    for name in part_names("cpu"):
        assert platform_for(None, cpu=name, nic="e1000").cpu.per_byte_copy_s > 0, name


def test_a_joint_fit_can_vary_the_shared_costs_and_drop_residuals():
    from tcpsim.machine import default_costs

    costs = default_costs()
    pure = load_machine("rx2600_ixgb", keep=lambda key, table: False)
    assert pure.platform == replace(compose(pure.parts, name="rx2600_ixgb", provenance=pure.platform.provenance),
                                    fit=pure.platform.fit)
    rows = dict(costs.drivers)
    rows[("linux", "ixgb")] = {k: 2 * v for k, v in rows[("linux", "ixgb")].items()}
    doubled = load_machine("rx2600_ixgb", costs=replace(costs, drivers=rows), keep=lambda key, table: table == "fixed")
    assert doubled.platform.cpu.per_packet_tx_s == pytest.approx(2 * pure.platform.cpu.per_packet_tx_s)
    assert doubled.platform.cpu.per_interrupt_s == load_platform("rx2600_ixgb").cpu.per_interrupt_s  # fixed: kept


def test_derived_cycles_give_back_a_profiles_fitted_seconds():
    """python -m tcpsim.machine.derive: where one profile alone was fitted for an OS family and driver (the
    ES40: tru64 x tigon2), its cycles turned back into seconds on its own parts are its fitted values."""
    from tcpsim.machine.costs import CostCatalog
    from tcpsim.machine.derive import SOURCE_PROFILES, derive_costs

    d = derive_costs(load_machine(n) for n in SOURCE_PROFILES)
    drivers = {(f, c): row for f, classes in d["driver"].items() for c, row in classes.items()}
    costs = CostCatalog(families=d["family"], drivers=drivers, copy_factor=d["copy_factor"], csum_factor=d["csum_factor"])
    es40 = load_machine("es40_tru64")
    physics = compose(es40.parts, costs)
    for key in ("per_packet_tx_s", "per_packet_rx_s", "per_ack_tx_s", "per_syscall_s"):
        assert getattr(physics.cpu, key) == pytest.approx(getattr(es40.platform.cpu, key), rel=1e-9), key
    assert "fitted: es40_tru64" in d["driver"]["tru64"]["tigon2"]["source"]


def test_the_cost_catalog_is_what_derive_gives():
    """``tcpsim/machine/catalog/costs.toml`` is ``python -m tcpsim.machine.derive``'s output to the digit: the classic
    factors from the profiles of 2003-2010, ``copy_factor_fsrm`` from the one profile on an FSRM core (lab_vm)."""
    from importlib import resources

    from tcpsim.machine.derive import FSRM_PROFILES, SOURCE_PROFILES, costs_toml, derive_costs

    d = derive_costs((load_machine(n) for n in SOURCE_PROFILES), (load_machine(n) for n in FSRM_PROFILES))
    shipped = (resources.files("tcpsim.machine") / "catalog" / "costs.toml").read_text()
    assert costs_toml(d) == shipped
    assert d["copy_fsrm_source"] == "fitted: lab_vm" and "lab_vm" not in d["copy_source"]


def test_a_core_with_fast_short_rep_movsb_copies_at_its_own_factor():
    """Linux copies to and from user space with ``rep movsb`` on an FSRM core (``copy_user_generic``): such a part's
    copy is ``copy_factor_fsrm`` over its memory's STREAM figure, any other core's ``copy_factor``
    (validation/README.md, "A copy factor for cores with fast short string moves")."""
    from tcpsim.machine.costs import default_costs

    costs = default_costs()
    new, old = load_machine("modern_linux", extra=(flag_layer(cpu="core-i7-12700"),)), load_machine("modern_linux")
    bw = new.parts.memory.copy_bw_Bps
    assert new.parts.cpu.microarch == "golden-cove" and old.parts.cpu.microarch == "skylake"
    assert new.platform.cpu.per_byte_copy_s == pytest.approx(costs.copy_factor_fsrm / bw)
    assert "fast short rep movsb" in new.origins["runtime.cpu.per_byte_copy_s"]
    assert old.physics.cpu.per_byte_copy_s == pytest.approx(costs.copy_factor / old.parts.memory.copy_bw_Bps)


def test_the_lab_s_own_fold_prices_its_copy_without_the_factor_the_lab_gave():
    """``copy_factor_fsrm`` comes from lab_vm's calibrated copy: the lab's cross-validated row resolves lab_vm without
    it, so no value calibrated on the lab enters its own fold; the shipped lab_vm keeps its calibrated copy."""
    from tcpsim.calibration.cross import uncalibrated
    from tcpsim.machine.costs import default_costs

    lab_vm = load_machine("lab_vm")
    fold = uncalibrated(["lab_vm"])["lab_vm"]
    assert lab_vm.platform.cpu.per_byte_copy_s == 3.193e-11  # its fit's value
    assert fold.cpu.per_byte_copy_s == pytest.approx(default_costs().copy_factor / lab_vm.parts.memory.copy_bw_Bps)


def test_a_part_of_its_own_needs_its_data_sheet_fields(tmp_path):
    path = tmp_path / "own.toml"
    parts = '[cpu]\npart = "pentium4"\n[memory]\npart = "i875"\n[nic]\npart = "e1000"\n[os]\npart = "bsd"\n'
    path.write_text(parts + '[bus]\nkind = "pci"\nwidth_bits = 64\n')
    with pytest.raises(ConfigError, match=r"own.toml:9: bus.data_rate_hz=0.0: must be > 0 for a pci"):
        load_machine(path)
    path.write_text(parts + '[bus]\nkind = "pci"\nwidth_bits = 64\nclock_hz = 66.66e6\ndata_rate_hz = 66.66e6\n')
    bus = load_machine(path).parts.bus
    assert bus.kind == "pci" and bus.name == "own-bus" and load_platform(path).bus.kind == "own-bus"
    assert bus == replace(bus_part("pci-64-66"), name="own-bus", burst_bytes=bus.burst_bytes,
                          write_overhead_clocks=0.0, read_overhead_clocks=0.0, read_latency_s=0.0,
                          read_holds_bus=False, read_request_bytes=512, source="")  # the dataclass defaults


def test_a_machine_lists_its_residuals_by_table():
    rx = load_machine("rx2600_ixgb")
    assert rx.residuals["nic.coalesce_delay_s"] == "calibration" and rx.residuals["cpu.per_interrupt_s"] == "fixed"
    fitted = {p if p != "cpu.per_ack_s" else "cpu.per_ack_tx_s" for p in dict(rx.platform.fit)["params"]}
    assert fitted <= {k for k, t in rx.residuals.items() if t == "calibration"}
    assert "nic.coalesce_delay_s" not in load_machine("rx2600_ixgb", extra=(flag_layer(nic="e1000"),)).residuals


def test_a_link_faster_than_a_nic_port_is_refused_naming_the_port():
    """Issue 21: a 1 Gbit/s card on a 10 Gbit/s path sends at 1 Gbit/s; tcpsim refuses the faster --rate in
    one line rather than run another path than asked. One port per link: a dual-port card is not 2 Gbit/s."""
    from tcpsim import build_scenario
    from tcpsim.units import UNSHAPED_RATE_BPS

    with pytest.raises(ConfigError, match=r"^rate='10gbit': must be at most 1 Gbit/s, the port rate of the sender's"):
        build_scenario(platform="p4_linux", rate="10gbit")
    with pytest.raises(ConfigError, match=r"at most 1 Gbit/s, the port rate of the receiver's NIC \(es40_tru64"):
        build_scenario(sender="rx2600_ixgb", receiver="es40_tru64", rate="10gbit")
    with pytest.raises(ConfigError, match="at most 1 Gbit/s"):
        build_scenario(cpu="xeon-5160", nic="pro1000pt-dual", rate="2gbit")
    with pytest.raises(ConfigError, match=r"at most 1 Gbit/s.*rx2600_ixgb\[nic=e1000\]"):
        build_scenario(platform="rx2600_ixgb", nic="e1000", rate="10gbit")
    assert build_scenario(platform="rx2600_ixgb", rate="10gbit").link.rate_bps == 10e9
    assert build_scenario(platform="p4_linux", rate="1gbit").link.rate_bps == 1e9
    assert build_scenario(platform="p4_linux", rate="unshaped").link.rate_bps == UNSHAPED_RATE_BPS
    assert build_scenario(platform="ideal", rate="100gbit").link.rate_bps == 100e9  # no port: no limit
    assert load_machine("modern_linux").platform.nic.port_rate_bps == nic_part("modern-nic").port_rate_bps


def test_machine_show_lists_each_tuning_level_and_the_knob_behind_each_change(capsys):
    """Issue 21 (b): every value a ``--tuning`` level changes, old -> new, with the knob line that sets it;
    the keys listed are exactly those in which ``load_platform(name, tuning=level)`` differs."""
    from tcpsim.cli import main
    from tcpsim.machine.show import _runtime_values, tuning_rows
    from tcpsim.profiles import tuning_levels

    for name in MACHINES:
        rows = tuning_rows(load_machine(name))
        assert set(rows) == set(tuning_levels(name)), name
        plain = _runtime_values(load_platform(name))
        for level, t in rows.items():
            tuned = _runtime_values(load_platform(name, tuning=level))
            assert {key for key, _, _ in t["changes"]} == {k for k in plain if plain[k] != tuned[k]}, (name, level)
            assert all(origin.startswith(f"[tuning.{level}] knobs line ") for _, _, origin in t["changes"])
    driver = {key: (change, origin) for key, change, origin in tuning_rows(load_machine("rx2600_ixgb"))["driver"]["changes"]}
    assert driver["nic.coalesce_delay_s"] == ("0.00022895 s -> 0 s", "[tuning.driver] knobs line 18: ixgb.RxIntDelay")
    solaris = tuning_rows(load_machine("rx2600_ixgb", extra=(_swap("os", "solaris-8"),)))
    assert "is a Linux knob" in solaris["driver"]["error"]  # --tuning driver fails the same way on that machine
    assert main(["machine", "show", "rx2600_ixgb"]) == 0
    out = capsys.readouterr().out
    assert "tuning levels (--tuning LEVEL" in out and "not modelled: [tuning.kernel] knobs line 17: net.ipv4.tcp_tw_recycle" in out


def test_machine_show_says_where_the_per_packet_costs_come_from():
    from tcpsim.machine.show import show_dict, show_text

    assert "per-packet costs: fitted to measurements of this machine" in show_text(load_machine("es40_tru64"))
    assert "per-packet costs: set by hand" in show_text(load_machine("modern_linux"))
    assert show_dict(load_machine("rx2600_ixgb"))["cost_basis"] == "measurements"


def test_memprobe_measures_a_copy_bandwidth_and_refuses_bad_sizes(capsys):
    from tcpsim.machine.memprobe import main, stream_copy_Bps

    assert 1e8 < stream_copy_Bps(1 << 20, 2) < 1e13
    with pytest.raises(ValueError, match="size_bytes"):
        stream_copy_Bps(1000)
    assert main(["--size-mib", "1", "--repeats", "2"]) == 0 and "copy_bw_Bps = " in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["--repeats", "0"])
    assert exc.value.code == 2 and "repeats=0" in capsys.readouterr().err


def test_a_device_that_raises_no_interrupt_costs_none():
    """A veth's frames are taken in by the sending CPU's softirq: no interrupt, so no per-interrupt cost."""
    assert platform_for(None, cpu="epyc-zen5", nic="veth").cpu.per_interrupt_s == 0.0
    assert platform_for(None, cpu="epyc-zen5", nic="e1000").cpu.per_interrupt_s > 0.0
    assert "raises no interrupt" in load_machine("lab_vm").origins["runtime.cpu.per_interrupt_s"]
