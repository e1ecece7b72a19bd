"""The command line: answers, JSON keys, help examples, one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest

from tcpsim.cli import main


def test_predict_prints_a_readable_report(capsys):
    assert main(["predict", "--mtu", "9000", "--sockbuf", "512k"]) == 0
    out = capsys.readouterr().out
    assert "goodput" in out and "limited by" in out and "try" in out


def test_predict_json_has_stable_keys(capsys):
    assert main(["predict", "--platform", "es40_tru64", "--sockbuf", "32k", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("goodput_bps", "data_packets_per_s", "limited_by", "payload_histogram", "ceilings_bps",
                "utilization_frac", "termination"):
        assert key in d
    assert all(k.isdigit() for k in d["payload_histogram"])


@pytest.mark.parametrize("argv, field", [
    (["predict", "--sockbuf", "12q"], "sockbuf"),
    (["predict", "--mtu", "70000"], "mtu_bytes"),
    (["predict", "--sockbuf", "0"], "sockbuf_bytes"),
    (["predict", "--platform", "cray1"], "platform"),
    (["predict", "--delack", "sometimes"], "--delack"),
    (["predict", "--rate", "fast"], "rate"),
    (["sweep", "--sockbuf", "16k..1M:y2"], "sockbuf"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, field):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tcpsim: error:")
    assert field in err
    assert "Traceback" not in err


def test_unknown_knob_in_a_tuning_file_names_the_line(tmp_path, capsys):
    f = tmp_path / "tuned.conf"
    f.write_text("# comment\nnet.core.rmem_max = 4194304\nnet.ipv4.tcp_magic = 1\n")
    assert main(["predict", "--sysctl", str(f)]) == 2
    err = capsys.readouterr().err
    assert ":3:" in err and "tcp_magic" in err


def test_tuning_file_changes_the_answer(tmp_path, capsys):
    f = tmp_path / "tuned.conf"
    f.write_text("net.core.rmem_max = 4194304\nnet.core.wmem_max = 4194304\n")
    main(["predict", "--platform", "p4_linux", "--rtt", "10ms", "--sockbuf", "1M", "--json"])
    capped = json.loads(capsys.readouterr().out)["goodput_bps"]
    main(["predict", "--platform", "p4_linux", "--rtt", "10ms", "--sockbuf", "1M", "--sysctl", str(f), "--json"])
    lifted = json.loads(capsys.readouterr().out)["goodput_bps"]
    assert lifted > 2 * capped


@pytest.mark.parametrize("cmd", ["predict", "platforms", "sweep", "explain", "plan"])
def test_every_command_has_help_with_an_example(capsys, cmd):
    assert main([cmd, "--help"]) == 0
    assert "Example" in capsys.readouterr().out


def test_platforms_lists_every_profile(capsys):
    assert main(["platforms", "--json"]) == 0
    names = {p["name"] for p in json.loads(capsys.readouterr().out)}
    assert {"es40_tru64", "sunfire6800_ce", "rx2600_ixgb", "se7501_ixgb", "modern_linux"} <= names


def test_explain_shows_the_nagle_cycle(capsys):
    assert main(["explain", "--platform", "sunfire6800_ce", "--message", "100", "--nodelay", "--segments", "10"]) == 0
    assert "data seq=" in capsys.readouterr().out


def test_python_m_tcpsim_runs():
    out = subprocess.run([sys.executable, "-m", "tcpsim", "predict", "--json"], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out)["limited_by"]


def test_import_does_not_pull_matplotlib_or_scipy():
    code = ("import sys, tcpsim, tcpsim.cli, tcpsim.api; "
            "bad = [m for m in ('matplotlib', 'scipy', 'pandas') if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.mark.parametrize("argv", [["calibrate", "--platform", "nope"], ["validate", "--bogus"]])
def test_calibration_commands_fail_in_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tcpsim: error:")
