"""``agent.actor_lr_scale``: the actor steps at a fraction of the learning rate, the critic at
the full rate.

The reference is Adam itself (Kingma & Ba, arXiv:1412.6980, Algorithm 1): its first update of
a parameter is ``-lr * g / (|g| + eps)``, linear in the learning rate. So after one gradient step
from the same weights and the same batch, each actor parameter has moved ``actor_lr_scale``
times as far as under the plain recipe, and each critic parameter exactly as far.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

from leogym.agents.config import ConfigError
from leogym.agents.config.validation import validate_config
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.sb3.actor_step import CRITIC_PREFIXES, GroupScaledAdam, LeoActorCriticPolicy
from leogym.agents.sb3.algos import build_model
from leogym.agents.sb3.lstm_policy import LeoLstmPolicy

# One rollout of 64 steps, one epoch, one minibatch: a single Adam step. The global gradient
# clip is lifted so that the critic's step does not depend on the actor's gradient norm.
_ONE_STEP = [
    "agent.n_steps=64",
    "agent.batch_size=64",
    "agent.n_epochs=1",
    "agent.max_grad_norm=1e9",
]


def _model(overrides: list[str], agent: str = "ppo") -> tuple[object, dict[str, torch.Tensor]]:
    c = to_objects(compose("train", [f"agent={agent}", *overrides]))
    venv = DummyVecEnv([lambda: gym.make("Pendulum-v1")])
    model = build_model(c.agent, venv, seed=3)
    start = {k: v.detach().clone() for k, v in model.policy.named_parameters()}
    return model, start


def _moves(overrides: list[str]) -> dict[str, torch.Tensor]:
    model, start = _model([*_ONE_STEP, *overrides])
    model.learn(64)
    return {k: v.detach() - start[k] for k, v in model.policy.named_parameters()}


def test_the_actor_moves_a_scale_of_the_plain_step_and_the_critic_the_same() -> None:
    plain = _moves([])
    slow = _moves(["agent.actor_lr_scale=0.1"])
    critic = [k for k in plain if k.startswith(CRITIC_PREFIXES)]
    actor = [k for k in plain if not k.startswith(CRITIC_PREFIXES)]
    assert {"value_net.weight", "mlp_extractor.value_net.0.weight"} <= set(critic)
    assert {"action_net.weight", "log_std", "mlp_extractor.policy_net.0.weight"} <= set(actor)
    for name in critic:
        assert torch.equal(slow[name], plain[name]), name
    for name in actor:
        assert plain[name].abs().max() > 1e-4, name  # Adam's first step is about lr = 3e-4
        # atol: float32 rounding of a weight near 1 when the step is taken and subtracted
        torch.testing.assert_close(slow[name], 0.1 * plain[name], rtol=1e-3, atol=1e-7, msg=name)


def test_the_same_seed_gives_the_same_weights_bit_for_bit() -> None:
    first = _moves(["agent.actor_lr_scale=0.3"])
    again = _moves(["agent.actor_lr_scale=0.3"])
    assert all(torch.equal(first[k], again[k]) for k in first)


def test_the_scale_survives_save_and_resume(tmp_path) -> None:
    model, _ = _model([*_ONE_STEP, "agent.actor_lr_scale=0.25"])
    assert isinstance(model.policy, LeoActorCriticPolicy)
    model.learn(64)
    model.save(tmp_path / "m.zip")
    loaded = PPO.load(tmp_path / "m.zip", env=model.get_env())
    assert isinstance(loaded.policy, LeoActorCriticPolicy)
    optimizer = loaded.policy.optimizer
    assert isinstance(optimizer, GroupScaledAdam)
    assert [g["lr_scale"] for g in optimizer.param_groups] == [0.25, 1.0]
    assert (
        optimizer.state_dict()["state"].keys()
        == model.policy.optimizer.state_dict()["state"].keys()
    )
    loaded.learn(64, reset_num_timesteps=False)  # resumes with the saved Adam moments
    # the schedule's learning rate is the same for both groups; the scale applies at the step
    assert [g["lr"] for g in optimizer.param_groups] == [3e-4, 3e-4]


def test_the_recurrent_policy_takes_the_scale_with_its_critic_lstm() -> None:
    model, _ = _model(
        ["agent.actor_lr_scale=0.5", "agent.n_steps=32", "agent.batch_size=32"], "recurrent_ppo"
    )
    assert isinstance(model.policy, LeoLstmPolicy)
    actor, critic = model.policy.optimizer.param_groups
    names = {id(p): k for k, p in model.policy.named_parameters()}
    assert any(names[id(p)].startswith("lstm_critic.") for p in critic["params"])
    assert any(names[id(p)].startswith("lstm_actor.") for p in actor["params"])
    assert (actor["lr_scale"], critic["lr_scale"]) == (0.5, 1.0)
    model.learn(32)


def test_without_a_scale_the_model_is_sb3s_own() -> None:
    model, _ = _model([])
    assert type(model.policy).__name__ == "ActorCriticPolicy"
    assert type(model.policy.optimizer) is torch.optim.Adam


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["+agent.extra.policy_kwargs.optimizer_class=torch.optim.SGD"], "optimizer_class"),
        (["agent.policy=CnnPolicy"], "not agent.policy='CnnPolicy'"),
    ],
)
def test_a_scale_that_cannot_apply_names_the_field_before_anything_runs(
    overrides: list[str], match: str
) -> None:
    # (a scale outside (0, 1] is a bad value like any other: tests/agents/test_config.py)
    c = to_objects(compose("train", ["agent.actor_lr_scale=0.5", *overrides]))
    with pytest.raises(ConfigError, match=rf"agent\.actor_lr_scale: .*{match}"):
        validate_config(c)
    with pytest.raises(ConfigError, match=rf"agent\.actor_lr_scale: .*{match}"):
        _model(["agent.actor_lr_scale=0.5", *overrides])
