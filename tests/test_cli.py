"""The command line: answers, JSON keys, help examples, one-line errors with exit code 2."""

import csv
import io
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcpsim import build_scenario, predict
from tcpsim.cli import main
from tcpsim.units import parse_size

ROOT = Path(__file__).resolve().parents[1]


def _strict_json(text):
    """json.loads that refuses NaN and Infinity (Python's default accepts them; JSON does not)."""
    def bad(token):
        raise ValueError(f"not JSON: {token}")
    return json.loads(text, parse_constant=bad)


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- predict

def test_predict_report_has_goodput_packets_limit_and_advice(capsys):
    code, out, _ = _run(capsys, ["predict", "--platform", "es40_tru64", "--sockbuf", "32k"])
    assert code == 0
    r = predict(platform="es40_tru64", sockbuf="32k")
    m = re.search(r"goodput\s+([\d.,]+) Mbit/s", out)
    assert m and float(m.group(1).replace(",", "")) == pytest.approx(r.goodput_bps / 1e6, abs=0.1)
    assert "% of line-rate" in out
    assert "MB/s" not in out  # one convention: every rate in bit/s (issue 23)
    assert "data/s" in out                      # packets per second
    assert "CPU" in out and "bus" in out          # per-host utilization
    assert "limited by" in out and "headroom" in out and "try" in out
    assert r.termination in out


def test_window_limit_advice_names_a_buffer_above_the_bdp(capsys):
    code, out, _ = _run(capsys, ["predict", "--rtt", "10ms", "--sockbuf", "64k"])
    assert code == 0
    assert "TCP window" in out
    m = re.search(r"--sockbuf (\d+)([kMG])", out)
    assert m, out
    bdp_bytes = 949e6 / 8 * 10e-3
    assert bdp_bytes <= int(m.group(1)) * {"k": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)] <= 4 * bdp_bytes


def test_predict_shows_which_buffers_linux_autotunes(capsys):
    code, out, _ = _run(capsys, ["predict", "--os", "linux", "--rcvbuf", "256k", "--max-time", "50ms"])
    assert code == 0
    header = out.splitlines()[0]
    # unset: tcp_wmem 16384 .. 4 MiB, and 2 x 10 x 4,352 bytes after the handshake (tcp_sndbuf_expand, 3.14 on)
    assert "sndbuf 16 KiB (autotuned, 85 KiB at the handshake, up to 4 MiB)" in header
    assert "rcvbuf 416 KiB," in header      # set by the application: fixed, 2 x rmem_max (212992, Linux 6.12)
    code, out, _ = _run(capsys, ["predict", "--os", "linux", "--max-time", "50ms", "--json"])
    inputs = json.loads(out)["inputs"]
    assert inputs["sndbuf_autotune_max_bytes"] == 4194304 and inputs["rcv_window_autotune_max_bytes"] > 0


def test_predict_json_names_the_deferred_ack_count_where_the_solaris_rule_uses_it(capsys):
    """The count is an input of the solaris rule only (elsewhere it is refused, test_bad_input)."""
    for argv, count in ((["--delack", "solaris", "--deferred-acks-max", "8"], 8), (["--delack", "linux"], None)):
        code, out, _ = _run(capsys, ["predict", "--max-time", "20ms", "--json", *argv])
        assert code == 0 and json.loads(out)["inputs"]["deferred_acks_max"] == count


def test_predict_json_has_every_result_key_and_is_strict_json(capsys):
    code, out, _ = _run(capsys, ["predict", "--sockbuf", "32k", "--json"])  # ideal hosts: inf bus/CPU ceilings
    assert code == 0
    d = _strict_json(out)
    expected = set(predict(sockbuf="32k").to_dict())
    assert expected <= set(d)
    for key in ("goodput_bps", "data_packets_per_s", "limited_by", "payload_histogram", "ceilings_bps"):
        assert key in d
    assert d["payload_histogram"] and all(k.isdigit() for k in d["payload_histogram"])
    assert d["ceilings_bps"]["cpu_sender"] is None          # inf -> null
    assert d["ceilings_bps"]["window"] > 0
    assert d["goodput_bps"] > 0


def test_predict_ceilings_method_is_instant_and_json_safe(capsys):
    code, out, _ = _run(capsys, ["predict", "--platform", "es40_tru64", "--method", "ceilings", "--json"])
    assert code == 0
    d = _strict_json(out)
    assert d["termination"] == "closed_form"
    assert d["data_packets_per_s"] is None                  # NaN -> null
    assert d["goodput_bps"] == pytest.approx(min(v for v in d["ceilings_bps"].values() if v is not None))


@pytest.mark.parametrize("argv, field", [
    (["predict", "--sockbuf", "12q"], "sockbuf"),
    (["predict", "--mtu", "70000"], "mtu="),
    (["predict", "--sockbuf", "0"], "sockbuf="),
    (["predict", "--platform", "cray1"], "platform"),
    (["predict", "--platform", "rx2600_ixgb", "--tuning", "turbo"], "tuning"),
    (["predict", "--tuning", "kernel"], "tuning"),
    (["predict", "--delack", "sometimes"], "--delack"),
    (["predict", "--sack", "maybe"], "--sack"),
    (["sweep", "--sack", "on,maybe"], "sack"),
    (["predict", "--limited-transmit", "maybe"], "--limited-transmit"),
    (["predict", "--streams", "many"], "--streams"),
    (["predict", "--rate", "fast"], "rate"),
    (["predict", "--delay", "1ms", "--rtt", "2ms"], "delay"),
    (["predict", "--max-time", "soon"], "max_time"),
    (["sweep", "--sockbuf", "16k..1M:y2"], "sockbuf"),
    (["sweep", "--streams", "8..1:+1"], "streams"),
    (["sweep", "--mtu", "1500,9000", "--workers", "0"], "workers"),
    (["explain", "--segments", "0"], "segments"),
    (["plan", "sockbuf"], "target"),
    (["plan", "cpus", "--target", "fast"], "target"),
    (["bogus"], "command"),
    ([], "command"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, field):
    code, _, err = _run(capsys, argv)
    assert code == 2
    err = err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tcpsim: error:")
    assert field in err
    assert "Traceback" not in err


def test_unknown_knob_in_a_tuning_file_names_the_line(tmp_path, capsys):
    f = tmp_path / "tuned.conf"
    f.write_text("# comment\nnet.core.rmem_max = 4194304\nnet.ipv4.tcp_magic = 1\n")
    code, _, err = _run(capsys, ["predict", "--platform", "p4_linux", "--sysctl", str(f)])
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert ":3:" in err and "tcp_magic" in err


def test_missing_tuning_file_is_one_line(capsys):
    code, _, err = _run(capsys, ["predict", "--sysctl", "/nonexistent/tuned.conf"])
    assert code == 2 and "sysctl" in err and len(err.strip().splitlines()) == 1


def test_tuning_file_lifts_the_linux_cap(tmp_path, capsys):
    f = tmp_path / "tuned.conf"
    f.write_text("net.core.rmem_max = 4194304\nnet.core.wmem_max = 4194304\n")
    flags = ["predict", "--platform", "p4_linux", "--rtt", "10ms", "--sockbuf", "1M", "--json", "--method", "ceilings"]
    capped = _strict_json(_run(capsys, flags)[1])
    lifted = _strict_json(_run(capsys, flags + ["--sysctl", str(f)])[1])
    assert lifted["inputs"]["rcvbuf_bytes"] > capped["inputs"]["rcvbuf_bytes"]
    assert capped["limited_by"] == "window"
    assert lifted["ceilings_bps"]["window"] > 2 * capped["ceilings_bps"]["window"]
    assert lifted["goodput_bps"] > 2 * capped["goodput_bps"]


def test_mtu_line_of_a_tuning_file_applies_unless_mtu_is_given(tmp_path, capsys):
    f = tmp_path / "tuned.conf"
    f.write_text("net.core.rmem_max = 4194304\nifconfig eth2 mtu 9000\n")
    base = ["predict", "--platform", "p4_linux", "--sysctl", str(f), "--method", "ceilings", "--json"]
    assert _strict_json(_run(capsys, base)[1])["inputs"]["mtu_bytes"] == 9000
    assert _strict_json(_run(capsys, base + ["--mtu", "1500"])[1])["inputs"]["mtu_bytes"] == 1500


def test_knobs_a_kernel_version_ignores_are_reported_as_ignored(tmp_path, capsys):
    """Issue 22: a host's own sysctl file is accepted whole, and predict says which knobs changed nothing for the
    kernel version asked for, and why (tcp_adv_win_scale from 6.6 on, a knob tcpsim does not model)."""
    f = tmp_path / "host.conf"
    f.write_text("net.ipv4.tcp_adv_win_scale = 1\nnet.ipv4.tcp_tw_recycle = 1\nnet.core.rmem_max = 8388608\n")
    flags = ["predict", "--sysctl", str(f), "--method", "ceilings"]
    code, out, _ = _run(capsys, flags + ["--os", "linux-6.8"])
    assert code == 0
    assert "1 knob(s) applied, 2 ignored" in out
    assert "line 1: net.ipv4.tcp_adv_win_scale = 1: ignored: Linux 6.8" in out
    assert "line 2: net.ipv4.tcp_tw_recycle" in out
    old = _strict_json(_run(capsys, flags + ["--os", "linux-2.6", "--json"])[1])["sysctl"]
    assert old["file"] == str(f)
    assert [(k["line"], k["ignored"]) for k in old["knobs"]] == [(1, False), (2, True), (3, False)]
    assert old["knobs"][0]["effect"] == "os.adv_win_scale = 1"
    assert "sysctl" not in _strict_json(_run(capsys, ["predict", "--method", "ceilings", "--json"])[1])


# ---------------------------------------------------------------- help, platforms

@pytest.mark.parametrize("cmd", [[], ["predict"], ["platforms"], ["sweep"], ["explain"], ["plan"], ["validate"],
                                 ["calibrate"]])
def test_every_command_has_help_with_an_example(capsys, cmd):
    code, out, _ = _run(capsys, cmd + ["--help"])
    assert code == 0
    assert "Example" in out


def test_version_says_which_hot_path_runs(capsys):
    import tcpsim
    from tcpsim.components import hot_path_compiled

    code, out, _ = _run(capsys, ["--version"])
    assert code == 0
    kind = "compiled" if hot_path_compiled() else "pure-Python"
    assert out.strip() == f"tcpsim {tcpsim.__version__} ({kind} hot path)"


def test_platforms_lists_every_profile(capsys):
    from tcpsim.profiles import list_platforms

    code, out, _ = _run(capsys, ["platforms", "--json"])
    assert code == 0
    listed = _strict_json(out)
    assert [p["name"] for p in listed] == list_platforms()
    assert {"es40_tru64", "sunfire6800_ce", "rx2600_ixgb", "se7501_ixgb"} <= {p["name"] for p in listed}
    code, out, _ = _run(capsys, ["platforms"])
    assert code == 0 and len(out.strip().splitlines()) == len(listed)


# ---------------------------------------------------------------- sweep, explain, plan through the CLI

def test_sweep_csv_has_one_row_per_point(capsys):
    code, out, _ = _run(capsys, ["sweep", "--sockbuf", "16k..64k:x2", "--mtu=1500,9000", "--rtt", "1ms",
                                 "--workers", "1", "--csv", "-"])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 6
    assert [int(r["sockbuf_bytes"]) for r in rows] == [16384, 16384, 32768, 32768, 65536, 65536]
    assert {int(r["mtu_bytes"]) for r in rows} == {1500, 9000}
    assert all(float(r["goodput_bps"]) > 0 for r in rows)


def test_read_size_is_a_flag_and_a_sweep_axis(capsys):
    """``--read`` sets what the receiving application asks for per read (iperf3 reads its -l block)."""
    code, out, _ = _run(capsys, ["predict", "--read", "1k", "--write", "1k"])
    assert code == 0 and "Mbit/s" in out
    code, out, _ = _run(capsys, ["sweep", "--read", "1k,64k", "--rtt", "1ms", "--workers", "1", "--csv", "-"])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(r["read_bytes"]) for r in rows] == [1024, 65536]
    assert all(float(r["goodput_bps"]) > 0 for r in rows)


def test_sweep_json_and_table(tmp_path, capsys):
    out_file = tmp_path / "points.json"
    code, out, _ = _run(capsys, ["sweep", "--streams", "1..3", "--workers", "1", "--json", str(out_file)])
    assert code == 0
    assert "n_streams" in out and "goodput_mbps" in out and len(out.strip().splitlines()) == 4  # table on screen
    rows = _strict_json(out_file.read_text())
    assert [r["n_streams"] for r in rows] == [1, 2, 3]
    assert rows[0]["ceiling_cpu_sender_bps"] is None


def test_sweep_plot_takes_the_flag_name_for_x(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "bdp.png"
    code, _, err = _run(capsys, ["sweep", "--sockbuf", "16k,64k", "--rtt", "1ms,4ms", "--workers", "1",
                                 "--plot", str(png), "--x", "sockbuf", "--y", "goodput_mbps"])
    assert code == 0, err
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"


def test_explain_prints_a_diagram(capsys):
    code, out, _ = _run(capsys, ["explain", "--os", "solaris", "--message", "100", "--message-rate", "20000",
                                 "--delay", "5us", "--segments", "10"])
    assert code == 0
    assert "sender ---> receiver" in out and "sender <--- receiver" in out
    assert "payload cycle" in out


def test_plan_jumbo_says_why(capsys):
    code, out, _ = _run(capsys, ["plan", "jumbo", "--platform", "es40_tru64"])
    assert code == 0
    assert "jumbo frames" in out and "MTU 1500" in out and "limited by" in out


# ---------------------------------------------------------------- validate, calibrate

@pytest.mark.parametrize("argv", [["calibrate", "--platform", "nope"], ["validate", "--bogus"]])
def test_calibration_commands_fail_in_one_line(capsys, argv):
    code, _, err = _run(capsys, argv)
    assert code == 2
    err = err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tcpsim: error:")


def test_calibration_commands_without_the_module(monkeypatch, capsys):
    for name in ("tcpsim.calibration.validate", "tcpsim.calibration.calibrate", "tcpsim.calibration.fit"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    for cmd in ("validate", "calibrate"):
        code, _, err = _run(capsys, [cmd])
        assert code == 2
        assert err.strip() == f"tcpsim: error: {cmd} is not available in this build"


# ---------------------------------------------------------------- processes

def test_python_m_tcpsim_predict_json_is_quick():
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tcpsim", "predict", "--json"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    wall = time.perf_counter() - t
    assert proc.returncode == 0, proc.stderr
    d = _strict_json(proc.stdout)
    assert d["limited_by"] and d["goodput_bps"] > 0
    assert wall < 3.0  # the target is < 1 s on an idle machine; the margin is for loaded CI runners


def test_import_cli_does_not_pull_matplotlib_scipy_or_pandas():
    code = ("import sys, tcpsim, tcpsim.cli; "
            "bad = [m for m in ('matplotlib', 'scipy', 'pandas', 'tqdm', 'ipywidgets') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_predict_command_does_not_pull_matplotlib():
    code = ("import sys, io, contextlib, tcpsim.cli; "
            "contextlib.redirect_stdout(io.StringIO()).__enter__(); "
            "rc = tcpsim.cli.main(['predict', '--platform', 'es40_tru64']); "
            "bad = [m for m in ('matplotlib', 'pandas', 'tqdm', 'ipywidgets') if m in sys.modules]; "
            "sys.exit(rc or (1 if bad else 0))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_predict_flags_reach_the_scenario(capsys):
    code, out, _ = _run(capsys, ["predict", "--method", "ceilings", "--json", "--platform", "p4_linux",
                                 "--mtu", "9000", "--sockbuf", "64k", "--streams", "3", "--write", "8k",
                                 "--rtt", "2ms", "--nodelay"])
    assert code == 0
    inputs = _strict_json(out)["inputs"]
    sc = build_scenario(platform="p4_linux", mtu=9000, sockbuf="64k", streams=3, write="8k", rtt="2ms",
                        nodelay=True)
    assert inputs["mtu_bytes"] == 9000 and inputs["n_streams"] == 3
    assert inputs["write_bytes"] == parse_size("8k") and inputs["nodelay"] is True
    assert inputs["rcvbuf_bytes"] == sc.receiver.tcp.rcvbuf_bytes
    assert inputs["one_way_delay_s"] == pytest.approx(1e-3)


def test_window_advice_says_when_the_hosts_hold_the_acks():
    """A 32 KiB window behind a 500 us interrupt delay: the round trip is mostly the receiver's coalescing."""
    from tcpsim.api import build_scenario
    from tcpsim.engine import run
    from tcpsim.platform import Nic, Platform
    from tcpsim.report_text import advice

    slow_irq = Platform(name="slow-irq", nic=Nic(coalesce_packets=64, coalesce_delay_s=500e-6))
    sc = build_scenario(platform=slow_irq, sockbuf="32k", delay="10us")
    r = run(sc)
    assert r.limited_by == "window"
    text = advice(sc, r)
    assert "--sockbuf" in text and "the path's" in text and "interrupt coalescing" in text
    near = run(build_scenario(sockbuf="32k", delay="1ms"))  # ideal hosts: the path is the round trip
    assert "the path's" not in advice(build_scenario(sockbuf="32k", delay="1ms"), near)


# ---------------------------------------------------------------- random loss

def test_a_lossy_path_is_explained_by_mathis_and_a_short_run_says_it_did_not_converge(capsys):
    from tcpsim.ceilings import loss_estimate_bps
    from tcpsim.api import build_scenario

    args = ["predict", "--rtt", "2ms", "--sockbuf", "4M", "--loss", "1e-3", "--max-time", "300ms"]
    code, out, _ = _run(capsys, args)
    assert code == 0
    mathis = loss_estimate_bps(build_scenario(rtt="2ms", sockbuf="4M", loss=1e-3))
    m = re.search(r"loss model\s+([\d.]+) Mbit/s", out)
    assert m and float(m.group(1)) == pytest.approx(mathis / 1e6, abs=0.1)
    assert "random loss" in out and "--streams" in out          # the advice names loss, not buffers
    assert "time_budget" in out and "caution" in out and "--max-time" in out
    assert "streams" not in re.search(r"loss model.*", out).group(0)
    code, out, _ = _run(capsys, args + ["--streams", "3"])            # the figure is every stream's sum, and says so
    m = re.search(r"loss model\s+([\d.]+) Mbit/s.*a stream, x 3 streams", out)
    assert m and float(m.group(1)) == pytest.approx(3 * mathis / 1e6, abs=0.1)
    code, out, _ = _run(capsys, ["predict", "--rtt", "2ms", "--sockbuf", "64k"])
    assert "loss model" not in out and "caution" not in out


def test_a_loss_too_rare_for_any_budget_is_said_so_not_asked_for_a_bigger_budget(capsys):
    """At 1e-9 of gigabit frames a loss comes every few hours: the rule's two dozen would take longer than any run it
    plans, so the caution says what the goodput is (between losses) instead of asking for more events."""
    code, out, _ = _run(capsys, ["predict", "--rtt", "1ms", "--sockbuf", "4M", "--loss", "1e-9",
                                 "--max-events", "20000"])
    assert code == 0 and "event_budget" in out
    caution = re.search(r"caution .*budget ended the run.*", out).group(0)
    assert "no budget holds them" in caution and "--max-events" not in caution, caution
    m = re.search(r"one comes every (\d+) s simulated, and the stop rule averages over (\d+)", caution)
    assert m and 11_000 < int(m.group(1)) < 14_000 and int(m.group(2)) == 24   # 81,274 frames/s; 20 + 4 a stream


@pytest.mark.parametrize("loss, first_loss", [("1e-6", True), ("1e-3", False)])
def test_a_budget_that_ends_a_run_short_of_its_losses_says_how_many_it_could_expect(capsys, loss, first_loss):
    """Fewer losses than the stop rule averages over: the caution counts them, and where not even one could be
    expected it says a first loss can change the steady state (validation/README.md, rules 165 and 166)."""
    code, out, _ = _run(capsys, ["predict", "--os", "linux", "--loss", loss, "--max-events", "20000"])
    assert code == 0 and "event_budget" in out
    caution = re.search(r"caution .*budget ended the run.*", out).group(0)
    assert re.search(r"it could expect [\d.e-]+ of the 24 random losses", caution) and "--max-events" in caution
    assert ("rules 165 and 166" in caution) is first_loss, caution


def test_loss_estimate_follows_mathis_formula_and_the_closed_form_method_uses_it():
    from tcpsim.api import build_scenario
    from tcpsim.ceilings import base_rtt_s, loss_estimate_bps
    from tcpsim.protocol import framing

    sc = build_scenario(rtt="2ms", sockbuf="4M", loss=1e-3)
    mss = framing.mss_bytes(1500)
    assert loss_estimate_bps(sc) == pytest.approx(mss * 8 / base_rtt_s(sc) * 1.5 ** 0.5 / 1e-3 ** 0.5)
    assert loss_estimate_bps(build_scenario(rtt="2ms", sockbuf="4M", loss=4e-3)) == pytest.approx(
        loss_estimate_bps(sc) / 2, rel=1e-9)
    assert loss_estimate_bps(build_scenario(rtt="2ms", sockbuf="4M", loss=1e-3, streams=3)) == pytest.approx(
        3 * loss_estimate_bps(sc))
    assert loss_estimate_bps(build_scenario(rtt="2ms")) == math.inf
    r = predict(method="ceilings", rtt="2ms", sockbuf="4M", loss=1e-3)
    assert r.limited_by == "cwnd" and r.goodput_bps == pytest.approx(loss_estimate_bps(sc))
    rare = predict(method="ceilings", rtt="2ms", sockbuf="4M", loss=1e-9)  # the line binds first
    assert rare.limited_by == "line"


def test_window_advice_does_not_ask_for_buffers_already_there():
    import dataclasses

    from tcpsim.api import build_scenario
    from tcpsim.engine import run
    from tcpsim.report_text import advice

    sc = build_scenario(sockbuf="4M", delay="100us")
    r = dataclasses.replace(run(sc), limited_by="window", rtt_s=200e-6)  # 4 MiB >> 1 Gbit/s x 200 us
    assert "already cover" in advice(sc, r) and "--sockbuf" not in advice(sc, r)


def test_bus_advice_names_the_next_faster_bus_and_jumbo_frames_only_where_they_are_off():
    import dataclasses

    from tcpsim.platform import BUS_PRESETS
    from tcpsim.report_text import advice

    sc = build_scenario(bus="pci-64-66", mtu=1500)
    r = dataclasses.replace(predict(method="ceilings", bus="pci-64-66", mtu=1500), limited_by="bus_sender")
    text = advice(sc, r)
    bus = re.search(r"--bus (\S+)\)", text).group(1)
    assert BUS_PRESETS[bus].raw_bps > BUS_PRESETS["pci-64-66"].raw_bps
    assert not any(BUS_PRESETS["pci-64-66"].raw_bps < b.raw_bps < BUS_PRESETS[bus].raw_bps
                   for b in BUS_PRESETS.values())
    assert "--mtu 9000" in text
    jumbo = build_scenario(bus="pcix-64-133", mtu=9000)
    text = advice(jumbo, dataclasses.replace(r, limited_by="bus_receiver"))
    assert "--mtu" not in text and "pcix-64-133" not in text


def test_sack_flag_overrides_each_os_default_on_both_ends():
    """Linux permits SACK by default, 4.4BSD has none; --sack on / off sets both ends (RFC 2018 §2)."""
    assert build_scenario(os="linux").sender.tcp.sack and not build_scenario(os="bsd").sender.tcp.sack
    off = build_scenario(os="linux", sack="off")
    on = build_scenario(os="bsd", sack=True)
    assert not off.sender.tcp.sack and not off.receiver.tcp.sack
    assert on.sender.tcp.sack and on.receiver.tcp.sack


def test_limited_transmit_is_linux_s_default_and_a_switch_for_the_others(capsys):
    assert build_scenario(os="linux").sender.tcp.limited_transmit
    assert not build_scenario(os="bsd").sender.tcp.limited_transmit
    assert build_scenario(os="bsd", limited_transmit="on").sender.tcp.limited_transmit
    code, out, _ = _run(capsys, ["sweep", "--limited-transmit", "off,on", "--max-time", "20ms", "--csv", "-"])
    rows = out.strip().splitlines()
    assert code == 0 and rows[0].startswith("limited_transmit,")
    assert [r.split(",")[0] for r in rows[1:]] == ["False", "True"]


def test_queue_overflow_advice_offers_sack_only_where_it_is_off(capsys):
    base = ["predict", "--rtt", "20ms", "--queue", "50", "--rate", "100mbit", "--sockbuf", "2M", "--max-time", "10s"]
    _, off, _ = _run(capsys, base + ["--sack", "off"])
    _, on, _ = _run(capsys, base + ["--sack", "on"])
    assert "queue overflows" in off and "--sack on" in off
    assert "queue overflows" in on and "--sack on" not in on
    assert on.splitlines()[0].endswith(", SACK") and "SACK" not in off.splitlines()[0]


def test_a_long_loss_recovery_is_the_limit_and_the_advice_blames_it_not_the_buffers(capsys):
    """Slow start overflows a 50-frame queue; in the first second NewReno repairs one hole per round trip,
    the send buffer fills behind the first hole, and segments sent meanwhile are acknowledged only when
    the holes are repaired. The full send buffer is then loss recovery, not a reason for larger buffers."""
    code, out, _ = _run(capsys, ["predict", "--rtt", "20ms", "--queue", "50", "--rate", "100mbit", "--sockbuf", "2M",
                                 "--max-time", "1s", "--sack", "off"])
    tip = next(line for line in out.splitlines() if line.startswith("try"))
    assert code == 0 and "retransmitted" in out
    assert "limited by   loss recovery" in out
    assert "repair of losses" in tip and "link queue" in tip and "--sack on" in tip and "--sockbuf" not in tip
