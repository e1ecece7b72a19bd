"""Hypothesis strategies: small scenarios that run in a fraction of a second."""

from hypothesis import strategies as st

from tcpsim.config import Budget, Host, Link, Scenario, TcpOptions, Workload


@st.composite
def scenarios(draw, bulk_only: bool = False, lossless: bool = True):
    family = draw(st.sampled_from(["bsd", "linux", "solaris"]))
    buf = draw(st.sampled_from([4096, 8192, 16384, 65536, 262144, 1 << 20]))
    nodelay = draw(st.booleans())
    tcp = TcpOptions.for_os(family, sockbuf_bytes=buf, nodelay=nodelay)
    delack = draw(st.sampled_from([None, "bsd", "linux", "solaris", "off"]))
    if delack:
        tcp = TcpOptions(**{**{f: getattr(tcp, f) for f in tcp.__dataclass_fields__}, "delack": delack})
    link = Link(rate_bps=draw(st.sampled_from([1e8, 1e9, 1e10])),
                one_way_delay_s=draw(st.sampled_from([1e-6, 20e-6, 200e-6, 1e-3])),
                mtu_bytes=draw(st.sampled_from([576, 1500, 4000, 9000])),
                loss_frac=0.0 if lossless else draw(st.sampled_from([0.0, 0.001, 0.01])),
                queue_packets=None if lossless else draw(st.sampled_from([None, 16, 64])))
    kind = "bulk" if bulk_only else draw(st.sampled_from(["bulk", "bulk", "rr"]))
    rate = draw(st.sampled_from([None, None, 2e3, 5e4])) if kind == "bulk" else None
    workload = Workload(kind=kind, write_bytes=draw(st.sampled_from([1, 100, 1460, 8192, 65536])),
                        n_streams=draw(st.integers(1, 3)), bidirectional=kind == "bulk" and draw(st.booleans()),
                        message_rate_hz=rate)
    budget = Budget(max_sim_time_s=0.02, min_sim_time_s=0.001, max_events=150_000)
    return Scenario(sender=Host(tcp=tcp), receiver=Host(tcp=tcp), link=link, workload=workload,
                    seed=draw(st.integers(0, 2**16)), budget=budget)
