"""``agent=recurrent_ppo``'s LSTM policy computes what sb3-contrib's ``MlpLstmPolicy`` computes.

:class:`leogym.agents.sb3.lstm_policy.LeoLstmPolicy` runs a training minibatch through the
LSTM in one call where sb3-contrib steps it in Python. The reference is sb3-contrib's own
step-by-step pass, on the same inputs and weights, and a RecurrentPPO trained with the stock
policy from the same seed.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
import torch
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy
from stable_baselines3.common.vec_env import DummyVecEnv

from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.sb3 import algos
from leogym.agents.sb3.algos import build_model
from leogym.agents.sb3.lstm_policy import LeoLstmPolicy


def _batch(n_seq: int, length: int, starts_at: list[tuple[int, int]], layers: int = 1):
    gen = torch.Generator().manual_seed(7)
    lstm = torch.nn.LSTM(5, 8, num_layers=layers)
    features = torch.randn(n_seq * length, 5, generator=gen, requires_grad=True)
    states = (
        torch.randn(layers, n_seq, 8, generator=gen),
        torch.randn(layers, n_seq, 8, generator=gen),
    )
    starts = torch.zeros(n_seq, length)
    for seq, step in starts_at:
        starts[seq, step] = 1.0
    return features, states, starts.flatten(), lstm


@pytest.mark.parametrize("layers", [1, 2])
def test_one_call_equals_the_step_by_step_pass(layers: int) -> None:
    """Sequences 0 and 2 start an episode, 1 and 3 continue one: outputs, final states and the
    gradient with respect to the inputs agree with sb3-contrib's loop to float rounding."""
    features, states, starts, lstm = _batch(4, 16, [(0, 0), (2, 0)], layers)
    ours, ours_states = LeoLstmPolicy._process_sequence(features, states, starts, lstm)
    (grad_ours,) = torch.autograd.grad(ours.square().sum(), features)
    theirs, their_states = RecurrentActorCriticPolicy._process_sequence(
        features, states, starts, lstm
    )
    (grad_theirs,) = torch.autograd.grad(theirs.square().sum(), features)
    assert ours.shape == theirs.shape == (64, 8)
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    for a, b in zip(ours_states, their_states, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(grad_ours, grad_theirs, rtol=1e-5, atol=1e-6)
    # the reset is real: without it sequence 0's first output would follow its stored state
    kept, _ = LeoLstmPolicy._process_sequence(features, states, torch.zeros(64), lstm)
    assert not torch.allclose(kept[:1], ours[:1])


def test_a_start_after_the_first_step_takes_the_library_path() -> None:
    """sb3-contrib never cuts a sequence inside an episode, but a start anywhere else still
    gives its exact result."""
    features, states, starts, lstm = _batch(2, 6, [(0, 3), (1, 0)])
    ours, _ = LeoLstmPolicy._process_sequence(features, states, starts, lstm)
    theirs, _ = RecurrentActorCriticPolicy._process_sequence(features, states, starts, lstm)
    assert torch.equal(ours, theirs)


def _trained(seed: int) -> tuple[type, dict[str, torch.Tensor]]:
    c = to_objects(compose("train", ["agent=recurrent_ppo", "agent.n_epochs=2"]))
    venv = DummyVecEnv([lambda: gym.make("Pendulum-v1")])
    try:
        model = build_model(c.agent, venv, seed=seed)
        model.learn(2 * model.n_steps)  # Pendulum's 200-step episodes start inside the rollouts
        return type(model.policy), {k: v.clone() for k, v in model.policy.state_dict().items()}
    finally:
        venv.close()


def test_recurrent_ppo_trains_as_with_the_stock_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """agent=recurrent_ppo builds LeoLstmPolicy; two rollouts and their updates give the stock
    policy's weights to float rounding, and the same seed gives the same weights bit for bit."""
    policy, ours = _trained(seed=4)
    assert policy is LeoLstmPolicy
    with monkeypatch.context() as patch:
        patch.setattr(algos, "_policy", lambda agent: agent["policy"])
        policy, stock = _trained(seed=4)
    assert policy is RecurrentActorCriticPolicy
    assert ours.keys() == stock.keys()
    for name in ours:
        torch.testing.assert_close(ours[name], stock[name], rtol=1e-4, atol=1e-5, msg=name)
    _, again = _trained(seed=4)
    assert all(torch.equal(ours[k], again[k]) for k in ours)
