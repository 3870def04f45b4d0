"""leogym's transport on the link devices against the same transport over ns-3's UDP and IPv4.

The core carries the multipath transport with its own protocol number straight on the link
devices (config ``carrier: "leo"``, the default: ``LeoShimProtocol``, a 28-byte header in place
of IPv4's 20 and UDP's 8; cpp/doc/transport.md, "Carriers"). The reference is ns-3's own
UDP/IPv4 stack (``carrier: "udp"``), which the transport used before: the same bytes on the
wire, the same forwarding decisions (hop by hop from the route timetable in the hop topology)
and no events of its own, so every measurement of every step and the number of ns-3 events
must be bit-identical, in both topologies, with ns-3 TCP and UDP cross traffic on the same
devices. The one documented difference (a packet to a closed port: UDP answers with an ICMP
port unreachable, the shim drops it silently) is kept out of these runs: no leogym flow stops.
With ECN on (RFC 9000 §13.4) the codepoint travels in the shim header's ECN bits or in the IPv4
TOS byte (ns-3's ``SocketIpTosTag``), and a CoDel queue marks either: still bit-identical.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.native import core
from leogym.scenario import load_scenario
from leogym.scenario.config import FlowConfig, QueueConfig
from leogym.scenario.timeline_builder import build_timeline
from leogym.schema import FieldError
from leogym.simulation import TransportOptions
from leogym.simulation.native_config import native_config, native_network, native_paths

pytestmark = pytest.mark.native


def tiny_with_flows(topology: str):
    sc = load_scenario("tiny")
    flows = [
        FlowConfig(name="reno", transport="tcp", cc="NewReno", routes=["terrestrial"]),
        FlowConfig(
            name="olia",
            transport="mpquic",
            cc="olia",
            scheduler="minrtt",
            routes=["sat", "terrestrial"],
            start_s=0.5,
        ),
        FlowConfig(name="cbr", transport="udp_onoff", routes=["sat"], rate_mbps=0.5, stop_s=2.0),
    ]
    traffic = dataclasses.replace(sc.traffic, flows=flows)
    return dataclasses.replace(sc, topology=topology, duration_s=4.0, traffic=traffic)


def trajectory(sc, carrier: str, steps: int, dt: float, seed: int = 3, ecn: bool = False):
    timeline = build_timeline(sc, seed=seed)
    settings = EnvConfig(cc="cubic", transport=TransportOptions(ecn=ecn or None, carrier=carrier))
    config = native_config(settings, sc, seed, "env")
    sim = core().Simulation(config, native_paths(timeline), native_network(timeline))
    try:
        out = [sim.step(dt) for _ in range(steps)]
        return out, sim.events
    finally:
        sim.close()


def assert_identical(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert set(x) == set(y)
        for key in x:
            assert np.array_equal(np.asarray(x[key]), np.asarray(y[key]), equal_nan=True), (
                f"step {i}: {key} differs"
            )


@pytest.mark.parametrize("topology", ["path", "hops"])
def test_leo_carrier_equals_udp_with_cross_traffic(topology: str) -> None:
    sc = tiny_with_flows(topology)
    leo, leo_events = trajectory(sc, "leo", 8, 0.5)
    udp, udp_events = trajectory(sc, "udp", 8, 0.5)
    assert_identical(leo, udp)
    assert leo_events == udp_events
    # The runs carried traffic: the connection, the TCP flow and the leogym flow delivered.
    total = np.sum([m["flow_goodput_bytes"] for m in leo], axis=0)
    assert np.all(total[:3] > 0)


def test_leo_carrier_equals_udp_on_default() -> None:
    sc = dataclasses.replace(load_scenario("default"), duration_s=3.0)
    leo, leo_events = trajectory(sc, "leo", 20, 0.1, seed=1)
    udp, udp_events = trajectory(sc, "udp", 20, 0.1, seed=1)
    assert_identical(leo, udp)
    assert leo_events == udp_events
    assert sum(float(np.sum(m["delivered_bytes"])) for m in leo) > 0


@pytest.mark.parametrize("topology", ["path", "hops"])
def test_leo_carrier_equals_udp_with_ecn(topology: str) -> None:
    sc = tiny_with_flows(topology)
    codel = QueueConfig(size=sc.paths[0].queue.size, discipline="codel", ecn=True)
    sc = dataclasses.replace(sc, paths=[dataclasses.replace(p, queue=codel) for p in sc.paths])
    leo, leo_events = trajectory(sc, "leo", 8, 0.5, ecn=True)
    udp, udp_events = trajectory(sc, "udp", 8, 0.5, ecn=True)
    assert_identical(leo, udp)
    assert leo_events == udp_events
    # ECN was exercised: ECN-capable packets went out, CoDel marked some, validation passed.
    assert sum(int(np.sum(m["ect_sent_packets"])) for m in leo) > 0
    assert sum(int(np.sum(m["ce_packets"])) for m in leo) > 0
    assert np.all(leo[-1]["ecn_state"] == 3)


def test_bad_carrier_names_the_field() -> None:
    sc = load_scenario("tiny")
    timeline = build_timeline(sc, seed=1)
    config = native_config(EnvConfig(cc="cubic"), sc, 1, "env")
    config["carrier"] = "tcp"
    with pytest.raises(ValueError, match=r"config\.carrier"):
        core().Simulation(config, native_paths(timeline), native_network(timeline))


def test_env_transport_carrier_reaches_the_core() -> None:
    """``env.transport.carrier`` is the same switch from an env: identical observations and
    rewards on both carriers, and a bad name refused before ns-3, naming the field."""
    import gymnasium as gym

    def episode(carrier: str) -> tuple[np.ndarray, np.ndarray]:
        env = gym.make(
            "leogym/LeoCC-v0", scenario="default", episode_s=2.0, transport={"carrier": carrier}
        )
        try:
            obs, _ = env.reset(seed=2)
            seen, rewards = [obs], []
            action = np.zeros(env.action_space.shape, dtype=np.float32)
            for _ in range(20):
                obs, reward, terminated, truncated, _ = env.step(action)
                seen.append(obs)
                rewards.append(reward)
                if terminated or truncated:
                    break
        finally:
            env.close()
        return np.array(seen), np.array(rewards)

    leo_obs, leo_rewards = episode("leo")
    udp_obs, udp_rewards = episode("udp")
    assert np.array_equal(leo_obs, udp_obs) and np.array_equal(leo_rewards, udp_rewards)
    with pytest.raises(FieldError, match=r"env\.transport\.carrier"):
        gym.make("leogym/LeoCC-v0", scenario="tiny", transport={"carrier": "tcp"})
