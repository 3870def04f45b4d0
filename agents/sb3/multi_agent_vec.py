"""Parameter sharing for SB3: the agents of PettingZoo ``ParallelEnv``s as one ``VecEnv``.

Every agent of every env is one slot of the ``VecEnv`` (env 0's agents first, in
``possible_agents`` order), so one SB3 policy acts for all of them and learns from all of their
transitions: parameter sharing (J. K. Gupta, M. Egorov, M. Kochenderfer, "Cooperative
Multi-agent Control Using Deep Reinforcement Learning", AAMAS 2017 workshops; SuperSuit's
``pettingzoo_env_to_vec_env_v1`` does the same). The agents must share one observation space
and one action space, and an episode ends for all of an env's agents at once (as in
:class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv`); the env is then reset at once, and
each slot's ``info`` carries ``terminal_observation`` and ``TimeLimit.truncated``, as SB3's
own ``VecEnv``s do.

The envs run in the worker runtime of the single-agent VecEnvs: each ``ParallelEnv`` is one env
of a :class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv` (a worker process each), a
:class:`~leogym.agents.runtime.ray_vecenv.RayVecEnv` (Ray actors) or, for one env that may live
in this process, a :class:`~leogym.agents.runtime.vecenv.LocalVecEnv`, served with its agents
stacked (:class:`~leogym.agents.runtime.agents_env.AgentsAsOneEnv`). This class unstacks them
into slots. A dead worker is raised as
:class:`~leogym.agents.runtime.worker_faults.WorkerLostError` naming the slots of its env, so
:class:`~leogym.agents.runtime.worker_faults.WorkerFaultWrapper` reports it and stops or
restarts, as for single-agent envs (:func:`leogym.agents.sb3.env_factory.make_multi_agent_vec_env`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from leogym.agents.runtime.agents_env import MissingAttribute, is_parallel_env
from leogym.agents.runtime.subproc_worker import exit_status, first_dead
from leogym.agents.runtime.worker_faults import PIPE_ERRORS, LostWorker, WorkerLostError

__all__ = ["MultiAgentVecEnv"]

EnvFn = Callable[[], Any]


def _default_start_method() -> str:
    import multiprocessing as mp

    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


class MultiAgentVecEnv(VecEnv):
    """The agents of one or more ``ParallelEnv``s as the slots of one SB3 ``VecEnv``.

    :param env_fns: functions that each build one ``ParallelEnv`` (the same env with the same
        agents, typically ``functools.partial(LeoMultiAgentCCEnv, **kwargs)``); a single env
        object is accepted too and runs in this process; or a VecEnv of the worker runtime
        whose envs are ``ParallelEnv``s (a ``RayVecEnv`` of ``MultiAgentEnvFactory``).
    :param start_method: the ``multiprocessing`` start method of the worker processes
        (default ``forkserver`` where available, else ``spawn``).
    :param subprocess: run even a single env function in a worker process (``None``: only
        when there are several; leogym's apps always do, so that a trainer never owns a
        simulator).
    :raises ValueError: agents with different spaces, or envs with different agents.
    """

    def __init__(
        self,
        env_fns: Sequence[EnvFn] | VecEnv | Any,
        start_method: str | None = None,
        subprocess: bool | None = None,
    ) -> None:
        from leogym.agents.runtime.vecenv import LeoSubprocVecEnv, LocalVecEnv

        if isinstance(env_fns, VecEnv):
            self.venv = env_fns
        elif is_parallel_env(env_fns):
            env = env_fns
            self.venv = LocalVecEnv([lambda: env])
        elif len(env_fns) == 0:
            raise ValueError("env_fns: needs at least one env")
        elif len(env_fns) == 1 and not subprocess:
            self.venv = LocalVecEnv(list(env_fns))
        else:
            self.venv = LeoSubprocVecEnv(
                list(env_fns), start_method=start_method or _default_start_method()
            )
        try:
            self._agents, obs_space, act_space = self._check_agents()
        except BaseException:
            self.venv.close()
            raise
        self._obs_shape: tuple[int, ...] = obs_space.shape
        self._n_agents = len(self._agents)
        super().__init__(self.venv.num_envs * self._n_agents, obs_space, act_space)

    def _check_agents(self) -> tuple[list[str], spaces.Box, spaces.Space]:
        """Every env's agents and spaces, checked: the same agents, one shared pair of spaces."""
        agents_of = self.venv.get_attr("possible_agents")
        spaces_of = self.venv.get_attr("agent_spaces")
        agents = list(agents_of[0])
        obs_space, act_space = spaces_of[0][agents[0]]
        for k, (names, pairs) in enumerate(zip(agents_of, spaces_of, strict=True)):
            if list(names) != agents:
                raise ValueError(f"env_fns[{k}]: agents {list(names)} differ from env 0's {agents}")
            for a in names:
                if pairs[a] != (obs_space, act_space):
                    raise ValueError(
                        f"env_fns[{k}]: agent {a!r} has other spaces than {agents[0]!r}; "
                        "parameter sharing needs one observation and one action space"
                    )
        if not isinstance(obs_space, spaces.Box):
            raise ValueError(f"observation space: must be a Box (got {obs_space})")
        return agents, obs_space, act_space

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> VecEnvObs:
        """Reset every env, env ``k`` with the seed and options of its first slot."""
        n = self._n_agents
        self.venv._seeds = [self._seeds[k * n] for k in range(self.venv.num_envs)]
        self.venv._options = [self._options[k * n] for k in range(self.venv.num_envs)]
        with self._worker_faults():
            obs = self.venv.reset()
        self._unstack_reset_infos()
        self._reset_seeds()
        self._reset_options()
        return self._slots(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Send every env its agents' actions."""
        actions = np.asarray(actions)
        if len(actions) != self.num_envs:
            raise ValueError(
                f"actions: expected {self.num_envs} (one per agent), got {len(actions)}"
            )
        with self._worker_faults():
            self.venv.step_async(
                actions.reshape(self.venv.num_envs, self._n_agents, *actions.shape[1:])
            )

    def step_wait(self) -> VecEnvStepReturn:
        """Every slot's observation, reward, done and info; an env whose episode ended has
        been reset (its slots' infos hold ``terminal_observation``)."""
        with self._worker_faults():
            obs, rewards, dones, env_infos = self.venv.step_wait()
        n = self._n_agents
        infos: list[dict[str, Any]] = []
        for k, info in enumerate(env_infos):
            ended = bool(dones[k])
            terminal = np.asarray(info["terminal_observation"], np.float32) if ended else None
            for i in range(n):
                slot = dict(info["agents"][i])
                if terminal is not None:
                    slot["terminal_observation"] = terminal[i].copy()
                    slot["TimeLimit.truncated"] = bool(info["truncated"][i])
                infos.append(slot)
        self._unstack_reset_infos()
        return (
            self._slots(obs),
            np.asarray(rewards, dtype=np.float32).reshape(self.num_envs),
            np.repeat(np.asarray(dones, dtype=bool), n),
            infos,
        )

    def close(self) -> None:
        """Close every env (and stop the worker processes or actors)."""
        self._drain()
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of the env behind each slot."""
        out = self.venv.get_attr(attr_name, self._env_indices(indices))
        for value in out:
            if isinstance(value, MissingAttribute):
                raise AttributeError(f"the multi-agent env has no attribute {value.name!r}")
        return out

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the attribute on the env behind each slot (once per env)."""
        envs = sorted(set(self._env_indices(indices)))
        self.venv.set_attr(attr_name, value, envs)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call a method of the env behind each slot (once per slot)."""
        return self.venv.env_method(
            method_name, *method_args, indices=self._env_indices(indices), **method_kwargs
        )

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """PettingZoo envs are not Gymnasium-wrapped: False for every slot."""
        return [False for _ in self._indices(indices)]

    @property
    def agents(self) -> list[str]:
        """The agent behind each slot of one env (slot ``k * n + i`` is env ``k``'s agent
        ``agents[i]``)."""
        return list(self._agents)

    @property
    def processes(self) -> list[Any]:
        """The worker processes (one per env; none for Ray actors or an env in this process)."""
        return list(getattr(self.venv, "processes", []))

    # ------------------------------------------------------------------ internals
    def _slots(self, obs: Any) -> np.ndarray:
        """``(envs, agents, ...)`` -> ``(slots, ...)``, float32."""
        return np.asarray(obs, dtype=np.float32).reshape(self.num_envs, *self._obs_shape)

    def _unstack_reset_infos(self) -> None:
        n = self._n_agents
        for k, info in enumerate(self.venv.reset_infos):
            for i in range(n):
                self.reset_infos[k * n + i] = dict(info.get("agents", [{}] * n)[i])

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def _env_indices(self, indices: VecEnvIndices) -> list[int]:
        """The env behind each of the slots ``indices`` (repeated for several of its slots)."""
        return [i // self._n_agents for i in self._indices(indices)]

    @contextmanager
    def _worker_faults(self) -> Iterator[None]:
        """A worker gone (a pipe error) or lost (``WorkerLostError`` of a Ray VecEnv) is
        raised as :class:`WorkerLostError` naming the slots of its env(s)."""
        n = self._n_agents
        try:
            yield
        except WorkerLostError as exc:
            lost = exc.lost
            slots = tuple(k * n + i for k in lost.envs for i in range(n))
            raise WorkerLostError(LostWorker(slots, lost.pid, lost.status, lost.worker)) from exc
        except PIPE_ERRORS as exc:
            processes = self.processes
            k = first_dead(processes) if processes else None
            if k is None:
                raise
            self._drain()
            proc = processes[k]
            lost_worker = LostWorker(
                tuple(range(k * n, (k + 1) * n)),
                proc.pid,
                exit_status(proc.exitcode),
                f"pid {proc.pid}, env {k}",
            )
            raise WorkerLostError(lost_worker) from exc

    def _drain(self) -> None:
        """Read the replies live workers may still owe after a failed step, so that closing
        does not wait for a reply already read (see ``WorkerFaultWrapper._drain``)."""
        venv = self.venv
        if not getattr(venv, "waiting", False):
            return
        for remote in getattr(venv, "remotes", []):
            try:
                if hasattr(remote, "poll") and remote.poll(0.5):
                    remote.recv()
            except PIPE_ERRORS:
                pass
        venv.waiting = False  # type: ignore[attr-defined]  # the VecEnv's flag
