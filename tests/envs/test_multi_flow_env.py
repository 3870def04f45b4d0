"""``leogym/LeoMultiFlowCC-v0``: one agent among N flows on a shared bottleneck.

The agent's observation is LeoCC-v0's, and :class:`FlowObserver` computes the observation of
any flow the same way (a fresh observer of flow 0 reproduces the env's, bit for bit), and the
connection's per-path entries, which flow 0's observer reads, equal its subflow entries, which
every other flow's observer reads.
The other flows run native controls or a frozen policy; the env passes Gymnasium's and SB3's
checkers with zero warnings, is deterministic, and bad arguments name their field.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the ids)
from leogym.envs.episode import flow_timeline
from leogym.envs.features import PathMeasurements
from leogym.envs.multi_flow import set_flow_controls, set_flow_count
from leogym.envs.observer import FlowObserver
from leogym.scenario import load_scenario

pytestmark = pytest.mark.native

ENV_ID = "leogym/LeoMultiFlowCC-v0"
SHORT = {"episode_s": 1.0, "step_ms": 100.0}


class Constant:
    """A frozen policy: the same action whatever it sees (counts its calls)."""

    def __init__(self, value: float | int) -> None:
        self.value = value
        self.calls = 0
        self.shapes: set[tuple[int, ...]] = set()

    def predict(
        self,
        obs: np.ndarray,
        state: Any = None,
        episode_start: Any = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, Any]:
        self.calls += 1
        self.shapes.add(np.asarray(obs).shape)
        dtype = np.int64 if isinstance(self.value, int) else np.float32
        return np.full(4, self.value, dtype=dtype), state


def test_gymnasium_and_sb3_checkers_zero_warnings() -> None:
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for action_mode, frozen in (("continuous", Constant(0.1)), ("discrete", Constant(3))):
        env = gym.make(ENV_ID, action_mode=action_mode, others=[frozen, "bbr", "TcpCubic"], **SHORT)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
            sb3_check_env(env.unwrapped, warn=True)
        env.close()


def test_the_flow_observer_gives_the_agents_own_observation() -> None:
    env = gym.make(ENV_ID, n_flows=3, episode_s=2.0)
    obs, _ = env.reset(seed=4)
    u = env.unwrapped
    assert u.flow_names == ["connection", "peer.0", "peer.1"]
    tl = flow_timeline(u.timeline, u.episode_scenario, 0)
    o = FlowObserver(u.features, tl.oracle("realistic"), 0, len(tl.paths), 1400, 1.0)
    np.testing.assert_array_equal(o.reset(), obs)
    rng = np.random.default_rng(0)
    while True:
        obs, _, term, trunc, info = env.step(rng.uniform(-1, 1, 4).astype(np.float32))
        m = u.last_measurements
        # The connection's per-path entries are its subflow entries.
        subflows = PathMeasurements.of_flow(m, 0)
        k = m.flow_subflows(0)
        for name in ("cwnd_bytes", "srtt_s", "sent_packets", "lost_packets"):
            np.testing.assert_array_equal(
                getattr(subflows, name), getattr(m, f"subflow_{name}")[k], err_msg=name
            )
        np.testing.assert_array_equal(o.update(m), obs)
        if term or trunc:
            break
    assert info["flow_goodput_bps"].shape == (3,)
    assert 1 / 3 <= info["jain_flows"] <= 1.0
    env.close()


def test_others_run_native_controls_and_policies() -> None:
    frozen = Constant(0.5)
    env = gym.make(ENV_ID, others=[frozen, "bbr", "TcpCubic"], **SHORT)
    sc = env.unwrapped.scenario
    assert [(f.name, f.transport, f.cc) for f in sc.traffic.flows] == [
        ("peer.0", "mpquic", "external"),
        ("peer.1", "mpquic", "bbr"),
        ("peer.2", "tcp", "TcpCubic"),
    ]
    env.reset(seed=1)
    for _ in range(10):
        env.step(np.zeros(4, np.float32))
    m = env.unwrapped.last_measurements
    # The policy saw LeoCC-v0's observation each step and grew its window by 1.25 x per step
    # from the initial 10 packets, up to the cap of what it could fill (at least 2 growths).
    assert frozen.calls == 10 and frozen.shapes == {env.observation_space.shape}
    assert m.flow_cwnd_bytes[1] >= 10 * 1400 * 1.25**2
    assert np.all(np.asarray(m.flow_goodput_bytes) >= 0)
    env.close()


def test_same_seed_same_trajectory() -> None:
    def rollout(seed: int) -> list:
        env = gym.make(ENV_ID, others=Constant(-0.2), **SHORT)
        obs, _ = env.reset(seed=seed)
        out = [obs.tolist()]
        for k in range(10):
            obs, r, term, trunc, info = env.step(np.full(4, 0.3 * (-1) ** k, np.float32))
            out.append([obs.tolist(), r, info["flow_goodput_bps"].tolist()])
        env.close()
        return out

    # (bottleneck4 has no random element: no loss, constant links; the seed changes nothing)
    assert rollout(3) == rollout(3)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n_flows": 0}, r"n_flows: must be in \[1, 1024\]"),
        ({"n_flows": "4"}, "n_flows: must be an int"),
        ({"others": ["cubic"]}, "others: 1 entries for the 3 mpquic flows"),
        ({"others": "reno"}, r"others\[0\]: unknown congestion control 'reno'"),
        ({"others": "external"}, r"others\[0\]: 'external' needs a policy"),
        ({"others": [1, 2, 3]}, r"others\[0\]: must be a controller name or an object"),
        ({"scenario": "beam16", "n_flows": 2}, "n_flows: needs a scenario"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        gym.make(ENV_ID, **kwargs)


def test_a_bad_policy_action_names_the_flow() -> None:
    env = gym.make(ENV_ID, others=[Constant(0.0), Constant(7.0), "cubic"], **SHORT)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="others: the policy of flow 2 gave a bad action"):
        env.step(np.zeros(4, np.float32))
    env.close()


def test_flow_count_and_controls_rewrite_the_scenario() -> None:
    sc = load_scenario("bottleneck4")
    assert [f.count for f in set_flow_count(sc, 7).traffic.flows] == [6]
    assert set_flow_count(sc, 1).traffic.flows == []
    two = set_flow_controls(set_flow_count(sc, 3), ["olia", "ns3::TcpBbr"])
    assert [(f.name, f.transport, f.cc) for f in two.traffic.flows] == [
        ("peer.0", "mpquic", "olia"),
        ("peer.1", "tcp", "ns3::TcpBbr"),
    ]


def test_bottleneck4_follows_its_numbers() -> None:
    from leogym.scenario import build_timeline

    sc = load_scenario("bottleneck4")
    assert [(f.transport, f.cc, f.count) for f in sc.traffic.flows] == [("mpquic", "cubic", 3)]
    tl = build_timeline(sc, 1)
    path = tl.paths[0]
    # 2 x (15 + 2.499 + 2.499) ms of propagation; the 20 Mbit/s access link is the bottleneck
    rtt = 2 * (15.0 + 2.499 + 2.499) / 1e3
    np.testing.assert_allclose(path.delay_down_s + path.delay_up_s, rtt, rtol=1e-12)
    assert path.rate_down_bps.min() == path.rate_down_bps.max() == 20e6
    access = next(ln for ln in tl.network.links if ln.name == "access")
    # one BDP of 1400-byte packets, rounded up: 20e6 x 0.039996 / 8 / 1400 = 71.4
    assert access.arrays.queue_packets == 72
    assert access.arrays.loss_down[0] == 1e-4 and access.arrays.loss_up[0] == 2e-3
    others = [ln for ln in tl.network.links if ln.name != "access"]
    assert all(ln.arrays.rate_down_bps.min() >= 1e10 for ln in others)
