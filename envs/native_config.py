"""Translate an env config plus a scenario into the native Simulation's config dict.

This is the one place that knows the native core's config keys (docs/architecture.md,
"The native simulation contract").
"""

from __future__ import annotations

from typing import Any

from leogym.envs.config import EnvConfig

__all__ = ["native_config", "split_cc"]


def split_cc(cc: str) -> tuple[str, bool]:
    """``"freeze+cubic"`` → ``("cubic", True)``; ``"cubic"`` → ``("cubic", False)``."""
    if cc.startswith("freeze+"):
        return cc.split("+", 1)[1], True
    return cc, False


def native_config(cfg: EnvConfig, scenario: Any, episode_seed: int) -> dict[str, Any]:
    """Build the dict passed to ``leogym._core.Simulation``.

    :param cfg: the validated env config.
    :param scenario: the episode's (possibly sampled) :class:`ScenarioConfig`.
    :param episode_seed: the episode's seed, drawn from ``reset(seed=...)``; it becomes the
        ns-3 ``RngRun`` so that every random stream in the simulator follows it.
    """
    cc, freeze = split_cc(cfg.cc)
    return {
        "seed": 1,
        "run": int(episode_seed),
        "cc": cc,
        "freeze": bool(freeze),
        "cc_params": {k: float(v) for k, v in cfg.cc_params.items()},
        "scheduler": cfg.scheduler,
        "scheduler_params": {k: float(v) for k, v in cfg.scheduler_params.items()},
        "cc_target": cfg.cc_target,
        **scenario.native_transport_config(),
    }
