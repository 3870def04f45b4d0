"""Scenarios of other worlds mixed into training (``train_dist=mixture``,
:mod:`leogym.agents.mixture`): the preset, its errors, the draws, and training with it."""

from __future__ import annotations

import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

from leogym.agents.config import ConfigError, register_configs, validate_config
from leogym.agents.config.env import env_kwargs
from leogym.agents.mixture import ScenarioMixture, mixture_sampler
from leogym.agents.runtime.app import compose, to_objects
from leogym.scenario import load_scenario
from leogym.scenario.flows import connection_path_count

MIXTURE = ["experiment=hybrid_bbr3_slow_actor", "train_dist=mixture"]
FIELD = r"^train\.mixture\.scenarios"


def _cfg(overrides: list[str]) -> Any:
    register_configs()
    return to_objects(compose("train", overrides))


# ----------------------------------------------------------------------------------- config
def test_the_mixture_preset_validates_and_holds_no_suite_scenario() -> None:
    c = _cfg(MIXTURE)
    validate_config(c, ("env", "agent", "train"))
    members = c.train.mixture.scenarios
    suites = {
        name
        for suite in ("heldout", "validation")
        for name in to_objects(compose("evaluate", [f"suite={suite}"])).eval.scenarios
    }
    assert len(members) == 5 and not set(members) & suites
    assert c.scenario.name == "train_randomised" and c.env.sample_scenarios


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("train.mixture.scenarios=[starlink_isl,no_such_world]", FIELD + r"\[1\]: "),
        ("train.mixture.scenarios=[heldout/starlink_replay]", FIELD + r"\[0\]: .*suite"),
        ("train.mixture.scenarios=[validation/starlink_north53]", FIELD + r"\[0\]: .*suite"),
        (  # a suite scenario's file, named by its path
            "train.mixture.scenarios=[conf/scenario/heldout/starlink_replay.yaml]",
            FIELD + r"\[0\]: .*suite",
        ),
        # `highrate` has three connection paths, more than the observation holds here
        (
            "train.mixture.scenarios=[highrate]",
            FIELD + r"\[0\]: env\.observation\.max_paths: the scenario has 3 paths",
        ),
        ("train.mixture.weight=1.5", r"^train\.mixture\.weight: must be in"),
        ("train.curriculum.enabled=true", FIELD + r": .*train\.curriculum"),
    ],
)
def test_bad_mixture_settings_name_the_field(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        c = _cfg([*MIXTURE, override, "env.observation.max_paths=2"])
        validate_config(c, ("env", "agent", "train"))


# ------------------------------------------------------------------------------------ draws
def test_the_draws_follow_the_weight_and_are_uniform_over_the_members() -> None:
    """2,000 draws at weight 0.3 over two members: the member share and the split between the
    members pass binomial tests at the 0.1 % level (a wrong weight of 0.25 or 0.35 fails the
    first with probability above 0.99)."""
    base, a, b = (load_scenario(n) for n in ("tiny", "starlink_isl", "starlink_geometric"))
    sampler = ScenarioMixture((a, b), 0.3)
    rng = np.random.default_rng(7)
    names = Counter(sampler(base, rng).name for _ in range(2000))
    members = names[a.name] + names[b.name]
    assert names[base.name] + members == 2000
    assert stats.binomtest(members, 2000, 0.3).pvalue > 1e-3
    assert stats.binomtest(names[a.name], members, 0.5).pvalue > 1e-3


def test_weight_zero_never_and_weight_one_always_draws_a_member() -> None:
    base, a = load_scenario("tiny"), load_scenario("starlink_isl")
    rng = np.random.default_rng(0)
    assert {ScenarioMixture((a,), 0.0)(base, rng).name for _ in range(50)} == {base.name}
    assert {ScenarioMixture((a,), 1.0)(base, rng).name for _ in range(50)} == {a.name}


def test_same_seed_same_episodes_and_the_sampler_travels_to_workers() -> None:
    c = _cfg(MIXTURE)
    sampler = pickle.loads(pickle.dumps(mixture_sampler(c)))
    kwargs = {**env_kwargs(c.env), "episode_s": 1.0}

    def episodes() -> list[tuple[str, bytes]]:
        env = gym.make(
            "leogym/LeoCC-v0", scenario="train_randomised", episode_sampler=sampler, **kwargs
        )
        out = []
        for seed in range(6):
            env.reset(seed=seed)
            obs = env.step(np.zeros(env.action_space.shape, dtype=np.float32))[0]
            out.append((env.unwrapped.episode_scenario.name, obs.tobytes()))
        env.close()
        return out

    first = episodes()
    assert first == episodes()
    assert len({name for name, _ in first}) > 1, "six episodes at weight 0.5 drew one world only"


def test_training_on_the_mixture_runs(tmp_path: Path) -> None:
    from leogym.agents.train import train

    cfg = compose(
        "train",
        [
            *MIXTURE,
            "train.total_timesteps=256",
            "train.n_envs=1",
            "train.eval_freq=0",
            "train.progress=false",
            "train.tensorboard=false",
            "env.episode_s=2.0",
            "agent.n_steps=128",
            "agent.batch_size=64",
        ],
    )
    result = train(cfg, tmp_path)
    assert result.num_timesteps >= 256 and result.model_path.is_file()


def test_a_world_with_fewer_paths_runs_its_episodes_padded() -> None:
    """A one-path world (``leotp_starlink``) beside the two-path randomised one: the env's path
    count follows the episode, and the padded path's action is ignored."""
    c = _cfg([*MIXTURE, "train.mixture.scenarios=[leotp_starlink]", "train.mixture.weight=1.0"])
    kwargs = {**env_kwargs(c.env), "episode_s": 1.0}
    env = gym.make(
        "leogym/LeoCC-v0", scenario="train_randomised", episode_sampler=mixture_sampler(c), **kwargs
    )
    counts = []
    for seed in range(2):
        env.reset(seed=seed)
        counts.append(env.unwrapped.n_paths)
        for _ in range(3):
            obs, *_ = env.step(env.action_space.high)  # every entry at its bound
        assert env.observation_space.contains(obs)
    env.close()
    assert counts == [1, 1]
    assert connection_path_count(load_scenario("train_randomised")) == 2


def test_an_episode_sampler_that_is_not_callable_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^episode_sampler: must be None or a callable"):
        gym.make("leogym/LeoCC-v0", scenario="tiny", episode_sampler=["starlink_isl"])
