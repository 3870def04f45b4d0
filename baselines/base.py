"""The policy interface shared by analytic baselines and learned agents.

Evaluation calls ``policy.predict(obs, deterministic=True)`` and gets ``(action, state)``, exactly
as with a Stable-Baselines3 model, so it cannot tell a baseline from an agent. A native baseline
(MACO, ALCS, freeze, CUBIC, ...) runs inside the simulator: ``env_overrides`` tells the
evaluator which env settings put it in charge (for example ``{"cc": "maco"}``), and its
``predict`` returns the env's neutral action (no change), which the env ignores for native
algorithms anyway. A baseline with a fixed gain (``baseline.<key>.gain``) runs its controller
under the residual mode and returns that gain every step instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """Anything with SB3's ``predict`` signature."""

    def predict(
        self,
        observation: np.ndarray,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, Any]: ...


@dataclass
class NativePolicy:
    """A baseline that runs natively in the simulator.

    :param name: registry name, e.g. ``"maco"``.
    :param env_overrides: env kwargs that put the algorithm in charge, e.g. ``{"cc": "maco"}``.
    :param citation: the paper (or RFC) the implementation follows.
    :param params: algorithm parameters passed to the native implementation.
    :param action: what :meth:`predict` returns, given by :func:`~leogym.baselines.bind`: the
        env's neutral action (the native algorithm alone decides), or a fixed gain.
    """

    name: str
    env_overrides: dict[str, Any]
    citation: str = ""
    params: dict[str, float] = field(default_factory=dict)
    action: np.ndarray | None = None

    def predict(
        self,
        observation: np.ndarray,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, Any]:
        """Return the bound action; the native algorithm decides inside the simulator."""
        if self.action is None:
            raise RuntimeError(
                f"baseline {self.name!r} has no action yet: bind it to an env with "
                "leogym.baselines.bind(policy, env) first"
            )
        obs = np.asarray(observation)
        if obs.ndim == 2:  # vectorised: one action per env
            return np.repeat(self.action[None], obs.shape[0], axis=0), state
        return self.action.copy(), state
