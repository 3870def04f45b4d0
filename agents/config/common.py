"""What the app schemas share: the error every config check raises and the ranges and
choices several sections use."""

from __future__ import annotations

from leogym.schema import FieldError, bounded

__all__ = [
    "ACTIVATIONS",
    "EVAL_BACKENDS",
    "FRACTION",
    "MAX_SEED",
    "POSITIVE",
    "START_METHODS",
    "VEC_ENVS",
    "ConfigError",
]

#: Largest seed (NumPy and torch take 32-bit seeds).
MAX_SEED = 2**31 - 1
START_METHODS = ("forkserver", "spawn", "fork")
#: Where ``leogym-train`` runs its envs (``train.vec_env``).
VEC_ENVS = ("subproc", "ray")
#: Where ``leogym-eval`` runs its episodes (``eval.backend``).
EVAL_BACKENDS = ("subproc", "ray")
ACTIVATIONS = ("tanh", "relu")
POSITIVE = bounded(0.0, lo_open=True)
FRACTION = bounded(0.0, 1.0)


class ConfigError(FieldError):
    """An invalid config value; the message starts with the field's path (:attr:`field`)."""
