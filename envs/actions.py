"""Action mappings: from the agent's action to the native core's controls.

Continuous actions live in ``[-1, 1]`` (SB3's recommended normalised Box) and are mapped to
multiplicative changes with Aurora's symmetric rule (Jay et al., ICML 2019, §4)::

    x ← x · (1 + s·a)      if a ≥ 0
    x ← x / (1 − s·a)      if a < 0

so ``+a`` and ``−a`` undo each other and ``a = 0`` is "no change". The discrete variant offers
the fixed factors :data:`DISCRETE_FACTORS` per path (``MultiDiscrete``), whose middle entry is
"no change". In the residual (hybrid) mode the action is not a change but a gain on a native
controller's window: ``2^a`` (:func:`residual_gain`; Orca's ``4^a`` on CUBIC's window, Abbasloo
et al., SIGCOMM 2020, with a narrower range), ``a = 0`` leaving the controller alone. With a
second controller (``residual_alternate``) the action has a second half, one entry per path,
that chooses which of the two the path follows (:func:`residual_controls`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

__all__ = [
    "DISCRETE_FACTORS",
    "InvalidActionError",
    "multiplicative_factor",
    "residual_gain",
    "residual_controls",
    "cc_action_space",
    "check_action",
]

#: Factors of the discrete action set (index 2 is "no change").
DISCRETE_FACTORS = np.array([0.5, 0.8, 1.0, 1.25, 2.0])

#: NumPy dtype kinds a continuous action may have: booleans, integers and reals (not strings,
#: bytes, objects or complex numbers).
_REAL_KINDS = "biuf"


class InvalidActionError(ValueError):
    """An action outside the action space, or one containing NaN or infinity."""


def multiplicative_factor(action: np.ndarray, scale: float) -> np.ndarray:
    """Aurora's symmetric mapping from ``a ∈ [-1, 1]`` to a positive factor."""
    a = np.asarray(action, dtype=np.float64)
    return np.where(a >= 0, 1.0 + scale * a, 1.0 / (1.0 - scale * a))


def residual_gain(action: np.ndarray) -> np.ndarray:
    """The residual mode's gain on the base controller's window: ``2^a`` for ``a ∈ [-1, 1]``."""
    return np.exp2(np.asarray(action, dtype=np.float64))


def residual_controls(
    action: np.ndarray,
    n: int,
    alternate: bool,
    margin: float = 0.0,
    following: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The residual mode's controls of ``n`` paths from an action of :func:`cc_action_space`:
    the gains (:func:`residual_gain` of the first ``n`` entries) and, with an ``alternate``
    controller, which of the two each path follows, from the action's second half, else
    ``None``: 1.0 (the alternate) where entry ``max_paths + i`` is above ``margin``, 0.0 (the
    base) where it is ``-margin`` or less, and in between the choice in force (``following``;
    the base when ``None``). So an all-``-1`` second half is the base controller and an
    all-``+1`` one the alternate, each bit for bit with zero gains."""
    a = np.asarray(action, dtype=np.float64)
    gains = residual_gain(a[:n])
    if not alternate:
        return gains, None
    half = a.shape[-1] // 2
    choice = a[half : half + n]
    if margin == 0.0:
        return gains, (choice > 0).astype(np.float64)
    held = np.zeros(n) if following is None else np.asarray(following, dtype=np.float64)
    return gains, np.where(choice > margin, 1.0, np.where(choice <= -margin, 0.0, held))


def cc_action_space(action_mode: str, max_paths: int, alternate: bool = False) -> spaces.Space:
    """The action space of a CC agent driving ``max_paths`` paths (LeoCC-v0's, and each flow's
    in the multi-flow envs): ``MultiDiscrete`` over :data:`DISCRETE_FACTORS` for ``discrete``,
    else ``Box(-1, 1)`` of ``max_paths`` entries, twice as many for ``residual`` with an
    ``alternate`` controller (gains, then choices: :func:`residual_controls`)."""
    if action_mode == "discrete":
        return spaces.MultiDiscrete([len(DISCRETE_FACTORS)] * max_paths)
    width = 2 * max_paths if action_mode == "residual" and alternate else max_paths
    return spaces.Box(-1.0, 1.0, shape=(width,), dtype=np.float32)


def check_action(space: spaces.Space, action: object) -> np.ndarray:
    """Validate ``action`` against ``space`` and return it as an array.

    Continuous actions slightly outside the bounds through float rounding are clipped, as
    Gymnasium's ``ClipAction`` would; anything but numbers (strings such as ``"0.5"``, bytes,
    objects, complex numbers), NaN, infinities, wrong shapes and out-of-range values raise
    :class:`InvalidActionError` naming the problem. Nothing reaches the simulator.
    """
    if isinstance(space, spaces.Box):
        try:
            raw = np.asarray(action)
            # Numbers only: a cast would parse strings ("0.5") and drop imaginary parts.
            if raw.dtype.kind not in _REAL_KINDS:
                raise TypeError(raw.dtype.kind)
            a = raw.astype(np.float64, copy=False)
        except (TypeError, ValueError):
            raise InvalidActionError(f"action must be real and numeric, got {action!r}") from None
        if a.shape != space.shape:
            raise InvalidActionError(f"action has shape {a.shape}, expected {space.shape}")
        if not np.isfinite(a).all():
            raise InvalidActionError(f"action contains NaN or infinity: {a.tolist()}")
        low, high = space.low, space.high
        # Inside the bounds (the usual case) there is nothing to clip.
        if (a >= low).all() and (a <= high).all():
            return a
        tol = 1e-6
        if (a < low - tol).any() or (a > high + tol).any():
            raise InvalidActionError(
                f"action {a.tolist()} is outside the action space [{space.low.min()}, "
                f"{space.high.max()}]; rescale it, or wrap the env in gymnasium.wrappers.ClipAction"
            )
        return np.clip(a, low, high)
    if isinstance(space, (spaces.Discrete, spaces.MultiDiscrete)):
        try:
            a = np.asarray(action)
        except (TypeError, ValueError):  # ragged nested sequences
            raise InvalidActionError(f"discrete action must be integral, got {action!r}") from None
        if a.dtype.kind == "f":
            if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
                raise InvalidActionError(f"discrete action must be integral, got {a.tolist()}")
            a = a.astype(np.int64)
        if a.dtype.kind not in "iu":
            raise InvalidActionError(f"discrete action must be integral, got {action!r}")
        if isinstance(space, spaces.Discrete):
            if a.size != 1:
                raise InvalidActionError(f"action must be a single integer, got shape {a.shape}")
            a = a.reshape(())
        elif a.shape != space.shape:
            raise InvalidActionError(f"action has shape {a.shape}, expected {space.shape}")
        if not space.contains(a.astype(space.dtype)):
            raise InvalidActionError(f"action {a.tolist()} is not in {space}")
        return a.astype(np.int64)
    raise InvalidActionError(f"unsupported action space {space}")  # pragma: no cover
