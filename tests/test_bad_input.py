"""Hostile input to the command line: every option, file argument and output path of every subcommand.

Each bad value is one line on stderr naming the field, exit code 2, no traceback, nothing simulated (the
cases fail before a run starts, so the table is fast). Output the OS cannot take is one line and exit 1;
a closed pipe ends quietly; Ctrl-C in a sweep exits 130 and leaves no process behind.
"""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tcpsim.cli import main
from tcpsim.fileio import MAX_INPUT_BYTES, read_text_limited, write_text_reporting
from tcpsim.errors import ConfigError, OutputError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Hostile files: huge, binary, UTF-16, a FIFO, a folder, a bad line; and good ones with a BOM."""
    d = tmp_path_factory.mktemp("hostile")
    (d / "big.conf").write_text("net.core.rmem_max = 4194304\n" * (MAX_INPUT_BYTES // 28 + 10))
    (d / "binary.conf").write_bytes(b"net.core.rmem_max = 4194304\n\x00\x01\x02\xff")
    (d / "latin1.conf").write_bytes(b"# r\xe9glage\nnet.core.rmem_max = 4194304\n")
    (d / "utf16.conf").write_text("net.core.rmem_max = 4194304\n", encoding="utf-16")
    (d / "bad.conf").write_text("net.ipv4.tcp_magic = 1\n")
    (d / "bom.conf").write_bytes(b"\xef\xbb\xbfnet.core.rmem_max = 4194304\n")
    (d / "folder").mkdir()
    (d / "data").mkdir()
    os.mkfifo(d / "fifo")
    (d / "profile.toml").write_bytes(b"\x00" * 16)
    # Platform profiles (--platform FILE) of the list: each a schema error naming file, line and field.
    (d / "p_intname.toml").write_text('name = 5\n[os]\nfamily = "linux"\n')
    (d / "p_tuning.toml").write_text('tuning = 1\n[os]\nfamily = "linux"\n')
    (d / "p_empty.toml").write_text("")
    (d / "p_scalar.toml").write_text('os = "linux"\n')
    (d / "p_float.toml").write_text('[os]\nfamily = "linux"\n[cpu]\nn_cpus = 2.5\n')
    (d / "p_deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    return d


_BAD = [
    # predict: every scenario flag
    ("predict --rate ''", "rate"), ("predict --rate fast", "rate"), ("predict --rate inf", "rate"),
    ("predict --rate nan", "rate"), ("predict --rate 10GB", "rate"), ("predict --rate=", "rate"),
    ("predict --delay 20", "delay"), ("predict --delay ''", "delay"), ("predict --delay inf", "delay"),
    ("predict --delay -1ms", "delay"), ("predict --rtt 20", "rtt"), ("predict --rtt nan", "rtt"),
    ("predict --rtt 1ms --delay 1ms", "delay"), ("predict --rtt 99s", "rtt"),
    ("sweep --delay 1ms,2ms --rtt 5ms", "delay"), ("sweep --delay 1ms --rtt 5ms,10ms", "delay"),
    ("predict --mtu ''", "mtu"), ("predict --mtu ' '", "mtu"), ("predict --mtu 70000", "mtu"),
    ("predict --mtu inf", "mtu"), ("predict --mtu 9.5", "mtu"), ("predict --mtu ٩٠٠٠", "mtu"),
    ("predict --mss ''", "mss"), ("predict --mss 10", "mss"), ("predict -M 1460 --mtu 1500", "mss"),
    ("predict --read 0", "read"), ("predict --read lots", "read"), ("predict --read ''", "read"),
    ("predict --queue ''", "queue"), ("predict --queue 0", "queue"), ("predict --queue -1", "queue"),
    ("predict --queue ١٠", "queue"), ("predict --queue 1.5", "queue"),
    ("predict --loss ''", "loss"), ("predict --loss inf", "loss"), ("predict --loss nan", "loss"),
    ("predict --loss 60%", "loss"), ("predict --loss -1", "loss"), ("predict --loss 0.7", "loss"),
    ("predict --loss lots", "loss"),
    ("predict --sockbuf ''", "sockbuf"), ("predict --sockbuf 12q", "sockbuf"), ("predict --sockbuf 0", "sockbuf"),
    ("predict --sockbuf inf", "sockbuf"), ("predict -w 12q", "sockbuf"), ("predict --sockbuf ٥١٢k", "sockbuf"),
    ("predict --sndbuf ''", "sndbuf"), ("predict --rcvbuf -4k", "rcvbuf"),
    ("predict --delack ''", "delack"), ("predict --delack sometimes", "delack"),
    ("predict --deferred-acks-max 0", "deferred_acks_max"), ("predict --deferred-acks-max x", "deferred_acks_max"),
    ("predict --deferred-acks-max 8 --delack linux", "deferred_acks_max"),
    ("predict --deferred-acks-max 8 --platform p4_linux", "deferred_acks_max"),
    ("sweep --delack linux,solaris --deferred-acks-max 8", "deferred_acks_max"),
    ("predict --sack maybe", "sack"), ("predict --limited-transmit ''", "limited_transmit"),
    ("predict --os ''", "os"), ("predict --os windows", "os"), ("predict --cc ''", "cc"), ("predict --cc vegas", "cc"),
    ("predict --write ''", "write"), ("predict --write 0", "write"), ("predict -l 2G", "write"),
    ("predict --message ''", "message"), ("predict --message 1.5", "message"), ("predict --message nan", "message"),
    ("predict --message-rate ''", "message_rate"), ("predict --message 100 --message-rate inf", "message_rate"),
    ("predict --message 100 --message-rate nan", "message_rate"),
    ("predict --message 100 --message-rate 0", "message_rate"),
    ("predict --rr ''", "rr"), ("predict --rr 100 --response ''", "response"), ("predict --rr 100 --bidir", "bidir"),
    ("predict --streams ''", "streams"), ("predict --streams 0", "streams"), ("predict --streams ١٢٣", "streams"),
    ("predict --streams 1001", "streams"), ("predict -P 0", "streams"), ("predict --streams 2.5", "streams"),
    ("predict --platform ''", "platform"), ("predict --platform cray1", "platform"),
    ("predict --sender ''", "sender"), ("predict --receiver nosuch", "receiver"), ("predict --sender inf", "sender"),
    ("predict --platform {files}/profile.toml", "platform"), ("predict --platform {files}/none.toml", "platform"),
    ("predict --machine ''", "machine"), ("predict --machine nosuch", "machine"), ("predict --machine /dev/zero", "machine"),
    ("predict --machine {files}/folder", "machine"), ("predict --cpu-ghz ''", "cpu_ghz"), ("predict --nic ''", "nic"),
    ("predict --memory-bw nan", "memory_bw"),
    ("predict --tuning ''", "tuning"), ("predict --platform rx2600_ixgb --tuning turbo", "tuning"),
    ("predict --sysctl ''", "sysctl"), ("predict --sysctl /nonexistent/tuned.conf", "sysctl"),
    ("predict --sysctl /dev/zero", "sysctl"), ("predict --sysctl {files}/folder", "sysctl"),
    ("predict --sysctl {files}/fifo", "sysctl"), ("predict --sysctl {files}/big.conf", "sysctl"),
    ("predict --sysctl {files}/binary.conf", "sysctl"), ("predict --sysctl {files}/latin1.conf", "sysctl"),
    ("predict --sysctl {files}/utf16.conf", "sysctl"), ("predict --sysctl {files}/bad.conf", "bad.conf:1"),
    ("predict --cpus ''", "cpus"), ("predict --cpus 0", "cpus"), ("predict --cpus -2", "cpus"),
    ("predict --bus ''", "bus"), ("predict --bus warp", "bus"),
    ("predict --seed ''", "seed"), ("predict --seed -1", "seed"), ("predict --seed x", "seed"),
    ("predict --max-time ''", "max_time"), ("predict --max-time 5", "max_time"),
    ("predict --max-time inf", "max_time"), ("predict --max-time 0s", "max_time"),
    ("predict --method ''", "method"), ("predict --method guess", "method"),
    ("predict --json ''", "json"), ("predict --json=", "json"),
    ("predict --json /nonexistent/out.json", "json"), ("predict --json {files}/folder", "json"),
    ("predict -J /proc/no/such.json", "json"),
    # platforms
    ("platforms --json /nonexistent/out.json", "json"), ("platforms --json {files}/folder", "json"),
    ("platforms --json ''", "json"),
    # sweep: axes, ranges, grid size, outputs
    ("sweep --mtu ''", "mtu"), ("sweep --mtu=", "mtu"), ("sweep --mtu 1500,,9000", "mtu"),
    ("sweep --mtu 1500,", "mtu"), ("sweep --mtu ,", "mtu"), ("sweep --sockbuf 16k..1M:xinf", "sockbuf"),
    ("sweep --sockbuf 16k..1M:+inf", "sockbuf"), ("sweep --sockbuf 16k..1M:xnan", "sockbuf"),
    ("sweep --sockbuf 16k..1M:x1", "sockbuf"), ("sweep --mtu 1..1:x1", "mtu"), ("sweep --streams 1..1", "streams"),
    ("sweep --streams 8..1:+1", "streams"), ("sweep --sockbuf 1M..16k:x2", "sockbuf"),
    ("sweep --streams 1..2:+5", "streams"), ("sweep --sockbuf 16k..1M:y2", "sockbuf"),
    ("sweep --sockbuf 16k..1M:x", "sockbuf"), ("sweep --sockbuf ..1M", "sockbuf"), ("sweep --sockbuf 16k..", "sockbuf"),
    ("sweep --sockbuf 0..1M:x2", "sockbuf"), ("sweep --streams 1..١٠", "streams"),
    ("sweep --streams 1..1000 --cpus 1..1000 --queue 1..1000", "sweep"),
    ("sweep --streams 1..100 --cpus 1..101", "sweep"), ("sweep -P 1,2 --max-points 1", "sweep"),
    ("sweep --mtu 1500,9000 --max-points 0", "max_points"), ("sweep --mtu 1500,9000 --max-points ''", "max_points"),
    ("sweep --mtu 1500,9000 --workers 0", "workers"), ("sweep --mtu 1500,9000 --workers ''", "workers"),
    ("sweep --loss 0,inf", "loss"), ("sweep --loss 0,2", "loss"), ("sweep --seed 1,x", "seed"),
    ("sweep --rtt 1,10", "rtt"), ("sweep --rate 1g,fast", "rate"), ("sweep --sack on,maybe", "sack"),
    ("sweep --mtu 1500,9000 --mss 1460", "mss"), ("sweep --platform es40_tru64,cray1", "platform"),
    ("sweep --mtu 1500,9000 --mtu 1500,4000", "mtu"), ("sweep --rate 100T,1G", "rate='1e+14'"),
    ("sweep --mtu 1500,9000 --csv /nonexistent/out.csv", "csv"), ("sweep --mtu 1500,9000 --csv {files}/folder", "csv"),
    ("sweep --mtu 1500,9000 --json /nonexistent/out.json", "json"),
    ("sweep --mtu 1500,9000 --json {files}/folder", "json"),
    ("sweep --mtu 1500,9000 --plot /nonexistent/out.png", "plot"), ("sweep --mtu 1500,9000 --csv ''", "csv"),
    ("sweep --mtu 1500,9000 --x ''", "x"), ("sweep --mtu 1500,9000 --y ''", "y"),
    ("sweep --mtu 1500,9000 --hue ''", "hue"), ("sweep --mtu 1500,9000 --plot {files}/s.png --x mtuu", "x"),
    ("sweep --mtu 1500,9000 --y goodput", "y"), ("sweep --mtu 1500,9000 --sockbuf 16k,64k --hue sockbuf_bytez", "hue"),
    ("sweep --mtu 1500,9000 --plot {files}/s.png --x sockbuf", "x"), ("sweep --mtu 1500,9000 --sysctl /dev/zero", "sysctl"),
    # platform profile files (issue 24: TypeError, RecursionError, or taken as valid)
    ("predict --platform {files}/p_intname.toml", "p_intname.toml:1: name=5"),
    ("predict --platform {files}/p_tuning.toml", "p_tuning.toml:1: tuning=1"),
    ("predict --platform {files}/p_empty.toml", "p_empty.toml:1: platform='nothing'"),
    ("predict --platform {files}/p_scalar.toml", "p_scalar.toml:1: os='linux'"),
    ("predict --platform {files}/p_float.toml", "p_float.toml:4: cpu.n_cpus=2.5"),
    ("predict --platform {files}/p_deep.toml", "p_deep.toml: platform='nesting'"),
    ("sweep --mtu 1500,9000 --platform {files}/p_tuning.toml", "tuning=1"),
    # explain
    ("explain --segments 0", "segments"), ("explain --segments ''", "segments"), ("explain --segments x", "segments"),
    ("explain --plot {files}/folder", "plot"), ("explain --plot /nonexistent/x.png", "plot"),
    ("explain --diagram /nonexistent/x.png", "diagram"), ("explain --pcap /nonexistent/x.pcap", "pcap"),
    ("explain --pcap {files}/folder", "pcap"), ("explain --snaplen 10", "snaplen"), ("explain --rtt 20", "rtt"),
    # plan
    ("plan ''", "not empty"), ("plan bogus", "question"), ("plan sockbuf", "target"),
    ("plan sockbuf --target ''", "target"), ("plan cpus --target fast", "target"),
    ("plan cpus --target 500mbit --max-cpus 0", "max_cpus"), ("plan jumbo --json=/nonexistent/x.json", "json"),
    ("plan cpus --target 500mbit --max-cpus 100000", "max_cpus"),
    ("plan jumbo --mtu ''", "mtu"), ("plan jumbo --mtu 9000", "mtu"), ("plan jumbo --target 1gbit", "target"),
    ("plan sockbuf --target 1gbit --uplink 1gbit", "uplink"), ("plan jumbo --max-cpus 4", "max_cpus"),
    ("predict --response 1k", "response"), ("predict --rr 100 --message 1k", "message"),
    ("predict --rr 100 --read 1k", "read"), ("predict --rr 100 --message-rate 10", "message_rate"),
    # compare
    ("compare --what-if ''", "what_if"), ("compare --json /nonexistent/x.json --what-if mtu=9000", "json"),
    ("compare --a '--mtu 1500'", "compare"),
    # validate (file and folder arguments)
    ("validate --data /nonexistent", "data"), ("validate --data /etc/passwd", "data"),
    ("validate --data {files}/data", "data"), ("validate --data ''", "data"), ("validate --source nosuch", "source"),
    ("validate --source ''", "source"), ("validate --json /nonexistent/x.json", "json"),
    ("validate --json {files}/folder", "json"), ("validate --workers 0", "workers"),
    ("validate --workers 9000", "1..256"),
    ("sweep --mtu 1500,9000 --workers 300", "1..256"), ("calibrate --platform es40_tru64 --workers 257", "1..256"),
    ("validate --workers ١", "workers"), ("validate --platform es40_tru64", "platform"),
    ("validate --platform nosuch=es40_tru64 --source tru64", "platform"),
    ("validate --platform es40_tru64=/nonexistent.toml --source tru64", "platform"),
    ("validate --cross --platform es40_tru64=es40_tru64", "platform"),
    # no command, unknown command
    ("bogus", "command"), ("", "command"),
]


@pytest.mark.parametrize("line, field", _BAD, ids=[c[0] for c in _BAD])
def test_bad_input_is_one_line_naming_the_field_and_exit_2(capsys, files, line, field):
    import shlex

    argv = shlex.split(line.replace("{files}", str(files)))
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("tcpsim: error:"), err
    assert field in lines[0], lines[0]
    given = {_SHORT_FLAGS.get(t, t) for t in (t.split("=")[0] for t in argv)}
    if "--" + field.replace("_", "-") in given:  # the row's field is an option it gives: named as written
        assert _names_option(lines[0], field), lines[0]
    assert "Traceback" not in err and out == ""


_SHORT_FLAGS = {"-w": "--sockbuf", "-P": "--streams", "-l": "--write", "-M": "--mss", "-J": "--json"}


def _names_option(line: str, dest: str) -> bool:
    """The error names option ``dest`` as the user wrote it: ``dest=value`` or ``--dest`` (argparse's
    ``argument -P/--streams``), never a field derived from it (``write_bytes`` for ``--message``)."""
    flag = "--" + dest.replace("_", "-")
    return re.search(rf"(?<![\w.-]){dest}[=:]", line) is not None or re.search(rf"{flag}(?![\w-])", line) is not None


# ---------------------------------------------------------------- accepted spellings (issue 23's unit traps)

@pytest.mark.parametrize("flags, key, expected", [
    (["--mtu", "9k"], "mtu_bytes", 9000), (["--mtu", "9KiB"], "mtu_bytes", 9216),
    (["-M", "1460"], "mtu_bytes", 1500), (["--rate", "10Gb"], "rate_bps", 1e10), (["--rate", "10gbit"], "rate_bps", 1e10),
    (["--rate", "10Gbps"], "rate_bps", 1e10), (["--rate", "10G"], "rate_bps", 1e10),
    (["-w", "512k"], "sndbuf_bytes", 524288), (["-P", "3"], "n_streams", 3), (["-l", "8k"], "write_bytes", 8192),
    (["-N"], "nodelay", True), (["--rtt", "20ms"], "one_way_delay_s", 0.01), (["--rtt", "0"], "one_way_delay_s", 0.0),
])
def test_iperf3_spellings_and_units_reach_the_scenario(capsys, flags, key, expected):
    import json

    assert main(["predict", "--method", "ceilings", "--json", *flags]) == 0
    got = json.loads(capsys.readouterr().out)["inputs"][key]
    assert got == pytest.approx(expected) if isinstance(expected, float) else got == expected


def test_loss_takes_a_percentage(capsys):
    from tcpsim import build_scenario

    assert build_scenario(loss="1%").link.loss_frac == pytest.approx(0.01)
    assert build_scenario(loss="1e-3").link.loss_frac == pytest.approx(1e-3)
    assert main(["predict", "--method", "ceilings", "--loss", "0.1%", "--rtt", "2ms"]) == 0


@pytest.mark.parametrize("argv", [["predict", "--loss", "0.7"], ["predict", "--loss", "1.5"],
                                  ["predict", "--loss", "150%"], ["sweep", "--loss", "0,1.5"],
                                  ["lab", "--rtt", "1ms", "--loss", "1.5"]])
def test_a_loss_out_of_range_names_the_range_a_link_takes(capsys, argv):
    """Above a fraction's 1 or only above a link's 0.5, the line names the range that is accepted: 0..0.5."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "loss=" in err and "0..0.5" in err and "0..1" not in err, err


def test_a_bom_is_dropped_and_the_file_read(files, capsys):
    assert read_text_limited(files / "bom.conf", "sysctl").startswith("net.core")
    assert main(["predict", "--method", "ceilings", "--platform", "p4_linux", "--sysctl",
                 str(files / "bom.conf")]) == 0


def test_json_flag_takes_an_optional_file_on_every_command(tmp_path, capsys):
    import json

    out = tmp_path / "p.json"
    assert main(["predict", "--method", "ceilings", f"--json={out}"]) == 0
    assert json.loads(out.read_text())["goodput_bps"] > 0
    assert main(["platforms", "-J", str(tmp_path / "plat.json")]) == 0
    assert json.loads((tmp_path / "plat.json").read_text())[0]["name"]
    assert capsys.readouterr().out == ""


def test_sweep_json_without_a_file_prints_to_stdout(capsys):
    import json

    assert main(["sweep", "--mtu", "1500,9000", "--max-time", "5ms", "--workers", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["mtu_bytes"] for r in rows] == [1500, 9000]


def test_sweep_counts_the_grid_before_building_it(monkeypatch):
    """A grid over the limit is refused without building one scenario (10^9 points cost nothing)."""
    import functools

    import tcpsim.api
    from tcpsim.sweep import sweep

    @functools.wraps(tcpsim.api.build_scenario)
    def boom(**kw):
        raise AssertionError("a scenario was built")

    monkeypatch.setattr(tcpsim.api, "build_scenario", boom)
    with pytest.raises(ConfigError, match="1,000,000,000 points"):
        sweep({}, streams="1..1000", cpus="1..1000", queue="1..1000")
    with pytest.raises(ConfigError, match="at most 3 points"):
        sweep({}, mtu=[1500, 4000, 9000, 1280], max_points=3)


def test_long_continued_sysctl_lines_are_joined_in_linear_time():
    """Half a megabyte of continuation lines (a minute with the old quadratic join) parses in one pass."""
    from tcpsim.tuning import parse_tuning

    text = "sysctl -w \\\n" + "net.core.rmem_max=4194304 \\\n" * 20000 + "\n"
    assert len(text) > 500_000
    knobs = parse_tuning(text, "long.conf")
    assert len(knobs) == 20000 and all(k.value == 4194304 for k in knobs)


# ---------------------------------------------------------------- output the OS refuses

def test_a_full_disk_is_one_line_and_exit_1(capsys):
    assert main(["predict", "--method", "ceilings", "--json", "/dev/full"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left" in err[0] and "json" in err[0]
    with pytest.raises(OutputError):
        write_text_reporting("/dev/full", "x", "csv")
    with pytest.raises(ConfigError, match="csv="):
        write_text_reporting("/nonexistent/x.csv", "x", "csv")


def _tcpsim(*args):
    return [sys.executable, "-P", "-m", "tcpsim", *args]


@pytest.mark.parametrize("args", [
    ("predict", "--method", "ceilings"), ("platforms",),
    ("sweep", "--mtu", "1500,9000", "--max-time", "5ms", "--workers", "1", "--csv", "-"),
])
def test_stdout_on_a_full_disk_is_one_line_and_exit_1(args):
    with open("/dev/full", "w") as full:
        p = subprocess.run(_tcpsim(*args), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("\n") == 1 and "No space left on device" in p.stderr


def test_a_closed_pipe_ends_quietly():
    """``tcpsim platforms | head -0``: no traceback, the shell's 128 + SIGPIPE."""
    with subprocess.Popen(_tcpsim("platforms"), stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        p.stdout.close()  # the reader is gone before the first line is written
        err = p.stderr.read().decode()
        assert p.wait(timeout=60) == 141 and err == ""


# ---------------------------------------------------------------- Ctrl-C

def _group(pgid):
    out = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.skipif(sys.platform != "linux", reason="process groups as Linux's pgrep shows them")
@pytest.mark.parametrize("whole_group", [True, False], ids=["terminal Ctrl-C", "kill -INT the parent"])
def test_ctrl_c_in_a_sweep_stops_the_workers_and_exits_130(whole_group):
    """A terminal's Ctrl-C signals the whole process group; ``kill -INT`` only the parent. Either way the
    sweep ends with one line, exit 130, and no worker left."""
    # SIGINT as a terminal leaves it: a test run started in the background by a non-interactive shell inherits
    # it ignored, and so would the sweep.
    # Points that take seconds each (a million segments between two random losses), so the sweep is still running.
    with subprocess.Popen(_tcpsim("sweep", "--rtt", "1ms", "--sockbuf", "4M", "--loss", "1e-6,2e-6,3e-6",
                                  "--max-time", "60s", "--workers", "2"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as p:
        _interrupt(p, whole_group)
    assert p.returncode == 130
    assert p.stderr_text.strip() == "tcpsim: interrupted"
    for _ in range(50):
        if not _group(p.pid):
            break
        time.sleep(0.1)
    assert _group(p.pid) == []


def _interrupt(p, whole_group, sig=signal.SIGINT):
    try:
        for _ in range(600):  # wait (up to a minute) until both workers run
            if len(_group(p.pid)) >= 3 or p.poll() is not None:
                break
            time.sleep(0.1)
        assert p.poll() is None, "the sweep ended before it could be interrupted"
        time.sleep(0.5)  # the workers are inside their first points
        (os.killpg if whole_group else os.kill)(p.pid, sig)
        p.stderr_text = p.communicate(timeout=60)[1].decode()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


def _slow_sweep(*extra):
    """A sweep of points that take seconds each, on two workers, in a session of its own."""
    return subprocess.Popen(_tcpsim("sweep", "--rtt", "1ms", "--sockbuf", "4M", "--loss", "1e-6,2e-6,3e-6",
                                    "--max-time", "60s", "--workers", "2", *extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _gone(pgid, within_s=5.0):
    for _ in range(int(within_s * 10)):
        if not _group(pgid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(sys.platform != "linux", reason="process groups as Linux's pgrep shows them")
def test_sigterm_to_a_sweep_stops_the_workers_and_exits_143():
    """``kill PID`` (or ``timeout``) to the parent only: it stops as Ctrl-C stops it, one line, 128 + SIGTERM, and no
    worker left blocked on its pipe."""
    with _slow_sweep() as p:
        _interrupt(p, False, signal.SIGTERM)
    assert p.returncode == 143
    assert p.stderr_text.strip() == "tcpsim: terminated (SIGTERM)"
    assert _gone(p.pid)


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_a_sweep_killed_outright_takes_its_workers_with_it():
    """SIGKILL leaves the parent no handler to run: its workers end with it (``prctl(PR_SET_PDEATHSIG)``)."""
    with _slow_sweep() as p:
        _interrupt(p, False, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL
    assert _gone(p.pid)


def test_a_refusal_in_a_worker_reaches_the_caller_as_itself():
    """An error a point raises in a worker process is pickled back: the ConfigError family rebuilds from its own
    arguments, not from its message (which once broke the pool: ``BrokenProcessPool``, 43 lines)."""
    import pickle

    from tcpsim.errors import TuningFileError
    from tcpsim.machine.schema import FileFieldError

    for exc in (ConfigError("mtu", 68, "in 68..65535"), TuningFileError("x.conf", 3, "a = b", "unknown key"),
                FileFieldError("m.toml", 4, "cpu.clock_hz", -1.0, "more than 0")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc) and back.field == exc.field


def test_a_grid_point_too_large_to_run_is_refused_in_one_line_on_workers(capsys):
    """Good values whose combination could not fit in memory (a thousand streams of 28-byte segments) are refused as
    the point is built, before it goes to a worker."""
    assert main(["sweep", "--streams", "1,1000", "--mtu", "68", "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tcpsim: error: streams=1000: must be fewer for these windows")


def test_validate_report_checks_its_folder_before_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "validation").write_text("a file where the report folder goes\n")
    assert main(["validate", "--report", "--source", "tru64"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "report=" in err[0]


@pytest.mark.parametrize("line, field", [
    ("calibrate --platform es40_tru64 --data /etc/passwd", "data"),
    ("calibrate --platform es40_tru64 --data /nonexistent", "data"),
    ("calibrate --platform es40_tru64 --workers ١", "workers"), ("calibrate --platform es40_tru64 --max-evals 0", "max_evals"),
    ("calibrate --platform es40_tru64 --polish-evals -1", "polish_evals"), ("calibrate --platform ''", "platform"),
    ("calibrate --platform cray1", "platform"),
])
def test_calibrate_bad_input_is_one_line(capsys, line, field):
    import shlex

    assert main(shlex.split(line)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err


_RUN = os.path.join(os.path.dirname(__file__), "data", "iperf3_unshaped.json")


@pytest.mark.parametrize("flags, field", [
    ("--max-evals 0", "max_evals"), ("--max-evals -3", "max_evals"), ("--workers 0", "workers"),
    ("--workers ١", "workers"), ("--cpus 0", "cpus"), ("--cpus 2.5", "cpus"),
    ("--costs per_packet_s,per_packet_s", "costs"), ("--costs per_packet_s,per_packet_rx_s", "costs"),
    ("--costs per_nothing_s", "costs"), ("--prior 0.5", "prior"),
    ("--out fit.json", "out"),
])
def test_calibrating_this_machine_refuses_bad_input_in_one_line(capsys, tmp_path, flags, field):
    import shlex

    line = f"calibrate --iperf3 {_RUN} --rate 1gbit --costs per_packet_s --out {tmp_path / 'fit.toml'} {flags}"
    assert main(shlex.split(line)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err
    assert not (tmp_path / "fit.toml").exists()


@pytest.mark.parametrize("line", ["calibrate --iperf3 --help", "calibrate --lab -h"])
def test_the_own_machine_calibration_has_its_own_help(capsys, line):
    assert main(line.split()) == 0
    out = capsys.readouterr().out
    assert "--iperf3 RUN.json" in out and "--out FILE.toml" in out


def test_the_table_calibration_help_points_at_the_own_machine_one(capsys):
    assert main(["calibrate", "--help"]) == 0
    assert "tcpsim calibrate --iperf3 --help" in capsys.readouterr().out


@pytest.mark.parametrize("line, field", [("lab --streams ١", "streams"), ("lab --streams 65", "streams"),
                                         ("machine show x --cpus 1.5", "cpus"), ("machine show x --cpus 0", "cpus")])
def test_lab_and_machine_counts_are_parsed_as_everywhere_else(capsys, line, field):
    assert main(line.split()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err


@pytest.mark.parametrize("line, field", [
    ("predict --rtt -1ms", "rtt"), ("predict --sockbuf -5k", "sockbuf"), ("predict --mtu -1", "mtu"),
    ("predict -w -5k", "sockbuf"), ("predict --sock -5k", "sockbuf"), ("predict --max-time -.5s", "max_time"),
    ("sweep --rtt -1ms", "rtt"), ("sweep --sockbuf -5k..1M:x2", "sockbuf"),
    ("compare --a '--rtt -1ms' --b '--rtt 1ms'", "rtt"), ("machine show x --cpu-ghz -1.5", "cpu_ghz"),
    ("lab --streams -1k", "streams"), ("validate --workers -1k", "workers"),
])
def test_a_value_starting_with_a_dash_reaches_its_field(capsys, line, field):
    """``--rtt -1ms`` is ``--rtt=-1ms``: the field's own one-line error, not argparse's "expected one argument"
    (which takes only -1 or -.5 after an option as a value)."""
    import shlex

    code = main(shlex.split(line))
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("tcpsim: error:"), (code, err)
    assert _names_option(lines[0], field) and "expected one argument" not in lines[0], lines[0]
    assert "Traceback" not in err and out == ""


def test_lab_refuses_a_dash_value_before_anything_runs(capsys, monkeypatch):
    """As root with the tools (faked here), ``tcpsim lab --rtt -1ms`` names rtt before a namespace is made."""
    from tcpsim.lab import measure, testbed

    monkeypatch.setattr(testbed, "missing_requirement", lambda: None)
    monkeypatch.setattr(testbed, "install_signal_handlers", lambda: pytest.fail("the run started"))
    monkeypatch.setattr(measure, "run_lab", lambda *a, **k: pytest.fail("the run started"))
    assert main(["lab", "--rtt", "-1ms"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rtt='-1ms'" in err[0], err


def test_only_options_that_take_a_value_get_a_dash_value():
    from tcpsim.cli import _parser
    from tcpsim.cliutil import attach_dash_values

    sub = _parser()._subparsers._group_actions[0].choices["predict"]
    assert attach_dash_values(sub, ["--rtt", "-1ms", "-w", "-5k", "--mtu", "-1"]) == ["--rtt=-1ms", "-w=-5k",
                                                                                      "--mtu=-1"]
    kept = ["--nodelay", "-1ms", "--json", "-1", "--rtt=-1ms", "--rtt", "--veth", "--", "--mtu", "-1"]
    assert attach_dash_values(sub, kept) == kept  # flags, an optional value, a joined one, after --
    assert sub.parse_args(["--rtt", "-1ms", "-N", "-w", "-5k"]).sockbuf == "-5k"


def _value_options():
    """(command, flag, dest) for every option of every subcommand that takes a value, output paths aside."""
    import argparse

    from tcpsim.cli import _parser

    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, sp in sub.choices.items():
        for a in sp._actions:
            if a.option_strings and a.nargs != 0 and a.dest not in ("json", "json_out", "csv", "plot", "pcap", "diagram") \
                    and not isinstance(a, (argparse._HelpAction, argparse._StoreTrueAction, argparse._StoreFalseAction)):
                out.append((name, max(a.option_strings, key=len), a.dest))
    return out


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_no_option_of_any_subcommand_takes_inf_or_nan_quietly(capsys, value, tmp_path, monkeypatch):
    """Every value option of every subcommand (the parser's own list, so a new flag is covered the day it is
    added), given inf, nan or -inf, is refused in one line naming that option as the user wrote it, exit 2:
    never ignored, never a run, never a field derived from it (issue 24)."""
    monkeypatch.chdir(tmp_path)  # no file named inf or nan where a path is read
    options = _value_options()
    assert len(options) > 100
    accepted = []
    for command, flag, dest in options:
        argv = [command]
        if command == "plan":
            question = {"target": "sockbuf", "uplink": "flows", "max_cpus": "cpus"}.get(dest, "jumbo")
            argv += [question] + (["--target", "1mbit"] if question != "jumbo" and dest != "target" else []) \
                + (["--rtt", "1ms"] if question == "flows" and dest != "rtt" else [])
        if command == "compare" and dest != "what_if":
            argv += ["--what-if", "mtu=9000"]
        code = main(argv + [flag, value])
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        if not (code == 2 and len(lines) == 1 and lines[0].startswith("tcpsim: error:") and not out
                and _names_option(lines[0], dest)):
            accepted.append((argv + [flag, value], code, err[-200:]))
    assert not accepted


_API_BAD = [
    dict(rate="inf"), dict(rate="1e20"), dict(delay="nan"), dict(delay="11s"), dict(rtt="99s"), dict(rtt="-inf"),
    dict(mtu=70000), dict(mtu="nan"), dict(queue=0), dict(loss=0.7), dict(loss=float("nan")), dict(burst="-1"),
    dict(sockbuf="nan"), dict(sndbuf="4G"), dict(rcvbuf="-4k"), dict(write=0), dict(message="nan"), dict(message=0),
    dict(message="1.5"), dict(rr="3G"), dict(rr=100, response="2G"), dict(read=0), dict(streams=1001),
    dict(streams=float("inf")), dict(message=100, message_rate=1e-9), dict(message=100, message_rate=float("inf")),
    dict(platform="cray1"), dict(sender="inf"), dict(receiver="nosuch"), dict(machine="nosuch"),
    dict(nic="e1000", cpu="inf"), dict(nic="inf"), dict(cpu_ghz=float("nan")), dict(platform="rx2600_ixgb", cpu_ghz=-1),
    dict(platform="rx2600_ixgb", cpu_ghz=200), dict(memory_bw="nan"), dict(platform="rx2600_ixgb", memory_bw="1e15GB/s"),
    dict(bus="warp"), dict(platform="rx2600_ixgb", bus="warp"), dict(cpus=0), dict(cpus=100000),
    dict(platform="rx2600_ixgb", cpus=100000), dict(platform="rx2600_ixgb", tuning="turbo"), dict(os="windows"),
    dict(platform="rx2600_ixgb", os="windows"), dict(cc="vegas"), dict(delack="sometimes"), dict(deferred_acks_max=0),
    dict(sack="maybe"), dict(limited_transmit="x"), dict(seed=-1), dict(budget="60s"), dict(veth="maybe"),
    dict(nodelay="maybe"), dict(bidir=2), dict(deferred_acks_max=2.5), dict(rtt="2ms", delay="1ms"),
]


@pytest.mark.parametrize("kwargs", _API_BAD, ids=[",".join(f"{k}={v}" for k, v in kw.items()) for kw in _API_BAD])
def test_api_errors_name_the_argument_the_caller_gave(kwargs):
    """``predict(message="nan")`` names ``message``, not the ``write_bytes`` it becomes; a part flag's error
    names the flag's argument (``cpu_ghz``), not the field it sets (issue 24)."""
    from tcpsim import predict

    bad = list(kwargs)[-1]  # the last argument is the bad one
    with pytest.raises(ConfigError) as info:
        predict(method="ceilings", **kwargs)
    assert info.value.field.split(":")[0] == bad, str(info.value)
    assert len(str(info.value).splitlines()) == 1 and "must be" in str(info.value)


def test_cpu_ghz_out_of_range_says_its_range_in_ghz():
    """The range is said in the flag's own unit, not the part's Hz field it sets."""
    from tcpsim import predict

    with pytest.raises(ConfigError) as info:
        predict(method="ceilings", platform="rx2600_ixgb", cpu_ghz=500)
    assert "0.001..100 GHz" in str(info.value) and "clock_hz" not in str(info.value)


_TOOLS = ["tcpsim.lab.callprobe", "tcpsim.lab.dataset", "tcpsim.lab.generator", "tcpsim.lab.pathprobe",
          "tcpsim.lab.readprobe", "tcpsim.lab.rxtrace", "tcpsim.lab.schedtrace", "tcpsim.lab.skbtrace",
          "tcpsim.lab.wakeprobe", "tcpsim.lab.winprobe", "tcpsim.machine.memprobe"]


@pytest.mark.parametrize("module", _TOOLS)
@pytest.mark.parametrize("argv", [["--no-such-flag"], ["--duration", "-1ms"]])
def test_every_python_m_tool_refuses_bad_input_in_one_line(module, argv, capsys):
    """The measurement tools the README runs as ``python -m`` refuse an unknown flag, or a value they do not take,
    in one line and exit code 2, before they measure anything (no root is needed to be refused)."""
    import importlib

    try:
        code = importlib.import_module(module).main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("python -m tcpsim."), (module, err)


@pytest.fixture(scope="module")
def measured_files(tmp_path_factory):
    """Hostile files of measurements: a device, a FIFO, JSON nested too deep, TOML nested too deep, and folders of
    tables whose one CSV is not a table of points."""
    d = tmp_path_factory.mktemp("measured")
    os.mkfifo(d / "fifo.json")
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    tables = {"columns": "a,b\n1,2\n", "short": "# a comment\nsource,table,row,metric,value,unit\nx,t,r,throughput,5\n",
              "unit": "source,table,row,metric,value,unit\nx,t,r,throughput,5,furlongs\n",
              "field": "source,table,metric,value,unit\n" + "x" * 200_000 + "\n"}
    for name, text in tables.items():
        (d / name / "src").mkdir(parents=True)
        (d / name / "src" / "t.csv").write_text(text)
    (d / "fifo" / "src").mkdir(parents=True)
    os.mkfifo(d / "fifo" / "src" / "t.csv")
    return d


@pytest.mark.parametrize("line, field, said", [
    ("calibrate --lab /dev/zero", "lab", "not a character device"),
    ("calibrate --lab {d}/fifo.json", "lab", "not a FIFO"),
    ("calibrate --lab {d}/deep.json", "lab", "JSON written by tcpsim lab"),
    ("calibrate --iperf3 /dev/zero --rate 1gbit", "iperf3", "not a character device"),
    ("calibrate --iperf3 {d}/deep.json --rate 1gbit", "iperf3", "iperf3 -J"),
    (f"calibrate --iperf3 {_RUN} --scenario {{d}}/deep.toml", "scenario", "nested less deeply"),
    ("validate --data {d}/columns", "data", "no source, table, metric, value, unit"),
    ("validate --data {d}/short", "data", "line 3 (none for unit)"),
    ("validate --data {d}/unit", "data", "known units (line 2"),
    ("validate --data {d}/field", "data", "a CSV table (field larger"),
    ("validate --data {d}/fifo", "data", "not a FIFO"),
])
def test_files_of_measurements_are_refused_in_one_line(capsys, tmp_path, measured_files, line, field, said):
    """An iperf3 or lab file or a folder of tables that is not one ends the command at once with one line naming it,
    however it fails: a device or a FIFO is refused before it is read (it would never end), a file too deep for the
    parser and a CSV without the columns, a value or a unit are said to be so (tcpsim.fileio, calibration.tables)."""
    import shlex

    out = tmp_path / "fit.toml"
    argv = shlex.split(line.format(d=measured_files)) + (["--out", str(out)] if line.startswith("calibrate") else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{field}=" in err[0] and said in err[0], err
    assert not out.exists()


@pytest.mark.parametrize("line", [
    "calibrate --lab {lab} --out /nonexistent/fit.toml",
    "calibrate --lab {lab} --out {tmp}/folder.toml",
    "machine detect --probes -o /nonexistent/host.toml",
    "machine detect --probes -o {tmp}",
])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(monkeypatch, capsys, tmp_path, line):
    """A fit of minutes or the probes' seconds are not spent on a file that cannot be written."""
    import shlex

    import tcpsim.calibration.own as own
    import tcpsim.machine.detect as detect

    monkeypatch.setattr(own, "lab_cases", lambda *a, **k: pytest.fail("the runs were read"))
    monkeypatch.setattr(detect, "read_host", lambda *a, **k: pytest.fail("the machine was probed"))
    (tmp_path / "folder.toml").mkdir()
    lab = os.path.join(os.path.dirname(__file__), "..", "validation", "lab_runs_median.json")
    assert main(shlex.split(line.format(lab=lab, tmp=tmp_path))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "out=" in err[0], err


@pytest.mark.parametrize("name", ["nodelay", "bidir", "veth"])
def test_api_switches_take_the_words_the_cli_does(name):
    """``nodelay="on"`` is ``nodelay=True``, as ``sack`` and ``limited_transmit`` take it (tcpsim.units.parse_switch);
    compiled, a string reached a bool field and raised a TypeError naming nothing."""
    from tcpsim.api import build_scenario

    for word, flag in (("on", True), ("yes", True), ("off", False), ("0", False)):
        assert build_scenario(**{name: word}) == build_scenario(**{name: flag})


@pytest.mark.parametrize("call, field", [
    (lambda t: t.sweep("lab_vm", mtu=[1500]), "base"),
    (lambda t: t.sweep({}, mtu=[1500], workers="many"), "workers"),
    (lambda t: t.compare("lab_vm", what_if="mtu=9000"), "a"),
    (lambda t: t.compare({"nosuch": 1}, what_if="mtu=9000"), "nosuch"),
    (lambda t: t.compare({}, "lab_vm"), "b"),
])
def test_sweep_and_compare_refuse_what_is_not_theirs_in_one_line(call, field):
    """A profile's name where a dict of keywords belongs, a keyword build_scenario has not, a worker count in words:
    each a ConfigError naming it (they were a ValueError about a dictionary update, a TypeError)."""
    import tcpsim

    with pytest.raises(ConfigError) as info:
        call(tcpsim)
    assert info.value.field == field and len(str(info.value).splitlines()) == 1


def test_a_sweep_axis_of_one_value_is_one_point():
    """``mtu=9000`` (no list) is an axis of one point, as ``mtu=[9000]`` is; it was a TypeError."""
    import tcpsim

    one = tcpsim.sweep({}, mtu=9000, sockbuf=["64k", "128k"], workers=1)
    listed = tcpsim.sweep({}, mtu=[9000], sockbuf=["64k", "128k"], workers=1)
    assert one.to_csv() == listed.to_csv()


@pytest.mark.parametrize("runs, said", [("/dev/zero", "not a character device"), ("{d}/fifo.json", "not a FIFO"),
                                        ("{d}/deep.json", "JSON written by --runs")])
def test_the_dataset_tool_refuses_a_runs_file_that_is_not_one_in_one_line(capsys, tmp_path, measured_files, runs, said):
    from tcpsim.lab.dataset import main as dataset

    assert dataset([str(tmp_path / "tables"), "--from-runs", runs.format(d=measured_files)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "runs file=" in err[0] and said in err[0], err


@pytest.mark.parametrize("argv", [["sweep", "--mtu", "1500,9000", "--plot"], ["explain", "--plot"],
                                  ["explain", "--diagram"]])
def test_a_figure_type_nothing_writes_is_refused_before_the_run(monkeypatch, capsys, tmp_path, argv):
    """Not after the simulation (a sweep's points all ran before its ``.txt`` figure was refused)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tcpsim.api.simulate", lambda *a, **k: pytest.fail("the run started"))
    import importlib

    monkeypatch.setattr(importlib.import_module("tcpsim.sweep"), "_run_point", lambda *a: pytest.fail("a point ran"))
    assert main([*argv, "fig.txt"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "fig.txt" in err[0] and ".png, .pdf or .svg" in err[0], err


@pytest.mark.parametrize("argv, field, said", [
    (["predict", "--write", "1k", "--message", "100"], "message", "one of --write, --message"),
    (["predict", "--write", "1k", "--rr", "100"], "rr", "one of --write, --rr"),
    (["sweep", "--write", "1k,2k", "--message", "100"], "message", "one of --write, --message"),
    (["predict", "--timing"], "timing", "with --json"),
    (["sweep", "--mtu", "1500,9000", "--x", "mtu"], "x", "with --plot"),
    (["sweep", "--mtu", "1500,9000", "--hue", "mtu"], "hue", "with --plot"),
    (["explain", "--snaplen", "100"], "snaplen", "with --pcap"),
    (["plan", "sockbuf", "--target", "900mbit", "--sockbuf", "64k"], "sockbuf", "searches the sockbuf itself"),
    (["plan", "cpus", "--target", "900mbit", "--cpus", "2"], "cpus", "searches the cpus itself"),
    (["compare", "--what-if", "mtu=9000", "--what-if", "mtu=1500"], "what_if", "each key once"),
    (["validate", "--cross-evals", "0"], "--cross-evals", "together with --cross"),
    (["validate", "--cross-polish", "3"], "--cross-polish", "together with --cross"),
    (["validate", "--cross-jacobian", "broyden"], "--cross-jacobian", "together with --cross"),
])
def test_a_flag_the_command_would_not_read_is_refused(capsys, argv, field, said):
    """No flag is dropped quietly: one the command would ignore (the last of two values winning, a size the plan
    searches itself, a figure column without a figure) is one line naming it, before anything runs."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{field}=" in err[0] and said in err[0], err


@pytest.mark.parametrize("argv, line", [
    (["--sockbuf", "-5k"], "sockbuf='-5k': must be in 1..2**31 bytes"),
    (["--mtu", "-1500"], "mtu='-1500': must be in 68..65535"),
    (["--mss", "-1"], "mss='-1': must be in 28..65495 bytes"),
    (["--rtt", "1000s"], "rtt='1000s': must be in 0..20 s"),
])
def test_a_refusal_names_the_range_the_field_accepts(capsys, argv, line):
    """The range the field itself accepts, not a generic one it would then refuse (``-5k`` once read "0 or more",
    and 0 is refused; an RTT's range read as a one-way delay's)."""
    assert main(["predict", "--method", "ceilings", *argv]) == 2
    assert line in capsys.readouterr().err


def test_a_whole_number_may_be_written_as_the_ranges_print_it(capsys):
    assert main(["predict", "--method", "ceilings", "--max-events", "1e12"]) == 0
    assert main(["predict", "--method", "ceilings", "--max-events", "1.5e2"]) == 0
    capsys.readouterr()
    assert main(["predict", "--method", "ceilings", "--max-events", "1.5e1"]) == 2
    assert "in 100..1e+12" in capsys.readouterr().err
