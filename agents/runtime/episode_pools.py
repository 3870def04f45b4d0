"""The two pools that run ``leogym-eval``'s episodes for its supervisor (``_run_pending`` in
:mod:`leogym.agents.evaluate`): worker processes of this machine
(:class:`LocalEpisodes`, ``eval.backend=subproc``) or Ray tasks (:class:`RayEpisodes`,
``eval.backend=ray``). Both answer the same four calls (``submit``, ``wait``, ``cancel``, and
entering and leaving a ``with``), and report each ended episode as an :data:`Outcome`, so that
one supervisor and one stop policy serve both.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from leogym.agents.config import ConfigError
from leogym.agents.runtime.rollout import EpisodeTask, run_task

__all__ = ["LocalEpisodes", "Outcome", "RayEpisodes"]

#: What became of an episode in a pool: ``done`` (value: its results row), ``failed`` (the
#: exception it raised), ``died`` (where its worker ran: the worker died while running it) or
#: ``retry`` (interrupted by another episode's dead worker; it runs again).
Outcome = tuple[Any, str, Any]


class LocalEpisodes:
    """Episodes in a pool of worker processes on this machine (``eval.backend=subproc``).

    Python's pool turns one dead worker into a failure of every episode in flight and cannot
    say which one's worker died; each episode therefore leaves a marker naming its worker's pid
    while it runs (:func:`~leogym.agents.runtime.subproc_worker.run_tracked`). After a death
    the episodes whose worker died are ``died``, the others ``retry``, in a fresh pool.
    """

    def __init__(self, n_workers: int, start_method: str, markers: Path, n_tasks: int) -> None:
        self.n_workers = n_workers
        self.capacity = 2 * n_workers  # at most 2 tasks per worker in flight: little lost
        self._ctx = multiprocessing.get_context(start_method)
        self._markers = markers
        self._left = n_tasks
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalEpisodes:
        from leogym.agents.runtime.subproc_worker import dead_worker_keys

        self._markers.mkdir(parents=True, exist_ok=True)
        dead_worker_keys(self._markers)  # stale markers of an earlier, killed invocation
        return self

    def __exit__(self, *exc: object) -> None:
        self._shutdown()

    def _shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def submit(self, t: EpisodeTask) -> Future[dict[str, Any]]:
        """Start episode ``t``; its handle."""
        from leogym.agents.runtime.subproc_worker import (  # light: no SB3 in the workers
            init_tracked_worker,
            run_tracked,
        )

        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=max(1, min(self.n_workers, self._left)),
                mp_context=self._ctx,
                initializer=init_tracked_worker,
                initargs=(str(self._markers), os.getpid()),  # workers end with this process
            )
        return self._pool.submit(run_tracked, run_task, t)

    def wait(self, running: dict[Any, EpisodeTask]) -> tuple[list[Outcome], int]:
        """Wait for an episode to end: the outcomes, and the number of worker deaths (0/1)."""
        from concurrent.futures.process import BrokenProcessPool

        from leogym.agents.runtime.subproc_worker import dead_worker_keys

        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        if not any(isinstance(f.exception(), BrokenProcessPool) for f in finished):
            outcomes: list[Outcome] = []
            for fut in finished:
                try:
                    outcomes.append((fut, "done", fut.result()))
                except Exception as exc:  # noqa: BLE001 - reported together at the end
                    outcomes.append((fut, "failed", exc))
            self._left -= len(outcomes)
            return outcomes, 0
        # A worker died (killed, crashed): the pool is broken and every episode in flight
        # failed with it; the markers left say whose worker it was.
        self._shutdown()
        dead = dead_worker_keys(self._markers)
        outcomes = [
            (fut, "died", f"pid {dead[t.key]}") if t.key in dead else (fut, "retry", None)
            for fut, t in running.items()
        ]
        self._left -= sum(kind == "died" for _, kind, _ in outcomes)
        return outcomes, 1

    def cancel(self, running: dict[Any, EpisodeTask]) -> None:
        """Cancel the episodes not started yet (the pool's exit waits for the rest)."""
        for fut in running:
            fut.cancel()


class RayEpisodes:
    """Episodes as Ray tasks (``eval.backend=ray``) on ``ray.cpus_per_env`` CPUs each,
    ``n_workers`` in flight, on a local instance or the cluster at ``ray.address``. Ray knows
    which task's worker died: that episode alone is ``died`` (never retried)."""

    def __init__(self, n_workers: int, options: Any) -> None:
        from leogym.agents.runtime import ray_support

        try:
            self.ray = ray_support.import_ray("'ray'")
        except ray_support.RayUnavailableError as exc:
            raise ConfigError("eval.backend", str(exc)) from exc
        self.capacity = n_workers
        self._options = options
        self._session: Any = None
        self._episode: Any = None

    def __enter__(self) -> RayEpisodes:
        from leogym.agents.runtime import ray_support
        from leogym.agents.runtime.rollout import run_task_on_ray

        self._session = ray_support.session(self._options)
        self._session.__enter__()
        self._episode = self.ray.remote(run_task_on_ray).options(
            num_cpus=float(getattr(self._options, "cpus_per_env", 1.0)), max_retries=0
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self._session.__exit__(*exc)

    def submit(self, t: EpisodeTask) -> Any:
        """Start episode ``t``; its handle (an object ref)."""
        return self._episode.remote(t)

    def wait(self, running: dict[Any, EpisodeTask]) -> tuple[list[Outcome], int]:
        """Wait for an episode to end: the outcomes, and the number of worker deaths."""
        ray = self.ray
        finished, _ = ray.wait(list(running), num_returns=1)
        outcomes: list[Outcome] = []
        for ref in finished:
            try:
                outcomes.append((ref, "done", ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:  # the episode raised
                outcomes.append((ref, "failed", exc.cause or exc))
            except ray.exceptions.RayError as exc:  # its worker or node is gone
                outcomes.append((ref, "died", f"a Ray worker: {type(exc).__name__}"))
        return outcomes, sum(kind == "died" for _, kind, _ in outcomes)

    def cancel(self, running: dict[Any, EpisodeTask]) -> None:
        """Cancel the episodes in flight."""
        for ref in running:
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001, S110 - already finished or Ray is going down
                pass
