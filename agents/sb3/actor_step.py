"""A slower actor than critic for the PPO family (``agent.actor_lr_scale``).

SB3 trains a policy's actor and critic with one Adam optimiser at one learning rate, and its
``target_kl`` stops both together. When the policy's steps must stay small (a Gaussian policy
with little noise, where a small move of the mean is a large KL divergence), lowering the
learning rate or stopping early starves the critic as well (docs/evaluation.md, "The 1 M-step
budget"). Here the actor's parameters step at ``actor_lr_scale`` times the learning rate and
the critic's at the full rate, within the one optimiser SB3 schedules, saves and restores.

The critic's parameters are those SB3 and sb3-contrib build for the value alone
(:data:`CRITIC_PREFIXES`); everything else, including a feature extractor or LSTM the actor
shares with the critic, steps with the actor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from stable_baselines3.common.policies import ActorCriticPolicy

__all__ = ["CRITIC_PREFIXES", "GroupScaledAdam", "LeoActorCriticPolicy", "SlowActorMixin"]

#: parameter name prefixes of the value function's own modules in SB3's ``ActorCriticPolicy``
#: and sb3-contrib's ``RecurrentActorCriticPolicy``
CRITIC_PREFIXES = (
    "mlp_extractor.value_net.",
    "value_net.",
    "vf_features_extractor.",
    "lstm_critic.",
    "critic.",
)


class GroupScaledAdam(torch.optim.Adam):
    """Adam whose parameter groups each step at ``lr × lr_scale``.

    SB3's schedule writes one learning rate into every group; the scale each group carries
    (saved and restored with the optimiser's state) is applied at the step.
    """

    def step(self, closure: Callable[[], float] | None = None) -> Any:
        rates = [group["lr"] for group in self.param_groups]
        for group in self.param_groups:
            group["lr"] = group["lr"] * group["lr_scale"]
        try:
            return super().step(closure)
        finally:
            for group, rate in zip(self.param_groups, rates, strict=True):
                group["lr"] = rate


class SlowActorMixin:
    """Gives an SB3 actor-critic policy the keyword ``actor_lr_scale`` (module docstring)."""

    optimizer: torch.optim.Optimizer
    optimizer_kwargs: dict[str, Any]

    def __init__(self, *args: Any, actor_lr_scale: float = 1.0, **kwargs: Any) -> None:
        self.actor_lr_scale = float(actor_lr_scale)
        super().__init__(*args, **kwargs)
        if self.actor_lr_scale == 1.0:
            return
        # Regrouped once the policy is whole: sb3-contrib adds its LSTMs after SB3's _build.
        actor: list[torch.nn.Parameter] = []
        critic: list[torch.nn.Parameter] = []
        for name, param in self.named_parameters():  # type: ignore[attr-defined]
            (critic if name.startswith(CRITIC_PREFIXES) else actor).append(param)
        groups = [
            {"params": actor, "lr_scale": self.actor_lr_scale},
            {"params": critic, "lr_scale": 1.0},
        ]
        rate = self.optimizer.param_groups[0]["lr"]  # the schedule's initial value
        self.optimizer = GroupScaledAdam(groups, lr=rate, **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data: dict[str, Any] = super()._get_constructor_parameters()  # type: ignore[misc]
        data["actor_lr_scale"] = self.actor_lr_scale
        return data


class LeoActorCriticPolicy(SlowActorMixin, ActorCriticPolicy):
    """SB3's ``MlpPolicy`` with ``actor_lr_scale``."""
