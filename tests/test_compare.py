"""tcpsim.compare and ``tcpsim compare``: two answers side by side, the inputs that changed, the limit that moved."""

import json

import pytest

import tcpsim
from tcpsim.cli import main
from tcpsim.compare import parse_what_if
from tcpsim.errors import ConfigError


def test_what_if_equals_two_separate_predictions():
    cmp = tcpsim.compare(dict(platform="es40_tru64", sockbuf="512k"), what_if="mtu=9000")
    a = tcpsim.predict(platform="es40_tru64", sockbuf="512k")
    b = tcpsim.predict(platform="es40_tru64", sockbuf="512k", mtu=9000)
    assert cmp.result_a.goodput_bps == a.goodput_bps and cmp.result_b.goodput_bps == b.goodput_bps
    assert cmp.changed_inputs == {"mtu_bytes": (1500, 9000)}
    assert cmp.gain_frac == pytest.approx(b.goodput_bps / a.goodput_bps - 1)
    assert cmp.limit_moved == (a.limited_by != b.limited_by)
    rows = {label: (va, vb) for label, _, va, vb in cmp.rows()}
    assert rows["goodput"] == (a.goodput_bps, b.goodput_bps)
    assert rows["bound: line rate"] == (a.ceilings_bps["line"], b.ceilings_bps["line"])


def test_a_larger_buffer_moves_the_limit_off_the_window():
    cmp = tcpsim.compare(dict(rtt="10ms", sockbuf="64k"), what_if={"sockbuf": "4M"})
    assert cmp.result_a.limited_by == "window" and cmp.limit_moved
    assert "the limit moved: the TCP window" in cmp.text()
    assert cmp.gain_frac > 1


def test_several_changes_and_two_scenarios():
    cmp = tcpsim.compare(dict(platform="es40_tru64"), what_if=["mtu=9000", "sockbuf=512k", "streams=2"])
    assert set(cmp.changed_inputs) >= {"mtu_bytes", "sndbuf_bytes", "rcvbuf_bytes", "n_streams"}
    assert cmp.label_b == "mtu=9000, sockbuf=512k, streams=2"
    sc = tcpsim.build_scenario(mtu=9000)
    cmp2 = tcpsim.compare(tcpsim.build_scenario(), sc)
    assert cmp2.changed_inputs == {"mtu_bytes": (1500, 9000)}
    assert len(repr(cmp2)) < 300 and "<table>" in cmp2._repr_html_()


def test_a_what_if_round_trip_replaces_a_given_one_way_delay_and_the_other_way_round():
    """``rtt`` and ``delay`` set one propagation delay: build_scenario refuses both, a what-if of one replaces the
    other (``tcpsim.api.with_changes``), and a sweep's axis of one does so over a base of the other."""
    cmp = tcpsim.compare(dict(delay="1ms"), what_if="rtt=10ms")
    assert cmp.changed_inputs == {"one_way_delay_s": (1e-3, 5e-3)}
    cmp = tcpsim.compare(dict(rtt="10ms"), what_if="delay=1ms")
    assert cmp.changed_inputs == {"one_way_delay_s": (5e-3, 1e-3)}
    with pytest.raises(ConfigError, match="^delay=.*one of delay, rtt"):
        tcpsim.build_scenario(rtt="2ms", delay="1ms")
    rows = tcpsim.sweep(dict(delay="1ms", sockbuf="64k"), rtt=["2ms", "20ms"], workers=1).rows
    assert [r["one_way_delay_s"] for r in rows] == [1e-3, 1e-2]


@pytest.mark.parametrize("bad", ["mtu", "=9000", "colour=red", "streams=two", "nodelay=maybe"])
def test_bad_what_if_is_one_config_error(bad):
    with pytest.raises(ConfigError):
        parse_what_if([bad])


def test_a_what_if_with_a_b_or_neither_is_refused():
    with pytest.raises(ConfigError):
        tcpsim.compare(dict(mtu=1500))
    with pytest.raises(ConfigError):
        tcpsim.compare(dict(mtu=1500), dict(mtu=9000), what_if="mtu=9000")


def test_cli_compare_text_json_and_errors(capsys):
    assert main(["compare", "--platform", "es40_tru64", "--what-if", "mtu=9000"]) == 0
    out = capsys.readouterr().out
    assert "b: mtu=9000" in out and "changed: mtu_bytes 1500 -> 9000" in out and "goodput" in out
    assert "Table 3" in out  # the validation's caution for the MTU 9000 side
    assert main(["compare", "--a", "--mtu 1500", "--b", "--mtu 9000", "--sockbuf", "256k", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["changed_inputs"] == {"mtu_bytes": [1500, 9000]} and d["a"]["sndbuf_bytes"] == 256 * 1024
    assert {f["figure"] for f in d["figures"]} >= {"goodput", "data packets/s", "bound: line rate"}
    assert main(["compare", "--what-if", "colour=red"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "what_if" in err
    assert main(["compare", "--mtu", "9000"]) == 2


def test_a_what_if_may_change_a_part():
    assert parse_what_if(["cpu_ghz=1.0", "nic=e1000", "memory-bw=3GB/s"]) == {
        "cpu_ghz": "1.0", "nic": "e1000", "memory_bw": "3GB/s"}
    c = tcpsim.compare(dict(platform="rx2600_ixgb", rate="1gbit", sockbuf="256k"), what_if="cpu_ghz=0.5")
    assert max(c.result_b.cpu_utilization_frac["sender"]) > max(c.result_a.cpu_utilization_frac["sender"])
    assert c.b.sender.platform.cpu.per_packet_tx_s == pytest.approx(3 * c.a.sender.platform.cpu.per_packet_tx_s)
