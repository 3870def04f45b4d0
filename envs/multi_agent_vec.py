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

ns-3 runs one simulator per process: one env runs in this process; with several, each runs in
its own worker process (``forkserver`` by default, as SB3's ``SubprocVecEnv``).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

__all__ = ["MultiAgentVecEnv"]

EnvFn = Callable[[], ParallelEnv]


class MultiAgentVecEnv(VecEnv):
    """The agents of one or more ``ParallelEnv``s as the slots of one SB3 ``VecEnv``.

    :param env_fns: functions that each build one ``ParallelEnv`` (the same env with the same
        agents, typically ``functools.partial(LeoMultiAgentCCEnv, **kwargs)``); a single
        env object is accepted too and runs in this process.
    :param start_method: the ``multiprocessing`` start method of the worker processes when
        there are several envs (default ``forkserver`` where available, else ``spawn``).
    :param subprocess: run even a single env function in a worker process (``None``: only
        when there are several; leogym's apps always do, so that a trainer never owns a
        simulator).
    :raises ValueError: agents with different spaces, or envs with different agents.
    """

    def __init__(
        self,
        env_fns: Sequence[EnvFn] | ParallelEnv,
        start_method: str | None = None,
        subprocess: bool | None = None,
    ) -> None:
        if isinstance(env_fns, ParallelEnv):
            self._envs: list[Any] = [env_fns]
        elif len(env_fns) == 1 and not subprocess:
            self._envs = [env_fns[0]()]
        elif len(env_fns) == 0:
            raise ValueError("env_fns: needs at least one env")
        else:
            if start_method is None:
                methods = mp.get_all_start_methods()
                start_method = "forkserver" if "forkserver" in methods else "spawn"
            ctx = mp.get_context(start_method)
            self._envs = [_RemoteEnv(ctx, fn) for fn in env_fns]
        first = self._envs[0]
        self._agents: list[str] = list(first.possible_agents)
        obs_space = first.observation_space(self._agents[0])
        act_space = first.action_space(self._agents[0])
        for k, env in enumerate(self._envs):
            agents = list(env.possible_agents)
            if agents != self._agents:
                raise ValueError(
                    f"env_fns[{k}]: agents {agents} differ from env 0's {self._agents}"
                )
            for a in agents:
                if env.observation_space(a) != obs_space or env.action_space(a) != act_space:
                    raise ValueError(
                        f"env_fns[{k}]: agent {a!r} has other spaces than {self._agents[0]!r}; "
                        "parameter sharing needs one observation and one action space"
                    )
        if not isinstance(obs_space, spaces.Box):
            raise ValueError(f"observation space: must be a Box (got {obs_space})")
        self._obs_shape: tuple[int, ...] = obs_space.shape
        self._n_agents = len(self._agents)
        self._actions: np.ndarray | None = None
        super().__init__(len(self._envs) * self._n_agents, obs_space, act_space)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> VecEnvObs:
        """Reset every env (with the seeds and options set by ``seed``/``set_options``)."""
        obs = np.zeros((self.num_envs, *self._obs_shape), dtype=np.float32)
        for k, env in enumerate(self._envs):
            lo = k * self._n_agents
            o, infos = env.reset(seed=self._seeds[lo], options=self._options[lo] or None)
            self._put(obs, k, o)
            for i, a in enumerate(self._agents):
                self.reset_infos[lo + i] = dict(infos.get(a, {}))
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the slots' actions for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env with its agents' actions; an env whose episode ended is reset."""
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        if len(actions) != self.num_envs:
            raise ValueError(
                f"actions: expected {self.num_envs} (one per agent), got {len(actions)}"
            )
        n = self._n_agents
        obs = np.zeros((self.num_envs, *self._obs_shape), dtype=np.float32)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for k, env in enumerate(self._envs):
            lo = k * n
            act = {a: actions[lo + i] for i, a in enumerate(self._agents)}
            o, r, term, trunc, info = env.step(act)
            self._put(obs, k, o)
            ended = [bool(term[a] or trunc[a]) for a in self._agents]
            if any(ended) and not all(ended):
                raise RuntimeError(
                    f"env {k}: some agents finished before others ({ended}); this adapter needs "
                    "an episode to end for all agents at once"
                )
            for i, a in enumerate(self._agents):
                rewards[lo + i] = r[a]
                dones[lo + i] = ended[i]
                infos[lo + i] = dict(info[a])
            if all(ended):
                for i, a in enumerate(self._agents):
                    infos[lo + i]["terminal_observation"] = obs[lo + i].copy()
                    infos[lo + i]["TimeLimit.truncated"] = bool(trunc[a] and not term[a])
                o2, reset_infos = env.reset()
                self._put(obs, k, o2)
                for i, a in enumerate(self._agents):
                    self.reset_infos[lo + i] = dict(reset_infos.get(a, {}))
        return obs, rewards, dones, infos

    def close(self) -> None:
        """Close every env (and stop the worker processes)."""
        for env in self._envs:
            env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of the env behind each slot."""
        out = []
        for i in self._indices(indices):
            env = self._env_of(i)
            remote = isinstance(env, _RemoteEnv)
            out.append(env.get_attr(attr_name) if remote else getattr(env, attr_name))
        return out

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the attribute on the env behind each slot."""
        for k in sorted({i // self._n_agents for i in self._indices(indices)}):
            env = self._envs[k]
            if isinstance(env, _RemoteEnv):
                env.set_attr(attr_name, value)
            else:
                setattr(env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call a method of the env behind each slot (once per slot)."""
        out = []
        for i in self._indices(indices):
            env = self._env_of(i)
            if isinstance(env, _RemoteEnv):
                out.append(env.call(method_name, method_args, method_kwargs))
            else:
                out.append(getattr(env, method_name)(*method_args, **method_kwargs))
        return out

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """PettingZoo envs are not Gymnasium-wrapped: False for every slot."""
        return [False for _ in self._indices(indices)]

    @property
    def agents(self) -> list[str]:
        """The agent behind each slot of one env (slot ``k * n + i`` is env ``k``'s agent
        ``agents[i]``)."""
        return list(self._agents)

    # ------------------------------------------------------------------ internals
    def _put(self, obs: np.ndarray, k: int, o: dict[str, np.ndarray]) -> None:
        lo = k * self._n_agents
        for i, a in enumerate(self._agents):
            obs[lo + i] = o[a]

    def _env_of(self, slot: int) -> Any:
        return self._envs[slot // self._n_agents]

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _worker(remote: Connection, parent: Connection, fn: CloudpickleWrapper) -> None:
    """A worker process: one env, driven over a pipe; answers ``(ok, value or exception)``."""
    parent.close()
    env = fn.var()
    try:
        while True:
            cmd, data = remote.recv()
            try:
                if cmd == "reset":
                    out: Any = env.reset(seed=data[0], options=data[1])
                elif cmd == "step":
                    out = env.step(data)
                elif cmd == "spaces":
                    agents = list(env.possible_agents)
                    out = (
                        agents,
                        {a: (env.observation_space(a), env.action_space(a)) for a in agents},
                    )
                elif cmd == "get_attr":
                    out = getattr(env, data)
                elif cmd == "set_attr":
                    setattr(env, data[0], data[1])
                    out = None
                elif cmd == "call":
                    out = getattr(env, data[0])(*data[1], **data[2])
                elif cmd == "close":
                    env.close()
                    remote.send((True, None))
                    break
                else:
                    raise ValueError(f"unknown command {cmd!r}")
            except Exception as exc:  # sent back and raised in the parent
                remote.send((False, exc))
            else:
                remote.send((True, out))
    except (EOFError, KeyboardInterrupt):
        env.close()
    finally:
        remote.close()


class _RemoteEnv:
    """A ``ParallelEnv`` in a worker process, with the methods the adapter calls."""

    def __init__(self, ctx: Any, fn: EnvFn) -> None:
        self._remote, work = ctx.Pipe()
        self._process = ctx.Process(
            target=_worker, args=(work, self._remote, CloudpickleWrapper(fn)), daemon=True
        )
        self._process.start()
        work.close()
        self._closed = False
        agents, self._spaces = self._ask("spaces", None)
        self.possible_agents: list[str] = agents

    def observation_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent][0]

    def action_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent][1]

    def _ask(self, cmd: str, data: Any) -> Any:
        self._remote.send((cmd, data))
        ok, out = self._remote.recv()
        if not ok:
            raise out
        return out

    def reset(self, seed: int | None = None, options: dict | None = None) -> Any:
        return self._ask("reset", (seed, options))

    def step(self, actions: dict[str, Any]) -> Any:
        return self._ask("step", actions)

    def get_attr(self, name: str) -> Any:
        return self._ask("get_attr", name)

    def set_attr(self, name: str, value: Any) -> None:
        self._ask("set_attr", (name, value))

    def call(self, name: str, args: tuple, kwargs: dict) -> Any:
        return self._ask("call", (name, args, kwargs))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._remote.send(("close", None))
            self._remote.recv()
        except (BrokenPipeError, EOFError):
            pass
        self._process.join(timeout=10)
