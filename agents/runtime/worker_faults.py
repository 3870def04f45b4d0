"""What happens when an env worker process dies: a report naming the env, and stop or restart.

(Evaluation runs episodes in a process pool instead;
:mod:`leogym.agents.runtime.subproc_worker` names the episode whose worker died, for
:mod:`leogym.agents.evaluate`, and its functions are re-exported here.)

A worker of a subprocess VecEnv can die: killed (SIGKILL from the OOM killer or a cluster's
scheduler), crashed (SIGSEGV), or ended by an exception in the env (exit code 1, traceback on
the worker's stderr). SB3's ``SubprocVecEnv`` and Gymnasium's ``AsyncVectorEnv`` then raise a
bare ``EOFError`` / ``BrokenPipeError`` that names neither the worker nor its env.
:class:`WorkerFaultWrapper` turns that into a :class:`WorkerDiedError` naming the worker's
index, pid, exit status, env id, kwargs, scenario and seed, and then, as configured:

``stop``
    raise the error (the trainer saves a checkpoint first; see :mod:`leogym.agents.train`);
``restart``
    log the error, replace the whole VecEnv with a fresh one (reseeded deterministically),
    end every env's current episode as truncated (``TimeLimit.truncated``, with its
    ``terminal_observation``) and carry on; after ``max_restarts`` deaths it stops as above.

The wrapper finds the dead worker in one of two ways. A VecEnv of local processes (SB3's
``SubprocVecEnv``, :class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv`) exposes them as
``.processes``, and a pipe error sends the wrapper looking for the one that has exited. A
VecEnv whose workers live elsewhere (:class:`~leogym.agents.runtime.ray_vecenv.RayVecEnv`)
raises :class:`WorkerLostError` itself, naming the worker (a :class:`LostWorker`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvWrapper

from leogym.agents.runtime.subproc_worker import (
    dead_worker_keys,
    exit_status,
    first_dead,
    init_tracked_worker,
    run_tracked,
)

__all__ = [
    "ON_WORKER_DEATH",
    "LostWorker",
    "WorkerDiedError",
    "WorkerLostError",
    "WorkerFaultWrapper",
    "dead_worker_keys",
    "exit_status",
    "init_tracked_worker",
    "run_tracked",
]

log = logging.getLogger("leogym.agents.runtime.worker_faults")

#: The choices of ``train.on_worker_death``.
ON_WORKER_DEATH = ("stop", "restart")
#: What a dead pipe raises in the parent (the worker's end of the pipe is gone).
PIPE_ERRORS = (EOFError, BrokenPipeError, ConnectionResetError, OSError)
#: Seeds of restarted VecEnvs: ``seed + RESEED_STRIDE * restarts + i``.
RESEED_STRIDE = 100_003


class WorkerDiedError(RuntimeError):
    """An env worker process died.

    :param index: the env's index in the VecEnv.
    :param pid: the worker's process id.
    :param exitcode: ``multiprocessing`` exit code (negative: killed by that signal).
    :param env: a description of the env (id, kwargs, scenario), e.g. an ``EnvFactory``.
    :param seed: the env's seed at the VecEnv's last ``reset`` (``None`` if never seeded).
    :param during: what the VecEnv was doing (``step``, ``reset``, ...).
    :param steps: the env's steps since that reset.
    :param episodes: the env's episodes completed since that reset (later episodes continue
        its random stream, as Gymnasium's auto-reset does).
    :param worker: where the worker ran (default ``pid <pid>``), e.g. ``Ray actor 1, pid 4242
        on 10.0.0.3``.
    :param status: why it ended (default: from ``exitcode``, e.g. ``killed by SIGKILL``).
    :param cohort: ``(index, seed)`` of the other envs that ran in the same worker and were
        lost with it.
    """

    def __init__(
        self,
        index: int,
        pid: int | None,
        exitcode: int | None,
        env: Any,
        seed: int | None,
        during: str,
        steps: int,
        episodes: int,
        *,
        worker: str | None = None,
        status: str | None = None,
        cohort: tuple[tuple[int, int | None], ...] = (),
    ) -> None:
        self.index, self.pid, self.exitcode = index, pid, exitcode
        self.env, self.seed, self.during = env, seed, during
        self.steps, self.episodes = steps, episodes
        self.cohort = cohort
        self.status = status if status is not None else exit_status(exitcode)
        where = worker if worker is not None else f"pid {pid}"
        also = ""
        if cohort:
            others = ", ".join(f"env {i} (seeded {s})" for i, s in cohort)
            also = f" The same worker also ran {others}, lost with it."
        super().__init__(
            f"env worker {index} ({where}) died during {during} ({self.status}); "
            f"its env: {_describe(env)}; seeded {seed} at the VecEnv's last reset, then "
            f"{episodes} complete episodes and {steps} steps.{also}"
            + (
                " An exit code of 1 means the env raised: its traceback is on the worker's stderr."
                if self.status == "exit code 1"
                else ""
            )
        )

    @property
    def indices(self) -> tuple[int, ...]:
        """Every env lost with the worker, this one first."""
        return (self.index, *(i for i, _ in self.cohort))


@dataclass(frozen=True)
class LostWorker:
    """A worker that a VecEnv knows to be gone (see :class:`WorkerLostError`).

    :param envs: the indices of the envs it ran, the one to report first.
    :param pid: its process id, where known.
    :param status: why it ended, e.g. ``killed by SIGKILL`` or ``its env raised ValueError: ...``.
    :param worker: where it ran, e.g. ``Ray actor 1, pid 4242 on 10.0.0.3``.
    """

    envs: tuple[int, ...]
    pid: int | None
    status: str
    worker: str


class WorkerLostError(RuntimeError):
    """Raised by a VecEnv that knows which of its workers is gone;
    :class:`WorkerFaultWrapper` reports it as a :class:`WorkerDiedError`.

    :param lost: the worker.
    """

    def __init__(self, lost: LostWorker) -> None:
        self.lost = lost
        super().__init__(f"{lost.worker} ran envs {list(lost.envs)} and is gone ({lost.status})")


#: What the wrapper takes for a dead worker (it then finds out which one it was).
DEATH_ERRORS = (*PIPE_ERRORS, WorkerLostError)


def _describe(env: Any) -> str:
    env_id = getattr(env, "env_id", None)
    if env_id is None:
        return repr(env)
    kwargs = dict(getattr(env, "kwargs", {}) or {})
    scenario = getattr(env, "scenario", None)
    if isinstance(scenario, dict):
        scenario = scenario.get("name", "<mapping>")
    elif scenario is not None and not isinstance(scenario, str):
        scenario = getattr(scenario, "name", type(scenario).__name__)
    return f"{env_id} kwargs={kwargs} scenario={scenario!r}"


def _env_obs(obs: VecEnvObs, i: int) -> Any:
    """Env ``i``'s part of a batch of observations (an array, or a dict or tuple of them)."""
    if isinstance(obs, dict):
        return {k: v[i] for k, v in obs.items()}
    if isinstance(obs, tuple):
        return tuple(v[i] for v in obs)
    return obs[i]


class WorkerFaultWrapper(VecEnvWrapper):
    """Report (and optionally survive) the death of a worker of a subprocess or Ray VecEnv.

    :param make: builds the VecEnv (called again on a restart). The VecEnv must expose its
        worker processes as ``.processes`` (SB3's ``SubprocVecEnv`` and
        :class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv` do), or raise
        :class:`WorkerLostError` naming a lost worker
        (:class:`~leogym.agents.runtime.ray_vecenv.RayVecEnv` does).
    :param envs: one description per env (e.g. its ``EnvFactory``), named in reports; or one
        per group of as many consecutive envs (a multi-agent env's agents, each a VecEnv slot).
    :param on_death: ``stop`` or ``restart`` (see the module docstring).
    :param max_restarts: deaths survived before stopping anyway.
    """

    def __init__(
        self,
        make: Callable[[], VecEnv],
        envs: list[Any],
        on_death: str = "stop",
        max_restarts: int = 3,
    ) -> None:
        if on_death not in ON_WORKER_DEATH:
            raise ValueError(f"on_death: must be one of {ON_WORKER_DEATH} (got {on_death!r})")
        self._make = make
        self._envs = list(envs)
        self.on_death = on_death
        self.max_restarts = int(max_restarts)
        self.restarts = 0
        self.deaths: list[WorkerDiedError] = []
        self._base_seed: int | None = None
        self._last_obs: VecEnvObs | None = None
        self._pending: BaseException | None = None
        super().__init__(make())
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._episodes = np.zeros(self.num_envs, dtype=np.int64)

    # ------------------------------------------------------------------------------ VecEnv
    def seed(self, seed: int | None = None) -> Any:
        self._base_seed = seed
        return self.venv.seed(seed)

    def reset(self) -> VecEnvObs:
        try:
            obs = self.venv.reset()
        except DEATH_ERRORS as exc:
            err = self._death(exc, "reset")
            self._handle(err)
            obs = self._restart()
        self._steps[:] = 0
        self._episodes[:] = 0
        self._last_obs = obs
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._pending = None
        try:
            self.venv.step_async(actions)
        except DEATH_ERRORS as exc:
            self._pending = exc

    def step_wait(self) -> Any:
        try:
            if self._pending is not None:
                raise self._pending
            obs, rewards, dones, infos = self.venv.step_wait()
        except DEATH_ERRORS as exc:
            self._pending = None
            err = self._death(exc, "step")
            self._handle(err)
            return self._restarted_step(err)
        self._steps += 1
        self._episodes += np.asarray(dones, dtype=bool)
        self._last_obs = obs
        return obs, rewards, dones, infos

    def close(self) -> None:
        self._drain()
        try:
            self.venv.close()
        except PIPE_ERRORS:
            # SB3's SubprocVecEnv stops at the first dead pipe, before telling the rest to
            # close or joining any worker: do both here, so no worker outlives the VecEnv.
            for remote in getattr(self.venv, "remotes", []):
                try:
                    remote.send(("close", None))
                except PIPE_ERRORS:
                    pass
            for proc in getattr(self.venv, "processes", []):
                proc.join(timeout=5.0)
                if proc.is_alive():
                    proc.terminate()
                    proc.join(timeout=5.0)
            self.venv.closed = True  # type: ignore[attr-defined]  # SubprocVecEnv's flag

    def _drain(self) -> None:
        """Read the replies live workers may still owe, then mark the VecEnv idle.

        A step that failed half-way has read some workers' replies and not others, yet the
        VecEnv still thinks it is waiting: its ``close()`` would then block forever in
        ``recv()`` on a worker that has already answered.
        """
        if not getattr(self.venv, "waiting", False):
            return
        for remote in getattr(self.venv, "remotes", []):
            try:
                if remote.poll(0.5):
                    remote.recv()
            except PIPE_ERRORS:
                pass
        self.venv.waiting = False  # type: ignore[attr-defined]  # SubprocVecEnv's flag

    # --------------------------------------------------------------------------- internals
    def _env_of(self, i: int) -> Any:
        """The description of env ``i`` (of its group of slots), if given."""
        per = max(1, self.num_envs // max(1, len(self._envs)))
        return self._envs[i // per] if i // per < len(self._envs) else None

    def _worker_seed(self, i: int) -> int | None:
        if self._base_seed is None:
            return None
        return int(self._base_seed) + RESEED_STRIDE * self.restarts + i

    def _death(self, exc: BaseException, during: str) -> WorkerDiedError:
        if isinstance(exc, WorkerLostError):  # the VecEnv says which worker it was
            lost = exc.lost
            i = lost.envs[0]
            err = WorkerDiedError(
                i,
                lost.pid,
                None,
                self._env_of(i),
                self._worker_seed(i),
                during,
                int(self._steps[i]),
                int(self._episodes[i]),
                worker=lost.worker,
                status=lost.status,
                cohort=tuple((j, self._worker_seed(j)) for j in lost.envs[1:]),
            )
            err.__cause__ = exc
            self.deaths.append(err)
            return err
        processes = list(getattr(self.venv, "processes", []))
        found = first_dead(processes)
        if found is None:  # a pipe error with every worker alive: not ours to explain
            raise exc
        i = found
        err = WorkerDiedError(
            i,
            processes[i].pid,
            processes[i].exitcode,
            self._env_of(i),
            self._worker_seed(i),
            during,
            int(self._steps[i]),
            int(self._episodes[i]),
        )
        err.__cause__ = exc
        self.deaths.append(err)
        return err

    def _handle(self, err: WorkerDiedError) -> None:
        if self.on_death == "stop" or self.restarts >= self.max_restarts:
            log.error("%s", err)
            self.close()
            raise err
        log.error(
            "%s -- restarting the VecEnv (restart %d of at most %d); every env's "
            "current episode ends as truncated",
            err,
            self.restarts + 1,
            self.max_restarts,
        )

    def _restart(self) -> VecEnvObs:
        self.close()
        self.restarts += 1
        self.venv = self._make()
        if self._base_seed is not None:
            self.venv.seed(int(self._base_seed) + RESEED_STRIDE * self.restarts)
        return self.venv.reset()

    def _restarted_step(self, err: WorkerDiedError) -> Any:
        last = self._last_obs
        obs = self._restart()
        n = self.num_envs
        infos = []
        for i in range(n):
            info: dict[str, Any] = {"TimeLimit.truncated": True}
            if last is not None:
                info["terminal_observation"] = _env_obs(last, i)
            if i in err.indices:
                info["worker_died"] = str(err)
            infos.append(info)
        self._steps[:] = 0
        self._episodes[:] = 0
        self._last_obs = obs
        return obs, np.zeros(n, dtype=np.float32), np.ones(n, dtype=bool), infos
