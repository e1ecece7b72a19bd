"""Scoring a machine's lab tables for the tests of machines tcpsim never saw (``test_machine_never_seen``,
``test_third_machine``, ``test_fourth_machine``): each file's outcomes on a folder's tables, errors by a row filter,
the window-limited rows, and the tables where the calculator does as well."""

import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tcpsim.calibration.tables import load_points
from tcpsim.calibration.validate import evaluate, given_platforms


def score_folder(folder: Path, files: dict[str, str]) -> dict[str, list]:
    """Each machine file's outcomes on ``folder/data``'s lab tables, the file in ``lab_vm``'s place (as ``tcpsim
    validate --data DIR --platform lab_vm=FILE`` scores them), seed 0."""
    points = [p for p in load_points(folder / "data") if p.source_id == "lab"]
    with ProcessPoolExecutor(2) as ex:
        return {name: evaluate(points, ex, given_platforms([f"lab_vm={folder / path}"], points))
                for name, path in files.items()}


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
