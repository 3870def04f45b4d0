"""Readers and reshaping helpers for the notebooks (and anyone analysing runs).

* :func:`load_progress`, :func:`load_evaluations`: training curves of a training run.
* :func:`~leogym.agents.results.table.load_results`,
  :func:`~leogym.agents.results.table.load_traces`: an evaluation run's episodes and
  per-step traces.
* :func:`handover_aligned`: trace samples re-timed relative to each handover, for
  "what does the policy do around a handover" plots.
* :func:`resolve_runs`: accept a main-job, training or evaluation run directory.
* :func:`best_of_episodes`: a hindsight bound, the best of several policies in every episode.
* :func:`gap_by_draw`: where, in a sampled distribution's conditions, a policy gains or loses
  against another.
* :func:`make_demo_runs`: create a small training and evaluation run (scenario ``tiny``) with the
  command-line apps, for notebooks that were given no run.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.results.table import DRAW_PREFIX, is_lower_better, load_results, load_traces

__all__ = [
    "best_of_episodes",
    "gap_by_draw",
    "handover_aligned",
    "load_evaluations",
    "load_progress",
    "load_results",
    "load_traces",
    "make_demo_runs",
    "resolve_runs",
]


def load_progress(run_dir: str | Path) -> pd.DataFrame:
    """The SB3 log of a training run (``progress.csv``, then ``progress.1.csv``... of resumed
    segments), indexed by ``time/total_timesteps`` order."""
    run_dir = Path(run_dir)
    files = sorted(
        run_dir.glob("progress*.csv"),
        key=lambda p: 0 if p.name == "progress.csv" else int(p.suffixes[0][1:]),
    )
    frames = [pd.read_csv(f) for f in files if f.stat().st_size > 0]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    return df


def load_evaluations(run_dir: str | Path) -> pd.DataFrame:
    """The periodic evaluations of a training run (``evaluations.csv``; empty if none)."""
    path = Path(run_dir) / "evaluations.csv"
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def resolve_runs(path: str | Path) -> dict[str, Path | None]:
    """Find the training and evaluation run directories behind ``path``.

    :param path: a main-job run (with ``train/`` and ``eval/``), a training run or an
        evaluation run.
    :return: ``{"train": ..., "eval": ...}``, ``None`` where there is none.
    """
    p = Path(path).expanduser()
    train = p / "train" if (p / "train" / "config.yaml").is_file() else None
    ev = p / "eval" if (p / "eval" / "results.parquet").is_file() else None
    if train is None and ((p / "model.zip").is_file() or any(p.glob("progress*.csv"))):
        train = p
    if ev is None and (p / "results.parquet").is_file():
        ev = p
    return {"train": train, "eval": ev}


def handover_aligned(
    traces: pd.DataFrame,
    *,
    before_s: float = 2.0,
    after_s: float = 4.0,
    columns: tuple[str, ...] = ("goodput_bps", "cwnd_bytes", "rtt_s", "delivered_bytes"),
) -> pd.DataFrame:
    """Trace rows around every handover, with ``rel_t_s`` = step end time − handover time.

    Each handover of a path selects that episode's rows of the same path whose step ends within
    ``[t_ho − before_s, t_ho + after_s]``.

    :param traces: from :func:`~leogym.agents.results.table.load_traces`.
    :return: columns ``policy``, ``scenario``, ``seed``, ``path``, ``handover``, ``rel_t_s`` and
        the requested ``columns``.
    """
    if traces.empty or "handover" not in traces:
        return pd.DataFrame()
    keep = [c for c in columns if c in traces]
    out = []
    events = traces[traces["handover"].astype(bool)]
    for i, ev in enumerate(events.itertuples(index=False)):
        ep = traces[(traces["key"] == ev.key) & (traces["path"] == ev.path)]
        rel = ep["t_s"].to_numpy() - ev.handover_time_s
        sel = (rel >= -before_s) & (rel <= after_s)
        part = ep.loc[sel, ["policy", "scenario", "seed", "path", *keep]].copy()
        part["rel_t_s"] = np.round(rel[sel], 6)
        part["handover"] = i
        out.append(part)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def _run_app(module: str, overrides: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", module, *overrides], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{module} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")


def make_demo_runs(
    workdir: str | Path,
    *,
    baselines: tuple[str, ...] = ("cubic", "maco"),
    seeds: tuple[int, ...] = (0,),
    timesteps: int = 256,
    episode_s: float = 8.0,
) -> dict[str, Path]:
    """Train a tiny PPO agent and evaluate it with some baselines on scenario ``tiny``.

    Reuses runs already in ``workdir``. Takes a minute or so on two cores.

    :return: ``{"train": <training run>, "eval": <evaluation run>}``.
    """
    workdir = Path(workdir)
    train_dir, eval_dir = workdir / "train", workdir / "eval"
    common = [
        "scenario=tiny",
        f"env.episode_s={episode_s}",
        "train.progress=false",
        "eval.progress=false",
    ]
    if not (train_dir / "model.zip").is_file():
        _run_app(
            "leogym.agents.train",
            [
                *common,
                f"train.total_timesteps={timesteps}",
                "agent.n_steps=64",
                "agent.batch_size=64",
                "agent.n_epochs=2",
                "train.eval_freq=128",
                "train.eval_episodes=1",
                "train.checkpoint_freq=128",
                f"hydra.run.dir={train_dir}",
            ],
        )
    if not (eval_dir / "results.parquet").is_file():
        _run_app(
            "leogym.agents.evaluate",
            [
                *common,
                f"baseline=[{','.join(baselines)}]",
                f"eval.seeds=[{','.join(str(s) for s in seeds)}]",
                f"+eval.agents.PPO={train_dir}",
                f"hydra.run.dir={eval_dir}",
            ],
        )
    return {"train": train_dir, "eval": eval_dir}


def summary_table(
    results: pd.DataFrame,
    metrics: tuple[str, ...] = (
        "goodput_mbps",
        "rtt_p95_ms",
        "completion_time_s",
        "convergence_time_s",
        "loss_outage_pkts",
        "loss_overflow_pkts",
    ),
) -> pd.DataFrame:
    """Mean ± std per (scenario, policy) of some metrics, as strings, for display."""
    rows: list[dict[str, Any]] = []
    for (scenario, policy), g in results.groupby(["scenario", "policy"], sort=False):
        row: dict[str, Any] = {"scenario": scenario, "policy": policy, "episodes": len(g)}
        for m in metrics:
            if m in g:
                v = g[m].dropna()
                row[m] = (
                    f"{v.mean():.3g} ± {v.std(ddof=1):.2g}"
                    if len(v) > 1
                    else (f"{v.mean():.3g}" if len(v) else "–")
                )
        rows.append(row)
    return pd.DataFrame(rows)


def best_of_episodes(
    results: pd.DataFrame, policies: list[str], label: str, metric: str = "return"
) -> pd.DataFrame:
    """A hindsight bound: for each scenario and seed, the episode of whichever of ``policies``
    did best on ``metric`` (the smallest for a lower-is-better metric; ties go to the earlier
    in ``policies``), relabelled ``label`` and of kind ``agent``, so that the aggregate
    statistics score it without making it a reference.

    It is not a policy: it chooses with the outcome known, on the very episodes it is scored
    on, so it bounds from above what choosing among ``policies`` could reach (for example a
    choice of base controller and gain, docs/evaluation.md, "Fixed gains").

    :param results: an evaluation's results table (:func:`load_results`).
    :param policies: labels of that table, at least one.
    :param label: the new policy's label (not one of the table's).
    :param metric: the column that decides.
    :return: one row per (scenario, seed) that every one of ``policies`` ran; the other
        columns are the chosen episode's.
    :raises ValueError: an unknown policy or metric, or a label already in the table.
    """
    known = set(results["policy"])
    missing = [p for p in policies if p not in known]
    if not policies or missing:
        raise ValueError(f"policies: {missing or 'none given'} not in the results table")
    if metric not in results:
        raise ValueError(f"metric: {metric!r} is not a column of the results table")
    if label in known:
        raise ValueError(f"label: {label!r} is already a policy of the results table")
    rank = {p: i for i, p in enumerate(policies)}
    rows = results[results["policy"].isin(rank)].copy()
    complete = rows.groupby(["scenario", "seed"])["policy"].transform("nunique") == len(policies)
    rows = rows[complete & rows[metric].notna()]
    rows["_rank"] = rows["policy"].map(rank)
    ascending = is_lower_better(metric)
    rows = rows.sort_values([metric, "_rank"], ascending=[ascending, True], kind="stable")
    best = rows.groupby(["scenario", "seed"], sort=True).head(1).drop(columns="_rank")
    best = best.assign(policy=label, kind="agent")
    return best.sort_values(["scenario", "seed"]).reset_index(drop=True)


def gap_by_draw(
    results: pd.DataFrame,
    policy: str | Sequence[str],
    reference: str,
    metric: str = "return",
    bins: int = 3,
) -> pd.DataFrame:
    """Where a policy gains or loses against another, by the conditions each episode drew.

    An evaluation with ``env.sample_scenarios=true`` records what every episode drew
    (``draw.*`` columns, :class:`leogym.scenario.ScenarioDraw`). Episodes of the two policies
    with the same scenario and seed drew the same conditions, so their difference on
    ``metric`` is paired. For each drawn quantity the pairs are grouped by its value: a
    categorical one (a choice list: loss, dynamics preset) by value, a continuous one by
    ``bins`` quantile bins; a value that a range draws in at least one pair in ``bins`` (a
    point mass: ``rain_db_km`` is 0 in every episode without rain) is a level of its own, and
    the other values share ``bins - 1`` bins.

    :param results: an evaluation's results table (:func:`load_results`).
    :param policy: the label compared, or several labels whose pairs are pooled (one recipe's
        training seeds, each evaluated under a label of its own on the same seeds).
    :param reference: the label it is compared with.
    :param metric: a metric column.
    :param bins: quantile bins of a continuous quantity (one with more distinct values).
    :return: one row per drawn quantity and level: ``draw`` (its name without ``draw.``),
        ``level`` (a value, or a bin ``(lo, hi]``), ``n`` (pairs), ``policy`` and ``reference``
        (mean ``metric``), ``gap`` (mean of policy minus reference) and ``ci_low``,
        ``ci_high`` (its 95 % t-interval; NaN for a single pair).
    :raises ValueError: an unknown policy, reference or metric, ``bins`` below 1, or no
        paired episode with drawn conditions.
    """
    from leogym.agents.results.intervals import t_half_width

    policies = [policy] if isinstance(policy, str) else list(policy)
    for name, label in [*(("policy", p) for p in policies), ("reference", reference)]:
        if label not in set(results["policy"]):
            raise ValueError(f"{name}: {label!r} is not a policy of the results table")
    if metric not in results:
        raise ValueError(f"metric: {metric!r} is not a column of the results table")
    if bins < 1:
        raise ValueError(f"bins: must be >= 1 (got {bins})")
    draws = [c for c in results.columns if c.startswith(DRAW_PREFIX)]
    keys = ["scenario", "seed"]
    theirs = results[results["policy"] == reference].set_index(keys)
    pooled = []
    for label in policies:
        mine = results[results["policy"] == label].set_index(keys)
        both = mine.index.intersection(theirs.index)
        pooled.append(
            mine.loc[both, draws].assign(
                policy=mine.loc[both, metric], reference=theirs.loc[both, metric]
            )
        )
    pairs = pd.concat(pooled).dropna(subset=["policy", "reference"]).dropna(axis=1, how="all")
    drawn = [c for c in draws if c in pairs]
    if not len(pairs) or not drawn:
        raise ValueError(
            f"no episode of {policies} and {reference!r} with the same scenario and seed drew "
            "its conditions (evaluate with env.sample_scenarios=true)"
        )
    pairs["gap"] = pairs["policy"] - pairs["reference"]
    rows = []
    for col in drawn:
        for level, group in pairs.groupby(_draw_levels(pairs[col], bins), observed=True):
            n = len(group)
            gap = float(group["gap"].mean())
            half = t_half_width(group["gap"].to_numpy(dtype=np.float64))
            rows.append(
                {
                    "draw": col[len(DRAW_PREFIX) :],
                    "level": str(level),
                    "n": n,
                    "policy": float(group["policy"].mean()),
                    "reference": float(group["reference"].mean()),
                    "gap": gap,
                    "ci_low": gap - half,
                    "ci_high": gap + half,
                }
            )
    return pd.DataFrame(rows)


def _draw_levels(values: pd.Series, bins: int) -> pd.Series:
    """The level of each pair for one drawn quantity (see :func:`gap_by_draw`), as an ordered
    categorical: the value of a choice, else a quantile bin, with a point mass apart."""
    if not pd.api.types.is_numeric_dtype(values) or values.nunique() <= bins:
        return pd.Series(pd.Categorical(values), index=values.index)
    mode = values.mode().iloc[0]
    mass = values == mode
    if mass.mean() < 1.0 / bins or bins == 1:
        binned = pd.qcut(values, bins, duplicates="drop")
        return binned.astype(str).astype(pd.CategoricalDtype(binned.cat.categories.astype(str)))
    rest = pd.qcut(values[~mass], bins - 1, duplicates="drop")
    labels = pd.Series(str(mode), index=values.index)
    labels[~mass] = rest.astype(str)
    levels = [(float(mode), str(mode))] + [(iv.left, str(iv)) for iv in rest.cat.categories]
    return labels.astype(pd.CategoricalDtype([name for _, name in sorted(levels)]))
