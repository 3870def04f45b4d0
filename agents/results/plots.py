"""Summary plots of an evaluation (matplotlib, Agg backend, PNG).

* ``goodput.png``: mean goodput per policy (± 95 % CI), one panel per scenario.
* ``tradeoff.png``: goodput against 95th-percentile RTT, one point per episode and a large
  marker for each policy's mean; the RTT axis is reversed so "better" is up and to the right
  (the usual throughput–delay picture of congestion-control evaluations).
* ``losses.png``: mean packets lost per episode, stacked by cause.
* ``completion.png``: completion times (file workloads only).
* ``timeseries.png``: goodput (1 s moving average) over one episode per policy (first
  scenario, first seed), with the handover instants.

The aggregate statistics (:mod:`leogym.agents.results.aggregate`) are drawn with
``rliable.plot_utils`` by :func:`plot_aggregate`:

* ``aggregate_<metric>.png``: IQM, mean, median and optimality gap of the normalised score per
  policy, each with its 95 % stratified bootstrap interval;
* ``probability_of_improvement.png``: ``P(X > Y)`` with intervals, one panel per metric;
* ``performance_profile.png``: the fraction of (seed, scenario) scores above each tau, with
  bootstrap bands, one panel per metric.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plot_aggregate", "plot_all"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _ci(v: np.ndarray) -> float:
    from scipy import stats

    v = v[np.isfinite(v)]
    if v.size < 2:
        return 0.0
    return float(stats.t.ppf(0.975, v.size - 1) * np.std(v, ddof=1) / np.sqrt(v.size))


def _bar_panels(df: pd.DataFrame, metric: str, ylabel: str, path: Path) -> Path | None:
    plt = _plt()
    scenarios = list(dict.fromkeys(df["scenario"]))
    if df[metric].notna().sum() == 0:
        return None
    fig, axes = plt.subplots(
        1,
        len(scenarios),
        figsize=(max(4.5, 1.1 * df["policy"].nunique()) * len(scenarios), 3.8),
        squeeze=False,
    )
    for ax, scenario in zip(axes[0], scenarios, strict=True):
        sub = df[df["scenario"] == scenario]
        policies = list(dict.fromkeys(sub["policy"]))
        means = [sub.loc[sub["policy"] == p, metric].mean() for p in policies]
        cis = [_ci(sub.loc[sub["policy"] == p, metric].to_numpy(dtype=float)) for p in policies]
        colors = [
            "tab:red" if k == "agent" else "tab:blue"
            for k in (sub.loc[sub["policy"] == p, "kind"].iloc[0] for p in policies)
        ]
        ax.bar(range(len(policies)), means, yerr=cis, color=colors, capsize=3)
        ax.set_xticks(range(len(policies)), policies, rotation=30, ha="right")
        ax.set_title(scenario)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_tradeoff(df: pd.DataFrame, path: Path) -> Path | None:
    """Goodput against RTT p95 (see module docstring)."""
    if "rtt_p95_ms" not in df or df["rtt_p95_ms"].notna().sum() == 0:
        return None
    plt = _plt()
    scenarios = list(dict.fromkeys(df["scenario"]))
    fig, axes = plt.subplots(1, len(scenarios), figsize=(5.5 * len(scenarios), 4.2), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, scenario in zip(axes[0], scenarios, strict=True):
        sub = df[df["scenario"] == scenario]
        for i, policy in enumerate(dict.fromkeys(sub["policy"])):
            p = sub[sub["policy"] == policy]
            color = cmap(i % 10)
            ax.scatter(p["rtt_p95_ms"], p["goodput_mbps"], color=color, alpha=0.35, s=14)
            ax.scatter(
                p["rtt_p95_ms"].mean(),
                p["goodput_mbps"].mean(),
                color=color,
                s=90,
                marker="D" if p["kind"].iloc[0] == "agent" else "o",
                label=policy,
                edgecolor="black",
            )
        ax.invert_xaxis()
        ax.set_xlabel("RTT p95 (ms), better to the right")
        ax.set_ylabel("goodput (Mbit/s)")
        ax.set_title(scenario)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_losses(df: pd.DataFrame, path: Path) -> Path | None:
    """Mean packets lost per episode, stacked by cause."""
    causes = [c for c in ("loss_outage_pkts", "loss_random_pkts", "loss_overflow_pkts") if c in df]
    if not causes or df[causes].notna().sum().sum() == 0:
        return None
    plt = _plt()
    mean = df.groupby(["scenario", "policy"], sort=False)[causes].mean().reset_index()
    scenarios = list(dict.fromkeys(mean["scenario"]))
    fig, axes = plt.subplots(
        1,
        len(scenarios),
        figsize=(max(4.5, 1.1 * mean["policy"].nunique()) * len(scenarios), 3.8),
        squeeze=False,
    )
    for ax, scenario in zip(axes[0], scenarios, strict=True):
        sub = mean[mean["scenario"] == scenario]
        bottom = np.zeros(len(sub))
        for cause in causes:
            vals = sub[cause].fillna(0.0).to_numpy()
            ax.bar(
                range(len(sub)),
                vals,
                bottom=bottom,
                label=cause.removeprefix("loss_").removesuffix("_pkts"),
            )
            bottom += vals
        ax.set_xticks(range(len(sub)), sub["policy"], rotation=30, ha="right")
        ax.set_ylabel("packets dropped / episode")
        ax.set_title(scenario)
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_timeseries(df: pd.DataFrame, run_dir: Path, path: Path) -> Path | None:
    """Goodput over time, one line per policy, for the first scenario and seed."""
    if not len(df):
        return None
    scenario, seed = df["scenario"].iloc[0], df["seed"].min()
    sub = df[(df["scenario"] == scenario) & (df["seed"] == seed)]
    traces = []
    for key in sub["key"]:
        f = run_dir / "traces" / f"{key}.parquet"
        if f.is_file():
            traces.append(pd.read_parquet(f))
    if not traces:
        return None
    tr = pd.concat(traces, ignore_index=True)
    if "goodput_bps" not in tr:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.8))
    for policy, p in tr.groupby("policy", sort=False):
        step = p.drop_duplicates("step")
        dt = float(np.median(np.diff(step["t_s"]))) if len(step) > 1 else 1.0
        window = max(1, int(round(1.0 / dt)))
        smooth = step["goodput_bps"].rolling(window, min_periods=1).mean() / 1e6
        ax.plot(step["t_s"], smooth, label=str(policy), lw=1.2)
    ho = tr.loc[tr["handover"].astype(bool), "handover_time_s"].dropna().unique()
    for i, t in enumerate(sorted(ho)):
        ax.axvline(t, color="grey", ls="--", lw=0.8, label="handover" if i == 0 else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput, 1 s average (Mbit/s)")
    ax.set_title(f"{scenario}, seed {seed}")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_all(df: pd.DataFrame, run_dir: str | Path) -> list[Path]:
    """Write every plot that the results support into ``<run_dir>/plots``; return their paths."""
    run_dir = Path(run_dir)
    out_dir = run_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    made = [
        _bar_panels(df, "goodput_mbps", "goodput (Mbit/s)", out_dir / "goodput.png"),
        plot_tradeoff(df, out_dir / "tradeoff.png"),
        plot_losses(df, out_dir / "losses.png"),
        (
            _bar_panels(df, "completion_time_s", "completion time (s)", out_dir / "completion.png")
            if "completion_time_s" in df
            else None
        ),
        plot_timeseries(df, run_dir, out_dir / "timeseries.png"),
    ]
    return [p for p in made if p is not None]


#: Axis labels of the aggregate metrics (normalised: 0 = worst reference, 1 = best).
_AGGREGATE_LABELS = {
    "goodput_mbps": "goodput",
    "rtt_p95_ms": "RTT p95",
    "return": "return",
}
_STATISTIC_NAMES = {
    "iqm": "IQM",
    "mean": "mean",
    "median": "median",
    "optimality_gap": "optimality gap",
}


def plot_aggregate(agg: Any, out_dir: str | Path) -> list[Path]:
    """Draw the aggregate statistics of an evaluation with ``rliable.plot_utils``.

    :param agg: an :class:`~leogym.agents.results.aggregate.Aggregate`.
    :param out_dir: the ``plots`` folder.
    :return: the files written.
    """
    plt = _plt()
    plot_utils = importlib.import_module("rliable.plot_utils")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    table = agg.aggregate
    metrics = list(dict.fromkeys(table["metric"]))
    statistics = list(_STATISTIC_NAMES)
    for metric in metrics:
        sub = table[table["metric"] == metric]
        order = (
            sub[sub["statistic"] == "iqm"].sort_values("value", kind="stable")["policy"].tolist()
        )
        points, intervals = {}, {}
        for policy in order:
            rows = sub[sub["policy"] == policy].set_index("statistic").loc[statistics]
            points[policy] = rows["value"].to_numpy(dtype=float)
            intervals[policy] = rows[["ci_low", "ci_high"]].to_numpy(dtype=float).T
        fig, _ = plot_utils.plot_interval_estimates(
            points,
            intervals,
            metric_names=[_STATISTIC_NAMES[s] for s in statistics],
            algorithms=order,
            xlabel=(
                f"normalised {_AGGREGATE_LABELS.get(metric, metric)} "
                "(0 = worst reference, 1 = best)"
            ),
            xlabel_y_coordinate=-0.35 if len(order) < 4 else -0.15,
            row_height=0.5,
        )
        path = out / f"aggregate_{metric}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        made.append(path)
    pairs = agg.improvement
    if len(pairs):
        pair_metrics = list(dict.fromkeys(pairs["metric"]))
        n_pairs = int(pairs.groupby("metric").size().max())
        fig, axes = plt.subplots(
            1,
            len(pair_metrics),
            figsize=(5.5 * len(pair_metrics), 0.5 * n_pairs + 1.5),
            squeeze=False,
        )
        for ax, metric in zip(axes[0], pair_metrics, strict=True):
            sub = pairs[pairs["metric"] == metric]
            sep = "\x1f"
            probs = {f"{r.policy_x}{sep}{r.policy_y}": r.value for r in sub.itertuples()}
            cis = {
                f"{r.policy_x}{sep}{r.policy_y}": np.array([r.ci_low, r.ci_high])
                for r in sub.itertuples()
            }
            plot_utils.plot_probability_of_improvement(
                probs,
                cis,
                pair_separator=sep,
                ax=ax,
                xticks=[0.0, 0.25, 0.5, 0.75, 1.0],
                ticklabelsize="medium",
                labelsize="medium",
                xlabel=f"P(X > Y), {_AGGREGATE_LABELS.get(metric, metric)}",
            )
        fig.tight_layout()
        path = out / "probability_of_improvement.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        made.append(path)
    profiles = agg.profiles
    if len(profiles):
        prof_metrics = list(dict.fromkeys(profiles["metric"]))
        fig, axes = plt.subplots(
            1, len(prof_metrics), figsize=(5.5 * len(prof_metrics), 4.2), squeeze=False
        )
        for i, (ax, metric) in enumerate(zip(axes[0], prof_metrics, strict=True)):
            sub = profiles[profiles["metric"] == metric]
            taus = sub.drop_duplicates("tau")["tau"].to_numpy(dtype=float)
            curves, bands = {}, {}
            for policy, p in sub.groupby("policy", sort=False):
                curves[policy] = p["value"].to_numpy(dtype=float)
                bands[policy] = p[["ci_low", "ci_high"]].to_numpy(dtype=float).T
            plot_utils.plot_performance_profiles(
                curves,
                taus,
                performance_profile_cis=bands,
                ax=ax,
                xlabel=f"normalised {_AGGREGATE_LABELS.get(metric, metric)} (tau)",
                ylabel="fraction of runs with score > tau" if i == 0 else "",
                labelsize="medium",
                ticklabelsize="medium",
                legend=i == 0,
                legendsize="small",
            )
        fig.tight_layout()
        path = out / "performance_profile.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        made.append(path)
    return made
