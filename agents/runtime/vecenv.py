"""A subprocess VecEnv for SB3 whose workers stay light.

SB3's ``SubprocVecEnv`` runs its worker loop from a module inside ``stable_baselines3``, so every
worker process imports SB3 and torch (seconds per worker). leogym's workers run
:func:`leogym.agents.runtime.subproc_worker.worker` instead (started and addressed through
:class:`~leogym.agents.runtime.subproc_worker.WorkerPool`), which needs only NumPy, Gymnasium
and the envs, with the same observable behaviour (auto-reset, ``terminal_observation``,
``TimeLimit.truncated``). One env per process: ns-3 is one simulator per process.
:class:`LocalVecEnv` serves the same commands (the same
:class:`~leogym.agents.runtime.subproc_worker.EnvHost`) in this process, for one env that may
live here (a test, a notebook).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from leogym.agents.runtime.subproc_worker import EnvHost, WorkerPool, stack_obs

__all__ = ["LeoSubprocVecEnv", "LocalVecEnv"]


class LeoSubprocVecEnv(VecEnv):
    """One worker process per env.

    :param env_fns: picklable callables that make an env (e.g. ``EnvFactory``).
    :param start_method: ``forkserver``, ``spawn`` or ``fork``.
    """

    def __init__(
        self, env_fns: list[Callable[[], gym.Env]], start_method: str = "forkserver"
    ) -> None:
        self.waiting = False
        self.closed = False
        self.pool = self._start(env_fns, start_method)
        self.remotes = self.pool.remotes
        self.processes = self.pool.processes
        self.remotes[0].send(("spaces", None))
        observation_space, action_space = self.remotes[0].recv()
        super().__init__(len(env_fns), observation_space, action_space)

    def _start(self, env_fns: Sequence[Callable[[], Any]], start_method: str) -> Any:
        """The pool that serves the envs: one worker process per env."""
        return WorkerPool(env_fns, start_method)

    # ----------------------------------------------------------------------------- stepping
    def step_async(self, actions: np.ndarray) -> None:
        for remote, action in zip(self.remotes, actions, strict=True):
            remote.send(("step", action))
        self.waiting = True

    def step_wait(self) -> Any:
        results = [remote.recv() for remote in self.remotes]
        self.waiting = False
        # A tuple, as in SB3's SubprocVecEnv (the base class declares a list).
        obs, rewards, dones, infos, self.reset_infos = zip(*results, strict=True)  # type: ignore[assignment]
        return (
            stack_obs(obs),
            np.asarray(rewards, dtype=np.float32),
            np.asarray(dones, dtype=bool),
            list(infos),
        )

    def reset(self) -> np.ndarray:
        for i, remote in enumerate(self.remotes):
            remote.send(("reset", (self._seeds[i], self._options[i])))
        results = [remote.recv() for remote in self.remotes]
        obs, self.reset_infos = zip(*results, strict=True)  # type: ignore[assignment]
        self._reset_seeds()
        self._reset_options()
        return stack_obs(obs)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                try:
                    remote.recv()
                except (EOFError, OSError):  # the worker is gone (e.g. Ctrl-C reached it)
                    pass
        self.pool.close()
        self.closed = True

    # -------------------------------------------------------------------------- attributes
    def _targets(self, indices: None | int | Iterable[int]) -> list[Any]:
        return [self.remotes[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: None | int | Iterable[int] = None) -> list[Any]:
        targets = self._targets(indices)
        for remote in targets:
            remote.send(("get_attr", attr_name))
        return [remote.recv() for remote in targets]

    def set_attr(
        self, attr_name: str, value: Any, indices: None | int | Iterable[int] = None
    ) -> None:
        targets = self._targets(indices)
        for remote in targets:
            remote.send(("set_attr", (attr_name, value)))
        for remote in targets:
            remote.recv()

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: None | int | Iterable[int] = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        targets = self._targets(indices)
        for remote in targets:
            remote.send(("env_method", (method_name, method_args, method_kwargs)))
        return [remote.recv() for remote in targets]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: None | int | Iterable[int] = None
    ) -> list[bool]:
        targets = self._targets(indices)
        for remote in targets:
            remote.send(("is_wrapped", wrapper_class))
        return [remote.recv() for remote in targets]

    def get_images(self) -> Sequence[np.ndarray | None]:
        for remote in self.remotes:
            remote.send(("render", None))
        return [remote.recv() for remote in self.remotes]


class _HostConnection:
    """A worker's pipe, in this process: ``send`` runs the command, ``recv`` gives its reply."""

    def __init__(self, host: EnvHost) -> None:
        self.host = host
        self._reply: Any = None

    def send(self, message: tuple[str, Any]) -> None:
        cmd, data = message
        if cmd == "close":
            self.host.close()
            return
        self._reply = self.host.handle(cmd, data)

    def recv(self) -> Any:
        reply, self._reply = self._reply, None
        return reply


class _LocalPool:
    """:class:`~leogym.agents.runtime.subproc_worker.WorkerPool`'s interface over envs in
    this process (no processes)."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]]) -> None:
        self.remotes = [_HostConnection(EnvHost(fn)) for fn in env_fns]
        self.processes: list[Any] = []

    def close(self, timeout: float = 0.0) -> None:
        for remote in self.remotes:
            remote.send(("close", None))


class LocalVecEnv(LeoSubprocVecEnv):
    """:class:`LeoSubprocVecEnv` with its envs in this process: the same commands and
    replies, served by an :class:`~leogym.agents.runtime.subproc_worker.EnvHost` each. An
    exception of an env is raised here, as it is. Only one ns-3 env can live in a process.

    :param env_fns: callables that make an env.
    """

    def __init__(self, env_fns: Sequence[Callable[[], Any]]) -> None:
        super().__init__(list(env_fns), start_method="")

    def _start(self, env_fns: Sequence[Callable[[], Any]], start_method: str) -> Any:
        return _LocalPool(env_fns)
