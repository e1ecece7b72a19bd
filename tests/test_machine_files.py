"""Machine files and ``tcpsim machine``: the README's data-sheet example runs without Python, every bad file
is one line naming file, line and field (exit 2), and ``machine show`` explains every value."""

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest

from tcpsim.cli import main
from tcpsim.platform import Bus, CpuCost, Nic

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text()
    start = text.index("### A machine file from a data sheet")
    return text[start:text.index("\n## ", start)]


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_readme_machine_file_predicts_without_python(capsys, tmp_path, monkeypatch):
    section = _section()
    (tmp_path / "xeon5160.toml").write_text(re.search(r"```toml\n(.*?)```", section, re.S)[1])
    monkeypatch.chdir(tmp_path)
    commands = [ln[2:] for ln in re.search(r"```text\n(.*?)```", section, re.S)[1].splitlines() if ln.startswith("$ ")]
    assert len(commands) == 3
    outputs = []
    for cmd in commands:
        code, out, err = _run(capsys, cmd.split()[1:])
        assert code == 0 and not err, (cmd, err)
        outputs.append(out)
    show, lan, wan = outputs
    assert "cpu.per_packet_rx_s" in show and "[driver.linux.e1000]" in show and "(core2)" in show
    assert re.search(r"bus.other_load_frac\s+0\.15", show)  # the second port's share, as the README says
    assert "limited by   the line rate" in lan and re.search(r"goodput\s+9[34]\d\.\d Mbit/s", lan)
    assert "goodput" in wan


def test_the_readmes_bad_file_line_is_what_tcpsim_prints(capsys, tmp_path):
    section = _section()
    quoted = re.search(r"\(`(xeon5160\.toml:\d+: [^`]+)`\)", section)[1]
    text = re.search(r"```toml\n(.*?)```", section, re.S)[1].replace("sockets = 2\n", "sockets = 2.5\n")
    (tmp_path / "xeon5160.toml").write_text(text)
    code, _, err = _run(capsys, ["predict", "--machine", str(tmp_path / "xeon5160.toml")])
    assert code == 2 and err.strip() == f"tcpsim: error: {tmp_path / quoted}"


def test_the_issues_example_answers(capsys):
    code, out, err = _run(capsys, ["predict", "--cpu", "itanium2", "--cpu-ghz", "1.6", "--cpus", "4", "--bus",
                                   "pcix-64-133", "--nic", "e1000", "--os", "linux-2.6", "--sockbuf", "256k"])
    assert code == 0 and not err and "goodput" in out
    assert "itanium2+pcix-64-133+e1000+linux-2.6" in out


def test_machine_show_names_the_origin_of_every_runtime_value(capsys):
    code, out, _ = _run(capsys, ["machine", "show", "rx2600_ixgb"])
    assert code == 0
    for cls, kind in ((CpuCost, "cpu"), (Nic, "nic"), (Bus, "bus")):
        for f in fields(cls):
            line = next(ln for ln in out.splitlines() if ln.split()[:1] == [f"{kind}.{f.name}"])
            assert len(line.split()) >= 3, line  # a value and where it comes from
    assert re.search(r"nic.coalesce_delay_s\s+0.00022895 s\s+calibration \(file rx2600_ixgb.toml, fit of", out)
    assert "--bus replaces the bus part" in out and "unless the OS family" in out
    code, out, _ = _run(capsys, ["machine", "show", "rx2600_ixgb", "--bus", "pcie-gen1-x8", "--os", "solaris-8"])
    assert re.search(r"bus.efficiency_frac: the residual 0.641837 .* does not carry over: bus replaced \(flag\)", out)
    assert "os: family linux -> solaris (flag --os)" in out and "bus                             pcie-gen1-x8" in out
    code, out, _ = _run(capsys, ["machine", "show", "es40_tru64", "--json"])
    assert code == 0 and '"origin": "calibration (file es40_tru64.toml' in out


def test_machine_show_writes_its_json_where_asked_as_the_other_commands_do(capsys, tmp_path):
    code, out, _ = _run(capsys, ["machine", "show", "es40_tru64", f"--json={tmp_path / 'm.json'}"])
    assert code == 0 and out == "" and json.loads((tmp_path / "m.json").read_text())["name"] == "es40_tru64"
    code, _, err = _run(capsys, ["machine", "show", "es40_tru64", f"--json={tmp_path / 'no' / 'm.json'}"])
    assert code == 2 and "json=" in err and "existing folder" in err


def test_machine_parts_lists_the_catalog(capsys):
    code, out, _ = _run(capsys, ["machine", "parts"])
    assert code == 0
    for name in ("itanium2", "xeon-5160", "i5000p", "pcix-64-266", "pcie-gen5-x16", "pro1000pt-dual", "hpux-11",
                 "windows-2003", "freebsd-14", "tru64-5"):
        assert name in out
    assert max(len(line) for line in out.splitlines() if not line.startswith("bus:")) <= 140  # one line a part
    assert re.search(r"^  e810 +2 x 100 Gbit/s +Intel E810-CQDA2 \(two 100 Gbit/s QSFP28 ports, PCIe gen4 x16\), "
                     r"ice driver$", out, re.M)  # the figures, and the source up to its evidence
    assert re.search(r"^  zx1 +3\.5 GB/s", out, re.M)
    assert re.search(r"^  epyc-7543 +3\.70 GHz x 32 \(2 thr\)", out, re.M)


def test_machine_parts_shows_one_part_whole(capsys):
    code, out, _ = _run(capsys, ["machine", "parts", "nic", "e810"])
    assert code == 0 and out.startswith("nic e810\n")
    assert re.search(r"^  coalesce_delay_s +6\.2e-05$", out, re.M) and "ice_32byte_rx_desc" in out
    code, out, _ = _run(capsys, ["machine", "parts", "os", "linux-6.8"])
    assert re.search(r"^  tcp\.max_sockbuf_bytes +212992$", out, re.M)
    code, _, err = _run(capsys, ["machine", "parts", "nic", "nope"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "e810" in err


GOOD = '[cpu]\npart = "itanium2"\nsockets = 2\n\n[memory]\npart = "zx1"\n\n[bus]\npart = "pcix-64-133"\n\n' \
       '[nic]\npart = "e1000"\n\n[os]\npart = "linux-2.6"\n'
BAD = {
    "unknown part": (GOOD.replace('"itanium2"', '"cray-1"'), r":2: cpu.part='cray-1': must be one of alpha-ev6"),
    "missing table": (GOOD.replace('[nic]\npart = "e1000"\n', ""), r": nic='missing': must be a \[nic\] table"),
    "missing field": ('[cpu]\nisa = "x86"\nmicroarch = "core2"\n' + GOOD.split("\n\n", 1)[1],
                      r":1: cpu.clock_hz='missing': must be set"),
    "negative clock": (GOOD.replace("sockets = 2", "clock_hz = -1.5e9"), r":3: cpu.clock_hz=-1500000000.0: must be in"),
    "unknown key": (GOOD.replace("sockets = 2", "clokc_hz = 1.6e9"), r":3: cpu.clokc_hz=1600000000.0: must be one of"),
    "scalar for a table": ('cpu = "itanium2"\n' + GOOD.split("\n\n", 1)[1], r":1: cpu='itanium2': must be a table"),
    "float for an int": (GOOD.replace("sockets = 2", "sockets = 2.5"), r":3: cpu.sockets=2.5: must be an integer"),
    "deep nesting": ("a = " + "[" * 5000 + "]" * 5000 + "\n", r": machine='nesting': must be TOML nested less"),
    "deep tables": ("[" + ".".join(["x"] * 200) + "]\n", r":1: x=a table: must be one of the keys"),
    "integer name": ("name = 5\n" + GOOD, r":1: name=5: must be a string"),
    "nothing at all": ("", r":1: machine='nothing': must be a machine file"),
    "over 1 MB": ("# " + "x" * (1 << 20) + "\n", r"machine='.*': must be a file of at most 1,048,576 bytes"),
    "bad TOML": (GOOD + "x = = 1\n", r":16: machine='.*': must be valid TOML"),
    "unknown os": (GOOD.replace('"linux-2.6"', '"linux-9"'), r":15: os.part='linux-9': must be one of"),
    "residual of no part": (GOOD + "[calibration.gpu]\nx = 1\n", r":16: calibration.gpu=a table: must be one of"),
    "loop of bases": ('base = "box.toml"\n', r"base='.*box.toml': must be a chain of at most 8 files without a loop"),
    "fixed value out of range": (GOOD + "[fixed.cpu]\nrx_tcp_frac = 1.5\n",
                                 r":17: fixed.cpu.rx_tcp_frac=1.5: must be in 0.0..1.0"),
    "fitted cost out of range": (GOOD + "[calibration.cpu]\nper_packet_rx_s = -1e-6\n",
                                 r":17: calibration.cpu.per_packet_rx_s=-1e-06: must be in 0.0..1.0"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["predict", "machine"])
def test_a_bad_machine_file_is_one_line_with_file_line_and_field(case, command, capsys, tmp_path):
    text, pattern = BAD[case]
    path = tmp_path / "box.toml"
    path.write_text(text)
    argv = ["predict", "--machine", str(path), "--method", "ceilings"] if command == "predict" else \
        ["machine", "show", str(path)]
    code, out, err = _run(capsys, argv)
    lines = err.strip().splitlines()
    assert code == 2 and not out and len(lines) == 1, err
    assert lines[0].startswith("tcpsim: error: ") and "box.toml" in lines[0], lines[0]
    assert re.search(pattern, lines[0]), lines[0]


def test_a_profile_of_runtime_values_is_checked_too(capsys, tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[os]\nfamily = "linux"\nsack = 1\n')
    code, _, err = _run(capsys, ["predict", "--platform", str(path)])
    assert code == 2 and err.strip() == f"tcpsim: error: {path}:3: os.sack=1: must be true or false"
    path.write_text('[provenance]\nsource = "x"\n')
    code, _, err = _run(capsys, ["predict", "--platform", str(path)])
    assert code == 2 and "os='missing': must be an [os] table" in err


def test_a_machine_file_may_start_from_a_profile(capsys, tmp_path):
    from tcpsim.profiles import load_platform

    path = tmp_path / "rx_e1000.toml"
    path.write_text('base = "rx2600_ixgb"\n\n[nic]\npart = "e1000"\n')
    p = load_platform(path)
    rx = load_platform("rx2600_ixgb")
    assert p.name == "rx_e1000" and p.cpu.per_syscall_s == rx.cpu.per_syscall_s and p.os == rx.os
    assert p.nic.coalesce_delay_s == 125e-6 and p.cpu.per_packet_rx_s != rx.cpu.per_packet_rx_s
