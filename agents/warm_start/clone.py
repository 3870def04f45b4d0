"""The warm start's behaviour cloning: the demonstrations of a transition store (each
episode's best baseline is the teacher, :func:`demonstrations`) and the regression of a
policy's action mean (and value) on them (:func:`behaviour_clone`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from leogym.agents.warm_start.store import Transitions

__all__ = ["Demonstrations", "behaviour_clone", "demonstrations", "imitation_loss"]


@dataclass
class Demonstrations:
    """The teacher's states and labels over a store.

    :param obs: ``(n, obs_width)`` states.
    :param action: ``(n, action_width)`` labels in [-1, 1].
    :param returns: ``(n,)`` the teacher's discounted return from each state on.
    :param teachers: each episode's teacher (the baseline with the highest return).
    """

    obs: np.ndarray
    action: np.ndarray
    returns: np.ndarray
    teachers: dict[int, str]


def demonstrations(tr: Transitions, *, gamma: float) -> Demonstrations:
    """Label each state with the action of the best baseline of its episode."""
    order = list(tr.manifest["baselines"])
    obs, act, ret = [], [], []
    teachers: dict[int, str] = {}
    for ep in np.unique(tr.episode):
        rows = tr.episode == ep
        score = {b: float(tr.episode_return[rows & (tr.baseline == b)][0]) for b in order}
        best = max(order, key=lambda b: score[b])  # ties: the first listed
        teachers[int(ep)] = best
        pick = np.flatnonzero(rows & (tr.baseline == best))
        pick = pick[np.argsort(tr.step[pick], kind="stable")]
        obs.append(tr.obs[pick])
        act.append(tr.action[pick])
        g = np.zeros(len(pick))
        acc = 0.0
        for i, r in enumerate(tr.reward[pick][::-1]):
            acc = float(r) + gamma * acc
            g[len(pick) - 1 - i] = acc
        ret.append(g)
    return Demonstrations(
        np.concatenate(obs), np.concatenate(act), np.concatenate(ret).astype(np.float32), teachers
    )


def imitation_loss(policy: Any, obs: np.ndarray, action: np.ndarray) -> float:
    """Mean squared error of the policy's action mean against the labels."""
    import torch

    with torch.no_grad():
        mean = _action_mean(policy, torch.as_tensor(obs, device=policy.device))
        return float(((mean - torch.as_tensor(action, device=policy.device)) ** 2).mean())


def _action_mean(policy: Any, obs: Any) -> Any:
    return policy.get_distribution(obs).distribution.mean


def behaviour_clone(
    policy: Any,
    demos: Demonstrations,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
) -> dict[str, float]:
    """Regress ``policy``'s action mean on the labels (and its value on the returns).

    The policy's log standard deviation is left as built, so that PPO explores from the cloned
    mean as it would from a fresh one. Returns the imitation loss before and after, the
    correlation of the cloned actions (the mean clipped to [-1, 1]) with the labels, and the
    sizes.
    """
    import torch

    device = policy.device
    obs = torch.as_tensor(demos.obs, device=device)
    act = torch.as_tensor(demos.action, device=device)
    ret = torch.as_tensor(demos.returns, device=device)
    before = imitation_loss(policy, demos.obs, demos.action)
    params = [p for name, p in policy.named_parameters() if name != "log_std"]
    opt = torch.optim.Adam(params, lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    policy.set_training_mode(True)
    try:
        for _ in range(epochs):
            perm = torch.randperm(n, generator=gen)
            for start in range(0, n, batch_size):
                idx = perm[start : start + batch_size]
                loss = ((_action_mean(policy, obs[idx]) - act[idx]) ** 2).mean()
                if value_coef > 0:
                    values = policy.predict_values(obs[idx]).flatten()
                    loss = loss + value_coef * ((values - ret[idx]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
    finally:
        policy.set_training_mode(False)
    with torch.no_grad():
        cloned = _action_mean(policy, obs).clamp(-1.0, 1.0).cpu().numpy().ravel()
    labels = demos.action.ravel()
    corr = (
        float(np.corrcoef(cloned, labels)[0, 1])
        if cloned.std() > 0 and labels.std() > 0
        else float("nan")
    )
    return {
        "samples": int(n),
        "epochs": int(epochs),
        "imitation_loss_before": before,
        "imitation_loss_after": imitation_loss(policy, demos.obs, demos.action),
        "action_correlation": corr,
    }
