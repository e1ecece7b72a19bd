"""Path d of rule 166's check without loss: where its steady rate lies when no loss ever comes (the stop rule
unable to converge, rel_tol 1e-6, so each run goes to its simulated time)."""
from tcpsim import build_scenario, simulate
from tcpsim.config import Budget
kw = dict(os="linux", rate="10mbit", rtt="20ms", sockbuf="16k")
for T in (10.0, 100.0, 400.0):  # printed: T, goodput and half-width in Mbit/s, termination, simulated s
    b = Budget(rel_tol=1e-6, max_sim_time_s=T, max_events=1<<40, max_wall_s=3000)
    r = simulate(build_scenario(seed=0, budget=b, **kw))
    print(T, r.goodput_bps/1e6, r.goodput_halfwidth_bps/1e6, r.termination, r.sim_time_s, r.limited_by, r.measure_time_s)
