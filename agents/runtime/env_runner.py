"""The envs of one Ray actor of :class:`leogym.agents.runtime.ray_vecenv.RayVecEnv`.

An actor runs ``envs_per_actor`` envs and steps them all in one remote call. ns-3 is one
simulator per process, so one env runs in the actor's own process, and several run as worker
processes of the actor (:class:`~leogym.agents.runtime.subproc_worker.WorkerPool`, the same
workers as the local :class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv`), stepped in
parallel. Either way every env is served by
:class:`~leogym.agents.runtime.subproc_worker.EnvHost`, so auto-reset, ``terminal_observation``
and ``TimeLimit.truncated`` are those of the local VecEnv.

This module imports neither SB3 nor torch (an actor starts in about a second). Plain Python:
:class:`~leogym.agents.runtime.ray_vecenv.RayVecEnv` makes it a Ray actor class.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from leogym.agents.runtime.subproc_worker import (
    EnvHost,
    WorkerPool,
    exit_status,
    first_dead,
    stack_obs,
)

__all__ = ["EnvFailure", "EnvRunner"]

#: What a worker of the actor's pool raises in the actor when it is gone.
_PIPE_ERRORS = (EOFError, BrokenPipeError, ConnectionResetError, OSError)


class EnvFailure(RuntimeError):
    """An env of an actor failed: it raised, or its worker process died.

    :param slot: the env's index within the actor.
    :param pid: the process the env ran in.
    :param status: what happened (``killed by SIGKILL``, ``its env raised ValueError: ...``).
    """

    def __init__(self, slot: int, pid: int | None, status: str) -> None:
        super().__init__(slot, pid, status)  # the args rebuild it when Ray unpickles it
        self.slot, self.pid, self.status = slot, pid, status

    def __str__(self) -> str:
        return f"env {self.slot} of the actor (pid {self.pid}): {self.status}"


class EnvRunner:
    """The envs ``first .. first + len(env_fns) - 1`` of a VecEnv, in one actor.

    :param env_fns: picklable callables that make an env (e.g. ``EnvFactory``).
    :param start_method: how the actor starts worker processes (for more than one env).
    """

    def __init__(self, env_fns: Sequence[Callable[[], Any]], start_method: str) -> None:
        self.n = len(env_fns)
        self.host: EnvHost | None = None
        self.pool: WorkerPool | None = None
        if self.n == 1:
            self.host = EnvHost(env_fns[0])
        else:
            self.pool = WorkerPool(env_fns, start_method)
        self._slots = list(range(self.n))

    # ---------------------------------------------------------------------------- queries
    def where(self) -> dict[str, Any]:
        """Where the actor and its envs run: ``pid``, ``host`` and the envs' ``env_pids``."""
        pids = [p.pid for p in self.pool.processes] if self.pool is not None else [os.getpid()]
        return {"pid": os.getpid(), "host": socket.gethostname(), "env_pids": pids}

    # --------------------------------------------------------------------------- commands
    def call(self, cmd: str, slots: Sequence[int], datas: Sequence[Any]) -> list[Any]:
        """Command ``cmd`` to the envs ``slots`` (``datas[j]`` to ``slots[j]``); their replies."""
        if self.host is not None:
            try:
                return [self.host.handle(cmd, data) for data in datas]
            except Exception as exc:
                if cmd in ("step", "reset"):  # the env failed; queries raise as they are
                    raise EnvFailure(
                        0, os.getpid(), f"its env raised {type(exc).__name__}: {exc}"
                    ) from exc
                raise
        assert self.pool is not None
        try:
            return self.pool.request(slots, cmd, datas)
        except _PIPE_ERRORS as exc:
            i = first_dead(self.pool.processes)
            if i is None:
                raise
            proc = self.pool.processes[i]
            raise EnvFailure(i, proc.pid, exit_status(proc.exitcode)) from exc

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        """Step every env: ``(obs, rewards, dones, infos, reset_infos)``, the first three as
        arrays over the actor's envs (float32 rewards, bool dones)."""
        replies = self.call("step", self._slots, list(actions))
        obs, rewards, dones, infos, reset_infos = zip(*replies, strict=True)
        return (
            stack_obs(obs),
            np.asarray(rewards, dtype=np.float32),
            np.asarray(dones, dtype=bool),
            list(infos),
            list(reset_infos),
        )

    def reset(self, seeds_options: Sequence[tuple[int | None, Any]]) -> tuple[Any, ...]:
        """Reset every env with its ``(seed, options)``: ``(obs, reset_infos)``."""
        replies = self.call("reset", self._slots, list(seeds_options))
        obs, reset_infos = zip(*replies, strict=True)
        return stack_obs(obs), list(reset_infos)

    def close(self) -> None:
        """Close the envs (and the actor's worker processes)."""
        if self.host is not None:
            self.host.close()
        if self.pool is not None:
            self.pool.close(timeout=10.0)
