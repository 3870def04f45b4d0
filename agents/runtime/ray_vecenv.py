"""A VecEnv for SB3 whose workers are Ray actors, on one machine or across a cluster.

Usable wherever SB3 takes a VecEnv, exactly like ``SubprocVecEnv`` (``leogym-train
train.vec_env=ray``). The ``n`` envs are split into actors of ``envs_per_actor`` consecutive
envs (:class:`~leogym.agents.runtime.env_runner.EnvRunner`; the last actor may hold fewer). A
step is one remote call per actor carrying all its envs' actions, all calls in flight at once
and collected with one ``ray.get``; the actor steps its envs in parallel (each env is one ns-3
simulator in a process of its own).

Guarantees, as the local :class:`~leogym.agents.runtime.vecenv.LeoSubprocVecEnv`:

* env ``i`` is seeded ``seed + i`` (``VecEnv.seed``), whatever actor it lands in, so a fixed
  seed and env count give the same trajectories as the local VecEnv, bit for bit;
* auto-reset, ``terminal_observation`` and ``TimeLimit.truncated`` are the same code
  (:class:`~leogym.agents.runtime.subproc_worker.EnvHost`);
* a lost worker (the actor's process killed or crashed, its node gone, an env process of the
  actor dead, or an env raising) is raised as
  :class:`~leogym.agents.runtime.worker_faults.WorkerLostError` naming the actor, its pid, host
  and envs, which :class:`~leogym.agents.runtime.worker_faults.WorkerFaultWrapper` reports with
  the env and its seed and then stops or restarts (``train.on_worker_death``).

The Ray instance itself (local or a cluster) is set up by
:mod:`leogym.agents.runtime.ray_support`; closing the VecEnv ends its actors, not Ray.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from leogym.agents.runtime import ray_support
from leogym.agents.runtime.env_runner import EnvFailure, EnvRunner
from leogym.agents.runtime.worker_faults import LostWorker, WorkerLostError
from leogym.schema import FieldError

__all__ = ["RayVecEnv", "actor_slices"]

log = logging.getLogger("leogym.agents.runtime.ray_vecenv")


def actor_slices(n_envs: int, envs_per_actor: int) -> list[tuple[int, int]]:
    """``[(first, stop), ...]``: the envs of each actor, ``envs_per_actor`` consecutive envs
    each (the last actor takes the rest)."""
    if n_envs < 1 or envs_per_actor < 1:
        raise ValueError(
            f"need n_envs >= 1 and envs_per_actor >= 1 (got {n_envs}, {envs_per_actor})"
        )
    return [(a, min(a + envs_per_actor, n_envs)) for a in range(0, n_envs, envs_per_actor)]


class RayVecEnv(VecEnv):
    """Envs in Ray actors, ``envs_per_actor`` to an actor.

    :param env_fns: picklable callables that make an env (e.g. ``EnvFactory``); every node that
        runs an actor must be able to import what they need (leogym installed there).
    :param envs_per_actor: envs per actor (one remote call per actor and step).
    :param cpus_per_env: Ray CPUs each env reserves (an actor: ``cpus_per_env`` x its envs).
    :param start_method: how an actor with several envs starts their processes.
    :param start_timeout_s: how long the actors may take to start (a cluster short of CPUs
        keeps them waiting); then :class:`RuntimeError` says what they asked for.
    :param options: the :class:`~leogym.agents.config.RayConfig` used to start Ray if this
        process is not connected yet (``None``: a local instance).
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        *,
        envs_per_actor: int = 1,
        cpus_per_env: float = 1.0,
        start_method: str = "forkserver",
        start_timeout_s: float = 300.0,
        options: Any = None,
    ) -> None:
        ray = ray_support.import_ray("RayVecEnv (train.vec_env=ray)")
        ray_support.init(options)
        self._ray = ray
        self.waiting = False
        self.closed = False
        self.slices = actor_slices(len(env_fns), envs_per_actor)
        need = cpus_per_env * len(env_fns)
        have = ray_support.local_cpus()
        if have is not None and need > have:
            raise FieldError(
                "ray.num_cpus",
                f"{len(env_fns)} envs at ray.cpus_per_env={cpus_per_env:g} need {need:g} CPUs; "
                f"the local Ray instance has {have:g} (raise ray.num_cpus, lower "
                "ray.cpus_per_env, or use fewer envs)",
            )
        actor_class = ray.remote(EnvRunner)
        self.actors: list[Any] = []
        self._refs: list[Any] = []
        try:
            for first, stop in self.slices:
                self.actors.append(
                    actor_class.options(
                        num_cpus=cpus_per_env * (stop - first), max_restarts=0
                    ).remote(list(env_fns[first:stop]), start_method)
                )
            try:
                self.where: list[dict[str, Any]] = ray.get(
                    [a.where.remote() for a in self.actors], timeout=start_timeout_s
                )
            except ray.exceptions.GetTimeoutError as exc:
                raise RuntimeError(
                    f"{len(self.actors)} Ray actors ({need:g} CPUs in all, "
                    f"{cpus_per_env * envs_per_actor:g} each) did not start within "
                    f"{start_timeout_s:g} s (ray.start_timeout_s): the cluster has "
                    f"{ray.cluster_resources().get('CPU', 0):g} CPUs, "
                    f"{ray.available_resources().get('CPU', 0):g} free"
                ) from exc
            observation_space, action_space = ray.get(
                self.actors[0].call.remote("spaces", [0], [None])
            )[0]
        except BaseException:
            self._kill_actors()
            raise
        super().__init__(len(env_fns), observation_space, action_space)

    # ----------------------------------------------------------------------------- stepping
    def step_async(self, actions: np.ndarray) -> None:
        self._refs = [
            actor.step.remote(actions[first:stop])
            for actor, (first, stop) in zip(self.actors, self.slices, strict=True)
        ]
        self.waiting = True

    def step_wait(self) -> Any:
        results = self._gather(self._refs)
        self._refs = []
        self.waiting = False
        obs, rewards, dones, infos, reset_infos = zip(*results, strict=True)
        self.reset_infos = [r for part in reset_infos for r in part]
        return (
            np.concatenate(obs),
            np.concatenate(rewards),
            np.concatenate(dones),
            [i for part in infos for i in part],
        )

    def reset(self) -> np.ndarray:
        refs = [
            actor.reset.remote([(self._seeds[i], self._options[i]) for i in range(first, stop)])
            for actor, (first, stop) in zip(self.actors, self.slices, strict=True)
        ]
        results = self._gather(refs)
        obs, reset_infos = zip(*results, strict=True)
        self.reset_infos = [r for part in reset_infos for r in part]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def _gather(self, refs: list[Any]) -> list[Any]:
        """``ray.get(refs)``; a lost worker becomes :class:`WorkerLostError` naming it."""
        try:
            return list(self._ray.get(refs))
        except (self._ray.exceptions.RayActorError, self._ray.exceptions.RayTaskError) as exc:
            self.waiting = False
            raise WorkerLostError(self._lost(refs, exc)) from exc

    def _lost(self, refs: list[Any], exc: BaseException) -> LostWorker:
        """Which actor failed (the first in env order whose reply is an error), and how."""
        errors = self._ray.exceptions
        a, err = 0, exc
        for k, ref in enumerate(refs):
            try:
                self._ray.get(ref, timeout=30)
            except errors.GetTimeoutError:
                continue
            except (errors.RayActorError, errors.RayTaskError) as e:
                a, err = k, e
                break
        first, stop = self.slices[a]
        where = self.where[a]
        actor = f"Ray actor {a}, pid {where['pid']} on {where['host']}"
        cause = getattr(err, "cause", None)
        if isinstance(cause, EnvFailure):
            envs: tuple[int, ...] = (first + cause.slot,)
            if self.slices[a][1] - first > 1:  # an env process of the actor
                actor = f"a process of Ray actor {a}, pid {cause.pid} on {where['host']}"
            return LostWorker(envs, cause.pid, cause.status, actor)
        envs = tuple(range(first, stop))
        if isinstance(err, errors.RayActorError):
            return LostWorker(envs, where["pid"], _actor_death(err), actor)
        return LostWorker(envs, where["pid"], f"the actor raised {_first_line(err)}", actor)

    # ------------------------------------------------------------------------------ closing
    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.waiting = False
        self._refs = []
        if not self._ray.is_initialized():
            return
        try:  # let the actors close their envs, briefly; then end them either way
            self._ray.wait(
                [a.close.remote() for a in self.actors],
                num_returns=len(self.actors),
                timeout=10.0,
            )
        except Exception:  # noqa: BLE001 - a dead actor or a dying Ray: nothing to close
            pass
        self._kill_actors()

    def _kill_actors(self) -> None:
        for actor in self.actors:
            try:
                self._ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already dead, or Ray is going down
                pass

    # ---------------------------------------------------------------------------- attributes
    def _call(self, cmd: str, indices: None | int | Iterable[int], datas: Any) -> list[Any]:
        """Command ``cmd`` with ``datas`` to the envs ``indices`` (one call per actor); their
        replies in order."""
        wanted = list(self._get_indices(indices))
        by_actor: dict[int, list[int]] = {}
        for i in wanted:
            a = next(k for k, (first, stop) in enumerate(self.slices) if first <= i < stop)
            by_actor.setdefault(a, []).append(i)
        refs = {
            a: self.actors[a].call.remote(
                cmd, [i - self.slices[a][0] for i in envs], [datas for _ in envs]
            )
            for a, envs in by_actor.items()
        }
        replies = {a: self._ray.get(ref) for a, ref in refs.items()}
        out: dict[int, Any] = {}
        for a, envs in by_actor.items():
            out.update(zip(envs, replies[a], strict=True))
        return [out[i] for i in wanted]

    def get_attr(self, attr_name: str, indices: None | int | Iterable[int] = None) -> list[Any]:
        return self._call("get_attr", indices, attr_name)

    def set_attr(
        self, attr_name: str, value: Any, indices: None | int | Iterable[int] = None
    ) -> None:
        self._call("set_attr", indices, (attr_name, value))

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: None | int | Iterable[int] = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        return self._call("env_method", indices, (method_name, method_args, method_kwargs))

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: None | int | Iterable[int] = None
    ) -> list[bool]:
        return self._call("is_wrapped", indices, wrapper_class)

    def get_images(self) -> Sequence[np.ndarray | None]:
        return self._call("render", None, None)


def _first_line(err: BaseException) -> str:
    cause = getattr(err, "cause", None) or err
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}"


def _actor_death(err: BaseException) -> str:
    """Ray's account of an actor's death, in one line (its process killed or crashed, its
    node gone)."""
    text = " ".join(str(err).split())
    detail = re.search(
        r"[Ee]xit detail: (.*?)(?= Some common causes| There are some| If the process|$)", text
    )
    if detail:
        return f"its process ended: {detail.group(1).strip()}"
    return f"its process ended: {text[:300]}"
