"""Geometry-derived hop networks (``topology: hops``, empty ``hops.nodes``).

Each path's route, collapsed end to end (:meth:`HopNetwork.collapse`), must give back the arrays
that path mode builds for it, at every grid point; links are shared by identity; path mode is
unchanged (docs/scenario.md, "Path and hop topologies").
"""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.hops.graph import HopNetwork
from leogym.scenario.timeline import NATIVE_ARRAYS, Timeline

#: Bundled scenarios and the (short) episode length each is built with.
SCENARIOS = {
    "starlink_geometric": 30.0,  # bent pipe + terrestrial, schedule handovers with outages
    "maco": 60.0,  # two satellite paths, shared and disjoint states
    "leotp_starlink": 30.0,  # ISL routing, per-hop loss, ISL rate cap, V-curve and noise
    "alcs_stin": 30.0,  # envelope delay model + terrestrial, 1 s outages
}
TOL = 1e-12


def _cfg(name: str, duration: float, topology: str = "hops", **changes: object) -> ScenarioConfig:
    cfg = load_scenario(name)
    return dataclasses.replace(cfg, duration_s=duration, topology=topology, **changes)


@cache
def _timeline(name: str, topology: str = "hops") -> Timeline:
    return build_timeline(_cfg(name, SCENARIOS[name], topology), 7)


def _route_links(net: HopNetwork, route: int, t: float) -> list[int]:
    """Indices of the links of ``route``'s step in force at ``t``."""
    r = net.routes[route]
    nodes = r.nodes[r.step_at(t)].tolist()
    return [net.link_between(u, v) for u, v in zip(nodes[:-1], nodes[1:], strict=True)]


def _assert_collapse_equal(tl: Timeline, i: int, where: np.ndarray | None = None) -> None:
    """Path ``i``'s route collapsed equals its PathTimeline (at the samples ``where``)."""
    net = tl.network
    assert net is not None
    p = tl.paths[i]
    times = tl.times
    c = net.collapse(net.path_routes[i], times)
    sel = np.ones(len(times), dtype=bool) if where is None else where
    for name in ("delay_down_s", "delay_up_s", "loss_down", "loss_up"):
        np.testing.assert_allclose(
            getattr(c, name)[sel], getattr(p, name)[sel], rtol=0, atol=TOL, err_msg=name
        )
    for name in ("rate_down_bps", "rate_up_bps"):
        np.testing.assert_array_equal(getattr(c, name)[sel], getattr(p, name)[sel], err_msg=name)
    in_outage = np.array([p.in_outage(float(t)) for t in times])
    np.testing.assert_array_equal(c.in_outage[sel], in_outage[sel], err_msg="in_outage")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_routes_collapse_to_the_path_mode_arrays(name):
    tl = _timeline(name)
    assert tl.network is not None
    for i in range(len(tl.paths)):
        _assert_collapse_equal(tl, i)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_hop_build_keeps_the_path_mode_paths(name):
    hop, path = _timeline(name), _timeline(name, "path")
    assert path.network is None and hop.network is not None
    assert len(hop.paths) == len(path.paths)
    for a, b in zip(hop.paths, path.paths, strict=True):
        assert a.name == b.name and a.kind == b.kind and a.queue_packets == b.queue_packets
        for field in NATIVE_ARRAYS:
            x, y = getattr(a, field), getattr(b, field)
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), field


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_links_are_finite_and_well_formed(name):
    tl = _timeline(name)
    net = tl.network
    assert net is not None
    kinds = {nd.kind for nd in net.nodes}
    assert net.nodes[0].name == "server" and net.nodes[1].name == "client"
    assert kinds <= {"server", "terminal", "satellite", "ground_station", "router"}
    for ln in net.links:
        a = ln.arrays
        for field in ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps"):
            v = getattr(a, field)
            assert v.shape == (tl.n,) and np.all(np.isfinite(v)), (ln.name, field)
        assert np.all(a.delay_down_s >= 0) and np.all(a.rate_down_bps > 0), ln.name
        assert np.all((a.loss_down >= 0) & (a.loss_down < 1)), ln.name
        assert a.queue_packets >= 1
        o = a.outages
        assert o.ndim == 2 and o.shape[1] == 2 and np.all(o[:, 0] < o[:, 1])
        a_name, b_name = net.nodes[ln.a].name, net.nodes[ln.b].name
        assert ln.name == f"{a_name}-{b_name}"
        if ln.kind == "gsl":  # access link (a = sat) or feeder (a = gs)
            assert b_name == "client" or a_name.startswith("gs:")
            assert a_name.startswith("sat") or b_name.startswith("sat")
        elif ln.kind == "backhaul":
            assert a_name == "server" and b_name.startswith("gs:")
        elif ln.kind == "isl":
            assert a_name.startswith("sat") and b_name.startswith("sat")
    for r in net.routes:
        for nodes in r.nodes:
            names = [net.nodes[v].name for v in nodes.tolist()]
            assert names[0] == "server" and names[-1] == "client"


def test_isl_route_splits_delay_and_loss_per_hop():
    tl = _timeline("leotp_starlink")
    net = tl.network
    assert net is not None
    cfg = load_scenario("leotp_starlink")
    links = [net.links[li] for li in _route_links(net, 0, 10.0)]
    kinds = [ln.kind for ln in links]
    assert kinds[0] == "backhaul" and kinds[1] == "gsl" and kinds[-1] == "gsl"
    isls = [ln for ln in links if ln.kind == "isl"]
    j = tl.index_at(10.0)
    assert len(isls) == tl.paths[0].isl_hops[j] > 0
    for ln in isls:  # chord / c, the ISL's capacity and its per-hop loss
        assert 0.001 < ln.arrays.delay_down_s[j] < 0.02
        assert ln.arrays.rate_down_bps[j] == cfg.constellation.isl.rate_mbps * 1e6
        assert ln.arrays.loss_down[j] == cfg.constellation.isl.loss_per_hop
    # the access link is the 10 Mbit/s bottleneck (before the V-curve and noise)
    gsl = links[-1].arrays
    assert gsl.rate_down_bps[j] < 12e6 and gsl.serving_sat[j] == tl.paths[0].serving_sat[j]


def test_gateway_bottleneck_moves_rate_and_half_the_loss_to_the_feeder():
    """``bottleneck_gsl: gateway`` (LEOTP's Producer-side GSL uplink, 1 % per GSL): the feeder
    holds the access rate the terminal's link held, each GSL 1 - sqrt(1 - p) of the GSL loss
    p = 1 - 0.99^2 (so exactly 1 %), the access link is unlimited; the collapse is unchanged."""
    cfg = _cfg("leotp_starlink", SCENARIOS["leotp_starlink"])
    sat = dataclasses.replace(cfg.paths[0].satellite, bottleneck_gsl="gateway")
    cfg = dataclasses.replace(cfg, paths=[dataclasses.replace(cfg.paths[0], satellite=sat)])
    moved, kept = build_timeline(cfg, 7), _timeline("leotp_starlink")
    _assert_collapse_equal(moved, 0)
    net, ref = moved.network, kept.network
    assert net is not None and ref is not None
    assert cfg.paths[0].loss_down == pytest.approx(1 - 0.99**2)
    for t in (3.0, 10.0, 25.0):
        j = moved.index_at(t)
        links = [net.links[li] for li in _route_links(net, 0, t)]
        ref_links = [ref.links[li] for li in _route_links(ref, 0, t)]
        assert [ln.name for ln in links] == [ln.name for ln in ref_links]
        feeder, access = links[1].arrays, links[-1].arrays
        assert links[1].kind == "gsl" and net.nodes[links[1].a].name.startswith("gs:")
        for name in ("rate_down_bps", "rate_up_bps"):
            assert getattr(feeder, name)[j] == getattr(ref_links[-1].arrays, name)[j] < 12e6
            assert getattr(access, name)[j] >= 1e11
        for name in ("loss_down", "loss_up"):
            assert getattr(feeder, name)[j] == pytest.approx(0.01, abs=1e-12)
            assert getattr(access, name)[j] == pytest.approx(0.01, abs=1e-12)
            assert getattr(ref_links[1].arrays, name)[j] == 0.0


def test_paths_on_one_satellite_share_its_access_link():
    tl = _timeline("maco")
    net = tl.network
    assert net is not None
    a, b = tl.paths
    shared = np.flatnonzero((a.serving_sat == b.serving_sat) & (a.serving_sat >= 0))
    apart = np.flatnonzero((a.serving_sat != b.serving_sat) & (a.serving_sat >= 0))
    assert len(shared) and len(apart)
    j = shared[len(shared) // 2]
    t = float(tl.times[j])
    la, lb = _route_links(net, 0, t), _route_links(net, 1, t)
    assert la[-1] == lb[-1]  # the same GSL (and so the same queues) ...
    gsl = net.links[la[-1]]
    assert gsl.kind == "gsl" and net.nodes[gsl.a].name == f"sat{a.serving_sat[j]}"
    assert gsl.arrays.queue_packets == a.queue_packets  # the first path's queue
    assert la == lb  # ... and the same feeder and backhaul (one gateway)
    t = float(tl.times[apart[len(apart) // 2]])
    assert _route_links(net, 0, t)[-1] != _route_links(net, 1, t)[-1]


def test_break_before_make_outage_stays_on_the_old_access_link():
    # maco at t = 27 s: f0 migrates onto f1's satellite with a 100 ms outage
    tl = _timeline("maco")
    net = tl.network
    assert net is not None
    f0, f1 = tl.paths
    ev = next(e for e in f0.events if e.effects)
    t = ev.t_s + 0.05
    assert f0.in_outage(t) and not f1.in_outage(t)
    old = net.links[_route_links(net, 0, t)[-1]]
    assert net.nodes[old.a].name == f"sat{ev.sat_from}"
    assert ev.t_s + 0.1 in net.routes[0].step_times_s  # the new node list after the outage
    after = _route_links(net, 0, ev.t_s + 0.2)[-1]
    assert after == _route_links(net, 1, ev.t_s + 0.2)[-1]  # then both share f1's GSL
    assert not net.collapse(1, tl.times).in_outage[tl.index_at(t)]


def test_lower_path_index_wins_a_shared_link():
    # With a handover-window loss, f0 and f1 put different losses on a shared GSL right after
    # a merge: f0's values stand, and f1's collapse still matches wherever it has its own GSL
    # (the backhaul and feeder carry the same values for both).
    h = dataclasses.replace(load_scenario("maco").handover, loss_prob=0.05)
    tl = build_timeline(_cfg("maco", 60.0, handover=h), 7)
    net = tl.network
    assert net is not None
    _assert_collapse_equal(tl, 0)
    alone = np.array(
        [_route_links(net, 1, float(t))[-1] != _route_links(net, 0, float(t))[-1] for t in tl.times]
    )
    assert alone.any() and not alone.all()
    _assert_collapse_equal(tl, 1, alone)
    c1 = net.collapse(1, tl.times)
    assert np.abs(c1.loss_down - tl.paths[1].loss_down).max() > 0.01  # it lost somewhere


def test_unused_access_links_are_in_an_outage_below_the_mask():
    tl = _timeline("maco")
    net = tl.network
    assert net is not None
    used = np.zeros((len(net.links), tl.n), dtype=bool)
    for r in range(len(net.routes)):
        for j, t in enumerate(tl.times):
            used[_route_links(net, r, float(t)), j] = True
    below = 0
    for li, ln in enumerate(net.links):
        in_outage = np.array([ln.arrays.in_outage(float(t)) for t in tl.times])
        if ln.kind == "gsl" and net.nodes[ln.b].name == "client":
            below += int((in_outage & ~used[li]).sum())
    assert below > 0  # satellites that set after their last use (and rise before their first)


def test_rate_scale_divides_every_link_rate():
    k = 4.0
    scaled = build_timeline(_cfg("starlink_geometric", 20.0, rate_scale=k), 3)
    plain = build_timeline(_cfg("starlink_geometric", 20.0), 3)
    assert scaled.network is not None and plain.network is not None
    for a, b in zip(scaled.network.links, plain.network.links, strict=True):
        assert a.name == b.name
        np.testing.assert_array_equal(a.arrays.rate_down_bps, b.arrays.rate_down_bps / k)
    for i in range(len(scaled.paths)):
        _assert_collapse_equal(scaled, i)


def test_handover_spike_and_loss_window_go_on_the_access_link():
    h = dataclasses.replace(
        load_scenario("starlink_geometric").handover,
        delay_spike_ms=40.0,
        delay_spike_s=0.5,
        loss_prob=0.2,
        loss_after_s=0.3,
    )
    tl = build_timeline(_cfg("starlink_geometric", 30.0, handover=h), 1)
    for i in range(len(tl.paths)):
        _assert_collapse_equal(tl, i)
    net = tl.network
    assert net is not None
    t = float(tl.paths[0].handovers[0]) + 0.12  # after the outage, inside the spike
    links = [net.links[li] for li in _route_links(net, 0, t)]
    j = tl.index_at(t)
    assert links[-1].arrays.loss_down[j] > 0.2 - 1e-9
    assert all(ln.arrays.loss_down[j] == 0.0 for ln in links[:-1])
    spike = 0.5 * 40e-3 * (1.0 - 0.12 / 0.5)
    assert links[-1].arrays.delay_down_s[j] > spike  # r_ut / c + spike
    assert all(ln.arrays.delay_down_s[j] < 0.016 for ln in links[:-1])  # feeder, backhaul
