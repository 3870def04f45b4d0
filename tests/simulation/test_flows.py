"""Several flows in one simulation (``traffic.flows``), in both topologies.

Flow 0 is the connection under study; the scenario's flows follow in config order, ``count``
expanded. Each transport runs natively and delivers data; per-flow one-way delays are at least
the propagation delay of the flow's path (arithmetic from the timeline); bytes delivered to a
flow's application never exceed what its bottleneck could carry.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.scenario.config import FlowConfig
from leogym.simulation import Simulation, bottleneck_shares, flow_routes, flows_on_link, jain_index

pytestmark = pytest.mark.native

DURATION_S = 8.0


def scenario(topology: str):
    sc = load_scenario("tiny")
    flows = [
        FlowConfig(name="reno", transport="tcp", cc="NewReno", routes=["terrestrial"]),
        FlowConfig(
            name="olia",
            transport="mpquic",
            cc="olia",
            scheduler="minrtt",
            routes=["sat", "terrestrial"],
            start_s=1.0,
        ),
        FlowConfig(
            name="cbr", transport="udp_onoff", routes=["sat"], rate_mbps=0.2, count=2, stop_s=6.0
        ),
    ]
    traffic = dataclasses.replace(sc.traffic, flows=flows)
    return dataclasses.replace(sc, topology=topology, duration_s=DURATION_S, traffic=traffic)


@pytest.fixture(scope="module", params=["path", "hops"])
def run(request):
    sc = scenario(request.param)
    with Simulation.open(EnvConfig(cc="cubic"), sc, seed=3) as sim:
        steps = [sim.step(1.0) for _ in range(int(DURATION_S))]
        return request.param, sim.flow_names, sim.timeline, steps


def test_flows_are_named_in_order(run) -> None:
    _, names, _, steps = run
    assert names == ["connection", "reno", "olia", "cbr.0", "cbr.1"]
    assert all(m.flow_goodput_bytes.shape == (5,) for m in steps)


def test_every_flow_delivers(run) -> None:
    _, _, _, steps = run
    total = np.sum([m.flow_goodput_bytes for m in steps], axis=0)
    assert np.all(total > 0), total
    # flow 0 is the connection's own goodput
    assert total[0] == sum(m.goodput_bytes for m in steps)
    # The two on/off UDP sources send 0.2 Mbit/s each for 6 s: what arrives is at most that
    # (UDP payload bytes at the sink).
    assert total[3] <= 0.2e6 / 8 * 6.0 * 1.001
    assert total[3] >= 0.2e6 / 8 * 6.0 * 0.8


def test_one_way_delay_is_at_least_propagation(run) -> None:
    topology, _, timeline, steps = run
    sat, terr = timeline.paths
    for m in steps[2:]:
        t = m.time_s
        k = timeline.index_at(t)
        # the TCP flow crosses the terrestrial path, the UDP flows the satellite path
        assert m.flow_owd_mean_s[1] >= terr.delay_down_s[k] - 1e-9
        if m.flow_packets[3] > 0:
            lo = float(np.min(sat.delay_down_s[max(k - 100, 0) : k + 1]))
            assert m.flow_owd_p50_s[3] >= lo - 1e-9
        assert np.all(m.flow_owd_max_s[m.flow_packets > 0] >= m.flow_owd_p99_s[m.flow_packets > 0])
        assert np.all(m.flow_queue_delay_s[m.flow_packets > 0] >= 0.0)


def test_links_report_their_traffic(run) -> None:
    topology, _, timeline, steps = run
    n_links = len(timeline.paths) if topology == "path" else len(timeline.network.links)
    for m in steps:
        assert m.link_tx_bytes.shape == (n_links, 2)
        assert np.all(m.link_utilization >= 0.0)
        # a link cannot carry more than its capacity (small slack: the step's first packet may
        # have started in the previous step)
        assert np.all(m.link_utilization <= 1.02), m.link_utilization


def test_shares_of_the_terrestrial_bottleneck(run) -> None:
    topology, _, timeline, steps = run
    sc = scenario(topology)
    routes = flow_routes(sc)
    assert routes == [[0, 1], [1], [0, 1], [0], [0]]
    if topology == "path":
        link = 1
    else:
        net = timeline.network
        link = net.link_between(net.node_index("server"), net.node_index("isp:terrestrial"))
    on = flows_on_link(timeline, routes, link)
    assert on.tolist() == [True, True, True, False, False]
    total = np.sum([m.flow_goodput_bytes for m in steps], axis=0)
    shares = bottleneck_shares(total, on)
    assert np.nansum(shares) == pytest.approx(1.0)
    assert np.isnan(shares[3:]).all()
    assert jain_index([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0]) == pytest.approx(1.0 / 3.0)


def test_flows_report_their_transport_state(run) -> None:
    _, _, timeline, steps = run
    m = steps[-1]
    # connection, TCP and mpquic flows have a window of at least a few packets and an RTT no
    # shorter than their fastest path's propagation RTT; the UDP flows have neither
    k = timeline.index_at(m.time_s)
    fastest = min(p.delay_down_s[k] + p.delay_up_s[k] for p in timeline.paths)
    terr = timeline.paths[1]
    for f in (0, 1, 2):
        assert m.flow_cwnd_bytes[f] >= 2 * 1400, (f, m.flow_cwnd_bytes)
        assert m.flow_rtt_s[f] >= fastest - 1e-9, (f, m.flow_rtt_s)
    # the TCP flow runs over the terrestrial path only
    assert m.flow_rtt_s[1] >= terr.delay_down_s[k] + terr.delay_up_s[k] - 1e-9
    assert np.isnan(m.flow_cwnd_bytes[3:]).all() and np.isnan(m.flow_rtt_s[3:]).all()
    # flow 0's window is the connection's, summed over its paths
    assert m.flow_cwnd_bytes[0] == pytest.approx(float(np.sum(m.cwnd_bytes)))


def test_hop_mode_same_seed_same_measurements() -> None:
    """Same scenario and seed, twice: every measurement of every step is bit-identical (the
    routing timetable, the delay tags and the flows add no unseeded randomness)."""
    sc = scenario("hops")

    def trace(seed: int) -> list[dict]:
        with Simulation.open(EnvConfig(cc="cubic"), sc, seed=seed) as sim:
            return [dataclasses.asdict(sim.step(1.0)) for _ in range(3)]

    a, b = trace(5), trace(5)
    for sa, sb in zip(a, b, strict=True):
        for key, va in sa.items():
            np.testing.assert_array_equal(np.asarray(va), np.asarray(sb[key]), err_msg=key)
