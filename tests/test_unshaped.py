"""An unshaped link (``--rate 0`` / ``--rate unshaped``): the hosts' own limits decide."""

from __future__ import annotations

import pytest

from tcpsim.api import build_scenario, predict
from tcpsim.cli import main
from tcpsim.config import Budget
from tcpsim.errors import ConfigError
from tcpsim.units import UNSHAPED_RATE_BPS, format_rate, parse_link_rate, parse_rate


def test_zero_and_unshaped_name_the_unshaped_link():
    assert parse_link_rate("0") == parse_link_rate(0) == parse_link_rate(" Unshaped ") == UNSHAPED_RATE_BPS
    assert parse_link_rate("1gbit") == parse_rate("1gbit") == 1e9
    assert format_rate(UNSHAPED_RATE_BPS) == "unshaped"
    with pytest.raises(ConfigError, match="rate"):
        parse_link_rate("-1gbit")
    with pytest.raises(ConfigError, match="rate"):
        parse_link_rate("fast")


def test_an_unshaped_link_leaves_the_window_as_the_limit():
    # Ideal hosts, 64 KiB Linux 6.12 socket buffers, 1 ms: window / RTT, far below the link
    r = predict(rate="unshaped", os="linux", sockbuf="64k", rtt="1ms", budget=Budget(max_sim_time_s=0.2))
    assert r.limited_by == "window"
    assert 0.55e9 < r.goodput_bps < 0.7e9
    assert build_scenario(rate=0).link.rate_bps == UNSHAPED_RATE_BPS


def test_cpu_costs_bound_an_unshaped_link():
    r = predict(rate=0, platform="modern_linux", budget=Budget(max_sim_time_s=0.05))
    assert r.limited_by not in ("line", "window") and r.goodput_bps < 50e9


def test_cli_accepts_rate_zero(capsys):
    assert main(["predict", "--rate", "0", "--max-time", "20ms"]) == 0
    out = capsys.readouterr().out
    assert "unshaped" in out.splitlines()[0] and "unshaped link" in out


def test_ideal_hosts_on_an_unshaped_link_say_the_figure_is_the_windows(capsys):
    """With no host model nothing but the window limits an unshaped run: the advice is to describe the hosts,
    not socket buffers sized from a 10 Tbit/s line; a named platform gets the usual report."""
    assert main(["predict", "--rate", "0", "--rtt", "40us", "--max-time", "20ms"]) == 0
    out = capsys.readouterr().out
    assert "ideal hosts: the window's limit only" in out and "--sockbuf" not in out
    assert "name the hosts (--platform NAME, --machine FILE" in out
    assert main(["predict", "--rate", "0", "--rtt", "40us", "--platform", "lab_vm", "--max-time", "20ms"]) == 0
    out = capsys.readouterr().out
    assert "the hosts' own limit" in out and "ideal hosts" not in out


def test_ideal_hosts_on_an_unshaped_link_with_no_round_trip_are_refused(capsys):
    """Nothing bounds such a run but the unshaped link's 10 Tbit/s stand-in: one line naming the delay, at once,
    not an event budget spent to print the stand-in as a rate. Hosts with costs, a round trip or a paced writer
    bound it, and a run with a round trip names no stand-in line as its next limit."""
    with pytest.raises(ConfigError, match=r"one_way_delay_s=0.*unshaped link between ideal hosts"):
        build_scenario(rate=0, rtt=0)
    assert main(["predict", "--rate", "0", "--rtt", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "one_way_delay_s" in err
    assert build_scenario(rate=0, rtt=0, platform="lab_vm").link.one_way_delay_s == 0
    assert build_scenario(rate=0, rtt="40us").link.rate_bps == UNSHAPED_RATE_BPS
    assert main(["predict", "--rate", "0", "--rtt", "100us", "--max-time", "20ms"]) == 0
    assert "the line rate" not in capsys.readouterr().out
