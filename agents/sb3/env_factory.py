"""Picklable env factories and subprocess VecEnvs.

ns-3 is one simulator per process, so leogym's apps never step an env in the process that
trains or evaluates: every env, the evaluation env included, lives in a worker subprocess
started with ``forkserver`` or ``spawn``. A trainer or evaluator process therefore never owns
a simulator, and any Hydra launcher (sequential, joblib, submitit, Ray) can run several jobs in
one process one after another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

__all__ = ["EnvFactory", "make_vec_env"]


@dataclass(frozen=True)
class EnvFactory:
    """Makes one env; pickled into worker processes.

    :param env_id: Gymnasium id (``leogym/LeoCC-v0``, ...).
    :param kwargs: ``gymnasium.make`` kwargs without the scenario.
    :param scenario: scenario name, dict or ``ScenarioConfig`` (leogym ids only).
    :param record_stats: wrap in ``RecordEpisodeStatistics`` (SB3 logs ``info["episode"]``).
    """

    env_id: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    scenario: Any = None
    record_stats: bool = False

    @property
    def is_leogym(self) -> bool:
        return self.env_id.startswith("leogym/")

    def __call__(self) -> gym.Env:
        import leogym  # noqa: F401  (registers the leogym ids in this process)

        kwargs = dict(self.kwargs)
        if self.is_leogym:
            kwargs["scenario"] = self.scenario
        env = gym.make(self.env_id, **kwargs)
        if self.record_stats:
            env = gym.wrappers.RecordEpisodeStatistics(env)
        return env

    def with_overrides(self, **overrides: Any) -> EnvFactory:
        """A copy with some env kwargs replaced."""
        kwargs = dict(self.kwargs)
        kwargs.update(overrides)
        return EnvFactory(self.env_id, kwargs, self.scenario, self.record_stats)


def make_vec_env(
    factory: EnvFactory, n_envs: int, *, seed: int, start_method: str, on_worker_death: str = "stop"
) -> Any:
    """A subprocess VecEnv (:class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv`) of
    ``n_envs`` copies of ``factory``'s env, seeded ``seed + i``.

    Always a subprocess VecEnv, even for one env: the calling process must never own a
    simulator (see the module docstring). A worker that dies is reported by name, env and
    seed, then the VecEnv stops or restarts (``on_worker_death``; see
    :mod:`leogym.agents.runtime.worker_faults`).
    """
    from leogym.agents.runtime.vecenv import LeoSubprocVecEnv
    from leogym.agents.runtime.worker_faults import WorkerFaultWrapper

    def make() -> Any:
        return LeoSubprocVecEnv([factory] * n_envs, start_method=start_method)

    venv = WorkerFaultWrapper(make, [factory] * n_envs, on_death=on_worker_death)
    venv.seed(seed)
    venv.env_id = factory.env_id  # type: ignore[attr-defined]
    return venv
