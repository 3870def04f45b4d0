"""Analytic baselines and classic algorithms as ``predict(obs)`` policies.

>>> from leogym.baselines import make_baseline
>>> policy = make_baseline("cubic")
>>> policy.env_overrides
{'cc': 'cubic'}
"""

from leogym.baselines.base import NativePolicy, Policy
from leogym.baselines.registry import (
    BASELINES,
    bind,
    make_baseline,
    neutral_action,
    register_baseline,
)

__all__ = [
    "BASELINES",
    "NativePolicy",
    "Policy",
    "bind",
    "make_baseline",
    "neutral_action",
    "register_baseline",
]
