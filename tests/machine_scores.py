"""Scoring a machine's lab tables for the tests of machines tcpsim never saw (``test_machine_never_seen``,
``test_third_machine``): errors by a row filter, and the tables where the calculator does as well."""

import statistics


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
