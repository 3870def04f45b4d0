"""The curriculum's SB3 callback: when to search, and the training envs' mixture.

At the first rollout that starts at or after ``train.curriculum.every_steps`` (and every as many
steps after), :class:`CurriculumCallback` plays the current policy and the teacher on the
configurations the search proposes (:func:`leogym.agents.curriculum.search`), in two worker
processes of their own (the trainer never owns a simulator), then hands the training envs the
new mixture through ``VecEnv.set_attr("episode_sampler", ...)``. It hands it again after a
worker restart (``train.on_worker_death=restart``), whose new envs start without it.
:meth:`CurriculumCallback.sidecar` is what each checkpoint records of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from leogym.agents.curriculum import (
    SEED_OFFSET,
    CurriculumConfig,
    CurriculumSampler,
    CurriculumState,
    Dimension,
    search,
)
from leogym.agents.sb3.env_factory import EnvFactory

__all__ = ["CurriculumCallback", "SIDECAR_KEY", "play_pair"]

log = logging.getLogger("leogym.agents.curriculum")

#: The key of the curriculum's state in a checkpoint's sidecar.
SIDECAR_KEY = "curriculum"


def play_pair(
    venv: Any, policy: Any, neutral: np.ndarray, params: dict[str, Any], seed: int
) -> tuple[float, float]:
    """One episode of ``policy`` (env 0 of ``venv``) and of the teacher (env 1, a native
    baseline that ignores its actions) on configuration ``params``, both reset with ``seed``.

    :return: the two episode returns (policy's, teacher's).
    """
    venv.set_attr("episode_sampler", CurriculumSampler((params,), 1.0))
    obs = np.stack([r[0] for r in venv.env_method("reset", seed=seed)])
    returns = np.zeros(2)
    finished = np.zeros(2, dtype=bool)
    state: Any = None
    start = np.ones(1, dtype=bool)
    while not finished.all():
        action, state = policy.predict(
            obs[:1], state=state, episode_start=start, deterministic=True
        )
        start = np.zeros(1, dtype=bool)
        actions = np.stack([np.asarray(action)[0], np.asarray(neutral, dtype=action.dtype)])
        obs, rewards, dones, _ = venv.step(actions)
        returns += np.where(finished, 0.0, rewards)
        finished |= np.asarray(dones, dtype=bool)
    return float(returns[0]), float(returns[1])


def _restarts(venv: Any) -> int:
    """How often the VecEnv under ``venv`` (through its wrappers) has been restarted."""
    total = 0
    while venv is not None:
        total += int(getattr(venv, "restarts", 0) or 0)
        venv = getattr(venv, "venv", None)
    return total


class CurriculumCallback(BaseCallback):
    """Runs the curriculum during ``model.learn``.

    :param cfg: ``train.curriculum``.
    :param dims: the search space (:func:`leogym.agents.curriculum.check_curriculum`).
    :param agent_env: the training env, without curriculum (the policy plays on it).
    :param teacher_env: the same env with the teacher in charge.
    :param seed: the run's seed; search ``k`` seeds TPE and its episodes with
        ``seed + SEED_OFFSET + 1000 * k``.
    :param start_method: how the two search workers start.
    :param state: a resumed run's state (``None``: a fresh curriculum).
    """

    def __init__(
        self,
        cfg: CurriculumConfig,
        dims: Sequence[Dimension],
        agent_env: EnvFactory,
        teacher_env: EnvFactory,
        *,
        seed: int,
        start_method: str,
        state: CurriculumState | None = None,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        self.dims = list(dims)
        self.envs: list[Callable[[], Any]] = [agent_env, teacher_env]
        self.seed = int(seed)
        self.start_method = start_method
        self.state = state if state is not None else CurriculumState(cfg.every_steps)
        self._pushed_at = -1  # the restart count when the mixture was last handed over

    def sidecar(self) -> dict[str, Any]:
        """The checkpoint sidecar fields that carry the curriculum's state."""
        return {SIDECAR_KEY: self.state.to_json()}

    def _on_training_start(self) -> None:
        self._push()

    def _on_rollout_start(self) -> None:
        step = int(self.model.num_timesteps)
        if step >= self.state.next_step:
            self.search(step)
            self._push()
        elif _restarts(self.training_env) != self._pushed_at:
            self._push()

    def _on_step(self) -> bool:
        return True

    def search(self, step: int) -> None:
        """Search at training step ``step`` and update the state."""
        from leogym.agents.runtime.vecenv import LeoSubprocVecEnv
        from leogym.baselines import neutral_action

        seed = self.seed + SEED_OFFSET + 1000 * len(self.state.searches)
        venv = LeoSubprocVecEnv(self.envs, start_method=self.start_method)
        try:
            neutral = neutral_action(venv.action_space)
            trials = search(
                self.dims,
                lambda params, s: play_pair(venv, self.model, neutral, params, s),
                self.cfg,
                seed,
            )
        finally:
            venv.close()
        self.state.add_search(step, trials, self.cfg)
        best = self.state.searches[-1]["chosen"][0]
        gap = max(t["gap"] for t in trials)
        log.info("curriculum at step %d: largest gap %.4g on %s", step, gap, best)
        self.logger.record("curriculum/gap_max", gap)
        self.logger.record("curriculum/gap_mean", float(np.mean([t["gap"] for t in trials])))
        self.logger.record("curriculum/pool", len(self.state.pool))

    def _push(self) -> None:
        """Hand the training envs the current mixture (nothing while the pool is empty)."""
        sampler = self.state.sampler(self.cfg.weight)
        if sampler is not None:
            self.training_env.set_attr("episode_sampler", sampler)
        self._pushed_at = _restarts(self.training_env)
