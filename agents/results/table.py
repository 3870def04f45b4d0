"""The evaluation results table: written episode by episode, atomically, and resumable.

An evaluation run directory holds::

    results.parquet   one row per episode (tidy: identifying columns + metrics)
    summary.parquet   one row per (scenario, policy, metric): n, mean, std, ci95, ci_low,
                      ci_high, median, min, max
    aggregate.parquet the cross-scenario statistics (:mod:`leogym.agents.results.aggregate`)
    summary.csv       the same, for a quick look
    traces/<key>.parquet   per-step, per-path trace of each episode
    plots/*.png

After every episode ``results.parquet`` is rewritten through a temporary file and a rename, so
an interrupted evaluation leaves a complete table of the episodes it finished; rerunning with
``resume=<run dir>`` skips them (they are identified by
:func:`~leogym.agents.runtime.rollout.task_key`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.runtime.storage import atomic_write, atomic_write_parquet

__all__ = [
    "DRAW_PREFIX",
    "ID_COLUMNS",
    "LOWER_IS_BETTER",
    "ResultsStore",
    "load_results",
    "load_traces",
    "metric_columns",
    "summarize",
]

RESULTS = "results.parquet"
SUMMARY = "summary.parquet"
TRACES = "traces"
#: Wall-clock seconds per episode: kept out of results.parquet so that the same config and
#: seeds give a bit-identical results file.
TIMINGS = "timings.csv"

#: Columns that identify an episode (everything else numeric is a metric).
ID_COLUMNS = (
    "key",
    "policy",
    "kind",
    "algorithm",
    "env_id",
    "cc",
    "scheduler",
    "scenario",
    "seed",
    "model_steps",
    "step_ms",
    "episode_s",
)
#: Prefix of the columns that say which conditions a sampled episode drew
#: (``draw.terminal_lat_deg``, ``draw.loss.sat``, ...; :class:`leogym.scenario.ScenarioDraw`):
#: they describe the episode, like ``scenario`` and ``seed``, and are no metrics.
DRAW_PREFIX = "draw."
#: Metrics for which smaller is better (leaderboard sorting and plots).
LOWER_IS_BETTER = (
    "completion_time_s",
    "convergence_time_s",
    "delay_mean_ms",
    "owd_mean_ms",
    "queue_delay_mean_ms",
    "loss_rate",
    "hol_delay_mean_ms",
    "reorder_buffer_max_kb",
)


def is_lower_better(metric: str) -> bool:
    """Whether a smaller value of ``metric`` is better."""
    return metric in LOWER_IS_BETTER or metric.startswith(("rtt_", "loss_"))


class ResultsStore:
    """The results table of one evaluation run directory.

    :param run_dir: the evaluation run directory.
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / RESULTS
        self.trace_dir = self.run_dir / TRACES
        self._df = pd.read_parquet(self.path) if self.path.is_file() else pd.DataFrame()
        self._timings = (
            pd.read_csv(self.run_dir / TIMINGS)
            if (self.run_dir / TIMINGS).is_file()
            else pd.DataFrame()
        )
        # Temporary files of atomic writes that a kill interrupted: their data were never
        # committed (the rename did not happen), so they are safe to drop on resume.
        for folder in (self.run_dir, self.trace_dir):
            for leftover in folder.glob(".*.tmp") if folder.is_dir() else ():
                leftover.unlink(missing_ok=True)

    @property
    def frame(self) -> pd.DataFrame:
        """All episodes recorded so far."""
        return self._df.copy()

    def done_keys(self) -> set[str]:
        """Keys of the episodes already recorded."""
        return set(self._df["key"]) if len(self._df) else set()

    def trace_path(self, key: str) -> Path:
        """Where the trace of episode ``key`` goes."""
        return self.trace_dir / f"{key}.parquet"

    def add(self, row: dict[str, Any]) -> None:
        """Append one episode and rewrite ``results.parquet`` atomically.

        Rows are kept sorted by episode key, so the file does not depend on the order in which
        parallel workers finish; the episode's wall-clock time (``wall_s``) goes to
        ``timings.csv``.
        """
        row = dict(row)
        wall = row.pop("wall_s", None)
        new = pd.DataFrame([row])
        df = new if not len(self._df) else pd.concat([self._df, new], ignore_index=True)
        self._df = df.sort_values("key", kind="stable").reset_index(drop=True)
        atomic_write_parquet(self.path, self._df)
        if wall is not None:
            timing = pd.DataFrame([{"key": row["key"], "wall_s": float(wall)}])
            self._timings = (
                timing
                if not len(self._timings)
                else pd.concat([self._timings, timing], ignore_index=True)
            )
            atomic_write(self.run_dir / TIMINGS, lambda tmp: self._timings.to_csv(tmp, index=False))

    def write_summary(self, episodes: pd.DataFrame | None = None) -> pd.DataFrame:
        """Write ``summary.parquet`` and ``summary.csv`` of ``episodes`` (default: every episode
        recorded); return the summary."""
        summary = summarize(self._df if episodes is None else episodes)
        atomic_write_parquet(self.run_dir / SUMMARY, summary)
        atomic_write(self.run_dir / "summary.csv", lambda tmp: summary.to_csv(tmp, index=False))
        return summary


def metric_columns(df: pd.DataFrame) -> list[str]:
    """The metric columns of a results table, in table order."""
    return [
        c
        for c in df.columns
        if c not in ID_COLUMNS
        and not c.startswith(DRAW_PREFIX)
        and pd.api.types.is_numeric_dtype(df[c])
    ]


def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, policy, metric): ``n`` (finite values), ``mean``, ``std``, ``ci95``
    (Student-t half width), ``ci_low`` and ``ci_high`` (the 95 % percentile bootstrap interval
    of the mean over seeds, seeded: :func:`~leogym.agents.results.intervals.mean_ci`),
    ``median``, ``min``, ``max``."""
    from leogym.agents.results.intervals import mean_ci, t_half_width

    rows: list[dict[str, Any]] = []
    if not len(df):
        return pd.DataFrame(
            columns=[
                "scenario",
                "policy",
                "metric",
                "n",
                "mean",
                "std",
                "ci95",
                "ci_low",
                "ci_high",
                "median",
                "min",
                "max",
            ]
        )
    for (scenario, policy), group in df.groupby(["scenario", "policy"], sort=False):
        for metric in metric_columns(df):
            v = group[metric].to_numpy(dtype=np.float64)
            v = v[np.isfinite(v)]
            n = int(v.size)
            std = float(np.std(v, ddof=1)) if n > 1 else math.nan
            ci = t_half_width(v)
            low, high = mean_ci(v)
            rows.append(
                {
                    "scenario": scenario,
                    "policy": policy,
                    "metric": metric,
                    "n": n,
                    "mean": float(np.mean(v)) if n else math.nan,
                    "std": std,
                    "ci95": ci,
                    "ci_low": low,
                    "ci_high": high,
                    "median": float(np.median(v)) if n else math.nan,
                    "min": float(np.min(v)) if n else math.nan,
                    "max": float(np.max(v)) if n else math.nan,
                }
            )
    return pd.DataFrame(rows)


def load_results(run_dir: str | Path) -> pd.DataFrame:
    """The results table of an evaluation (or main-job) run directory."""
    run_dir = Path(run_dir)
    for candidate in (run_dir / RESULTS, run_dir / "eval" / RESULTS):
        if candidate.is_file():
            return pd.read_parquet(candidate)
    raise FileNotFoundError(f"no {RESULTS} in {run_dir} (or {run_dir}/eval)")


def load_traces(run_dir: str | Path, **where: Any) -> pd.DataFrame:
    """Per-step traces of an evaluation run, concatenated.

    :param where: column filters on the results table, e.g. ``policy="PPO", seed=0``.
    """
    run_dir = Path(run_dir)
    if not (run_dir / RESULTS).is_file() and (run_dir / "eval" / RESULTS).is_file():
        run_dir = run_dir / "eval"
    results = load_results(run_dir)
    for col, value in where.items():
        results = results[results[col] == value]
    frames = [
        pd.read_parquet(run_dir / TRACES / f"{k}.parquet")
        for k in results["key"]
        if (run_dir / TRACES / f"{k}.parquet").is_file()
    ]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
