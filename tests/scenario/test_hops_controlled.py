"""Controlled hop networks (``topology: hops`` with ``hops.nodes``), their validation, the
``traffic.flows`` rules, and :meth:`HopNetwork.validate` (docs/scenario.md, "Path and hop
topologies")."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.hops.graph import HopLink, HopNetwork, HopNode, HopRoute
from leogym.scenario.timeline import PathTimeline
from leogym.scenario.validation import validate_scenario
from leogym.schema import FieldError

PACKET = 1000


def _chain() -> dict[str, Any]:
    """server -> r -> client, a second way r -> r2 -> client, and two routes."""
    return {
        "name": "chain",
        "duration_s": 10.0,
        "topology": "hops",
        "paths": [],
        "traffic": {"packet_bytes": PACKET},
        "hops": {
            "nodes": [
                {"name": "s", "kind": "server"},
                {"name": "r"},
                {"name": "r2"},
                {"name": "c", "kind": "terminal"},
            ],
            "links": [
                {"a": "s", "b": "r", "rate_mbps": 100, "delay_ms": 5, "delay_up_ms": 7,
                 "loss": 0.01},
                {"a": "r", "b": "c", "name": "access", "rate_mbps": 20, "rate_up_mbps": 30,
                 "delay_ms": 10, "loss": 0.02, "loss_up": 0.03, "outages": [[2.0, 2.5]],
                 "queue": {"size": 50, "unit": "packets"}},
                {"a": "r", "b": "r2", "rate_mbps": 50, "delay_ms": 1},
                {"a": "r2", "b": "c", "rate_mbps": 8, "delay_ms": 30},
            ],
            "routes": [
                {"name": "direct", "nodes": ["s", "r", "c"]},
                {"name": "detour", "steps": [
                    {"t_s": 0.0, "nodes": ["s", "r", "c"]},
                    {"t_s": 4.005, "nodes": ["s", "r", "r2", "c"]},
                ]},
            ],
            "paths": ["direct", "detour"],
        },
    }  # fmt: skip


def _build(data: dict[str, Any], seed: int = 0):
    return build_timeline(load_scenario(data), seed)


def test_chain_collapses_to_the_hand_computed_path():
    tl = _build(_chain())
    net = tl.network
    assert net is not None and [p.name for p in tl.paths] == ["direct", "detour"]
    p = tl.paths[0]
    assert p.kind == "terrestrial" and p.delay_down_s.shape == (tl.n,)
    np.testing.assert_allclose(p.delay_down_s, 0.005 + 0.010, rtol=0, atol=1e-15)
    np.testing.assert_allclose(p.delay_up_s, 0.007 + 0.010, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(p.rate_down_bps, 20e6)  # the slower hop
    np.testing.assert_array_equal(p.rate_up_bps, 30e6)  # min(100, 30)
    np.testing.assert_allclose(p.loss_down, 1 - 0.99 * 0.98, rtol=0, atol=1e-15)
    np.testing.assert_allclose(p.loss_up, 1 - 0.99 * 0.97, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(p.outages, [[2.0, 2.5]])  # the access link's outage
    assert len(p.handovers) == 0 and np.all(p.serving_sat == -1) and np.all(np.isnan(p.snr_db))
    # the queue of the bottleneck (the access link: 50 packets)
    assert p.queue_packets == 50 == net.links[1].arrays.queue_packets
    assert net.links[1].name == "access" and net.links[0].name == "s-r"
    assert all(ln.kind == "link" for ln in net.links)


def test_two_step_route_changes_at_its_step_time():
    tl = _build(_chain())
    p = tl.paths[1]
    np.testing.assert_array_equal(p.handovers, [4.005])
    j = tl.index_at(4.005)  # the sample before the change (4.00)
    assert p.delay_down_s[j] == pytest.approx(0.015) and p.rate_down_bps[j] == 20e6
    assert p.delay_down_s[j + 1] == pytest.approx(0.005 + 0.001 + 0.030)
    assert p.rate_down_bps[j + 1] == 8e6 and p.loss_down[j + 1] == pytest.approx(0.01)
    # the access link's outage only while the route crosses it
    np.testing.assert_array_equal(p.outages, [[2.0, 2.5]])
    data = _chain()
    data["hops"]["links"][1]["outages"] = [[3.0, 6.0]]
    np.testing.assert_array_equal(_build(data).paths[1].outages, [[3.0, 4.005]])


def test_route_against_the_link_direction_uses_the_up_values():
    data = _chain()
    data["hops"]["routes"].append({"name": "back", "nodes": ["c", "r", "s"]})
    data["hops"]["paths"] = ["back"]
    p = _build(data).paths[0]
    np.testing.assert_allclose(p.delay_down_s, 0.010 + 0.007, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(p.rate_down_bps, 30e6)  # access up, then s-r up
    np.testing.assert_allclose(p.loss_down, 1 - 0.97 * 0.99, rtol=0, atol=1e-15)


def test_bdp_queue_uses_the_longest_route_through_the_link():
    tl = _build(_chain())
    net = tl.network
    assert net is not None
    # s-r (100 Mbit/s) is crossed by the detour's second step: RTT 12 + 2 + 60 ms
    rtt = 0.012 + 0.002 + 0.060
    assert net.links[0].arrays.queue_packets == int(np.ceil(100e6 * rtt / 8 / PACKET))
    # r2-c (8 Mbit/s): the same route
    assert net.links[3].arrays.queue_packets == int(np.ceil(8e6 * rtt / 8 / PACKET))


def test_rate_scale_divides_link_rates_and_queues():
    data = _chain()
    data["rate_scale"] = 4.0
    tl = _build(data)
    net = tl.network
    assert net is not None
    np.testing.assert_array_equal(tl.paths[0].rate_down_bps, 5e6)
    assert net.links[1].arrays.queue_packets == round(50 / 4)  # packets shrink
    rtt = 0.012 + 0.002 + 0.060
    assert net.links[0].arrays.queue_packets == int(np.ceil(25e6 * rtt / 8 / PACKET))


def test_outages_are_merged_and_clipped():
    data = _chain()
    data["hops"]["links"][1]["outages"] = [[9.5, 30.0], [1.0, 2.0], [1.5, 3.0]]
    tl = _build(data)
    np.testing.assert_array_equal(tl.paths[0].outages, [[1.0, 3.0], [9.5, 10.0]])


def test_a_controlled_network_needs_no_scenario_paths():
    tl = _build(_chain())
    assert tl.network is not None and len(tl.network.path_routes) == 2


# ---------------------------------------------------------------- config validation


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``data[dotted]`` (list indices as numbers; a last key ``+`` appends)."""
    node: Any = data
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if last == "+":
        node.append(value)
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


BAD = [
    ("paths", [{"name": "x", "kind": "terrestrial"}], "scenario.paths"),
    ("hops.paths", [], "scenario.hops.paths"),
    ("hops.paths.1", "nowhere", "scenario.hops.paths[1]"),
    ("hops.links.0.b", "r9", "scenario.hops.links[0].b"),
    ("hops.links.0.a", "r", "scenario.hops.links[0].b"),  # joins r to itself
    ("hops.links.+", {"a": "c", "b": "r2"}, "scenario.hops.links[4]"),  # a second r2-c link
    ("hops.links.+", {"a": "c", "b": "s", "name": "access"}, "scenario.hops.links[4].name"),
    ("hops.links.1.outages", [[2.5, 2.0]], "scenario.hops.links[1].outages[0]"),
    ("hops.links.1.outages", [[1.0]], "scenario.hops.links[1].outages[0]"),
    ("hops.nodes.1.name", "s", "scenario.hops.nodes[1].name"),
    ("hops.routes.0.nodes", ["s", "r9", "c"], "scenario.hops.routes[0].nodes[1]"),
    ("hops.routes.0.nodes", ["s"], "scenario.hops.routes[0].nodes"),
    ("hops.routes.0.nodes", ["s", "r", "r2", "r", "c"], "scenario.hops.routes[0].nodes[3]"),
    ("hops.routes.0.nodes", ["s", "r2", "c"], "scenario.hops.routes[0].nodes[1]"),  # no s-r2
    ("hops.routes.0.name", "detour", "scenario.hops.routes[1].name"),  # a duplicate
    ("hops.routes.0.name", "", "scenario.hops.routes[0].name"),
    ("hops.routes.1.steps.1.t_s", 0.0, "scenario.hops.routes[1].steps[1].t_s"),
    ("hops.routes.1.steps.0.t_s", 1.0, "scenario.hops.routes[1].steps[0].t_s"),
    ("hops.routes.1.steps.1.nodes", ["s", "c"], "scenario.hops.routes[1].steps[1].nodes[1]"),
    ("hops.routes.0.steps", [{"t_s": 0.0, "nodes": ["s", "r"]}], "scenario.hops.routes[0]"),
    ("topology", "path", "scenario.hops.nodes"),
]


@pytest.mark.parametrize(("key", "value", "field"), BAD, ids=[b[2] + "/" + b[0] for b in BAD])
def test_bad_controlled_network_names_the_field(key, value, field):
    data = _chain()
    _set(data, key, value)
    with pytest.raises(FieldError) as err:
        validate_scenario(load_scenario(data))
    assert err.value.field == field, str(err.value)


def test_unknown_route_node_message():
    data = _chain()
    data["hops"]["routes"][0]["nodes"] = ["s", "r9", "c"]
    with pytest.raises(FieldError, match=r"scenario\.hops\.routes\[0\]\.nodes\[1\]: unknown node"):
        validate_scenario(load_scenario(data))


def test_geometry_hops_take_no_controlled_fields():
    data = _chain()
    data["hops"]["nodes"] = []
    data["paths"] = [{"name": "t", "kind": "terrestrial"}]
    with pytest.raises(FieldError) as err:
        validate_scenario(load_scenario(data))
    assert err.value.field == "scenario.hops.links"


FLOWS_BAD = [
    ({"routes": ["nowhere"]}, "scenario.traffic.flows[0].routes[0]"),
    ({"transport": "tcp", "routes": ["direct", "detour"]}, "scenario.traffic.flows[0].routes"),
    ({"transport": "udp_onoff", "routes": []}, "scenario.traffic.flows[0].routes"),
    ({"transport": "mpquic", "routes": []}, "scenario.traffic.flows[0].routes"),
    ({"routes": ["direct"], "start_s": 5.0, "stop_s": 5.0}, "scenario.traffic.flows[0].stop_s"),
    ({"routes": ["direct"], "start_s": 10.0}, "scenario.traffic.flows[0].start_s"),
]


@pytest.mark.parametrize(("flow", "field"), FLOWS_BAD, ids=[str(i) for i in range(len(FLOWS_BAD))])
def test_bad_flow_names_the_field(flow, field):
    data = _chain()
    data["traffic"]["flows"] = [flow]
    with pytest.raises(FieldError) as err:
        validate_scenario(load_scenario(data))
    assert err.value.field == field, str(err.value)


def test_good_flows_name_routes_or_paths():
    data = _chain()
    data["traffic"]["flows"] = [
        {"transport": "mpquic", "cc": "cubic", "routes": ["direct", "detour"]},
        {"transport": "tcp", "routes": ["detour"], "start_s": 1.0, "stop_s": 4.0, "count": 3},
    ]
    validate_scenario(load_scenario(data))
    # path topology: flows name the scenario's paths (default names included)
    cfg = load_scenario(
        {
            "name": "p",
            "paths": [{"kind": "terrestrial"}, {"name": "b", "kind": "terrestrial"}],
            "traffic": {"flows": [{"routes": ["terrestrial0"]}, {"routes": ["b"]}]},
        }
    )
    validate_scenario(cfg)
    bad = copy.deepcopy(cfg)
    bad.traffic.flows[0].routes = ["direct"]
    with pytest.raises(FieldError) as err:
        validate_scenario(bad)
    assert err.value.field == "scenario.traffic.flows[0].routes[0]"


def test_cross_traffic_counts_the_controlled_paths():
    data = _chain()
    data["traffic"]["cross_traffic"] = [{"path": 1}]
    validate_scenario(load_scenario(data))
    data["traffic"]["cross_traffic"] = [{"path": 2}]
    with pytest.raises(FieldError) as err:
        validate_scenario(load_scenario(data))
    assert err.value.field == "scenario.traffic.cross_traffic[0].path"


# ---------------------------------------------------------------- HopNetwork.validate


def _arrays(n: int = 3) -> PathTimeline:
    return PathTimeline(
        name="l",
        kind="terrestrial",
        delay_down_s=np.full(n, 0.01),
        delay_up_s=np.full(n, 0.01),
        rate_down_bps=np.full(n, 1e6),
        rate_up_bps=np.full(n, 1e6),
        loss_down=np.zeros(n),
        loss_up=np.zeros(n),
        snr_db=np.full(n, np.nan),
        elevation_deg=np.full(n, np.nan),
        serving_sat=np.full(n, -1, dtype=np.int32),
        outages=np.zeros((0, 2)),
        handovers=np.zeros(0),
        queue_packets=10,
    )


def _net(route: list[int], links: tuple[tuple[int, int], ...] = ((0, 1), (1, 2))) -> HopNetwork:
    nodes = [HopNode("a", "server"), HopNode("b", "router"), HopNode("c", "terminal")]
    return HopNetwork(
        nodes,
        [HopLink(f"l{i}", "link", u, v, _arrays()) for i, (u, v) in enumerate(links)],
        [HopRoute("r", np.zeros(1), [np.asarray(route)])],
        [0],
    )


def test_hop_network_validate_accepts_a_chain():
    net = _net([0, 1, 2]).validate()
    c = net.collapse(0, np.arange(3) * 0.01)
    np.testing.assert_allclose(c.delay_down_s, 0.02)


@pytest.mark.parametrize(
    ("route", "links", "match"),
    [
        ([0, 1, 0, 1, 2], ((0, 1), (1, 2)), "loop"),
        ([0, 2], ((0, 1), (1, 2)), "no link between"),
        ([0, 1, 7], ((0, 1), (1, 2)), "unknown node"),
        ([0], ((0, 1), (1, 2)), "at least two nodes"),
        ([0, 1, 2], ((0, 1), (1, 0)), "a second link"),
    ],
)
def test_hop_network_validate_refuses(route, links, match):
    with pytest.raises(FieldError, match=match):
        _net(route, links).validate()
