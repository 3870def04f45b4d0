"""Competing flows in training (``train_dist=competing``, :mod:`leogym.agents.competitors`):
the peers drawn per episode, their errors, the frozen copy of the agent, and training with them
(same seed, same model; the copy follows the policy)."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from leogym.agents.config import ConfigError, register_configs, validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.scenario import load_scenario
from leogym.scenario.config import FlowConfig

COMPETING = ["experiment=hybrid", "train_dist=competing"]


def _validate(overrides: list[str]) -> None:
    register_configs()
    validate_config(to_objects(compose("train", overrides)), ("env", "agent", "train"))


# ----------------------------------------------------------------------------------- config
def test_the_competing_preset_validates() -> None:
    _validate(COMPETING)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("train.competitors.pool=[cubic,cubicc]", r"^train\.competitors\.pool\[1\]: must be one "),
        ("train.competitors.pool=[external]", r"^train\.competitors\.pool\[0\]: must be one of"),
        ("train.competitors.pool=[]", r"^train\.competitors\.pool: must name at least one"),
        ("train.competitors.peers=[2,1]", r"^train\.competitors\.peers: must be \[min, max\]"),
        ("train.competitors.peers=[0,64]", r"^train\.competitors\.peers\[1\]: must be in"),
        ("train.competitors.self_every_steps=0", r"^train\.competitors\.self_every_steps: "),
        ("scenario.traffic.flows=[]", r"^train\.competitors\.peers: needs a scenario whose "),
        ("env=multiflow", r"^train\.competitors\.enabled: competing flows train "),
    ],
)
def test_bad_competitor_settings_name_the_field(override: str, message: str) -> None:
    extra = (
        ["env.flows.n_flows=2", "env.observation.max_paths=4"] if "multiflow" in override else []
    )
    with pytest.raises(ConfigError, match=message):
        _validate([*COMPETING, override, *extra])


# -------------------------------------------------------------------------------------- env
def _scenario() -> Any:
    """``tiny`` with one peer entry over its paths (what train_dist=competing adds)."""
    sc = load_scenario("tiny")
    routes = [p.name for p in sc.paths]
    flows = [FlowConfig(name="peer", transport="mpquic", cc="cubic", routes=routes)]
    return load_scenario(
        dataclasses.replace(sc, traffic=dataclasses.replace(sc.traffic, flows=flows))
    )


class _Counting:
    """A policy that holds its window and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.shapes: set[tuple[int, ...]] = set()

    def predict(
        self, obs: Any, state: Any = None, episode_start: Any = None, deterministic: bool = True
    ) -> Any:
        self.calls += 1
        self.shapes.add(np.shape(obs))
        return np.zeros(4, np.float32), state


def _make(**kw: Any) -> gym.Env:
    return gym.make("leogym/LeoMultiFlowCC-v0", scenario=_scenario(), episode_s=1.0, **kw)


def _play(env: gym.Env, seed: int | None) -> tuple[list[Any], float, list[str]]:
    _, info = env.reset(seed=seed)
    total = 0.0
    while True:
        _, r, te, tr, _ = env.step(np.zeros(4, np.float32))
        total += r
        if te or tr:
            return info["competitors"], total, env.unwrapped.flow_names


@pytest.mark.native
@pytest.mark.timeout(300)
def test_peers_are_drawn_per_episode_and_the_same_seed_draws_the_same() -> None:
    policy = _Counting()
    env = _make(competitors=["cubic", "bbr3", policy], peers=[0, 2])
    first = [_play(env, 3)] + [_play(env, None) for _ in range(7)]
    counts = {len(d) for d, _, _ in first}
    assert counts <= {0, 1, 2} and len(counts) >= 2, "the count is drawn from peers"
    for drawn, _, names in first:
        assert len(names) == len(drawn) + 1  # the connection and its peers, nothing else
        assert set(drawn) <= {"cubic", "bbr3", "policy"}
    if any("policy" in d for d, _, _ in first):
        assert policy.calls > 0 and policy.shapes == {env.observation_space.shape}
    again = [_play(env, 3)] + [_play(env, None) for _ in range(7)]
    assert again == first  # same seed: same peers, same returns, bit for bit
    env.close()


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"competitors": ["cubic", "external"]}, r"^competitors\[1\]: 'external' needs a policy"),
        ({"competitors": ["cubic", "nope"]}, r"^competitors\[1\]: unknown congestion control"),
        ({"competitors": [3]}, r"^competitors\[0\]: must be a controller name or an object"),
        ({"competitors": []}, r"^competitors: must name at least one"),
        ({"competitors": "cubic"}, r"^competitors: must be a list"),
        ({"competitors": ["cubic"], "peers": [2, 1]}, r"^peers: must be \[min, max\]"),
        ({"competitors": ["cubic"], "peers": [0, 64]}, r"^peers: must be \[min, max\]"),
        ({"competitors": ["cubic"], "others": "bbr"}, r"^competitors: draws the others per "),
    ],
)
@pytest.mark.native
def test_bad_competitors_name_the_argument(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _make(**kw)


# ------------------------------------------------------------------------- the frozen copy
def test_the_frozen_copy_is_read_again_when_it_changes(tmp_path: Path) -> None:
    from stable_baselines3 import PPO

    from leogym.agents.sb3.checkpoints import save_model
    from leogym.agents.sb3.self_play import SelfSnapshot, snapshot_path

    path = snapshot_path(tmp_path)
    copy = SelfSnapshot(path, "ppo")
    obs = np.ones(3, np.float32)
    with pytest.raises(FileNotFoundError, match=r"^train\.competitors\.pool: the frozen copy"):
        copy.predict(obs)
    env = gym.make("Pendulum-v1")
    path.parent.mkdir(parents=True)
    a = PPO("MlpPolicy", env, seed=0, device="cpu")
    save_model(a, path, algo="ppo")
    first, _ = copy.predict(obs, episode_start=np.array([True]))
    assert np.array_equal(first, a.predict(obs, deterministic=True)[0])
    b = PPO("MlpPolicy", env, seed=1, device="cpu")
    save_model(b, path, algo="ppo")
    os.utime(path, ns=(1, 1))  # a new stamp even within the clock's resolution
    held, _ = copy.predict(obs, episode_start=np.array([False]))
    assert np.array_equal(held, first), "a copy changes only at the start of an episode"
    new, _ = copy.predict(obs, episode_start=np.array([True]))
    assert np.array_equal(new, b.predict(obs, deterministic=True)[0])
    clone = pickle.loads(pickle.dumps(copy))  # travels to a worker without its model
    assert clone._model is None and clone.path == copy.path


# ---------------------------------------------------------------------------------- training
TRAIN = [
    *COMPETING,
    "scenario=tiny",
    "env.episode_s=1",
    "train.progress=false",
    "train.tensorboard=false",
    "train.eval_freq=0",
    "train.n_envs=1",
    "agent.n_steps=32",
    "agent.batch_size=32",
    "agent.n_epochs=1",
    "train.checkpoint_freq=32",
    "train.competitors.self_every_steps=32",
    "train.total_timesteps=64",
]


def _train(run_dir: Path, *extra: str) -> dict[str, Any]:
    from leogym.agents.train import train

    register_configs()
    train(compose("train", [*TRAIN, *extra]), run_dir)
    return dict(json.loads((run_dir / "competitors" / "self.json").read_text()))


def _parameters(model: Path) -> dict[str, Any]:
    from stable_baselines3 import PPO

    return {k: v.numpy() for k, v in PPO.load(model, device="cpu").policy.state_dict().items()}


@pytest.mark.native
@pytest.mark.timeout(600)
def test_same_seed_same_model_and_the_copy_follows_the_policy(tmp_path: Path) -> None:
    a = _train(tmp_path / "a")
    assert a["num_timesteps"] == 64, "the copy of the last multiple of self_every_steps"
    b = _train(tmp_path / "b")
    pa, pb = _parameters(tmp_path / "a" / "model.zip"), _parameters(tmp_path / "b" / "model.zip")
    assert all(np.array_equal(pa[k], pb[k]) for k in pa)
    # saved at step 64 like the checkpoint of that step (before the update of the rollout)
    copy = _parameters(tmp_path / "a" / "competitors" / "self.zip")
    taken = _parameters(tmp_path / "a" / "checkpoints" / "step_000000064.zip")
    assert all(np.array_equal(copy[k], taken[k]) for k in taken)
    assert a["num_timesteps"] == b["num_timesteps"]


@pytest.mark.native
@pytest.mark.timeout(600)
def test_fine_tuning_starts_from_the_given_model(tmp_path: Path) -> None:
    """``train.init_from``: the run starts from the model's parameters. The frozen copy taken
    at step 32, the end of the first rollout and before its update, holds them exactly; the
    final model, after the update, has moved away from them."""
    _train(tmp_path / "a")
    source = _parameters(tmp_path / "a" / "model.zip")
    copy = _train(
        tmp_path / "b",
        f"train.init_from={tmp_path / 'a' / 'model.zip'}",
        "train.total_timesteps=32",
    )
    assert copy["num_timesteps"] == 32
    held = _parameters(tmp_path / "b" / "competitors" / "self.zip")
    assert all(np.array_equal(held[k], source[k]) for k in source)
    final = _parameters(tmp_path / "b" / "model.zip")
    assert any(not np.array_equal(final[k], source[k]) for k in source)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.zip", r"^train\.init_from: no model file at "),
        (lambda d: (d / "bad.zip").write_bytes(b"not a zip") and d / "bad.zip", r"cannot load "),
    ],
)
@pytest.mark.native
@pytest.mark.timeout(300)
def test_a_bad_init_from_names_the_field(make: Any, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        _train(tmp_path / "run", f"train.init_from={make(tmp_path)}")
