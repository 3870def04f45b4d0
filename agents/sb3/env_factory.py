"""Picklable env factories and the VecEnvs of the apps (local worker processes or Ray actors).

ns-3 is one simulator per process, so leogym's apps never step an env in the process that
trains or evaluates: every env, the evaluation env included, lives in a worker subprocess
started with ``forkserver`` or ``spawn``, or in a Ray actor (``train.vec_env=ray``). A trainer
or evaluator process therefore never owns a simulator, and any Hydra launcher (sequential,
joblib, submitit, Ray) can run several jobs in one process one after another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

__all__ = ["EnvFactory", "MultiAgentEnvFactory", "make_multi_agent_vec_env", "make_vec_env"]


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
    factory: EnvFactory,
    n_envs: int,
    *,
    seed: int,
    start_method: str,
    on_worker_death: str = "stop",
    vec_env: str = "subproc",
    ray: Any = None,
) -> Any:
    """A VecEnv of ``n_envs`` copies of ``factory``'s env, seeded ``seed + i``.

    ``vec_env="subproc"``: one local worker process per env
    (:class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv`), even for one env, since the
    calling process must never own a simulator (see the module docstring). ``vec_env="ray"``:
    Ray actors (:class:`~leogym.agents.runtime.ray_vecenv.RayVecEnv`), as ``ray`` (a
    :class:`~leogym.agents.config.RayConfig`; ``None``: its defaults) says, on the Ray instance
    this process is connected to, or a local one. Either way a worker that dies is reported by
    name, env and seed, then the VecEnv stops or restarts (``on_worker_death``; see
    :mod:`leogym.agents.runtime.worker_faults`), and the same seed gives the same trajectories.
    """
    from leogym.agents.runtime.worker_faults import WorkerFaultWrapper

    venv = WorkerFaultWrapper(
        lambda: _runtime_vec_env([factory] * n_envs, vec_env, start_method, ray),
        [factory] * n_envs,
        on_death=on_worker_death,
    )
    venv.seed(seed)
    venv.env_id = factory.env_id  # type: ignore[attr-defined]
    return venv


def _runtime_vec_env(env_fns: list[Any], vec_env: str, start_method: str, ray: Any) -> Any:
    """The worker runtime's VecEnv of ``env_fns`` (Gymnasium or PettingZoo envs alike):
    local worker processes (``subproc``) or Ray actors (``ray``, as the ``RayConfig`` says)."""
    from leogym.agents.config import VEC_ENVS

    if vec_env not in VEC_ENVS:
        raise ValueError(f"train.vec_env: must be one of {VEC_ENVS} (got {vec_env!r})")
    if vec_env == "ray":
        from leogym.agents.runtime.ray_vecenv import RayVecEnv

        return RayVecEnv(
            env_fns,
            envs_per_actor=getattr(ray, "envs_per_actor", 1),
            cpus_per_env=getattr(ray, "cpus_per_env", 1.0),
            start_method=start_method,
            start_timeout_s=getattr(ray, "start_timeout_s", 300.0),
            options=ray,
        )
    from leogym.agents.runtime.vecenv import LeoSubprocVecEnv

    return LeoSubprocVecEnv(env_fns, start_method=start_method)


@dataclass(frozen=True)
class MultiAgentEnvFactory:
    """Makes one :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv`; pickled into a worker.

    :param kwargs: the env's kwargs without the scenario (env options, ``n_flows``,
        ``fairness``; :func:`leogym.agents.config.multi_agent_kwargs`).
    :param scenario: scenario name, dict or ``ScenarioConfig``.
    """

    kwargs: Mapping[str, Any] = field(default_factory=dict)
    scenario: Any = None

    def __call__(self) -> Any:
        from leogym.envs.multi_agent import LeoMultiAgentCCEnv

        kwargs = dict(self.kwargs)
        if self.scenario is not None:
            kwargs["scenario"] = self.scenario
        return LeoMultiAgentCCEnv(**kwargs)


def make_multi_agent_vec_env(
    factory: MultiAgentEnvFactory,
    n_envs: int,
    *,
    seed: int,
    start_method: str,
    on_worker_death: str = "stop",
    vec_env: str = "subproc",
    ray: Any = None,
) -> Any:
    """Parameter sharing: the agents of ``n_envs`` multi-agent envs as the slots of one SB3
    VecEnv (:class:`~leogym.agents.sb3.multi_agent_vec.MultiAgentVecEnv`, ``n_envs x n_flows``
    slots), under a ``VecMonitor`` (episode statistics per agent). The envs run as
    :func:`make_vec_env`'s do (``vec_env``: local worker processes or Ray actors), and a worker
    that dies is reported with its env's slots and seed, then the VecEnv stops or restarts
    (``on_worker_death``). Seeded as SB3 seeds a VecEnv: env ``k`` is reset with its first
    slot's seed, ``seed + k * n_flows``."""
    from stable_baselines3.common.vec_env import VecMonitor

    from leogym.agents.config import MULTI_FLOW_ID
    from leogym.agents.runtime.worker_faults import WorkerFaultWrapper
    from leogym.agents.sb3.multi_agent_vec import MultiAgentVecEnv

    def make() -> Any:
        return MultiAgentVecEnv(_runtime_vec_env([factory] * n_envs, vec_env, start_method, ray))

    faults = WorkerFaultWrapper(make, [factory] * n_envs, on_death=on_worker_death)
    faults.seed(seed)
    venv = VecMonitor(faults)
    venv.env_id = MULTI_FLOW_ID  # type: ignore[attr-defined]
    return venv
