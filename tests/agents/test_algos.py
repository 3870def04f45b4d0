"""Every agent config builds its SB3 model with the configured hyperparameters.

Gymnasium's own Pendulum (Box actions) and CartPole (Discrete) stand in for the action spaces
of the leogym envs, so this needs no simulator.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch
from gymnasium import spaces
from omegaconf import OmegaConf
from stable_baselines3.common.vec_env import DummyVecEnv

from leogym.agents.config import AGENT_SCHEMAS
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.sb3.algos import ALGOS, build_model


def _venv(env_id: str) -> DummyVecEnv:
    return DummyVecEnv([lambda: gym.make(env_id)])


def test_algorithms_are_declared_once_on_their_schemas() -> None:
    """ALGOS is read from the agent schemas: same names in the same order, each the SB3 class
    its schema names, and the class variables saying so are no config fields."""
    assert list(ALGOS) == list(AGENT_SCHEMAS)
    for name, agent_schema in AGENT_SCHEMAS.items():
        assert agent_schema().name == name
        spec = ALGOS[name]
        assert f"{spec.module}.{spec.cls}" == agent_schema.sb3_class
        assert "sb3_class" not in OmegaConf.structured(agent_schema)
    assert ALGOS["dqn"].action_spaces == (spaces.Discrete,)
    assert ALGOS["td3"].action_spaces == (spaces.Box,)
    assert ALGOS["a2c"].action_spaces == (spaces.Box, spaces.Discrete, spaces.MultiDiscrete)
    assert [n for n, s in ALGOS.items() if s.off_policy] == ["sac", "td3", "dqn"]
    assert [n for n, s in ALGOS.items() if s.recurrent] == ["recurrent_ppo"]


@pytest.mark.parametrize("agent", sorted(ALGOS))
def test_agent_config_builds_its_model(agent: str) -> None:
    env_id = "CartPole-v1" if agent == "dqn" else "Pendulum-v1"
    c = to_objects(
        compose(
            "train",
            [
                f"agent={agent}",
                "agent.net_arch=[32,16]",
                "agent.learning_rate=0.00123",
                "agent.gamma=0.97",
            ],
        )
    )
    venv = _venv(env_id)
    try:
        model = build_model(c.agent, venv, seed=3)
    finally:
        venv.close()
    assert type(model).__name__ == ALGOS[agent].cls
    assert model.gamma == pytest.approx(0.97)
    assert model.learning_rate == pytest.approx(0.00123)
    assert model.seed == 3
    linears = [m for m in model.policy.modules() if isinstance(m, torch.nn.Linear)]
    assert any(m.out_features == 32 for m in linears) and any(m.out_features == 16 for m in linears)
    if agent == "ppo":
        assert (model.n_steps, model.batch_size, model.n_epochs) == (
            c.agent.n_steps,
            c.agent.batch_size,
            c.agent.n_epochs,
        )
    if agent == "recurrent_ppo":
        assert model.policy.lstm_actor.hidden_size == c.agent.lstm_hidden_size
    if agent in ("sac", "td3", "dqn"):
        assert model.buffer_size == c.agent.buffer_size
    if agent == "td3":
        assert model.action_noise is not None


def test_extra_kwargs_reach_the_algorithm() -> None:
    c = to_objects(
        compose(
            "train",
            [
                "agent=ppo",
                "+agent.extra.normalize_advantage=false",
                "+agent.extra.policy_kwargs.ortho_init=false",
            ],
        )
    )
    venv = _venv("Pendulum-v1")
    try:
        model = build_model(c.agent, venv, seed=0)
    finally:
        venv.close()
    assert model.normalize_advantage is False
    assert model.policy.ortho_init is False


def test_a_save_cut_short_before_its_sidecar_is_not_resumed_from(tmp_path) -> None:
    """save_model writes the model, then its sidecar; a kill between the two leaves a model
    that records nothing (its step, its algorithm), and resuming takes the newest complete
    checkpoint instead."""
    from stable_baselines3 import PPO

    from leogym.agents.sb3.checkpoints import (
        CHECKPOINT_DIR,
        latest_checkpoint,
        list_checkpoints,
        save_model,
    )

    model = PPO("MlpPolicy", _venv("CartPole-v1"), n_steps=16, batch_size=16)
    d = tmp_path / CHECKPOINT_DIR
    for step in (16, 32):
        model.num_timesteps = step
        save_model(model, d / f"step_{step:09d}.zip", algo="ppo")
    model.num_timesteps = 48
    cut = save_model(model, d / "step_000000048.zip", algo="ppo")
    cut.with_suffix(".json").unlink()  # killed between the two writes
    assert [s for s, _ in list_checkpoints(tmp_path)] == [16, 32]
    assert latest_checkpoint(tmp_path) == d / "step_000000032.zip"


class _TwoActions(gym.Env):
    """A do-nothing env with a two-entry Box action (the residual mode's gain and choice)."""

    observation_space = spaces.Box(-1.0, 1.0, (3,))
    action_space = spaces.Box(-1.0, 1.0, (2,))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample() * 0, {}

    def step(self, action):
        return self.observation_space.sample() * 0, 0.0, False, False, {}


@pytest.mark.parametrize("agent", ["ppo", "a2c", "recurrent_ppo"])
def test_initial_log_std_sets_each_action_entrys_noise(agent: str) -> None:
    # One value per entry: the residual mode's gains and choices start with their own noise.
    c = to_objects(compose("train", [f"agent={agent}", "agent.initial_log_std=[-3.0,-1.0]"]))
    venv = DummyVecEnv([_TwoActions])
    try:
        model = build_model(c.agent, venv, seed=0)
    finally:
        venv.close()
    assert model.policy.log_std.detach().tolist() == [-3.0, -1.0]
    assert model.policy.log_std.requires_grad  # still learnt


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["agent.initial_log_std=[-3.0]"], "has 1 entries, the action has 2"),
        (["agent.initial_log_std=[-3.0,5.0]"], "finite and in"),
        (
            ["agent.initial_log_std=[-3.0,-1.0]", "+agent.extra.policy_kwargs.log_std_init=-1"],
            "not both",
        ),
        (["agent.initial_log_std=[-3.0,-1.0]", "+agent.extra.use_sde=true"], "use_sde"),
    ],
)
def test_a_bad_initial_log_std_names_the_field(overrides: list[str], match: str) -> None:
    from leogym.agents.config import ConfigError

    c = to_objects(compose("train", ["agent=ppo", *overrides]))
    venv = DummyVecEnv([_TwoActions])
    try:
        with pytest.raises(ConfigError, match=rf"agent\.initial_log_std: .*{match}"):
            build_model(c.agent, venv, seed=0)
    finally:
        venv.close()


def test_initial_log_std_needs_a_box_action() -> None:
    from leogym.agents.config import ConfigError

    c = to_objects(compose("train", ["agent=ppo", "agent.initial_log_std=[-1.0]"]))
    venv = _venv("CartPole-v1")
    try:
        with pytest.raises(ConfigError, match=r"agent\.initial_log_std: needs a one-dim"):
            build_model(c.agent, venv, seed=0)
    finally:
        venv.close()
