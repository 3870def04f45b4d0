"""leogym.agents: training and evaluation under Hydra, and the main job (`leogym-run`).

Apps (console scripts; also ``python -m leogym.agents.<app>``):

* ``leogym-train`` (:mod:`~leogym.agents.train`): SB3 agents on any leogym env.
* ``leogym-eval`` (:mod:`~leogym.agents.evaluate`): agents and baselines over scenarios × seeds.
* ``leogym-run`` (:mod:`~leogym.agents.main_job`): train PPO, evaluate against the paper
  baselines, print a leaderboard.

Trained policies ship in the zoo (:mod:`~leogym.agents.zoo`): ``load_pretrained(name)``.

Programmatic use goes through the same functions::

    from leogym.agents import compose, train, evaluate
    cfg = compose("train", ["scenario=tiny", "train.total_timesteps=512"])
    result = train(cfg, "runs/my-run")

Importing this package is cheap: SB3 and torch load when training or evaluation starts.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "compose",
    "evaluate",
    "load_pretrained",
    "load_results",
    "load_traces",
    "run_main_job",
    "train",
]

_LAZY = {
    "compose": ("leogym.agents.runtime.app", "compose"),
    "train": ("leogym.agents.train", "train"),
    "evaluate": ("leogym.agents.evaluate", "evaluate"),
    "run_main_job": ("leogym.agents.main_job", "run_main_job"),
    "load_results": ("leogym.agents.results.table", "load_results"),
    "load_traces": ("leogym.agents.results.table", "load_traces"),
    "load_pretrained": ("leogym.agents.zoo", "load_pretrained"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'leogym.agents' has no attribute {name!r}")
