"""Reward callables that make an env fail inside its worker process, for the fault tests.

Picklable (module-level classes), so they travel into subprocess VecEnv workers as env kwargs
(``reward=...``); the worker imports this module from the test folder.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from leogym.envs.rewards import aurora_reward

__all__ = ["FailingReward"]


class FailingReward:
    """Aurora's reward, until the ``at_step``-th call: then ``segfault`` (the worker process
    gets SIGSEGV, as a crash in native code would) or ``raise`` (a Python exception).

    :param kind: ``segfault`` or ``raise``.
    :param at_step: the call that fails (1-based, counted per process).
    """

    __name__ = "failing"

    def __init__(self, kind: str, at_step: int) -> None:
        self.kind, self.at_step, self.calls = kind, at_step, 0

    def __call__(self, metrics: Any, weights: Any) -> float:
        self.calls += 1
        if self.calls >= self.at_step:
            if self.kind == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            raise RuntimeError(f"injected failure at reward call {self.calls}")
        return aurora_reward(metrics, weights)
