"""Frozen copies of the agent as competing flows (``train.competitors.pool`` with ``self``).

The trainer saves the policy to ``<run>/competitors/self.zip`` before training starts and at
every multiple of ``train.competitors.self_every_steps`` (:class:`SelfSnapshotCallback`). Each
training env holds a :class:`SelfSnapshot`: a policy that, at the start of each episode, loads
the file again if it changed, and otherwise plays the copy it has. The envs run in worker
processes, so the file is how the copy travels; since the workers step in lockstep with the
trainer, the same seed gives the same copies at the same steps.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from leogym.agents.sb3.algos import load_model
from leogym.agents.sb3.checkpoints import save_model

__all__ = ["SelfSnapshot", "SelfSnapshotCallback", "snapshot_path"]


def snapshot_path(run_dir: str | Path) -> Path:
    """Where a run keeps the frozen copy of its agent."""
    return Path(run_dir) / "competitors" / "self.zip"


class SelfSnapshot:
    """A frozen copy of the agent, read from ``path`` (picklable: the model is loaded in the
    process that plays it).

    :param path: the snapshot that :class:`SelfSnapshotCallback` writes.
    :param algo: its algorithm key (``ppo``, ``recurrent_ppo``, ...).
    """

    def __init__(self, path: str | Path, algo: str) -> None:
        self.path = str(path)
        self.algo = algo
        self._model: Any = None
        self._stamp: tuple[int, int] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "algo": self.algo, "_model": None, "_stamp": None}

    def _refresh(self) -> None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"train.competitors.pool: the frozen copy of the agent, {self.path}, is missing "
                "(the trainer writes it before training starts)"
            ) from None
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._model = load_model(self.path, self.algo, device="cpu")
            self._stamp = stamp

    def predict(
        self,
        observation: np.ndarray,
        state: Any = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = True,
    ) -> tuple[np.ndarray, Any]:
        """The copy's action (a new copy is picked up at the start of an episode)."""
        if self._model is None or (episode_start is not None and bool(np.any(episode_start))):
            self._refresh()
        return self._model.predict(
            observation, state=state, episode_start=episode_start, deterministic=deterministic
        )


class SelfSnapshotCallback(BaseCallback):
    """Saves the policy to the snapshot at every multiple of ``every_steps`` training steps.

    :param path: the snapshot (:func:`snapshot_path`).
    :param every_steps: the period.
    :param algo: the algorithm key recorded in the snapshot's sidecar.
    """

    def __init__(self, path: Path, every_steps: int, algo: str) -> None:
        super().__init__()
        self.path = path
        self.every_steps = int(every_steps)
        self.algo = algo
        self._next = 0

    def save(self) -> None:
        """Write the snapshot now (atomically: a worker never reads half a file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        save_model(self.model, self.path, algo=self.algo)

    def _on_training_start(self) -> None:
        n = int(self.model.num_timesteps)
        self._next = (n // self.every_steps + 1) * self.every_steps

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.save()
            self._next = (self.num_timesteps // self.every_steps + 1) * self.every_steps
        return True
