"""tcpsim.profiles: every machine of the sources has a profile with its documented OS defaults; tuning levels
apply the sources' scripts; profiles round-trip through save_platform."""

import tomllib
from dataclasses import replace

import pytest

from tcpsim.config import TcpOptions
from tcpsim.errors import ConfigError
from tcpsim.platform import BUS_PRESETS, OsTcp, Platform, Provenance, bus_preset
from tcpsim.profiles import (list_platforms, load_platform, platform_summary, profile_path, save_platform, tune,
                             update_profile,
                             tuning_levels, tuning_texts)
from tcpsim.tuning import parse_tuning

SOURCE_MACHINES = {
    "es40_tru64": "000_", "sunfire6800_ce": "004_", "rx2600_ixgb": "003_", "se7501_ixgb": "003_",
    "p4_linux": "002_", "p4_freebsd": "002_", "vbox_centos": "001_", "vbox_opensolaris": "001_",
}
ALL = sorted({*SOURCE_MACHINES, "modern_linux", "ideal"})


def test_every_machine_of_the_sources_has_a_profile():
    assert set(ALL) <= set(list_platforms())


@pytest.mark.parametrize("name", ALL)
def test_profile_has_provenance_bus_and_an_empty_or_filled_fit_table(name):
    raw = tomllib.loads(profile_path(name).read_text())
    assert {"provenance", "os", "fit"} <= set(raw)
    p = load_platform(name)
    assert p.name == name and p.provenance.hardware and p.provenance.os
    if name in SOURCE_MACHINES:
        assert p.provenance.source.startswith(SOURCE_MACHINES[name])
        assert p.bus.kind in BUS_PRESETS
        assert 1e-7 < p.cpu.per_packet_tx_s < 1e-4 and 1e-7 < p.cpu.per_packet_rx_s < 1e-4  # physical range


@pytest.mark.parametrize("name", ALL)
def test_every_tuning_level_parses_applies_and_sets_no_mtu(name):
    base = load_platform(name)
    for level, text in tuning_texts(name).items():
        assert not [k for k in parse_tuning(text) if k.name == "mtu"], f"{name}:{level} sets the MTU"
        tuned = load_platform(name, tuning=level)
        assert tuned.name == f"{name}+{level}" and tuned != replace(base, name=tuned.name)


@pytest.mark.parametrize("name", ALL)
def test_load_save_load_is_equal(name, tmp_path):
    p = load_platform(name)
    path = save_platform(p, tmp_path / f"{name}.toml", tuning=tuning_texts(name), header="copy\nof " + name)
    again = load_platform(path)
    assert again == p
    assert tuning_texts(path) == {level: t if t.endswith("\n") else t + "\n" for level, t in tuning_texts(name).items()}
    assert path.read_text().startswith("# copy\n# of ")
    for level in tuning_levels(name):
        assert load_platform(path, tuning=level) == load_platform(name, tuning=level)


def test_awkward_values_round_trip(tmp_path):
    p = Platform(
        name='odd "name" \\ here',
        os=OsTcp(family="linux", name="tab\tand\nnewline", max_sockbuf_bytes=123457, max_sndbuf_bytes=99999,
                 naglim_bytes=1, delack_timeout_s=1 / 3, setsockopt_doubles=True),
        bus=bus_preset("pcix-64-133").with_clock(66.66e6),  # a kind that is no preset: written field by field
        provenance=Provenance(source="x", notes="quotes ''' and \"\"\" and é"),
        fit=(("median_abs_rel_error", 0.1234567891), ("tables", ("a/b", "c/d")), ("n_points", 7)),
    )
    path = save_platform(p, tmp_path / "odd.toml", tuning={"reg": "[HKEY_LOCAL_MACHINE\\SYSTEM]\nTcpWindowSize = 1\n"})
    assert load_platform(path) == p
    assert tuning_texts(path)["reg"].startswith("[HKEY_LOCAL_MACHINE\\SYSTEM]")


def test_bus_is_written_as_its_preset_plus_differences(tmp_path):
    p = load_platform("rx2600_ixgb")
    preset = bus_preset("pcix-64-133")
    assert replace(p.bus, efficiency_frac=preset.efficiency_frac, per_transaction_s=preset.per_transaction_s) == preset
    text = save_platform(p, tmp_path / "r.toml").read_text()
    bus = tomllib.loads(text)["bus"]
    assert bus == {"preset": "pcix-64-133", "efficiency_frac": p.bus.efficiency_frac,
                   "per_transaction_s": p.bus.per_transaction_s}


def test_unknown_profile_lists_the_known_ones():
    with pytest.raises(ConfigError) as exc:
        load_platform("cray_t3e")
    assert "es40_tru64" in str(exc.value) and "rx2600_ixgb" in str(exc.value)


def test_unknown_tuning_level_lists_the_levels():
    with pytest.raises(ConfigError) as exc:
        load_platform("rx2600_ixgb", tuning="turbo")
    assert "driver" in str(exc.value) and "kernel" in str(exc.value)
    with pytest.raises(ConfigError):
        load_platform("ideal", tuning="kernel")
    assert load_platform("rx2600_ixgb", tuning="none") == load_platform("rx2600_ixgb")


def test_unknown_field_in_a_profile_is_named(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('[cpu]\nper_packet_s = 1e-6\n')
    with pytest.raises(ConfigError) as exc:
        load_platform(path)
    assert "cpu.per_packet_s" in str(exc.value)
    path.write_text('[bus]\npreset = "pci-128-99"\n')
    with pytest.raises(ConfigError):
        load_platform(path)


def test_a_profile_from_a_path_is_named_after_its_file(tmp_path):
    path = tmp_path / "mybox.toml"
    path.write_text('[os]\nfamily = "linux"\nname = "mine"\n')
    assert load_platform(path).name == "mybox" and load_platform(str(path)).os.family == "linux"


def test_a_shipped_profile_is_resolved_once_while_its_text_stays_the_same(tmp_path, monkeypatch):
    """load_platform keeps a shipped profile it resolved until the file's text changes (calibrate writes it back);
    a path is resolved at every call, and each tuning level is its own entry."""
    import tcpsim.profiles as profiles

    copy = tmp_path / "lab_vm.toml"
    copy.write_text(profile_path("lab_vm").read_text())
    calls = []
    resolve = profiles._load_platform
    monkeypatch.setattr(profiles, "_SHIPPED", {})
    monkeypatch.setattr(profiles, "profile_path", lambda name: copy)
    monkeypatch.setattr(profiles, "_load_platform", lambda name, level: calls.append(level) or resolve(name, level))
    first = load_platform("lab_vm")
    assert load_platform("lab_vm") is first and load_platform("lab_vm", "default") is first and len(calls) == 1
    copy.write_text(copy.read_text() + "# edited\n")
    assert load_platform("lab_vm") == first and len(calls) == 2
    load_platform(str(copy))
    load_platform(str(copy))
    assert len(calls) == 4


def test_platform_summary_is_one_line_with_hardware_and_source():
    from tcpsim.confidence import source_title

    for name in ALL:
        line = platform_summary(name)
        p = load_platform(name)
        assert "\n" not in line and line.startswith(name) and p.provenance.hardware in line
        source = p.provenance.source
        title = source_title(source) if source else None
        assert (f'"{title}"' if title else (source or "none")) in line


# ---------------------------------------------------------------- the OS defaults the documents give


def test_tru64_default_socket_buffer_and_best_practice_tuning():
    os = load_platform("es40_tru64").os
    assert os.default_sndbuf_bytes == os.default_rcvbuf_bytes == 61440
    tuned = load_platform("es40_tru64", tuning="tuned").os
    assert tuned.default_sndbuf_bytes == tuned.default_rcvbuf_bytes == 524288


def test_solaris_8_defaults_of_the_blueprint():
    os = load_platform("sunfire6800_ce").os
    assert (os.family, os.default_sndbuf_bytes, os.default_rcvbuf_bytes) == ("solaris", 24576, 24576)
    assert (os.deferred_acks_max, os.delack_timeout_s, os.maxpsz_multiplier) == (8, 0.1, 2)
    assert load_platform("sunfire6800_ce", tuning="blueprint").os.maxpsz_multiplier == 10


@pytest.mark.parametrize("name", ["rx2600_ixgb", "se7501_ixgb"])
def test_10gbe_untuned_is_appendix_b_and_tuning_lifts_the_cap(name):
    """GenSink's setsockopt(262144): Appendix B's rmem_max 65535 -> 131070 (Linux doubles); tuned -> 524288."""
    normal, kernel, driver = (load_platform(name, tuning=t) for t in (None, "kernel", "driver"))
    assert (normal.os.default_rcvbuf_bytes, normal.os.default_sndbuf_bytes) == (87380, 16384)
    assert normal.os.sack and normal.os.timestamps and normal.nic.backlog_packets == 300
    assert TcpOptions.for_os(normal.os, sockbuf_bytes=262144).rcvbuf_bytes == 131070
    for tuned in (kernel, driver):
        opts = TcpOptions.for_os(tuned.os, sockbuf_bytes=262144)
        assert opts.rcvbuf_bytes == opts.sndbuf_bytes == 524288 and not opts.sack and not opts.timestamps
    assert kernel.nic == normal.nic.__class__(**{**_fields(normal.nic), "backlog_packets": kernel.nic.backlog_packets})
    assert driver.nic.coalesce_delay_s == 0.0 and driver.nic.rx_ring_packets == driver.nic.tx_ring_packets == 2048


APPENDIX_B = """sysctl -w net.ipv4.tcp_rmem="4096 87380 174760"
sysctl -w net.ipv4.tcp_wmem="4096 16384 131072"
sysctl -w net.core.netdev_max_backlog=300
sysctl -w net.core.rmem_max=65535
sysctl -w net.core.wmem_max=65535
sysctl -w net.ipv4.tcp_sack=1
sysctl -w net.ipv4.tcp_timestamps=1
"""  # the 10 GbE report's set_normal (Appendix B), its modelled lines


def test_appendix_b_knobs_on_generic_linux_give_the_10gbe_profiles_os():
    from tcpsim.platform import os_defaults
    from tcpsim.tuning import apply_tuning

    generic = Platform(os=os_defaults("linux"))
    os = apply_tuning(generic, parse_tuning(APPENDIX_B)).platform.os
    profile = load_platform("rx2600_ixgb").os
    for field in ("default_sndbuf_bytes", "default_rcvbuf_bytes", "max_sockbuf_bytes", "max_sndbuf_bytes",
                  "sack", "timestamps", "window_scaling", "adv_win_scale"):
        assert getattr(os, field) == getattr(profile, field), field


def test_virtualbox_windows_iperf_printed():
    """Client 27.5 KByte and server 48 KByte before tuning; 192 KByte and 960 KByte after."""
    centos, solaris = load_platform("vbox_centos"), load_platform("vbox_opensolaris")
    assert round(centos.os.default_sndbuf_bytes / 1024, 1) == 27.5
    assert solaris.os.default_rcvbuf_bytes / 1024 == 48.0
    assert load_platform("vbox_centos", tuning="tuned").os.default_sndbuf_bytes / 1024 == 192.0
    assert load_platform("vbox_opensolaris", tuning="tuned").os.default_rcvbuf_bytes / 1024 == 960.0


def test_tune_applies_a_level_on_top_of_any_candidate():
    candidate = replace(load_platform("rx2600_ixgb"), nic=replace(load_platform("rx2600_ixgb").nic, coalesce_delay_s=1e-4))
    assert tune(candidate, "rx2600_ixgb", "driver").nic.coalesce_delay_s == 0.0
    assert tune(candidate, "rx2600_ixgb", "kernel").nic.coalesce_delay_s == 1e-4


def _fields(obj):
    from dataclasses import fields

    return {f.name: getattr(obj, f.name) for f in fields(obj)}


@pytest.mark.parametrize("name", ["sunfire6800_ce", "rx2600_ixgb"])
def test_update_profile_writes_fitted_values_and_keeps_comments(name, tmp_path):
    from tcpsim.calibration.fit import apply_params

    src = profile_path(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(src.read_text())
    base = load_platform(path)
    names = ["cpu.per_packet_rx_s", "cpu.per_ack_s", "nic.coalesce_delay_s", "bus.efficiency_frac"]
    fitted = apply_params(base, names, [12.5e-6, 2.25e-6, 41e-6, 0.55])
    record = {"date": "2026-01-02", "params": names, "values": [12.5e-6, 2.25e-6, 41e-6, 0.55], "evaluations": 3}
    update_profile(path, fitted, record)
    again = load_platform(path)
    assert replace(again, fit=()) == replace(fitted, fit=())
    assert dict(again.fit)["params"] == tuple(names) and dict(again.fit)["evaluations"] == 3
    old_lines, new_lines = src.read_text().splitlines(), path.read_text().splitlines()
    assert [ln for ln in old_lines if ln.lstrip().startswith("#")] == [ln for ln in new_lines if ln.lstrip().startswith("#")]
    assert tuning_texts(path) == tuning_texts(name)
