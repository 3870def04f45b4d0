"""ECN through the one road: ``env.transport.ecn``, ``traffic.flows[i].ecn`` (mpquic) and
``paths[i].queue.ecn_handling`` reach the core, bad values name the user's field, and a
bleaching link makes the connection's paths fail validation (RFC 9000 §13.4.2: ECT packets
acknowledged without ECN counts) while a marking CoDel makes them capable.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import QueueConfig, ScenarioConfigError, load_scenario
from leogym.scenario.config import FlowConfig
from leogym.schema import FieldError
from leogym.simulation import Simulation, TransportOptions, native_config
from leogym.simulation.native_config import native_queues

pytestmark = pytest.mark.native

CAPABLE, FAILED = 3, 4


def _with_queue(queue: QueueConfig, flows: list[FlowConfig] | None = None):
    sc = load_scenario("tiny")
    sc = dataclasses.replace(sc, paths=[dataclasses.replace(p, queue=queue) for p in sc.paths])
    if flows is not None:
        sc = dataclasses.replace(sc, traffic=dataclasses.replace(sc.traffic, flows=flows))
    return sc


def test_ecn_option_reaches_the_native_config() -> None:
    sc = load_scenario("tiny")
    assert "ecn" not in native_config(EnvConfig(cc="cubic"), sc, 1)  # unset: the core's default
    on = EnvConfig.from_kwargs(scenario=None, cc="cubic", transport={"ecn": True})
    assert native_config(on, sc, 1)["ecn"] is True


def test_the_hydra_env_config_takes_the_ecn_key() -> None:
    from leogym.agents.config import env_kwargs, validate_config
    from leogym.agents.runtime.app import compose, to_objects

    c = to_objects(compose("train", ["env.transport.ecn=true"]))
    validate_config(c, ("env", "agent", "train", "eval"))
    settings = EnvConfig.from_kwargs(scenario=None, **env_kwargs(c.env))
    assert native_config(settings, load_scenario("tiny"), 1)["ecn"] is True


def test_bad_ecn_option_names_the_field() -> None:
    with pytest.raises(FieldError, match=r"^env\.transport\.ecn"):
        EnvConfig.from_kwargs(scenario=None, cc="cubic", transport={"ecn": "on"})


def test_ecn_handling_marshals_only_when_set() -> None:
    assert native_queues(load_scenario("tiny")) == {}
    q = native_queues(_with_queue(QueueConfig(ecn_handling="bleach")))
    assert q["paths"][0] == {"discipline": "droptail", "ecn": False, "ecn_handling": "bleach"}


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        ({"ecn_handling": "scrub"}, r"paths\[0\]\.queue\.ecn_handling: must be one of"),
        (
            {"discipline": "codel", "ecn": True, "ecn_handling": "drop"},
            r"paths\[0\]\.queue\.ecn_handling: a link that cannot carry ECN cannot mark",
        ),
    ],
)
def test_bad_ecn_handling_names_the_field(queue: dict, field: str) -> None:
    sc = load_scenario("tiny")
    d = dataclasses.asdict(sc)
    d["paths"][0]["queue"].update(queue)
    with pytest.raises(ScenarioConfigError, match=field):
        load_scenario(d)


def _run(sc, transport: TransportOptions, seconds: float = 1.5) -> list:
    settings = EnvConfig(cc="cubic", transport=transport)
    with Simulation.open(settings, sc, 1) as sim:
        return [sim.step(0.5) for _ in range(int(seconds / 0.5))]


def test_a_bleaching_scenario_fails_validation_on_every_path() -> None:
    out = _run(_with_queue(QueueConfig(ecn_handling="bleach")), TransportOptions(ecn=True))
    assert np.all(out[-1].ecn_state == FAILED)
    # RFC 9000 A.4: at most the 10 testing packets of each path went out ECN-capable.
    assert 0 < sum(int(np.sum(m.ect_sent_packets)) for m in out) <= 10 * len(out[-1].ecn_state)


def test_an_mpquic_flow_takes_its_own_ecn() -> None:
    codel = QueueConfig(discipline="codel", ecn=True)
    flows = [FlowConfig(name="q", transport="mpquic", cc="cubic", routes=["terrestrial"], ecn=True)]
    out = _run(_with_queue(codel, flows), TransportOptions())  # the connection's ECN off
    last = out[-1]
    flow_sub = last.flow_subflows(1)
    assert np.all(last.subflow_ecn_state[flow_sub] == CAPABLE)
    assert np.all(last.subflow_ecn_state[last.flow_subflows(0)] == 0)
    assert sum(int(np.sum(m.subflow_ect_sent_packets[flow_sub])) for m in out) > 0


def test_cross_traffic_ecn_is_tcp_only() -> None:
    d = dataclasses.asdict(load_scenario("tiny"))
    d["traffic"]["cross_traffic"] = [{"kind": "udp_onoff", "ecn": True}]
    with pytest.raises(ScenarioConfigError, match=r"cross_traffic\[0\]\.ecn: only a 'tcp_bulk'"):
        load_scenario(d)


def test_tcp_cross_traffic_with_ecn_is_marked_not_dropped() -> None:
    """A CoDel queue with ECN marking: an ECN-capable ns-3 TCP competitor (RFC 3168, ECT(0))
    has its congestion signals marked; without ECN the same queue drops them. The connection
    sends Not-ECT either way (its own packets are dropped alike)."""
    from leogym.scenario import CrossTrafficConfig

    def marks_and_drops(ecn: bool) -> tuple[int, int]:
        sc = _with_queue(QueueConfig(discipline="codel", ecn=True))
        tcp = CrossTrafficConfig(path=0, kind="tcp_bulk", ecn=ecn)
        sc = dataclasses.replace(sc, traffic=dataclasses.replace(sc.traffic, cross_traffic=[tcp]))
        out = _run(sc, TransportOptions(), seconds=6.0)
        return (
            sum(int(np.sum(m.link_mark_packets)) for m in out),
            sum(int(np.sum(m.link_drops_aqm)) for m in out),
        )

    (marks_on, drops_on), (marks_off, drops_off) = marks_and_drops(True), marks_and_drops(False)
    assert marks_off == 0 and marks_on > 0
    assert drops_on < drops_off
