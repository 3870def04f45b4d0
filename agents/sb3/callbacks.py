"""SB3 callbacks of ``leogym-train``: network metrics, evaluation, checkpoints, progress.

Logged keys (TensorBoard and ``progress*.csv``), besides SB3's ``rollout/``, ``train/``, ``time/``:

* ``net/goodput_mbps``, ``net/delay_ms``, ``net/loss_rate``, ``net/utilization``,
  ``net/handovers_per_step``: means over the training steps since the last log.
* ``eval/mean_reward``, ``eval/std_reward``, ``eval/mean_ep_length``, ``eval/goodput_mbps``,
  ``eval/rtt_p95_ms``, ``eval/loss_outage_pkts``: periodic deterministic evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from leogym.agents.results.metrics import EpisodeRecorder
from leogym.agents.runtime.storage import atomic_write_parquet
from leogym.agents.sb3.checkpoints import BEST, CHECKPOINT_DIR, save_model

__all__ = [
    "CheckpointCallback",
    "NetMetricsCallback",
    "PeriodicEvalCallback",
    "ProgressCallback",
    "evaluate_model",
]


class NetMetricsCallback(BaseCallback):
    """Logs the envs' network measurements (``net/*``) from the training steps' ``info``."""

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "goodput_bps" not in info:
                continue
            log = self.logger.record_mean
            log("net/goodput_mbps", info["goodput_bps"] / 1e6)
            log("net/delay_ms", info["delay_s"] * 1e3)
            log("net/loss_rate", info["loss_rate"])
            cap = info.get("capacity_bps", 0.0)
            if cap > 0:
                log("net/utilization", info["goodput_bps"] / cap)
            log("net/handovers_per_step", float(len(info.get("handover_times_s", ()))))
        return True


def evaluate_model(
    model: Any,
    env: Any,
    n_episodes: int,
    *,
    seed: int,
    deterministic: bool = True,
    metrics_cfg: Any = None,
) -> list[dict[str, float]]:
    """Run ``n_episodes`` on a one-env VecEnv and return each episode's metrics.

    The env is reseeded with ``seed`` first, so repeated evaluations see the same episodes.
    """
    env.seed(seed)
    obs = env.reset()
    state = None
    episode_start = np.ones((env.num_envs,), dtype=bool)
    rec = EpisodeRecorder()
    out: list[dict[str, float]] = []
    while len(out) < n_episodes:
        action, state = model.predict(
            obs, state=state, episode_start=episode_start, deterministic=deterministic
        )
        obs, rewards, dones, infos = env.step(action)
        info = infos[0]
        truncated = bool(info.get("TimeLimit.truncated", False))
        rec.add(
            float(rewards[0]),
            info,
            terminated=bool(dones[0]) and not truncated,
            truncated=truncated,
        )
        episode_start = dones
        if dones[0]:
            out.append(rec.metrics(metrics_cfg))
            rec = EpisodeRecorder()
    return out


class PeriodicEvalCallback(BaseCallback):
    """Every ``eval_freq`` timesteps: deterministic episodes on each eval VecEnv, ``eval/*``
    logs, a row of ``evaluations.csv``/``.parquet``, each episode in
    ``evaluation_episodes.parquet`` (with its ``scenario``), and ``best_model.zip`` when the
    mean reward over all of them improves.

    :param eval_envs: one-env VecEnvs (each in its own subprocess) by scenario name: the
        training scenario, or each scenario of ``train.eval_suite``.
    :param eval_freq: in timesteps (summed over training envs).
    :param n_episodes: episodes per evaluation on each env.
    :param run_dir: the training run directory.
    :param algo: algorithm key, for the best model's sidecar.
    :param seed: eval env seed (the same episodes every evaluation).
    """

    def __init__(
        self,
        eval_envs: dict[str, Any],
        eval_freq: int,
        n_episodes: int,
        run_dir: Path,
        *,
        algo: str,
        seed: int,
        metrics_cfg: Any = None,
    ) -> None:
        super().__init__()
        self.eval_envs = dict(eval_envs)
        self.eval_freq = int(eval_freq)
        self.n_episodes = int(n_episodes)
        self.run_dir = Path(run_dir)
        self.algo = algo
        self.seed = int(seed)
        self.metrics_cfg = metrics_cfg
        self.csv_path = self.run_dir / "evaluations.csv"
        self.best = -math.inf
        self._next = 0

    def _on_training_start(self) -> None:
        import pandas as pd

        self._next = (self.num_timesteps // self.eval_freq + 1) * self.eval_freq
        if self.csv_path.is_file():
            old = pd.read_csv(self.csv_path)
            if len(old):
                self.best = float(old["mean_reward"].max())

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = (self.num_timesteps // self.eval_freq + 1) * self.eval_freq
            self.run_evaluation()
        return True

    def run_evaluation(self) -> dict[str, float]:
        """Evaluate now; log, append to ``evaluations.csv`` and keep the best model."""
        import pandas as pd

        episodes = [
            {"timesteps": int(self.num_timesteps), "scenario": name, **episode}
            for name, env in self.eval_envs.items()
            for episode in evaluate_model(
                self.model, env, self.n_episodes, seed=self.seed, metrics_cfg=self.metrics_cfg
            )
        ]
        df = pd.DataFrame(episodes)
        episodes_path = self.run_dir / "evaluation_episodes.parquet"
        earlier = [pd.read_parquet(episodes_path)] if episodes_path.is_file() else []
        atomic_write_parquet(episodes_path, pd.concat([*earlier, df], ignore_index=True))
        row = {
            "timesteps": int(self.num_timesteps),
            "episodes": len(df),
            "mean_reward": float(df["return"].mean()),
            "std_reward": float(df["return"].std(ddof=0)),
            "mean_ep_length": float(df["steps"].mean()),
            "goodput_mbps": float(df["goodput_mbps"].mean()),
            "rtt_p95_ms": float(df.get("rtt_p95_ms", pd.Series([math.nan])).mean()),
            "loss_outage_pkts": float(df["loss_outage_pkts"].mean()),
        }
        for key, value in row.items():
            if key != "timesteps" and math.isfinite(value):
                self.logger.record(f"eval/{key}", value)
        if row["mean_reward"] > self.best:
            self.best = row["mean_reward"]
            save_model(
                self.model, self.run_dir / BEST, algo=self.algo, mean_reward=row["mean_reward"]
            )
        old = pd.read_csv(self.csv_path) if self.csv_path.is_file() else pd.DataFrame()
        table = pd.concat([old, pd.DataFrame([row])], ignore_index=True)
        # CSV for humans; the same atomic write as everything else.
        from leogym.agents.runtime.storage import atomic_write

        atomic_write(self.csv_path, lambda tmp: table.to_csv(tmp, index=False))
        atomic_write_parquet(self.run_dir / "evaluations.parquet", table)
        self.logger.dump(self.num_timesteps)
        return row


class CheckpointCallback(BaseCallback):
    """Saves ``checkpoints/step_<N>.zip`` every ``save_freq`` timesteps (with the replay buffer
    for off-policy agents, so a resumed run continues with it). ``sidecar``, if given, returns
    more fields for each checkpoint's sidecar (the curriculum's state)."""

    def __init__(
        self,
        save_freq: int,
        run_dir: Path,
        *,
        algo: str,
        save_replay_buffer: bool = True,
        sidecar: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.save_freq = int(save_freq)
        self.run_dir = Path(run_dir)
        self.algo = algo
        self.save_replay_buffer = save_replay_buffer
        self.sidecar = sidecar
        self._next = 0

    def _on_training_start(self) -> None:
        self._next = (self.num_timesteps // self.save_freq + 1) * self.save_freq

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next = (self.num_timesteps // self.save_freq + 1) * self.save_freq
            self.save()
        return True

    def save(self) -> Path:
        """Save a checkpoint at the current step."""
        path = self.run_dir / CHECKPOINT_DIR / f"step_{self.num_timesteps:09d}.zip"
        extra = self.sidecar() if self.sidecar is not None else {}
        return save_model(
            self.model, path, algo=self.algo, replay_buffer=self.save_replay_buffer, **extra
        )


class ProgressCallback(BaseCallback):
    """Progress over the run's total timesteps (resumed runs start part-way): a rich bar on a
    terminal, a log line every 30 s otherwise
    (:class:`~leogym.agents.runtime.progress.ProgressReporter`).
    """

    def __init__(self, description: str = "training") -> None:
        super().__init__()
        self.description = description
        self._reporter: Any = None

    def _on_training_start(self) -> None:
        from leogym.agents.runtime.progress import ProgressReporter

        total = int(self.locals.get("total_timesteps", self.model._total_timesteps))
        self._reporter = ProgressReporter(self.description, total, completed=self.num_timesteps)

    def _on_step(self) -> bool:
        if self._reporter is not None:
            buf = getattr(self.model, "ep_info_buffer", None)
            note = f"ep_rew_mean {np.mean([e['r'] for e in buf]):.4g}" if buf else ""
            self._reporter.update(self.num_timesteps, note)
        return True

    def _on_training_end(self) -> None:
        if self._reporter is not None:
            self._reporter.close()
            self._reporter = None
