"""The LEOTP scenarios (docs/scenario.md#11-bundled-scenarios-confscenario; the experiments of
Jiang et al., ICDCS 2023, section V): each loads by name, validates and builds a timeline whose
numbers are the paper's (controlled chains) or an independent propagation of its Starlink shell
(the emulated routes), and a short run on the core delivers data with the existing baselines:
leogym's BBR as the connection under study beside an ns-3 TCP CUBIC flow on the same route.

Runtime: about 15 s on the 2-core development machine (the native half: 2 simulated seconds
per scenario).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import (
    available_scenarios,
    build_timeline,
    load_scenario,
    sample_scenario,
    validate_scenario,
)
from leogym.scenario.config import FlowConfig
from leogym.simulation import Simulation

CONTROLLED = [
    "leotp_chain5",
    "leotp_chain10_wave",
    "leotp_parallel",
    "leotp_dumbbell",
    "leotp_dumbbell_rtt",
]
STARLINK = ["leotp_bj_sh", "leotp_bj_hk", "leotp_bj_pr", "leotp_bj_ny"]

#: An independent propagation of the paper's shell (circular Walker orbits 32 x 50 x 53 deg,
#: phasing 1, 1150 km, Earth rotation, +Grid ISLs, 40 deg mask, Dijkstra on distance, 200
#: instants over one orbit; not leogym's code): mean one-way propagation (ms) and links between
#: the two ground sides.
GEOMETRY = {
    "leotp_bj_sh": (8.8, 2.0),
    "leotp_bj_hk": (12.0, 2.7),
    "leotp_bj_pr": (37.2, 11.1),
    "leotp_bj_ny": (53.7, 16.3),
}


def _timeline(name: str, seed: int = 0):
    sc = sample_scenario(load_scenario(name), np.random.default_rng(seed))
    return sc, build_timeline(sc, seed)


@pytest.mark.parametrize("name", CONTROLLED + STARLINK)
def test_leotp_scenarios_load_validate_and_build(name: str) -> None:
    assert name in available_scenarios()
    sc = load_scenario(name)
    assert sc.name == name and sc.topology == "hops"
    validate_scenario(sc)
    _, tl = _timeline(name)
    assert tl.network is not None and tl.paths
    # 1000-packet drop-tail queues everywhere (the paper's testbed default)
    assert {ln.arrays.queue_packets for ln in tl.network.links} == {1000}
    assert sc.traffic.packet_bytes == 1472  # 1500-byte IP packets, as ns-3's TCP sends


def test_chain5_is_five_hops_of_20_mbps_and_10_ms() -> None:
    _, tl = _timeline("leotp_chain5")
    p = tl.paths[0]
    np.testing.assert_allclose(p.delay_down_s, 0.050, atol=1e-12)
    np.testing.assert_allclose(p.delay_up_s, 0.050, atol=1e-12)
    assert np.all(p.rate_down_bps == 20e6)
    # 1 % per hop in both directions: 1 - 0.99^5 end to end
    np.testing.assert_allclose(p.loss_down, 1 - 0.99**5, rtol=1e-12)
    np.testing.assert_allclose(p.loss_up, 1 - 0.99**5, rtol=1e-12)
    assert len(tl.network.links) == 5


def test_chain10_wave_has_its_square_wave_on_hop_2() -> None:
    _, tl = _timeline("leotp_chain10_wave")
    p = tl.paths[0]
    np.testing.assert_allclose(p.delay_down_s, 0.100, atol=1e-12)  # 10 hops x 10 ms
    hop2 = tl.network.links[1]
    assert hop2.name == "bottleneck"
    t = tl.times
    high = (np.floor(t + 1e-9).astype(int) % 2) == 0  # 11 Mbit/s in the first second of 2
    np.testing.assert_array_equal(hop2.arrays.rate_down_bps, np.where(high, 11e6, 9e6))
    np.testing.assert_array_equal(p.rate_down_bps, hop2.arrays.rate_down_bps)
    assert hop2.arrays.rate_down_bps[:-1].mean() == pytest.approx(10e6)  # 30 whole periods
    assert all(np.all(ln.arrays.rate_down_bps == 20e6) for i, ln in enumerate(tl.network.links)
               if i != 1)  # fmt: skip


def test_parallel_alternates_between_80_and_90_ms_branches() -> None:
    _, tl = _timeline("leotp_parallel")
    p = tl.paths[0]
    t = tl.times[:-1]
    on_a = (np.floor(t + 1e-9).astype(int) % 2) == 0
    rtt = (p.delay_down_s + p.delay_up_s)[:-1]
    np.testing.assert_allclose(rtt, np.where(on_a, 0.080, 0.090), atol=1e-12)
    np.testing.assert_array_equal(p.handovers, np.arange(1.0, 60.0))
    assert p.outages.size == 0  # the route in force is never cut
    by_name = {ln.name: ln.arrays.outages for ln in tl.network.links}
    np.testing.assert_array_equal(by_name["p-b1"][:2], [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(by_name["a3-c"][:2], [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    ("name", "rtts_ms"), [("leotp_dumbbell", (60, 60, 60)), ("leotp_dumbbell_rtt", (90, 120, 150))]
)
def test_dumbbell_rtts_and_flow_times(name: str, rtts_ms: tuple[int, ...]) -> None:
    sc, tl = _timeline(name)
    net = tl.network
    for r, want in enumerate(rtts_ms):
        c = net.collapse(r, tl.times)
        assert (c.delay_down_s[0] + c.delay_up_s[0]) * 1e3 == pytest.approx(want)
        assert c.rate_down_bps[0] == 5e6  # the shared r1 -> r2 link
    flows = [(f.start_s, f.stop_s) for f in sc.traffic.flows]
    assert flows == [(0.0, 600.0), (200.0, 800.0), (400.0, 1000.0)]
    assert sc.duration_s == 1000.0


@pytest.mark.parametrize("name", STARLINK)
def test_starlink_routes_follow_the_shell(name: str) -> None:
    prop_ms, gs_links = GEOMETRY[name]
    _, tl = _timeline(name)
    p = tl.paths[0]
    route = tl.network.routes[0]
    # our route adds the Producer's 0.5 ms access link to the ground-side propagation
    assert p.delay_down_s.mean() * 1e3 - 0.5 == pytest.approx(prop_ms, abs=1.5)
    links = np.mean([len(n) - 2 for n in route.nodes])  # less the Producer's access link
    assert links == pytest.approx(gs_links, abs=1.5)
    # the V-curve and noise leave the bottleneck's mean capacity within 8.25-10 Mbit/s (the
    # least that Table II's 7.91 Mbit/s of goodput needs, and the GSL's nominal rate)
    assert 8.25e6 <= p.rate_down_bps.mean() <= 10e6
    assert p.outages.size == 0  # make before break
    # the bottleneck is the GSL uplink (section V.C), on the Producer's side: the far city's
    # feeder, the first satellite hop, holds the path's rate and 1 % loss; Beijing's access
    # link 1 % and no rate limit
    net = tl.network
    for j in range(0, tl.n, 97):
        nodes = route.nodes[route.step_at(float(tl.times[j]))].tolist()
        pairs = zip(nodes[:-1], nodes[1:], strict=True)
        hops = [net.links[net.link_between(u, v)] for u, v in pairs]
        feeder, access = hops[1], hops[-1]
        assert net.nodes[feeder.a].name.startswith("gs:") and feeder.kind == "gsl"
        assert feeder.arrays.rate_down_bps[j] == p.rate_down_bps[j] <= 10.5e6
        assert access.arrays.rate_down_bps[j] >= 1e11
        assert feeder.arrays.loss_down[j] == pytest.approx(0.01, abs=1e-12)
        assert access.arrays.loss_down[j] == pytest.approx(0.01, abs=1e-12)


@pytest.mark.native
@pytest.mark.parametrize("name", CONTROLLED + STARLINK)
def test_leotp_scenarios_run_with_the_native_baselines(name: str) -> None:
    sc = sample_scenario(load_scenario(name), np.random.default_rng(0))
    sc.duration_s = 2.0
    route = sc.hops.paths[0] if sc.hops.nodes else sc.paths[0].name
    sc.traffic.flows = [
        dataclasses.replace(f, start_s=0.0, stop_s=None) for f in sc.traffic.flows
    ] + [FlowConfig(name="cubic", transport="tcp", cc="TcpCubic", routes=[route])]
    settings = EnvConfig.from_kwargs(scenario=None, cc="bbr", scheduler="minrtt")
    with Simulation.open(settings, sc, 1) as sim:
        got = np.zeros(len(sim.flow_names))
        for _ in range(2):
            m = sim.step(1.0)
            got += m.flow_goodput_bytes
        assert np.all(got > 0), dict(zip(sim.flow_names, got, strict=True))
        assert np.all(np.isfinite(m.flow_owd_mean_s))
