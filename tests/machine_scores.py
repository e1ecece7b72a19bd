"""Scoring a machine's lab tables for the tests of machines tcpsim never saw (``test_machine_never_seen``,
``test_third_machine``, ``test_fourth_machine``): each file's outcomes on a folder's tables, errors by a row filter,
the window-limited rows, and the tables where the calculator does as well; and for the builds whose runs were kept
as ``tcpsim lab --json`` objects (``test_sixth_build``, ``test_seventh_build``), each instrument's runs and errors."""

import importlib.util
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms


def score_folder(folder: Path, files: dict[str, str], tables: dict[str, tuple[str, ...]] | None = None
                 ) -> dict[str, list]:
    """Each machine file's outcomes on ``folder/data``'s lab tables, the file in ``lab_vm``'s place (as ``tcpsim
    validate --data DIR --platform lab_vm=FILE`` scores them), seed 0; a file named in ``tables`` on those only."""
    points = [p for p in load_points(folder / "data") if p.source_id == "lab"]
    with ProcessPoolExecutor(2) as ex:
        out = {}
        for name, path in files.items():
            mine = [p for p in points if p.table_id in tables[name]] if tables and name in tables else points
            out[name] = evaluate(mine, ex, given_platforms([f"lab_vm={folder / path}"], mine))
        return out


HELD_OUT = ("messages_nagle", "messages2", "messages3", "cpu2", "cpu3", "unshaped")
"""The 37 held-out rows without a delay line of every machine met by the classroom's steps (the small-message and
CPU-bound rows)."""


def scored_outcomes(folder: Path, files: dict[str, str], tables: dict[str, tuple[str, ...]] | None = None
                    ) -> dict[str, list]:
    """:func:`score_folder`'s outcomes that carry an error (a row the file can predict), by file."""
    return {name: [o for o in outcomes if o.error is not None]
            for name, outcomes in score_folder(folder, files, tables).items()}


def median_on(outcomes, tables: tuple[str, ...] = HELD_OUT) -> float:
    """The median |error| of the scored outcomes on the rows of ``tables`` (the 37 held-out rows by default)."""
    return statistics.median(errors(outcomes, lambda p: p.table_id in tables))


def window_limited(p, table: str = "window6") -> bool:
    """A row of ``table`` whose measured goodput is below 80 % of its shaped rate (``tcpsim validate``'s class)."""
    return p.table_id == table and p.value_si < 0.8 * float(p.get("rate_bps"))


def errors(outcomes, keep) -> list[float]:
    """|relative error| of the scored outcomes whose point ``keep`` accepts."""
    return [abs(o.error) for o in outcomes if o.error is not None and keep(o.point)]


def tables_not_below_the_calculator(outcomes) -> list[str]:
    """The tables whose median |error| is not below the bandwidth-delay-product calculator's."""
    out = []
    for table in sorted({o.point.table_id for o in outcomes}):
        mine = errors(outcomes, lambda p: p.table_id == table)
        calc = [abs(o.naive / o.point.value_si - 1) for o in outcomes if o.point.table_id == table and o.naive]
        if mine and calc and not statistics.median(mine) < statistics.median(calc):
            out.append(table)
    return out


SMALLEST_TARGET = 0.10
"""Issue 22's target for README's smallest example (``tcpsim lab --rate 1gbit --rtt 1ms --sockbuf 64k``)."""


def smallest_example_error(folder: Path, prefix: str = "u") -> float:
    """README's smallest example as run in ``folder/smallest/PREFIX_*.json`` (three runs), against the prediction
    each run printed beside it: the median |error|."""
    runs = [json.loads(p.read_text()) for p in sorted((folder / "smallest").glob(f"{prefix}_*.json"))]
    assert len(runs) == 3 and all(d["measured"]["tool"] == "iperf3" for d in runs)
    return statistics.median(abs(d["predicted"]["goodput_bps"] / d["measured"]["goodput_bps"] - 1) for d in runs)


def check_rtt0_tables(scored: dict[str, list], files: dict[str, str]) -> None:
    """Each file scored the 67 rows of a machine met by the classroom's steps: the 37 held-out RTT-0 rows among them
    and ``window6``'s 19 window-limited ones."""
    assert set(scored) == set(files)
    for outcomes in scored.values():
        assert len(outcomes) == 67
        assert len(errors(outcomes, lambda p: p.table_id in HELD_OUT)) == 37
        assert len(errors(outcomes, window_limited)) == 19


def rr_errors(folder: Path, files: dict[str, str], table: str = "rr") -> dict[str, list[float]]:
    """A request/response table's six rows in ``folder`` (``TABLE_passes.json``, each row its median run), as the
    tenth machine's ``score_rule161.py`` scores them: transactions a second predicted under each file, against the
    kernel's, as relative errors."""
    from tcpsim.machine.detect import linux_version_part

    sr = load_script("score_rule161", TENTH / "score_rule161.py")
    runs = sr.median_runs(json.loads((folder / f"{table}_passes.json").read_text()))
    os_name = linux_version_part(runs[0]["kernel"])[0]
    return {name: [sr.predicted_tps(r, str(folder / f), os_name) / r["measured"]["transactions_per_s"] - 1
                   for r in runs] for name, f in files.items()}


def load_script(name: str, path: Path):
    """A validation folder's script, imported once under ``name``, so its functions go to workers by name."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


TENTH = Path(__file__).resolve().parent.parent / "validation" / "zen4_2026-12-02" / "iperf3"
SIXTH_BUILD = Path(__file__).resolve().parent.parent / "validation" / "build_2026-12-02"
WINDOW_TARGET, WINDOW_MAX = 0.05, 0.15
"""Issue 22's window-limited target: the median |error| within 5 %, none above 15 %."""


def within_window_target(errors: list[float], check: str) -> bool:
    """Issue 22's window-limited target on ``errors``: the median (``check`` "median") or the max ("max")."""
    return statistics.median(errors) <= WINDOW_TARGET if check == "median" else max(errors) <= WINDOW_MAX


def score_relay():
    """The sixth build's ``score_relay.py`` (its ``predicted_bps``: a run as ``tcpsim lab --platform lab_vm`` predicts
    it beside the run), imported once under its own name so its function goes to the workers by name."""
    return load_script("score_relay", SIXTH_BUILD / "score_relay.py")


def instrument_scores(folder: Path, probes: dict[str, str]) -> dict[str, dict]:
    """Per instrument (``u_*.json``, ``t_*.json`` ... in ``folder``, named by the keys of ``probes``): its runs, and
    its window-limited runs' |error| as ``tcpsim lab --platform lab_vm`` predicts each beside its run, on the delay
    line of the probe file named (relative to ``folder``'s parent), or on the committed ``RELAY`` for "RELAY"."""
    from tcpsim.lab.pathprobe import read_relay_path
    from tcpsim.lab.scenario import RELAY

    sr = score_relay()
    out = {}
    with ProcessPoolExecutor(2) as ex:
        for name, probe in probes.items():
            runs = [r for path in sorted(folder.glob(f"{name.lower()}_*.json")) for r in json.loads(path.read_text())]
            limited = [r for r in runs if r["measured"]["goodput_bps"] < 0.8 * r["scenario"]["rate_bps"]]
            relay = asdict(RELAY if probe == "RELAY" else read_relay_path(str(folder.parent / probe)))
            preds = ex.map(sr.predicted_bps, limited, [relay] * len(limited))
            out[name] = {"runs": runs, "errors": [abs(p / r["measured"]["goodput_bps"] - 1)
                                                  for p, r in zip(preds, limited)]}
    return out
