"""The bundled hop scenarios ``maco_shared``, ``beam16``, ``isl_shared`` and ``mptcp_leo_hops``
(docs/scenario.md#11-bundled-scenarios-confscenario): each loads by name, its numbers follow
the geometry and the papers it cites, its shared link is really shared, and a few simulated
seconds on the core deliver data to every flow without exceeding the shared link's capacity.

Runtime: about 8 s on the 2-core development machine (the native half: 2 simulated seconds
per scenario, 2 of them at about 190 Mbit/s).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import available_scenarios, build_timeline, load_scenario
from leogym.simulation import Simulation

HOP_SCENARIOS = ["maco_shared", "beam16", "isl_shared", "mptcp_leo_hops"]

#: Speed of light (km/s, exact) and the WGS-84 equatorial radius the scenario layer uses (km).
C_KM_S = 299_792.458
R_EARTH_KM = 6378.137
#: Starlink shell 1 and MACO's world: 550 km.
ALT_KM = 550.0


def _slant_km(elevation_deg: float, alt_km: float = ALT_KM) -> float:
    """Ground-to-satellite range at an elevation (spherical Earth, law of cosines)."""
    e = math.radians(elevation_deg)
    r = R_EARTH_KM + alt_km
    return math.sqrt(r**2 - (R_EARTH_KM * math.cos(e)) ** 2) - R_EARTH_KM * math.sin(e)


def _ms(km: float) -> float:
    return km / C_KM_S * 1e3


def _links(name: str) -> dict[str, dict]:
    return {
        ln.name or f"{ln.a}-{ln.b}": dataclasses.asdict(ln) for ln in load_scenario(name).hops.links
    }


def _routes_through(net, link_name: str, t: float = 0.0) -> set[str]:
    """Names of the routes whose node list in force at ``t`` crosses the named link."""
    li = next(i for i, ln in enumerate(net.links) if ln.name == link_name)
    ends = {net.links[li].a, net.links[li].b}
    out = set()
    for r in net.routes:
        nodes = list(r.nodes[r.step_at(t)])
        if any({u, v} == ends for u, v in zip(nodes, nodes[1:], strict=False)):
            out.add(r.name)
    return out


# ---------------------------------------------------------------------------- configuration


@pytest.mark.parametrize("name", HOP_SCENARIOS)
def test_hop_scenarios_are_bundled_and_load_by_name(name: str) -> None:
    assert name in available_scenarios()
    sc = load_scenario(name)
    assert sc.name == name and sc.topology == "hops"


def test_maco_shared_follows_the_maco_world() -> None:
    sc = load_scenario("maco_shared")
    links = _links("maco_shared")
    # Table 3 link budget at 550 km: 198.62 Mbit/s (docs/specs/maco.md#access-link-capacity)
    assert links["access"]["rate_mbps"] == pytest.approx(198.62, abs=0.05)
    # 1.25 MB queue: 50 ms at 200 Mbit/s (docs/specs/maco.md#workload-and-queues)
    assert links["access"]["queue"]["size"] == pytest.approx(0.050 * 200e6 / 8)
    # overhead satellite, gateway 50 km away
    assert links["beam-h1"]["delay_ms"] == pytest.approx(_ms(ALT_KM), abs=1e-3)
    assert links["feeder"]["delay_ms"] == pytest.approx(_ms(math.hypot(ALT_KM, 50.0)), abs=1e-3)
    tl = build_timeline(sc, 0)
    net = tl.network
    assert net is not None
    # both subflows and the NewReno flow share the access link (MACO's shared state, s3)
    assert _routes_through(net, "access") == {"f0", "f1", "bg"}
    assert [f.cc for f in sc.traffic.flows] == ["NewReno"] and sc.traffic.flows[0].routes == ["bg"]
    # RTT about the paper's 100 ms (docs/specs/maco.md#propagation-delay), within 1 ms
    for p in tl.paths:
        assert (p.delay_down_s[0] + p.delay_up_s[0]) * 1e3 == pytest.approx(100.0, abs=1.0)
        assert p.queue_packets == math.ceil(1_250_000 / 1400)


def test_beam16_has_16_terminals_behind_one_beam_with_leo_delays() -> None:
    sc = load_scenario("beam16")
    links = _links("beam16")
    slant = _slant_km(45.0)
    assert slant == pytest.approx(749.1, abs=0.1)
    for i in range(16):
        assert links[f"beam-t{i:02d}"]["delay_ms"] == pytest.approx(_ms(slant), abs=1e-3)
    assert links["feeder"]["delay_ms"] == pytest.approx(_ms(slant), abs=1e-3)
    # the beam's rate: the link budget between its reference values at 700 and 800 km
    # (190.09 and 185.37 Mbit/s, docs/specs/maco.md#access-link-capacity)
    assert 185.37 < links["beam"]["rate_mbps"] < 190.09
    tl = build_timeline(sc, 0)
    net = tl.network
    assert net is not None
    assert sum(n.kind == "terminal" for n in net.nodes) == 16
    assert _routes_through(net, "beam") == {f"t{i:02d}" for i in range(16)}
    assert [r.name for r in sc.hops.routes if r.name in sc.hops.paths] == ["t00"]
    assert sorted(f.routes[0] for f in sc.traffic.flows) == [f"t{i:02d}" for i in range(1, 16)]
    # propagation RTT: 2 (15 ms backhaul + two 749.1 km legs)
    p = tl.paths[0]
    assert (p.delay_down_s[0] + p.delay_up_s[0]) * 1e3 == pytest.approx(
        2 * (15.0 + 2 * _ms(slant)), abs=0.01
    )


def test_isl_shared_delays_are_chords_and_only_the_isl_is_shared() -> None:
    sc = load_scenario("isl_shared")
    links = _links("isl_shared")
    r = R_EARTH_KM + ALT_KM
    in_plane = 2 * r * math.sin(math.pi / 22)  # 22 satellites per plane
    assert links["shared_isl"]["delay_ms"] == pytest.approx(_ms(in_plane), abs=1e-3)
    assert links["isl_a"]["delay_ms"] == pytest.approx(_ms(in_plane), abs=1e-3)
    # cross-plane at the equator: RAAN 5 deg apart and the F = 1 phase offset 360/1584 deg
    # along track; both satellites on the equator, so the chord spans their great-circle angle
    dlon, du = math.radians(5.0), math.radians(360.0 / 1584)
    p1 = np.array([1.0, 0.0, 0.0])
    inc = math.radians(53.0)
    p2 = np.array(
        [
            math.cos(dlon) * math.cos(du) - math.sin(dlon) * math.sin(du) * math.cos(inc),
            math.sin(dlon) * math.cos(du) + math.cos(dlon) * math.sin(du) * math.cos(inc),
            math.sin(du) * math.sin(inc),
        ]
    )
    assert links["isl_b"]["delay_ms"] == pytest.approx(_ms(r * np.linalg.norm(p2 - p1)), abs=1e-3)
    isl = {k for k in links if "isl" in k}
    ground = {k for k in links if k.startswith(("feeder", "access"))}
    assert max(links[k]["rate_mbps"] for k in isl) < min(links[k]["rate_mbps"] for k in ground)
    net = build_timeline(sc, 0).network
    assert net is not None
    shared = [ln.name for ln in net.links if _routes_through(net, ln.name) == {"a", "b"}]
    assert shared == ["shared_isl"]


def test_mptcp_leo_hops_is_iridium_omsr_as_a_graph() -> None:
    hops = load_scenario("mptcp_leo_hops")
    path = load_scenario("iridium_omsr")
    assert dataclasses.replace(hops, name="iridium_omsr", topology="path") == path
    net = build_timeline(hops, 1).network
    assert net is not None
    # both subflows leave S through the same satellite in the paper's SS_bf (seed paper 004,
    # section IV-A: "both the two sub-flows share the entry satellite"), not after 30 s
    access = [ln.name for ln in net.links if ln.name.endswith("-client")]
    assert any(_routes_through(net, a, 10.0) == {"a1b1", "a2b2"} for a in access)
    assert not any(_routes_through(net, a, 35.0) == {"a1b1", "a2b2"} for a in access)


# ---------------------------------------------------------------------------- simulation

#: scenario -> (connection's cc, scheduler, the shared bottleneck link, seconds to run)
RUNS = {
    "maco_shared": ("maco", "roundrobin", "access", 2.0),
    "beam16": ("cubic", "minrtt", "beam", 2.0),
    "isl_shared": ("cubic", "minrtt", "shared_isl", 2.0),
    "mptcp_leo_hops": ("lia", "minrtt", None, 4.0),
}


@pytest.mark.native
@pytest.mark.parametrize("name", list(RUNS))
def test_hop_scenario_runs_and_every_flow_delivers(name: str) -> None:
    cc, sched, shared, seconds = RUNS[name]
    sc = load_scenario(name)
    with Simulation.open(EnvConfig(cc=cc, scheduler=sched), sc, seed=1) as sim:
        net = sim.timeline.network
        assert net is not None
        n = int(seconds)
        flows = np.zeros(len(sim.flow_names))
        cross = 0.0
        tx = np.zeros(len(net.links))
        for _ in range(n):
            m = sim.step(1.0)
            flows += m.flow_goodput_bytes
            cross = cross + np.asarray(m.cross_traffic_rx_bytes, dtype=float)
            tx += np.asarray(m.link_tx_bytes)[:, 0]
    assert (flows > 0).all(), dict(zip(sim.flow_names, flows, strict=True))
    if name == "mptcp_leo_hops":
        assert len(cross) == 8 and (cross > 0).all(), cross  # 4 background flows per route
        return
    li = next(i for i, ln in enumerate(net.links) if ln.name == shared)
    capacity = net.links[li].arrays.rate_down_bps[0] * seconds / 8
    # every flow's data crossed the shared link: the link carried all of it (headers
    # included), and no more than its capacity allows
    assert flows.sum() <= tx[li] <= capacity * 1.001


@pytest.mark.native
def test_shared_friendliness_measures_both_flows_within_the_link() -> None:
    from leogym.agents.reproduce.maco import shared_friendliness

    with pytest.raises(ValueError, match="background"):
        shared_friendliness("olia", 0, background="udp")
    # both flows from 0 s: with the NewReno flow alone for the first second, these 3 simulated
    # seconds took 54 s of CPU instead of 1 s
    r = shared_friendliness("olia", 0, duration_s=2.0, warmup_s=0.0, lead_s=0.0)
    assert r["connection_start_s"] == 0.0
    assert r["connection_mbps"] > 0 and r["newreno_mbps"] > 0
    # goodput of both flows together: at most the shared access link's 198.6 Mbit/s
    assert r["connection_mbps"] + r["newreno_mbps"] <= 198.6
    assert r["ratio"] == pytest.approx(r["connection_mbps"] / r["newreno_mbps"])
