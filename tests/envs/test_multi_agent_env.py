"""The multi-agent env (PettingZoo ``ParallelEnv``) and its SB3 adapter (parameter sharing).

PettingZoo's ``parallel_api_test`` and SB3's ``VecEnv`` machinery (``VecMonitor``,
``VecCheckNan``, PPO) run with zero warnings; same seed, same trajectory (also through the
adapter's worker processes); bad actions raise ``ValueError`` naming the agent; the fairness
terms follow their formula (Jain's index, R. Jain et al., DEC-TR-301, 1984).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import pytest

from leogym.agents.sb3.multi_agent_vec import MultiAgentVecEnv
from leogym.envs.multi_agent import FairnessConfig, LeoMultiAgentCCEnv, fairness_rewards

SHORT: dict[str, Any] = {"episode_s": 1.0, "step_ms": 100.0}


@pytest.mark.native
@pytest.mark.parametrize("action_mode", ["continuous", "discrete"])
def test_parallel_api_test_zero_warnings(action_mode: str) -> None:
    from pettingzoo.test import parallel_api_test

    env = LeoMultiAgentCCEnv(action_mode=action_mode, **SHORT)
    assert env.possible_agents == ["connection", "peer.0", "peer.1", "peer.2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(env, num_cycles=50)
    env.close()


def _rollout(seed: int, n_flows: int = 3, steps: int = 8) -> list:
    env = LeoMultiAgentCCEnv(n_flows=n_flows, **SHORT)
    obs, _ = env.reset(seed=seed)
    out: list = [{a: o.tolist() for a, o in obs.items()}]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        actions = {a: rng.uniform(-1, 1, 4).astype(np.float32) for a in env.agents}
        obs, rew, term, trunc, info = env.step(actions)
        out.append([{a: o.tolist() for a, o in obs.items()}, rew, term, trunc, info])
        if not env.agents:
            break
    env.close()
    return out


@pytest.mark.native
def test_same_seed_same_trajectory() -> None:
    a = _rollout(5)
    assert a == _rollout(5)
    assert len(a) == 9 and set(a[1][0]) == {"connection", "peer.0", "peer.1"}


@pytest.mark.native
def test_episode_ends_for_every_agent_at_once() -> None:
    env = LeoMultiAgentCCEnv(n_flows=2, **SHORT)
    env.reset(seed=0)
    n = 0
    while env.agents:
        _, _, term, trunc, info = env.step({a: np.zeros(4, np.float32) for a in env.agents})
        n += 1
    assert n == 10 and all(trunc.values()) and not any(term.values())
    assert info["connection"]["sim_time_s"] == pytest.approx(1.0)
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step({})
    env.close()


@pytest.mark.native
@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ({"connection": np.zeros(4, np.float32)}, r"actions: no action for agent\(s\) \['peer'\]"),
        ({"connection": np.zeros(4), "peer": np.zeros(4), "x": np.zeros(4)}, "unknown"),
        ({"connection": np.zeros(4), "peer": np.full(4, np.nan)}, r"actions\['peer'\]: .*NaN"),
        (
            {"connection": np.full(4, 3.0), "peer": np.zeros(4)},
            r"actions\['connection'\]: .*outside",
        ),
        ({"connection": np.zeros(3), "peer": np.zeros(4)}, r"actions\['connection'\]: .*shape"),
        ([np.zeros(4), np.zeros(4)], "actions: must be a dict"),
    ],
)
def test_bad_actions_name_the_agent(actions: Any, message: str) -> None:
    env = LeoMultiAgentCCEnv(n_flows=2, **SHORT)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    env.step({a: np.zeros(4, np.float32) for a in env.agents})  # nothing reached the core
    env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cc": "cubic"}, "cc: every flow is an agent"),
        ({"fairness": {"jian": 1.0}}, r"fairness: unknown key\(s\) \['jian'\]"),
        ({"fairness": {"team": 2.0}}, r"fairness\.team: must be in \[0, 1\]"),
        ({"n_flows": 0}, "n_flows"),
        ({"step_ms": -1.0}, r"env\.step_ms"),
        ({"render_mode": "human"}, "render_mode"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LeoMultiAgentCCEnv(**kwargs)


def test_fairness_terms_follow_their_formula() -> None:
    base = np.array([1.0, 2.0, 3.0, 6.0])
    # Own rewards alone by default.
    np.testing.assert_array_equal(fairness_rewards(base, [1, 1, 1, 1], FairnessConfig()), base)
    # Equal goodputs: J = 1, every share fair.
    cfg = FairnessConfig(jain=0.5, share=2.0)
    np.testing.assert_allclose(fairness_rewards(base, [3, 3, 3, 3], cfg), base + 0.5)
    # One flow takes everything: J = 1/N = 1/4; shares 1, 0, 0, 0 -> |4 s - 1| = 3, 1, 1, 1.
    np.testing.assert_allclose(
        fairness_rewards(base, [8, 0, 0, 0], cfg), base + 0.125 - 2.0 * np.array([3, 1, 1, 1])
    )
    # Goodputs 1, 1, 2, 0: J = 16 / (4 * 6) = 2/3.
    j = fairness_rewards(np.zeros(4), [1, 1, 2, 0], FairnessConfig(jain=1.0))
    np.testing.assert_allclose(j, 2 / 3)
    # Team: half own, half the mean (3).
    np.testing.assert_allclose(
        fairness_rewards(base, [1, 1, 1, 1], FairnessConfig(team=0.5)), 0.5 * base + 1.5
    )
    # Nobody delivered: no fairness term.
    np.testing.assert_array_equal(fairness_rewards(base, [0, 0, 0, 0], cfg), base)


@pytest.mark.native
def test_rewards_and_infos_carry_the_fairness_of_the_step() -> None:
    env = LeoMultiAgentCCEnv(fairness={"jain": 1.0}, **SHORT)
    plain = LeoMultiAgentCCEnv(**SHORT)
    rewards = []
    for e in (env, plain):
        e.reset(seed=2)
        for _ in range(5):
            _, rew, _, _, info = e.step({a: np.zeros(4, np.float32) for a in e.agents})
        rewards.append(rew)
        e.close()
    j = info["connection"]["jain"]
    goodput = [info[a]["goodput_bps"] for a in env.possible_agents]
    assert j == pytest.approx((sum(goodput) ** 2) / (4 * sum(g * g for g in goodput)))
    assert sum(info[a]["share"] for a in env.possible_agents) == pytest.approx(1.0)
    for a in env.possible_agents:
        assert rewards[0][a] == pytest.approx(rewards[1][a] + j)


# ----------------------------------------------------------------------------- the adapter
@pytest.mark.native
def test_sb3_trains_through_the_adapter_zero_warnings() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.utils import check_for_correct_spaces
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        venv = VecCheckNan(
            VecMonitor(MultiAgentVecEnv(LeoMultiAgentCCEnv(n_flows=3, **SHORT))),
            raise_exception=True,
        )
        assert venv.num_envs == 3
        venv.seed(1)
        model = PPO("MlpPolicy", venv, n_steps=8, batch_size=12, n_epochs=1, seed=0, device="cpu")
        check_for_correct_spaces(venv, model.observation_space, model.action_space)
        model.learn(48)
        assert model.num_timesteps == 48
        assert venv.get_attr("render_mode") == [None] * 3
        assert not venv.has_attr("no_such_attribute")
        assert venv.env_method("state")[0].shape == (3 * venv.observation_space.shape[0],)
        venv.close()


@pytest.mark.native
def test_the_adapter_resets_an_ended_episode_as_sb3_does() -> None:
    ref = _rollout(3, n_flows=2, steps=10)  # first: one simulator per process
    env = LeoMultiAgentCCEnv(n_flows=2, **SHORT)
    venv = MultiAgentVecEnv(env)
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (2, env.observation_space("connection").shape[0])
    np.testing.assert_array_equal(obs[0], np.asarray(ref[0]["connection"], np.float32))
    zero = np.zeros((2, 4), np.float32)
    for k in range(10):
        obs, rew, dones, infos = venv.step(zero)
        assert dones.tolist() == [k == 9] * 2
    # the last step's observation is kept; the returned one starts the next episode
    assert infos[1]["TimeLimit.truncated"] is True
    assert infos[1]["terminal_observation"].shape == obs[1].shape
    assert not np.array_equal(infos[1]["terminal_observation"], obs[1])
    venv.close()


@pytest.mark.native
def test_worker_processes_give_the_in_process_trajectory() -> None:
    make = functools.partial(LeoMultiAgentCCEnv, n_flows=2, **SHORT)
    venv = MultiAgentVecEnv([make, make], start_method="fork")  # (fork: quick to start)
    venv.seed(10)  # slot k gets seed 10 + k: env 1 (slots 2, 3) is reset with seed 12
    rng = np.random.default_rng(1)
    acts = [rng.uniform(-1, 1, (4, 4)).astype(np.float32) for _ in range(5)]
    got = [venv.reset()]
    got += [venv.step(a)[0] for a in acts]
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    venv.close()

    env = LeoMultiAgentCCEnv(n_flows=2, **SHORT)
    obs, _ = env.reset(seed=12)
    expected = [np.stack([obs[a] for a in env.possible_agents])]
    for a in acts:
        obs, *_ = env.step({"connection": a[2], "peer": a[3]})
        expected.append(np.stack([obs[x] for x in env.possible_agents]))
    env.close()
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g[2:], e)
    assert not math.isnan(float(got[-1].sum()))
