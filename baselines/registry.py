"""Name → baseline policy registry (an explicit dict, no import magic).

Every entry is a :class:`~leogym.baselines.base.NativePolicy`: its algorithm runs inside the
simulator, selected by ``env_overrides``; its ``predict`` returns the env's neutral action.
The paper baselines (MACO, ALCS, freeze) document their equations in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from leogym.baselines.base import NativePolicy

__all__ = ["BASELINES", "register_baseline", "make_baseline", "bind", "neutral_action"]

BASELINES: dict[str, Callable[..., NativePolicy]] = {}


def register_baseline(name: str, factory: Callable[..., NativePolicy]) -> None:
    """Add a baseline factory under ``name`` (overwrites an existing entry)."""
    BASELINES[name] = factory


def make_baseline(name: str, **params: Any) -> NativePolicy:
    """Create the baseline called ``name`` with optional algorithm parameters."""
    _load_builtin()
    try:
        factory = BASELINES[name]
    except KeyError:
        raise ValueError(
            f"baseline: unknown baseline {name!r}; known: {sorted(BASELINES)}"
        ) from None
    return factory(**params)


def neutral_action(space: spaces.Space, action_mode: str = "continuous") -> np.ndarray:
    """The "no change" action of a leogym env's action space."""
    if isinstance(space, spaces.Box):
        return np.zeros(space.shape, dtype=space.dtype)
    if isinstance(space, spaces.MultiDiscrete):
        from leogym.envs.actions import DISCRETE_FACTORS

        neutral = int(np.flatnonzero(DISCRETE_FACTORS == 1.0)[0])
        return np.minimum(np.full(space.shape, neutral, dtype=np.int64), space.nvec - 1)
    if isinstance(space, spaces.Discrete):
        return np.asarray(0, dtype=np.int64)
    raise TypeError(f"no neutral action for {space}")


def bind(policy: NativePolicy, env: Any, action: float | None = None) -> NativePolicy:
    """Give ``policy`` the action it returns in ``env`` (a Gymnasium env or VecEnv): the action
    space's neutral action, or ``action`` in every dimension (a fixed gain on the windows under
    ``action_mode="residual"``).

    :raises ValueError: ``action`` is outside a ``Box`` action space's bounds, or the space is
        not a ``Box``.
    """
    space = env.action_space
    if action is None:
        policy.action = neutral_action(space)
        return policy
    if not isinstance(space, spaces.Box):
        raise ValueError(f"a fixed action needs a Box action space, not {space}")
    fixed = np.full(space.shape, action, dtype=space.dtype)
    if not space.contains(fixed):
        raise ValueError(f"fixed action {action} is outside the action space {space}")
    policy.action = fixed
    return policy


def _classic(name: str, citation: str, **overrides: str) -> Callable[..., NativePolicy]:
    def factory(**params: Any) -> NativePolicy:
        return NativePolicy(
            name=name,
            env_overrides=dict(overrides),
            citation=citation,
            params={k: float(v) for k, v in params.items()},
        )

    factory.__doc__ = f"{name}: {citation}"
    return factory


_LOADED = False


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from leogym.baselines import classic

    for name, (citation, overrides) in classic.CLASSIC.items():
        BASELINES.setdefault(name, _classic(name, citation, **overrides))
    for module in ("maco", "alcs", "freeze", "leotp"):
        try:
            mod = __import__(f"leogym.baselines.{module}", fromlist=["make"])
        except ImportError:
            continue
        for name, factory in getattr(mod, "BASELINES", {}).items():
            BASELINES.setdefault(name, factory)
