"""The hop topology in the core: forwarding along timetabled routes, and bad input.

Every bad network dict must raise ``ValueError`` naming the field (``network.routes[0]...``)
before anything is built: an ``NS_FATAL_ERROR`` or ``NS_ASSERT`` would abort the interpreter.
The forwarding tests check the timetable against arithmetic: a packet crosses exactly the
links of the route in force when it is forwarded, and a route change moves the traffic.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

DURATION_S = 4.0


def link(a: int, b: int, **kw: Any) -> dict[str, Any]:
    d = synthetic_path(DURATION_S, **kw)
    d.update(a=a, b=b)
    return d


def route(steps: list[list[int]], times: list[float] | None = None) -> dict[str, Any]:
    times = times if times is not None else [0.0]
    lengths = [len(s) for s in steps]
    return {
        "times_s": np.asarray(times, dtype=np.float64),
        "nodes": np.concatenate([np.asarray(s, dtype=np.int64) for s in steps]),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
    }


def diamond() -> dict[str, Any]:
    """server(0) -> r1(1) | r2(2) -> client(3): two disjoint two-hop branches."""
    return {
        "nodes": ["server", "r1", "r2", "client"],
        "links": [
            link(0, 1, rate_bps=20e6, delay_s=0.005),
            link(1, 3, rate_bps=20e6, delay_s=0.005),
            link(0, 2, rate_bps=20e6, delay_s=0.010),
            link(2, 3, rate_bps=20e6, delay_s=0.010),
        ],
        "routes": [route([[0, 1, 3]])],
        "path_routes": [0],
    }


def run(core: Any, network: dict[str, Any], steps: int = 4, **config: Any) -> list[dict]:
    path = synthetic_path(DURATION_S, rate_bps=20e6, delay_s=0.01)
    cfg = {"cc": "cubic", "packet_bytes": 1400, **config}
    with core.Simulation(cfg, [path], network) as sim:
        return [sim.step(DURATION_S / steps) for _ in range(steps)]


def test_packets_follow_the_route_in_force(core: Any) -> None:
    net = diamond()
    # Upper branch until 2 s, then the lower branch.
    net["routes"] = [route([[0, 1, 3], [0, 2, 3]], [0.0, 2.0])]
    out = run(core, net)
    tx = [m["link_tx_bytes"][:, 0] for m in out]  # data direction of each link per second
    assert tx[0][0] > 0 and tx[0][1] > 0 and tx[0][2] == 0 and tx[0][3] == 0
    assert tx[3][2] > 0 and tx[3][3] > 0 and tx[3][0] == 0 and tx[3][1] == 0
    # Nothing was lost for want of a route: packets in flight at 2 s drained along the old
    # branch (its nodes keep their old next hop).
    assert sum(int(m["route_drops_no_route"][0]) for m in out) == 0
    assert sum(int(m["goodput_bytes"]) for m in out) > 0.5 * 20e6 * DURATION_S / 8


def test_one_way_delay_is_propagation_plus_serialisation_when_idle(core: Any) -> None:
    # A 100 kbit/s on/off UDP flow on a 20 Mbit/s chain never queues: every packet's OWD is
    # the two propagation delays plus two serialisations of its IP packet.
    net = diamond()
    net["routes"].append(route([[0, 2, 3]]))
    flows = [{"transport": "udp_onoff", "routes": [1], "rate_bps": 1e5, "on_s": 1.0, "off_s": 0.0}]
    out = run(core, net, flows=flows, start_s=3.9)  # the connection stays out of the way
    m = out[1]
    ip_bytes = 1400 + 28
    expect = 2 * 0.010 + 2 * ip_bytes * 8 / 20e6
    assert m["flow_packets"][1] > 5
    assert m["flow_owd_mean_s"][1] == pytest.approx(expect, rel=1e-6)
    assert m["flow_owd_max_s"][1] == pytest.approx(expect, rel=1e-6)
    assert m["flow_queue_delay_s"][1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda n: n["routes"].__setitem__(0, route([[0, 2, 1, 3]])), "no link between"),
        (lambda n: n["routes"].__setitem__(0, route([[0, 1, 0, 3]])), "twice (a loop)"),
        (lambda n: n["routes"].__setitem__(0, route([[0, 7, 3]])), "network.routes[0].nodes"),
        (lambda n: n["routes"].__setitem__(0, route([[0]])), "at least two nodes"),
        (lambda n: n["routes"].__setitem__(0, route([[0, 1, 3], [0, 2]], [0.0, 1.0])), "end nodes"),
        (
            lambda n: n["routes"].__setitem__(0, route([[0, 1, 3], [0, 2, 3]], [0.0, 0.0])),
            "increase",
        ),
        (lambda n: n["routes"].__setitem__(0, route([[0, 1, 3]], [0.5])), "start at 0"),
        (lambda n: n["links"].append(link(1, 0)), "a second link"),
        (lambda n: n["links"].append(link(2, 2)), "to itself"),
        (lambda n: n["links"][0].__setitem__("a", 9), "network.links[0].a"),
        (lambda n: n.__setitem__("path_routes", [3]), "network.path_routes"),
        (lambda n: n.__setitem__("path_routes", []), "network.path_routes"),
        (lambda n: n.pop("routes"), "network.routes: missing"),
        (lambda n: n.__setitem__("extra", 1), "network.extra: unknown key"),
        (lambda n: n["links"][1].__setitem__("rate_down_bps", -1.0), "network.links[1]"),
        (lambda n: n.__setitem__("nodes", [f"n{i}" for i in range(5000)]), "network.nodes"),
    ],
)
def test_bad_network_names_the_field(core: Any, mutate: Any, field: str) -> None:
    net = copy.deepcopy(diamond())
    mutate(net)
    with pytest.raises(ValueError, match=re.escape(field)):
        run(core, net, steps=1)


@pytest.mark.parametrize(
    ("flow", "field"),
    [
        ({"transport": "tcp"}, r"flows\[0\]\.routes: every flow needs a route"),
        ({"transport": "tcp", "routes": []}, r"flows\[0\]\.routes: needs 1\.\.1"),
        ({"transport": "tcp", "routes": [0, 0]}, r"flows\[0\]\.routes: needs 1\.\.1"),
        ({"transport": "tcp", "routes": [5]}, r"flows\[0\]\.routes"),
        ({"transport": "tcp", "routes": [0], "cc": "Nope"}, r"flows\[0\]\.cc"),
        ({"transport": "mpquic", "routes": [0], "scheduler": "external"}, r"flows\[0\]\.scheduler"),
        ({"transport": "mpquic", "routes": [0] * 9}, r"flows\[0\]\.routes"),
        ({"transport": "quic", "routes": [0]}, r"flows\[0\]\.transport"),
        ({"transport": "tcp", "routes": [0], "start_s": 2.0, "stop_s": 1.0}, r"flows\[0\]\.stop_s"),
        ({"transport": "tcp", "routes": [0], "bogus": 1}, r"flows\[0\]\.bogus"),
    ],
)
def test_bad_flow_names_the_field(core: Any, flow: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        run(core, diamond(), steps=1, flows=[flow])


def test_the_simulator_is_free_after_a_refused_network(core: Any) -> None:
    net = diamond()
    net["routes"] = [route([[0, 1, 0, 3]])]
    with pytest.raises(ValueError):
        run(core, net, steps=1)
    assert run(core, diamond(), steps=1)[0]["goodput_bytes"] >= 0
