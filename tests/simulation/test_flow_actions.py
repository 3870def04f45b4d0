"""``Simulation.apply(flow_cwnd_bytes=..., flow_pacing_rate_bps=...)``: per-flow actions for
``mpquic`` flows under external control, by flow index or name; errors name the field and the
flow; ``Measurements.flow_subflows`` finds a flow's subflows."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.simulation import Simulation

pytestmark = pytest.mark.native


def scenario():
    sc = load_scenario("bottleneck4")
    flows = [
        dataclasses.replace(sc.traffic.flows[0], name="agent", cc="external", count=1),
        dataclasses.replace(sc.traffic.flows[0], name="cubic", count=1),
        dataclasses.replace(
            sc.traffic.flows[0], name="tcp", transport="tcp", cc="TcpCubic", count=1
        ),
    ]
    return dataclasses.replace(
        sc, duration_s=2.0, traffic=dataclasses.replace(sc.traffic, flows=flows)
    )


def test_flow_windows_by_index_and_name() -> None:
    with Simulation.open(EnvConfig(cc="external"), scenario(), 1) as sim:
        assert sim.flow_names == ["connection", "agent", "cubic", "tcp"]
        assert sim.flow_n_paths == [1, 1, 1, 0]
        sim.apply(flow_cwnd_bytes={0: np.array([5 * 1400.0]), "agent": np.array([7 * 1400.0])})
        m = sim.step(0.3)
        np.testing.assert_array_equal(m.flow_cwnd_bytes[:2], [5 * 1400, 7 * 1400])
        assert m.flow_subflows(1).tolist() == [1] and m.flow_subflows(3).tolist() == []
        sim.apply(flow_pacing_rate_bps={np.int64(1): [1e6]})
        m = sim.step(0.1)
        assert m.subflow_pacing_rate_bps[m.flow_subflows(1)][0] == 1e6


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (
            {"flow_cwnd_bytes": {"cubic": [1400.0]}},
            r"flow_cwnd_bytes\['cubic'\]: flow 2 \(flows\[1\]\) needs cc='external'",
        ),
        ({"flow_cwnd_bytes": {"tcp": [1400.0]}}, r"flow_cwnd_bytes\['tcp'\]: .*not an mpquic flow"),
        (
            {"flow_cwnd_bytes": {"agent": [1400.0, 1.0]}},
            r"flow_cwnd_bytes\['agent'\]: .*expected 1 values",
        ),
        (
            {"flow_cwnd_bytes": {"agent": [np.inf]}},
            r"flow_cwnd_bytes\['agent'\]: flow 1: cwnd\[0\] must be finite",
        ),
        ({"flow_cwnd_bytes": {"nobody": [1400.0]}}, r"flow_cwnd_bytes: no flow named 'nobody'"),
        ({"flow_cwnd_bytes": {9: [1400.0]}}, r"flow_cwnd_bytes: flow 9 does not exist"),
        (
            {"flow_cwnd_bytes": {1.0: [1400.0]}},
            r"flow_cwnd_bytes: a flow is an int index or a name",
        ),
        (
            {"flow_pacing_rate_bps": {"agent": [5.0]}},
            r"flow_pacing_rate_bps\['agent'\]: flow 1: rate\[0\]",
        ),
    ],
)
def test_bad_flow_actions_name_the_field_and_the_flow(action: dict, message: str) -> None:
    with Simulation.open(EnvConfig(cc="cubic"), scenario(), 1) as sim:
        with pytest.raises(ValueError, match=message):
            sim.apply(**action)
        sim.step(0.1)
