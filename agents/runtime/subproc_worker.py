"""Env worker processes: the loop a worker runs, the commands it serves, and the parent's pool.

Used by :class:`leogym.agents.runtime.vecenv.LeoSubprocVecEnv` (one worker process per env) and
by the Ray actors of :class:`leogym.agents.runtime.ray_vecenv.RayVecEnv` (an actor with several
envs runs them as worker processes of its own). Kept in a module that imports neither SB3 nor
torch, so a worker, or a Ray actor, starts in well under a second: it only needs NumPy,
Gymnasium and leogym's envs.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from leogym.agents.runtime.agents_env import AgentsAsOneEnv, is_parallel_env

__all__ = [
    "EnvHost",
    "WorkerPool",
    "dead_worker_keys",
    "exit_status",
    "exit_with_parent",
    "first_dead",
    "init_tracked_worker",
    "run_tracked",
    "stack_obs",
    "worker",
]

#: Exit status of a worker that ended because its app's process was gone (128 + SIGHUP, as a
#: shell reports a process ended by a hang-up).
ORPHAN_EXIT = 128 + signal.SIGHUP
#: How often the fallback watch (no ``pidfd_open``) looks at the app's process.
PARENT_POLL_S = 0.2


def stack_obs(obs: Sequence[Any]) -> np.ndarray:
    """One batch of the envs' observations (leogym's envs have ``Box`` observations)."""
    return np.stack([np.asarray(o) for o in obs])


def exit_status(exitcode: int | None) -> str:
    """``-9`` -> ``"killed by SIGKILL"``, ``1`` -> ``"exit code 1"``."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def first_dead(processes: Sequence[Any], wait_s: float = 2.0) -> int | None:
    """The index of the first of ``processes`` that has exited, waiting up to ``wait_s`` for
    one to be reaped (a pipe error can come before the exit status); ``None`` if none has."""
    deadline = time.monotonic() + wait_s
    while True:
        dead = [i for i, proc in enumerate(processes) if proc.exitcode is not None]
        if dead:
            return dead[0]
        if time.monotonic() > deadline:
            return None
        time.sleep(0.02)


def _wait_for_exit(pid: int) -> None:
    """Return once process ``pid`` has ended (at once if it has already)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:  # Linux >= 5.3: the kernel wakes us, no polling
        try:
            fd = pidfd_open(pid)
        except ProcessLookupError:
            return
        except OSError:  # e.g. seccomp forbids it: fall back to polling
            pass
        else:
            try:
                select.select([fd], [], [])
            finally:
                os.close(fd)
            return
    while True:  # elsewhere: look every PARENT_POLL_S
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:  # alive, owned by someone else
            pass
        time.sleep(PARENT_POLL_S)


def exit_with_parent(parent_pid: int) -> None:
    """End this worker process as soon as process ``parent_pid`` (the app that started it)
    ends, however it ends (SIGKILL included).

    A daemon thread waits for that process and then calls ``os._exit(ORPHAN_EXIT)``: no
    cleanup runs, as the app that would use the worker's results is gone. The wait is a
    ``pidfd`` where the OS has one, else a poll every ``PARENT_POLL_S``. The simulation core
    releases the GIL while it runs, so the thread acts within milliseconds even mid-episode.
    Watching the app itself (not the OS parent, which is the forkserver under ``forkserver``)
    works the same under every start method. Call it first thing in the worker.

    :param parent_pid: the app's process id, taken in the app (``os.getpid()``) and passed down.
    """

    def watch() -> None:
        _wait_for_exit(parent_pid)
        try:
            print(
                f"leogym worker {os.getpid()}: its app (pid {parent_pid}) is gone; exiting",
                file=sys.stderr,
                flush=True,
            )
        except (OSError, ValueError):  # stderr is closed or a broken pipe
            pass
        os._exit(ORPHAN_EXIT)

    threading.Thread(target=watch, name="leogym-parent-watch", daemon=True).start()


class EnvHost:
    """One env and the commands that drive it (the SB3 VecEnv contract, env side).

    Commands (``name``, ``data``) and replies:

    * ``step`` action -> ``(obs, reward, done, info, reset_info)``; at the end of an episode the
      env is reset at once: ``info["terminal_observation"]`` holds the last observation,
      ``info["TimeLimit.truncated"]`` says whether it was a truncation, and ``obs`` is the first
      observation of the next episode.
    * ``reset`` ``(seed, options)`` -> ``(obs, reset_info)``
    * ``spaces`` -> ``(observation_space, action_space)``
    * ``get_attr`` name, ``set_attr`` ``(name, value)``, ``env_method`` ``(name, args, kwargs)``,
      ``is_wrapped`` wrapper class, ``render``.

    A PettingZoo ``ParallelEnv`` is served as one env whose values are its agents' values,
    stacked (:class:`~leogym.agents.runtime.agents_env.AgentsAsOneEnv`).

    :param make_env: makes the env (e.g. an ``EnvFactory`` or a ``MultiAgentEnvFactory``).
    """

    def __init__(self, make_env: Callable[[], Any]) -> None:
        env = make_env()
        self.env = AgentsAsOneEnv(env) if is_parallel_env(env) else env
        self.reset_info: dict[str, Any] = {}

    def handle(self, cmd: str, data: Any) -> Any:
        """Run one command and return its reply; an exception of the env propagates."""
        env = self.env
        if cmd == "step":
            obs, reward, terminated, truncated, info = env.step(data)
            done = bool(terminated or truncated)
            info["TimeLimit.truncated"] = bool(truncated and not terminated)
            if done:
                info["terminal_observation"] = obs
                obs, self.reset_info = env.reset()
            return obs, reward, done, info, self.reset_info
        if cmd == "reset":
            seed, options = data
            obs, self.reset_info = env.reset(seed=seed, options=options)
            return obs, self.reset_info
        if cmd == "spaces":
            return env.observation_space, env.action_space
        if cmd == "get_attr":
            return env.get_wrapper_attr(data)
        if cmd == "set_attr":
            name, value = data
            setattr(env.unwrapped, name, value)
            return None
        if cmd == "env_method":
            name, args, kwargs = data
            return env.get_wrapper_attr(name)(*args, **kwargs)
        if cmd == "is_wrapped":
            current, found = env, False
            while hasattr(current, "env") and not found:
                found = isinstance(current, data)
                current = current.env
            return found
        if cmd == "render":
            return env.render()
        raise NotImplementedError(f"unknown worker command {cmd!r}")

    def close(self) -> None:
        """Close the env (idempotent)."""
        self.env.close()


def worker(
    remote: Connection,
    parent_remote: Connection,
    make_env: Callable[[], Any],
    parent_pid: int | None = None,
) -> None:
    """Serve one env (an :class:`EnvHost`) over ``remote`` until ``close`` or the parent goes
    away. An exception of the env ends the process (exit code 1, traceback on stderr).

    :param parent_pid: the pool's process; the worker ends when it does
        (:func:`exit_with_parent`), even in the middle of a command.
    """
    if parent_pid is not None:
        exit_with_parent(parent_pid)
    parent_remote.close()
    host = EnvHost(make_env)
    try:
        while True:
            try:
                cmd, data = remote.recv()
            except EOFError:
                break
            if cmd == "close":
                remote.close()
                break
            remote.send(host.handle(cmd, data))
    except KeyboardInterrupt:
        pass
    finally:
        host.close()


class WorkerPool:
    """The parent's side of one worker process per env: start them, talk to them, stop them.

    :param env_fns: picklable callables that make an env (e.g. ``EnvFactory``).
    :param start_method: ``forkserver``, ``spawn`` or ``fork``.

    ``remotes`` and ``processes`` are the pipes and the ``multiprocessing`` processes, in env
    order. A dead worker shows as ``EOFError``/``BrokenPipeError`` on its pipe; its
    ``exitcode`` then says why.
    """

    def __init__(self, env_fns: Sequence[Callable[[], Any]], start_method: str) -> None:
        ctx = multiprocessing.get_context(start_method)
        pipes = [ctx.Pipe() for _ in env_fns]
        self.remotes: list[Connection] = [p[0] for p in pipes]
        self.processes: list[Any] = []
        for (remote, work_remote), fn in zip(pipes, env_fns, strict=True):
            # typeshed's BaseContext lacks Process; every concrete context has it.
            proc = ctx.Process(  # type: ignore[attr-defined]
                target=worker, args=(work_remote, remote, fn, os.getpid()), daemon=True
            )
            proc.start()
            self.processes.append(proc)
            work_remote.close()

    def send(self, indices: Sequence[int], cmd: str, datas: Sequence[Any]) -> None:
        """Send command ``cmd`` to the workers ``indices``, ``datas[j]`` to ``indices[j]``."""
        for i, data in zip(indices, datas, strict=True):
            self.remotes[i].send((cmd, data))

    def recv(self, indices: Sequence[int]) -> list[Any]:
        """The replies of the workers ``indices``, in that order."""
        return [self.remotes[i].recv() for i in indices]

    def request(self, indices: Sequence[int], cmd: str, datas: Sequence[Any]) -> list[Any]:
        """:meth:`send` then :meth:`recv`: the workers run the command in parallel."""
        self.send(indices, cmd, datas)
        return self.recv(indices)

    def close(self, timeout: float = 60.0) -> None:
        """Tell every worker to close and wait for it; terminate the ones that do not end."""
        for remote in self.remotes:
            try:
                remote.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self.processes:
            proc.join(timeout=timeout)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5.0)


# ------------------------------------------------------------------ evaluation worker pools
# (here, not in worker_faults, so that a pool worker imports neither SB3 nor torch to start)
# ProcessPoolExecutor reports a dead worker as BrokenProcessPool on *every* future in flight
# and terminates the other workers, so it cannot say which episode was running in the one that
# died. Each episode therefore leaves a marker file named after its worker's pid while it runs;
# a worker that is terminated (SIGTERM, by the broken pool) removes its marker first, so the
# markers left after a break are the episodes whose worker died.
_MARKER_DIR: str | None = None


def init_tracked_worker(marker_dir: str, parent_pid: int | None = None) -> None:
    """Pool initializer: remember the marker folder; on SIGTERM remove this worker's marker;
    end with process ``parent_pid`` (the app; :func:`exit_with_parent`). A marker left by a
    worker that ended with its app is cleared by the next run (resume)."""
    global _MARKER_DIR
    if parent_pid is not None:
        exit_with_parent(parent_pid)
    _MARKER_DIR = marker_dir

    def on_term(signum: int, frame: Any) -> None:
        Path(marker_dir, f"{os.getpid()}.json").unlink(missing_ok=True)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)


def run_tracked(fn: Callable[[Any], Any], task: Any) -> Any:
    """Run ``fn(task)`` in a pool worker, leaving a marker that names ``task`` meanwhile."""
    assert _MARKER_DIR is not None, "the pool needs initializer=init_tracked_worker"
    marker = Path(_MARKER_DIR, f"{os.getpid()}.json")
    marker.write_text(json.dumps({"key": getattr(task, "key", None), "pid": os.getpid()}))
    try:
        return fn(task)
    finally:
        marker.unlink(missing_ok=True)


def dead_worker_keys(marker_dir: str | Path) -> dict[str, int]:
    """Keys of the tasks whose worker died (task key -> pid), and clear the markers."""
    out: dict[str, int] = {}
    for marker in Path(marker_dir).glob("*.json"):
        try:
            data = json.loads(marker.read_text())
            out[str(data["key"])] = int(data["pid"])
        except (OSError, ValueError, KeyError):
            pass
        marker.unlink(missing_ok=True)
    return out
