"""The loop of an env worker process (see :class:`leogym.agents.runtime.vecenv.LeoSubprocVecEnv`).

Kept in its own module that imports neither SB3 nor torch, so a worker starts in well under a
second: it only needs NumPy, Gymnasium and leogym's envs.
"""

from __future__ import annotations

from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["worker"]


def worker(remote: Connection, parent_remote: Connection, make_env: Callable[[], Any]) -> None:
    """Serve one env over ``remote`` until ``close`` (or the parent goes away).

    Commands (``(name, data)`` tuples) and replies:

    * ``step`` action -> ``(obs, reward, done, info, reset_info)``; at the end of an episode the
      env is reset at once: ``info["terminal_observation"]`` holds the last observation,
      ``info["TimeLimit.truncated"]`` says whether it was a truncation, and ``obs`` is the first
      observation of the next episode (the SB3 VecEnv contract).
    * ``reset`` ``(seed, options)`` -> ``(obs, reset_info)``
    * ``spaces`` -> ``(observation_space, action_space)``
    * ``get_attr`` name, ``set_attr`` ``(name, value)``, ``env_method`` ``(name, args, kwargs)``,
      ``is_wrapped`` wrapper class, ``render``, ``close``.
    """
    parent_remote.close()
    env = make_env()
    reset_info: dict[str, Any] = {}
    try:
        while True:
            try:
                cmd, data = remote.recv()
            except EOFError:
                break
            if cmd == "step":
                obs, reward, terminated, truncated, info = env.step(data)
                done = bool(terminated or truncated)
                info["TimeLimit.truncated"] = bool(truncated and not terminated)
                if done:
                    info["terminal_observation"] = obs
                    obs, reset_info = env.reset()
                remote.send((obs, reward, done, info, reset_info))
            elif cmd == "reset":
                seed, options = data
                obs, reset_info = env.reset(seed=seed, options=options)
                remote.send((obs, reset_info))
            elif cmd == "spaces":
                remote.send((env.observation_space, env.action_space))
            elif cmd == "get_attr":
                remote.send(env.get_wrapper_attr(data))
            elif cmd == "set_attr":
                name, value = data
                setattr(env.unwrapped, name, value)
                remote.send(None)
            elif cmd == "env_method":
                name, args, kwargs = data
                remote.send(env.get_wrapper_attr(name)(*args, **kwargs))
            elif cmd == "is_wrapped":
                current, found = env, False
                while hasattr(current, "env") and not found:
                    found = isinstance(current, data)
                    current = current.env
                remote.send(found)
            elif cmd == "render":
                remote.send(env.render())
            elif cmd == "close":
                remote.close()
                break
            else:
                raise NotImplementedError(f"unknown worker command {cmd!r}")
    except KeyboardInterrupt:
        pass
    finally:
        env.close()
