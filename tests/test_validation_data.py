"""The validation data holds every number of the sources, with the fixed calibration / holdout split."""

import csv
import dataclasses
from pathlib import Path

import pytest

from tcpsim.calibration.tables import COLUMNS, EXTRA_COLUMNS, load_points, to_si

DATA = Path(__file__).resolve().parents[1] / "tcpsim" / "data" / "validation"

# Counted in the documents, independently of the CSVs.
EXPECTED = {
    ("tru64", "table1"): 6, ("tru64", "table2"): 5, ("tru64", "table3"): 7,
    ("vbox", "text"): 2,
    ("gignic", "text"): 8,
    ("tengbe", "table1"): 2 * 3 + 2 * 3 + 3 * 3,
    ("tengbe", "table2"): 7 * 4, ("tengbe", "table3"): 7 * 4, ("tengbe", "table4"): 7 * 4,
    ("tengbe", "table5"): 7 * 4, ("tengbe", "table6"): 7 * 4, ("tengbe", "text"): 9,
    ("sunfire", "table1"): 7 * 2, ("sunfire", "table2"): 6 * 2, ("sunfire", "table3"): 6 * 4,
    ("sunfire", "table4"): 6 * 2, ("sunfire", "text"): 16,
}
# The lab sweep: one row per scenario of tcpsim.lab.dataset.sweep_rows (50 window, 12 at 10 Gbit/s ...), and
# lab/cpu4: one row per scenario of validation/epyc_2026-12-01/measure_tables.py; lab/window8, of the seventh build.
EXPECTED.update({("lab", "window"): 50, ("lab", "tengig"): 12, ("lab", "writes"): 5, ("lab", "unshaped"): 6,
                 ("lab", "messages_nodelay"): 4, ("lab", "messages_nagle"): 4, ("lab", "streams"): 4,
                 ("lab", "pacing"): 9, ("lab", "loss"): 8, ("lab", "loss2"): 8, ("lab", "loss3"): 9,
                 ("lab", "loss4"): 9, ("lab", "window2"): 24, ("lab", "messages2"): 6,
                 ("lab", "tengig2"): 4, ("lab", "cpu2"): 9,
                 ("lab", "messages3"): 5, ("lab", "window3"): 18, ("lab", "cpu3"): 7,
                 ("lab", "window4"): 21, ("lab", "window5"): 21, ("lab", "window6"): 21, ("lab", "cpu4"): 11,
                 ("lab", "window8"): 21})
CALIBRATION = {("lab", "writes"), ("lab", "messages_nodelay"), ("tru64", "table1"), ("tru64", "table2"), ("tengbe", "table2"), ("tengbe", "table4"),
               ("tengbe", "table5"), ("sunfire", "table1"), ("sunfire", "table3"), ("sunfire", "table4")}


def test_every_table_file_has_the_columns():
    for path in DATA.glob("*/*.csv"):
        with path.open(newline="") as fh:
            names = tuple(csv.DictReader(line for line in fh if not line.startswith("#")).fieldnames)
            assert names[:len(COLUMNS)] == COLUMNS and set(names[len(COLUMNS):]) <= set(EXTRA_COLUMNS), path


def test_counts_per_table():
    points = load_points(DATA)
    counts = {}
    for p in points:
        counts[(p.source_id, p.table_id)] = counts.get((p.source_id, p.table_id), 0) + 1
    assert counts == EXPECTED


def test_split_is_the_fixed_one():
    for p in load_points(DATA):
        assert p.role in ("calibration", "holdout", "none"), p.key
        if (p.source_id, p.table_id) in CALIBRATION:
            assert p.role == "calibration", p.key
        elif p.role != "none":
            assert p.role == "holdout", p.key


def test_units_convert_once():
    assert to_si(744, "MB/s", "throughput") == pytest.approx(5.952e9)
    assert to_si(425, "Mbps", "throughput") == 425e6
    assert to_si(390, "Mbits/sec", "throughput") == 390e6
    assert to_si(7, "%", "cpu_pct") == pytest.approx(0.07)


def test_flagged_inconsistencies_are_kept_not_corrected():
    pts = {p.key: p for p in load_points(DATA)}
    row = pts["sunfire/table2#message 250 throughput:throughput"]
    assert row.value == 181.56 and "inconsistent" in row.flags


def test_sun_table4_runs_one_cpu_on_the_sending_server_only():
    """'The server only transmits and only one CPU is enabled': the receiving client keeps its CPUs."""
    from tcpsim.calibration.mapping import platforms_for_point, scenario_for

    pts = [p for p in load_points(DATA) if (p.source_id, p.table_id) == ("sunfire", "table4")]
    assert pts
    for p in pts:
        sc = scenario_for(p, platforms_for_point(p))
        assert sc.sender.platform.cpu.n_cpus == 1
        assert sc.receiver.platform.cpu.n_cpus == platforms_for_point(p)["sunfire6800_ce"].cpu.n_cpus > 1


def test_an_unknown_cpu_host_is_a_one_line_config_error():
    from dataclasses import replace

    from tcpsim.calibration.mapping import platforms_for_point, scenario_for
    from tcpsim.errors import ConfigError

    p = next(p for p in load_points(DATA) if (p.source_id, p.table_id) == ("sunfire", "table4"))
    bad = replace(p, fields={**p.fields, "n_cpus_host": "client"})
    with pytest.raises(ConfigError, match="n_cpus_host"):
        scenario_for(bad, platforms_for_point(bad))


def test_every_number_printed_twice_is_flagged_duplicate_once():
    """A restated number is flagged where it is restated; its first printing (in a table) is scored."""
    dups = {p.key for p in load_points(DATA) if "duplicate" in p.flags}
    assert dups == {"tru64/table2#sockbuf 61440:throughput", "sunfire/text#RR peak transaction rate:transactions",
                    "sunfire/text#RR 1460-byte rate, low end:transactions",
                    "tengbe/text#max one direction:throughput", "tengbe/text#max both directions:throughput",
                    "tengbe/text#max Linux64 -> Linux32:throughput", "tengbe/text#max Linux32 -> Linux64:throughput"}


def test_a_lab_sweep_run_writes_a_table_validate_reads(tmp_path):
    """``python -m tcpsim.lab.dataset`` turns its runs into CSV tables (its last step, after every measurement:
    it once failed there on the delay-line column its rows carry and its header left out); the table reads
    back as the same row with its path."""
    from tcpsim.lab import dataset

    row = dataset.sweep_rows()[0]
    run = {"kind": row.kind, "scenario": dataclasses.asdict(row.scenario), "kernel": "6.18.0", "cpu": "test CPU",
           "sysctls": {"net.ipv4.tcp_rmem": "4096 131072 6291456"}, "load_avg": [0.5, 0.5, 0.5],
           "delay_line": "relay",
           "measured": {"goodput_bps": 6.0e8, "tool": "iperf3", "duration_s": 2.0, "retransmits": 0,
                        "rtt_min_s": 2.8e-4, "rtt_mean_s": 3.1e-4}}
    (path,) = dataset.write_tables([run], str(tmp_path / "lab"), (0.5, 0.5, 0.5), (0.6, 0.6, 0.6))
    assert set(dataset.EXTRA_COLUMNS) <= set(EXTRA_COLUMNS)
    (point,) = load_points(tmp_path)
    assert point.row == row.label and point.value_si == 6.0e8 and point.get("delay_line") == "relay"
    assert point.role == "holdout" and "# tcpsim lab sweep of 1 rows" in Path(path).read_text()


def test_a_pinned_sweep_says_where_its_tools_ran(tmp_path, capsys):
    """``python -m tcpsim.lab.dataset --pin 0,1``: each row's note names the CPUs (validation/README.md, "Where the
    two tools run"), and a bad or absent CPU is one line before anything is measured."""
    from tcpsim.lab import dataset

    row = dataset.sweep_rows()[0]
    pinned = dataclasses.replace(row, scenario=dataclasses.replace(row.scenario, pin_cpus=(0, 1)))
    run = _lab_run(pinned, 6.0e8, 3e-4)
    assert "the tools on CPUs 0 (sender) and 1 (receiver)" in dataset.csv_row(pinned, run)["note"]
    assert "CPUs" not in dataset.csv_row(row, _lab_run(row, 6.0e8, 3e-4))["note"]
    assert dataset.main([str(tmp_path), "--pin", "0"]) == 2  # checked before the lab's requirements
    assert "pin='0'" in capsys.readouterr().err


def _lab_run(row, goodput_bps, rtt_mean_s):
    return {"kind": row.kind, "row": row.label, "scenario": dataclasses.asdict(row.scenario), "kernel": "6.18.0",
            "cpu": "test CPU", "sysctls": {}, "load_avg": [0.5, 0.5, 0.5], "delay_line": "relay",
            "measured": {"goodput_bps": goodput_bps, "tool": "iperf3", "duration_s": 2.0, "retransmits": 0,
                         "rtt_min_s": 2.8e-4, "rtt_mean_s": rtt_mean_s}}


def test_a_lab_row_of_several_passes_is_its_median_run(tmp_path):
    """validation/README.md, "Each row the median of three quiet passes": the scored row is a real run (its RTT
    beside its goodput), the median of the passes, of an even count the lower middle one; the note keeps every
    pass's figure and a row missing from a pass is the median of the rest."""
    from tcpsim.lab import dataset

    a, b = dataset.sweep_rows()[:2]
    passes = [[_lab_run(a, 6.0e8, 1e-3), _lab_run(b, 9.0e8, 4e-3)],
              [_lab_run(a, 2.0e8, 2e-3)],
              [_lab_run(a, 4.0e8, 3e-3), _lab_run(b, 8.0e8, 5e-3)]]
    first, second = dataset.median_runs(passes)
    assert first["measured"]["goodput_bps"] == 4.0e8 and first["measured"]["rtt_mean_s"] == 3e-3
    assert first["passes_goodput_bps"] == [6.0e8, 2.0e8, 4.0e8]
    assert second["measured"]["goodput_bps"] == 8.0e8 and second["measured"]["rtt_mean_s"] == 5e-3
    paths = dataset.write_tables([first, second], str(tmp_path / "lab"), (0.5,) * 3, (0.6,) * 3)
    points = {p.row: p for p in load_points(tmp_path)}
    assert points[a.label].value_si == 4.0e8
    assert "median of 3 passes (600.0, 200.0, 400.0 Mbit/s)" in points[a.label].note
    assert all("median goodput of 3 passes" in Path(p).read_text() for p in paths)


def test_the_dataset_tool_refuses_a_runs_file_in_one_line(tmp_path, capsys):
    from tcpsim.lab import dataset

    bad = tmp_path / "runs.json"
    bad.write_bytes(b"\0" * 10)
    assert dataset.main([str(tmp_path / "out"), "--median-of", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs file" in err


@pytest.mark.parametrize("argv, field", [(["--duration", "-1"], "duration"), (["--duration", "100"], "duration"),
                                         (["--only", "0"], "only"), (["--only", "-1"], "only")])
def test_the_sweep_refuses_a_bad_duration_or_row_count_in_one_line(tmp_path, capsys, argv, field):
    """Before anything is measured: a negative --only took all rows but the last, a negative duration a traceback."""
    from tcpsim.lab import dataset

    with pytest.raises(SystemExit) as exc:
        dataset.main([str(tmp_path), *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0], err


def test_a_table_of_another_build_carries_its_delay_line():
    """lab/window8 was measured on the seventh build with its pinned probe: each of its rows names that probe's
    constants (``relay_path``), which validate scores it on; the lab tables of the sweep's own build name none."""
    from tcpsim.lab.pathprobe import read_relay_path
    from tcpsim.lab.scenario import RelayPath

    probe = Path(__file__).resolve().parents[1] / "validation" / "build_2026-12-02b" / "pathprobe_relay0.json"
    if not probe.exists():
        pytest.skip("run from a checkout (validation/)")
    points = [p for p in load_points(DATA) if p.source_id == "lab"]
    window8 = [p for p in points if p.table_id == "window8"]
    assert len(window8) == 21 and all(p.get("delay_line") == "relay" for p in window8)
    assert {p.get("relay_path") for p in window8} == {read_relay_path(str(probe)).to_text()}
    assert RelayPath.from_text(window8[0].get("relay_path")) != RelayPath()
    assert all(p.get("relay_path") is None for p in points if p.table_id != "window8")
