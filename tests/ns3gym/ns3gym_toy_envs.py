"""Gymnasium versions of the reference scenarios (see ns3gym_reference.py), for the server.

Each env replays its scenario's game with Gymnasium semantics, so that serving it with
``Ns3GymServer`` must produce the same wire transcript as the C++-style ``ReferenceSim``.
Termination (the scenario's game-over callback) maps to ``terminated``; the end of the
simulation's time to ``truncated``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces


class CounterEnv(gymnasium.Env):
    """``counter``: obs ``[t, t+1, t+2, t+3, last action]``, reward ``0.1 t``, 3 steps."""

    def __init__(self) -> None:
        self.observation_space = spaces.Box(0, 10, (5,), np.uint32)
        self.action_space = spaces.Discrete(5)
        self.t = 0
        self.last = 0

    def _obs(self) -> np.ndarray:
        t = self.t
        return np.array([t, t + 1, t + 2, t + 3, self.last], dtype=np.uint32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.t, self.last = 0, 0
        return self._obs(), {"t": 0}

    def step(self, action: Any):
        self.last = int(action)
        self.t += 1
        terminated = self.last == 0
        truncated = self.t >= 3 and not terminated
        return self._obs(), 0.1 * self.t, terminated, truncated, {"t": self.t}


class AllSpacesEnv(gymnasium.Env):
    """``allspaces``: Dict obs echoing a Tuple action of all wire dtypes; game over at t = 2."""

    def __init__(self) -> None:
        self.observation_space = spaces.Dict(
            {
                "count": spaces.Discrete(4),
                "f32": spaces.Box(-1, 1, (3,), np.float32),
                "f64": spaces.Box(-1000, 1000, (2,), np.float64),
                "i32": spaces.Box(-100, 100, (2,), np.int32),
                "nested": spaces.Tuple((spaces.Discrete(3), spaces.Box(0, 255, (2,), np.uint8))),
                "u32": spaces.Box(0, 1000, (2,), np.uint32),
            }
        )
        self.action_space = spaces.Tuple(
            (
                spaces.Discrete(4),
                spaces.Box(-1, 1, (2,), np.float32),
                spaces.Box(-1000, 1000, (2,), np.float64),
                spaces.Box(-100, 100, (2,), np.int32),
                spaces.Box(0, 1000, (2,), np.uint32),
            )
        )

    def _obs(self) -> dict[str, Any]:
        t = self.t
        return {
            "count": t,
            "f32": np.array([self.f[0], self.f[1], 0.1 * t], dtype=np.float32),
            "f64": np.array(self.g, dtype=np.float64),
            "i32": np.array(self.i, dtype=np.int32),
            "nested": (self.d % 3, np.array([t, 2 * t], dtype=np.uint8)),
            "u32": np.array(self.u, dtype=np.uint32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.t, self.d = 0, 0
        self.f, self.g, self.i, self.u = [0.0, 0.0], [0.0, 0.0], [0, 0], [0, 0]
        return self._obs(), {}

    def step(self, action: Any):
        d, f, g, i, u = action
        self.d, self.f, self.g, self.i, self.u = int(d), list(f), list(g), list(i), list(u)
        self.t += 1
        return self._obs(), float(self.d), self.t == 2, False, {}


class DictActEnv(gymnasium.Env):
    """``dictact``: obs ``(a + b0 + b1) % 10`` for a Dict action; reward 1; 2 steps."""

    def __init__(self) -> None:
        self.observation_space = spaces.Discrete(10)
        self.action_space = spaces.Dict(
            {"a": spaces.Discrete(3), "b": spaces.Box(0, 5, (2,), np.uint32)}
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.t, self.value = 0, 0
        return 0, {}

    def step(self, action: Any):
        self.value = int(action["a"] + action["b"][0] + action["b"][1]) % 10
        self.t += 1
        return self.value, 1.0, False, self.t >= 2, {}


TOY_ENVS = {"counter": CounterEnv, "allspaces": AllSpacesEnv, "dictact": DictActEnv}

#: Agent-side script shared by every conformance run: per scenario, a list of episodes, each a
#: list of actions; ``None`` after the actions means "close instead of stepping further".
SESSIONS: dict[str, list[list[Any]]] = {
    "counter": [[1, 2, 3], [2, 0], []],
    "allspaces": [
        [
            (1, [0.5, -0.25], [123.5, -0.1], [-7, 42], [7, 999]),
            (3, [-1.0, 1.0], [1000.0, -1000.0], [-100, 100], [0, 1000]),
        ]
    ],
    "dictact": [[{"a": 2, "b": [1, 5]}, {"a": 1, "b": [4, 4]}]],
}
