"""Env inputs that used to be accepted as nonsense (issue 33): numeric strings as actions, an
episode longer than its scenario (frozen link state), an ``external`` flow nobody drives, an
unknown reward name. Each is refused naming the field, or, for the episode, the scenario is
extended to it."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import leogym  # noqa: F401  (registers the ids)
from leogym.envs.actions import InvalidActionError, check_action
from leogym.schema import FieldError

BOX = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


# ------------------------------------------------------------------------------- actions
@pytest.mark.parametrize(
    "action",
    [
        np.array(["0.5", "0.5"]),
        ["0.5", "-0.5"],
        np.array([b"0.5", b"0"]),
        np.array([0.5, 0.5], dtype=object),
        np.array([0.5 + 0j, 0.0]),
        np.array([np.nan, 0.0]),
        np.array([np.inf, 0.0]),
        np.array([1e30, 0.0]),
    ],
    ids=["str-array", "str-list", "bytes", "object", "complex", "nan", "inf", "huge"],
)
def test_a_continuous_action_must_be_real_numbers_in_the_space(action: object) -> None:
    with pytest.raises(InvalidActionError, match="action"):
        check_action(BOX, action)


@pytest.mark.parametrize("action", ["1", np.array("1"), np.array(["1"]), b"1"])
def test_a_discrete_action_must_be_an_integer(action: object) -> None:
    with pytest.raises(InvalidActionError, match="integral"):
        check_action(spaces.Discrete(3), action)


def test_numbers_of_any_real_dtype_are_accepted() -> None:
    for action in ([0.5, -0.5], np.array([1, 0]), np.float32([0.25, 0.0]), np.array([True, False])):
        out = check_action(BOX, action)
        assert out.dtype == np.float64 and out.shape == (2,)


# ------------------------------------------------------------------ episode vs. scenario
def _rollout(episode_s: float, steps: int) -> tuple[list[np.ndarray], list[float], object]:
    # (without the handover forecast, which looks past the end of the shorter scenario)
    env = gym.make(
        "leogym/LeoCC-v0",
        scenario="tiny",
        episode_s=episode_s,
        observation={"handover_features": False},
    )
    obs, _ = env.reset(seed=3)
    seen, handovers = [obs], []
    for _ in range(steps):
        obs, reward, _, _, info = env.step(np.zeros(4, np.float32))
        seen.append(np.append(obs, reward))
        handovers += [float(t) for t in info["handover_times_s"]]
    scenario = env.unwrapped.scenario
    env.close()
    return seen, handovers, scenario


@pytest.mark.native
def test_an_episode_longer_than_its_scenario_extends_the_scenario() -> None:
    # tiny lasts 15 s and hands over at 7 s and 22 s: a 25 s episode used to run its last 10 s
    # on the state of 15 s and never see the second handover.
    long_obs, handovers, scenario = _rollout(25.0, 250)
    assert scenario.duration_s == 25.0
    assert handovers == [7.0, 22.0]
    # the first 15 s are those of an episode within the scenario, bit for bit
    short_obs, _, short_scenario = _rollout(15.0, 150)
    assert short_scenario.duration_s == 15.0  # an episode within the scenario changes nothing
    for a, b in zip(short_obs, long_obs[:151], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.native
def test_the_multi_agent_env_extends_its_scenario_too() -> None:
    from leogym.envs.multi_agent import LeoMultiAgentCCEnv

    env = LeoMultiAgentCCEnv(scenario="bottleneck4", episode_s=70.0)
    assert env.scenario.duration_s == 70.0


@pytest.mark.native
def test_a_scenario_that_cannot_reach_the_episode_is_refused_naming_episode_s() -> None:
    with pytest.raises(FieldError, match=r"^env\.episode_s: episodes of 86400 s outlast"):
        gym.make("leogym/LeoCC-v0", scenario="tiny", episode_s=86_400.0, step_ms=60_000.0)


# ----------------------------------------------------------------------- external flows
def _with_external_flow() -> dict:
    from leogym.scenario import load_scenario

    data = dataclasses.asdict(load_scenario("tiny"))
    data["traffic"]["flows"] = [{"transport": "mpquic", "cc": "external", "routes": ["sat"]}]
    return data


@pytest.mark.native
@pytest.mark.parametrize(
    "env_id", ["leogym/LeoCC-v0", "leogym/LeoScheduler-v0", "leogym/LeoJoint-v0"]
)
def test_an_external_flow_nobody_drives_is_refused(env_id: str) -> None:
    with pytest.raises(FieldError, match=r"^scenario\.traffic\.flows\[0\]\.cc: 'external'"):
        gym.make(env_id, scenario=_with_external_flow())


class _Hold:
    """A frozen policy: always "no change"."""

    def predict(self, obs: np.ndarray, **_: object) -> tuple[np.ndarray, None]:
        return np.zeros(1, np.float32), None


@pytest.mark.native
def test_the_multi_flow_env_drives_external_flows_only_with_a_policy() -> None:
    kwargs = {"scenario": _with_external_flow(), "observation": {"max_paths": 2}}
    with pytest.raises(FieldError, match=r"^scenario\.traffic\.flows\[0\]\.cc: 'external'"):
        gym.make("leogym/LeoMultiFlowCC-v0", **kwargs)
    env = gym.make("leogym/LeoMultiFlowCC-v0", others=[_Hold()], **kwargs)
    assert env.unwrapped.scenario.traffic.flows[0].cc == "external"
    env.close()


# ------------------------------------------------------------------------------- rewards
@pytest.mark.native
@pytest.mark.parametrize("reward", ["bogus", {"name": "bogus"}])
def test_an_unknown_reward_name_is_refused_naming_the_field(reward: object) -> None:
    with pytest.raises(FieldError, match=r"^env\.reward\.name: must be one of leo, aurora"):
        gym.make("leogym/LeoCC-v0", reward=reward)


@pytest.mark.native
def test_a_callable_reward_is_still_taken_and_named() -> None:
    def flat(metrics: object, weights: object) -> float:
        return 1.0

    env = gym.make("leogym/LeoCC-v0", reward=flat, episode_s=0.2)
    assert env.unwrapped.config.reward.name == "flat"
    env.reset(seed=0)
    assert env.step(np.zeros(4, np.float32))[1] == 1.0
    env.close()


# ----------------------------------------------------------------------- subflow paths
@pytest.mark.native
@pytest.mark.parametrize("paths", [[1], [1, 0]])
def test_subflow_paths_other_than_every_path_in_order_are_refused(paths: list[int]) -> None:
    # [1] used to fail at the first step (set_cwnd: expected 1 values, got 2); [1, 0] ran with
    # each path's forecast beside the other path's measurements
    with pytest.raises(FieldError, match=r"^env\.transport\.subflow_paths: an env uses every"):
        gym.make("leogym/LeoCC-v0", scenario="tiny", transport={"subflow_paths": paths})
