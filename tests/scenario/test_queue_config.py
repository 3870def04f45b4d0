"""The scenario's queue section: disciplines and their parameters (docs/scenario.md, "Queue
disciplines"), validated in Python with errors naming the field, and marshalled for the core.

Defaults are the references' own: CoDel TARGET 5 ms and INTERVAL 100 ms (RFC 8289 section 4),
FQ-CoDel's 1024 flows and one-MTU quantum (RFC 8290 section 5.2), PIE's QDELAY_REF 15 ms,
T_UPDATE 15 ms, alpha 0.125, beta 1.25, MAX_BURST 150 ms (RFC 8033 section 5.1), RED's
w_q 0.002 (Floyd & Jacobson 1993, section 11).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf

from leogym.scenario import QueueConfig, ScenarioConfigError, load_scenario
from leogym.simulation.native_config import native_queues


def _conf(name: str) -> Path:
    import importlib.resources as res

    return Path(str(res.files("leogym.conf").joinpath("scenario", f"{name}.yaml")))


def scenario_dict(name: str = "tiny") -> dict[str, Any]:
    return OmegaConf.to_container(OmegaConf.load(_conf(name)))  # type: ignore[return-value]


def test_defaults_are_the_references() -> None:
    q = QueueConfig()
    assert q.discipline == "droptail" and not q.ecn
    assert QueueConfig(discipline="codel").native()["target_ms"] == 5.0
    assert QueueConfig(discipline="fq_codel").native()["target_ms"] == 5.0
    assert q.interval_ms == 100.0 and q.flows == 1024 and q.quantum_bytes == 1500
    pie = QueueConfig(discipline="pie").native()
    assert (pie["target_ms"], pie["t_update_ms"], pie["max_burst_ms"]) == (15.0, 15.0, 150.0)
    assert (pie["alpha"], pie["beta"]) == (0.125, 1.25)
    assert q.weight == 0.002


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        ({"discipline": "blue"}, r"paths\[0\]\.queue\.discipline"),
        ({"discipline": "codel", "target_ms": -5.0}, r"paths\[0\]\.queue\.target_ms"),
        ({"discipline": "codel", "target_ms": 150.0}, r"paths\[0\]\.queue\.target_ms"),
        ({"discipline": "fq_codel", "interval_ms": 0.0}, r"paths\[0\]\.queue\.interval_ms"),
        ({"discipline": "fq_codel", "flows": 0}, r"paths\[0\]\.queue\.flows"),
        ({"discipline": "pie", "beta": -1.0}, r"paths\[0\]\.queue\.beta"),
        ({"discipline": "pie", "t_update_ms": 0.0}, r"paths\[0\]\.queue\.t_update_ms"),
        ({"discipline": "red", "min_th": 0.6, "max_th": 0.5}, r"paths\[0\]\.queue\.max_th"),
        ({"discipline": "red", "max_p": 1.5}, r"paths\[0\]\.queue\.max_p"),
        ({"discipline": "red", "weight": 0.0}, r"paths\[0\]\.queue\.weight"),
        ({"ecn": True}, r"paths\[0\]\.queue\.ecn"),
        ({"discipline": "codel", "targt_ms": 5.0}, r"paths\[0\]\.queue"),
    ],
)
def test_bad_queue_settings_name_the_field(queue: dict[str, Any], field: str) -> None:
    d = scenario_dict()
    d["paths"][0]["queue"].update(queue)
    with pytest.raises(ValueError, match=field):
        load_scenario(d)


def test_hop_link_queues_are_checked() -> None:
    d = scenario_dict("bottleneck4")
    d["hops"]["links"][2].setdefault("queue", {})["target_ms"] = -1.0
    d["hops"]["links"][2]["queue"]["discipline"] = "codel"
    with pytest.raises(ScenarioConfigError, match=r"hops\.links\[2\]\.queue\.target_ms"):
        load_scenario(d)


def test_geometry_hop_paths_share_one_discipline() -> None:
    d = scenario_dict("mptcp_leo_hops")
    assert len(d["paths"]) >= 2
    d["paths"][0].setdefault("queue", {})["discipline"] = "codel"
    with pytest.raises(ScenarioConfigError, match=r"paths\[1\]\.queue\.discipline"):
        load_scenario(d)
    for p in d["paths"]:
        p.setdefault("queue", {})["discipline"] = "codel"
    q = native_queues(load_scenario(d))
    assert q["every_link"]["discipline"] == "codel"


def test_droptail_marshals_nothing_new() -> None:
    # Drop-tail everywhere: the core gets the config it got before queue disciplines existed.
    assert native_queues(load_scenario("tiny")) == {}
    assert native_queues(load_scenario("bottleneck4")) == {}


def test_marshalling_per_path_and_per_link() -> None:
    d = scenario_dict()
    d["paths"][1]["queue"].update(discipline="pie", target_ms=20.0)
    q = native_queues(load_scenario(d))
    assert q["paths"][0] == {"discipline": "droptail", "ecn": False}
    assert q["paths"][1]["discipline"] == "pie" and q["paths"][1]["target_ms"] == 20.0
    d = scenario_dict("bottleneck4")
    links = d["hops"]["links"]
    links[1].setdefault("queue", {})["discipline"] = "fq_codel"
    q = native_queues(load_scenario(d))
    assert [x["discipline"] for x in q["links"]] == [
        "fq_codel" if i == 1 else "droptail" for i in range(len(links))
    ]


@pytest.mark.native
@pytest.mark.parametrize("name", ["tiny", "bottleneck4"])
@pytest.mark.parametrize("discipline", ["red", "codel", "fq_codel", "pie"])
def test_scenarios_run_with_every_discipline(name: str, discipline: str) -> None:
    from leogym.envs.config import EnvConfig
    from leogym.simulation import Simulation

    d = scenario_dict(name)
    d["duration_s"] = 3.0
    for p in d.get("paths", []):
        p.setdefault("queue", {})["discipline"] = discipline
    for ln in d.get("hops", {}).get("links", []):
        ln.setdefault("queue", {})["discipline"] = discipline
    sc = load_scenario(copy.deepcopy(d))
    with Simulation.open(EnvConfig.from_kwargs(scenario=name, cc="cubic"), sc, 1) as sim:
        out = [sim.step(0.5) for _ in range(4)]
    assert sum(float(m.flow_goodput_bytes[0]) for m in out) > 0


@pytest.mark.native
def test_geometry_hop_network_runs_with_a_shared_discipline() -> None:
    from leogym.envs.config import EnvConfig
    from leogym.simulation import Simulation

    d = scenario_dict("mptcp_leo_hops")
    for p in d["paths"]:
        p.setdefault("queue", {})["discipline"] = "fq_codel"
    sc = load_scenario(d)
    with Simulation.open(EnvConfig.from_kwargs(scenario="x", cc="olia"), sc, 1) as sim:
        out = [sim.step(0.5) for _ in range(4)]
    assert sum(float(m.flow_goodput_bytes[0]) for m in out) > 0
