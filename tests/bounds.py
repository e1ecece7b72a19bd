"""Physical bounds every result obeys, for the invariant and fuzz suites (issue 24: rates count what crossed
the wire in the measured interval, so none may exceed what the link or the bus can carry)."""

import json
import math

from tcpsim.protocol import framing

_REL = 1e-9
"""Floating-point slack, relative: the bounds are exact, not statistical."""


def check_physical_bounds(sc, result) -> None:
    """Interface rate <= link rate, data frames/s <= what the link carries, goodput <= line-rate goodput
    and <= every bus's ceiling; request/response counts whole transactions, so it may overrun by one each."""
    link = sc.link
    ts = sc.sender.tcp.timestamps and sc.receiver.tcp.timestamps
    opt = framing.tcp_option_bytes(ts)
    skb = link.skb_charged  # a tbf's rate charges an skb's bytes, not the 802.3 wire's (framing.wire_bytes)
    for direction, bps in result.interface_bps.items():
        assert bps <= link.rate_bps * (1 + _REL), (direction, bps)
    ways = 2 if sc.workload.bidirectional or sc.workload.kind == "rr" else 1
    # Strict: no more frames than the link carries at its smallest. With the payloads the run sent: the
    # frame on the wire at each end of the window counts pro rata but is not in the histogram (whole frames).
    assert result.data_packets_per_s <= ways * link.rate_bps / (8 * framing.wire_bytes(1, opt, skb)) * (1 + _REL)
    smallest = min(result.payload_histogram, default=framing.mss_bytes(link.mtu_bytes, ts))
    frames_per_s = link.rate_bps / (8 * framing.wire_bytes(min(smallest, 1 << 30), opt, skb))
    edge = 2 * ways / result.measure_time_s if result.measure_time_s > 0 else 0.0
    assert result.data_packets_per_s <= ways * frames_per_s * (1 + _REL) + edge
    ceiling = framing.line_goodput_bps(link.rate_bps, link.mtu_bytes, ts, skb) * ways
    for host in (sc.sender.platform, sc.receiver.platform):
        if host.bus.clock_hz > 0:
            ceiling = min(ceiling, host.bus.ceiling_bps)  # one bus carries both directions
    edge = 0.0
    if sc.workload.kind == "rr" and result.measure_time_s > 0:
        wl = sc.workload
        edge = 8 * wl.n_streams * (wl.write_bytes + (wl.response_bytes or wl.write_bytes)) / result.measure_time_s
    assert result.goodput_bps <= ceiling * (1 + _REL) + edge, (result.goodput_bps, ceiling)
    assert result.goodput_bps <= result.ceilings_bps.get("line", math.inf) * (1 + _REL) + edge
    for name, frac in result.utilization_frac.items():
        assert 0.0 <= frac <= 1.0, name


def check_strict_json(result) -> str:
    """``Result.to_dict()`` is strict JSON (no inf or nan); returns the text."""
    return json.dumps(result.to_dict(), allow_nan=False, sort_keys=True)
