r"""Cross-scenario aggregate statistics of an evaluation, computed with ``rliable``.

Paper: R. Agarwal, M. Schwarzer, P. S. Castro, A. Courville, M. G. Bellemare, "Deep
Reinforcement Learning at the Edge of the Statistical Precipice", NeurIPS 2021,
arXiv:2108.13264. Code: ``rliable`` (google-research/rliable), which computes every statistic,
bootstrap and plot here; this module shapes leogym's results table for it.

**Normalised score.** Per scenario :math:`s` and metric :math:`m`, an episode's value
:math:`x` becomes

.. math:: z = (x - r_0) / (r_1 - r_0)

where :math:`r_0` and :math:`r_1` are the worse and the better of two reference means over
seeds in :math:`s`: by default the worst and the best *baseline* mean (all policies if fewer
than two baselines ran), or the worst and the best of the named policies' means
(``eval.aggregate.reference``).
"Better" follows the metric (:func:`~leogym.agents.results.table.is_lower_better`): for the
RTT the better reference is the *smaller* mean, so :math:`z = 1` is the best reference and
:math:`z = 0` the worst for every metric, and a larger :math:`z` is always better. A scenario
whose two references are equal has no scale and is left out of that metric (a note says so).

**Score matrix.** Per policy and metric the scores form a matrix of shape
``(n_seeds, n_scenarios)`` (rliable's ``(num_runs, num_tasks)``); a seed that lacks a finite
value in some scenario is dropped, so that every policy is scored on the same scenarios.

**Statistics** (``rliable.metrics``), each with a stratified bootstrap interval
(``rliable.library.get_interval_estimates``: seeds resampled with replacement within each
scenario, ``reps`` times; percentile interval):

* ``iqm``: interquartile mean, the mean of the middle 50 % of all ``n_seeds * n_scenarios``
  scores (``scipy.stats.trim_mean(z, 0.25)``);
* ``mean``, ``median``: of the per-scenario means;
* ``optimality_gap``: :math:`\operatorname{mean}(1 - \min(z, 1))`, how far the policy falls
  short of the best reference (smaller is better).

**Probability of improvement** :math:`P(X > Y)`: per scenario, the probability that an
episode of :math:`X` scores higher than one of :math:`Y` (ties count one half: the
Mann-Whitney :math:`U / (n m)`), averaged over scenarios; the interval resamples each policy's
seeds independently within each scenario. Pairs: every agent against every other policy, or
every pair of policies when no agent ran.

**Performance profile**: the fraction of all (seed, scenario) scores above :math:`\tau`, over
a grid of :math:`\tau`, with bootstrap bands (``rliable.library.create_performance_profile``).

**Determinism.** rliable draws its bootstrap indices from NumPy's global random state (its
``random_state`` argument does not reach the index sampling); every bootstrap here runs inside
:func:`~leogym.agents.results.bootstrap.seeded`, which seeds that state with ``seed`` and
restores it afterwards. Each policy (and pair) is resampled from the same seed, so its interval
does not depend on which other policies were evaluated, and the same results give
bit-identical tables.

Files (:func:`write_aggregate`, in the evaluation run directory): ``aggregate.parquet``
(policy, metric, statistic, value, ci_low, ci_high, reps, n_scenarios, n_seeds),
``probability_of_improvement.parquet``, ``performance_profile.parquet``,
``normalisation.parquet`` (the reference pair of each scenario and metric) and the plots of
:func:`leogym.agents.results.plots.plot_aggregate`. How to read them: docs/evaluation.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.results.bootstrap import (
    STATISTICS,
    estimate,
    improvement,
    rliable_modules,
    score_distribution,
    seeded,
    statistics,
)
from leogym.agents.results.normalise import NORMALISATION_COLUMNS, normalise, score_matrices
from leogym.agents.runtime.storage import atomic_write_parquet
from leogym.schema import FieldError

__all__ = [
    "AGGREGATE",
    "DEFAULT_METRICS",
    "IMPROVEMENT",
    "STATISTICS",
    "Aggregate",
    "aggregate",
    "load_aggregate",
    "normalise",
    "score_matrices",
    "write_aggregate",
]

log = logging.getLogger("leogym.agents.results.aggregate")

AGGREGATE = "aggregate.parquet"
IMPROVEMENT = "probability_of_improvement.parquet"
PROFILE = "performance_profile.parquet"
NORMALISATION = "normalisation.parquet"
#: Metrics aggregated by default: goodput (higher is better), RTT p95 (lower), the return.
DEFAULT_METRICS = ("goodput_mbps", "rtt_p95_ms", "return")
#: Points of the performance profiles' tau grid.
PROFILE_POINTS = 101

AGGREGATE_COLUMNS = [
    "policy",
    "metric",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "reps",
    "n_scenarios",
    "n_seeds",
]
IMPROVEMENT_COLUMNS = [
    "policy_x",
    "policy_y",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "reps",
    "n_scenarios",
]
PROFILE_COLUMNS = ["policy", "metric", "tau", "value", "ci_low", "ci_high", "reps"]


@dataclass(frozen=True)
class Aggregate:
    """The aggregate statistics of one evaluation.

    :param aggregate: one row per (policy, metric, statistic).
    :param improvement: one row per (policy pair, metric): ``P(policy_x > policy_y)``.
    :param profiles: one row per (policy, metric, tau).
    :param normalisation: the reference pair of each (scenario, metric).
    :param notes: what was left out, and why.
    """

    aggregate: pd.DataFrame
    improvement: pd.DataFrame
    profiles: pd.DataFrame
    normalisation: pd.DataFrame
    notes: tuple[str, ...] = ()


def _policy_order(results: pd.DataFrame) -> list[str]:
    kinds = results.groupby("policy", sort=True)["kind"].first()
    return sorted(kinds.index, key=lambda p: (kinds[p] != "agent", str(p)))


def _pairs(policies: Sequence[str], agents: set[str]) -> list[tuple[str, str]]:
    firsts = [p for p in policies if p in agents] or list(policies)
    pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for x in firsts:
        for y in policies:
            if x != y and frozenset((x, y)) not in seen:
                seen.add(frozenset((x, y)))
                pairs.append((x, y))
    return pairs


# ------------------------------------------------------------------------------ aggregate
def aggregate(
    results: pd.DataFrame,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    reference: Sequence[str] = (),
    reps: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Aggregate:
    """The aggregate statistics of a results table (see the module docstring).

    :param results: one row per episode: ``scenario``, ``policy``, ``kind``, ``seed`` and the
        metrics.
    :param metrics: results columns to aggregate.
    :param reference: two or more policy labels (the worst of them 0, the best 1) or empty
        (the worst and best baseline).
    :param reps: bootstrap replications of every interval.
    :param confidence: coverage of the intervals.
    :param seed: seed of the bootstrap resampling.
    """
    if reference and len(reference) < 2:
        raise FieldError("eval.aggregate.reference", "must be empty or at least two policy labels")
    from leogym.agents.results.distinct import merge_identical_rows

    results = merge_identical_rows(results)  # each distinct policy once, as the leaderboard
    library, metrics_mod = rliable_modules()
    order = _policy_order(results) if len(results) else []
    agents = set(results.loc[results["kind"] == "agent", "policy"]) if len(results) else set()
    rows: list[dict[str, Any]] = []
    pair_rows: list[dict[str, Any]] = []
    profile_rows: list[dict[str, Any]] = []
    refs: list[pd.DataFrame] = []
    notes: list[str] = []
    for metric in metrics:
        scores, ref, why = normalise(results, metric, reference)
        notes += why
        refs.append(ref)
        if not len(scores):
            continue
        matrices, scenarios, why = score_matrices(
            scores, [p for p in order if p in set(scores["policy"])]
        )
        notes += why
        for policy, m in matrices.items():
            point, interval = estimate(
                library, m, statistics, reps=reps, confidence=confidence, seed=seed
            )
            for i, statistic in enumerate(STATISTICS):
                rows.append(
                    {
                        "policy": policy,
                        "metric": metric,
                        "statistic": statistic,
                        "value": float(point[i]),
                        "ci_low": float(interval[0, i]),
                        "ci_high": float(interval[1, i]),
                        "reps": reps,
                        "n_scenarios": len(scenarios),
                        "n_seeds": int(m.shape[0]),
                    }
                )
        for x, y in _pairs(list(matrices), agents):
            _, interval = estimate(
                library,
                (matrices[x], matrices[y]),
                improvement,
                reps=reps,
                confidence=confidence,
                seed=seed,
            )
            pair_rows.append(
                {
                    "policy_x": x,
                    "policy_y": y,
                    "metric": metric,
                    "value": float(
                        metrics_mod.probability_of_improvement(matrices[x], matrices[y])
                    ),
                    "ci_low": float(interval[0, 0]),
                    "ci_high": float(interval[1, 0]),
                    "reps": reps,
                    "n_scenarios": len(scenarios),
                }
            )
        if matrices:
            pooled = np.concatenate([m.ravel() for m in matrices.values()])
            taus = np.linspace(
                min(0.0, float(pooled.min())), max(1.0, float(pooled.max())), PROFILE_POINTS
            )
            for policy, m in matrices.items():
                if m.shape[0] == 1:  # one seed: every resample is the data itself
                    curve = score_distribution(m, taus)
                    band = np.vstack([curve, curve])
                else:
                    with seeded(seed):
                        profiles, bands = library.create_performance_profile(
                            {policy: m},
                            taus,
                            custom_profile_func=score_distribution,
                            reps=reps,
                            confidence_interval_size=confidence,
                        )
                    curve, band = profiles[policy], bands[policy]
                for j, tau in enumerate(taus):
                    profile_rows.append(
                        {
                            "policy": policy,
                            "metric": metric,
                            "tau": float(tau),
                            "value": float(curve[j]),
                            "ci_low": float(band[0, j]),
                            "ci_high": float(band[1, j]),
                            "reps": reps,
                        }
                    )
    refs = [r for r in refs if len(r)]
    return Aggregate(
        aggregate=pd.DataFrame(rows, columns=AGGREGATE_COLUMNS),
        improvement=pd.DataFrame(pair_rows, columns=IMPROVEMENT_COLUMNS),
        profiles=pd.DataFrame(profile_rows, columns=PROFILE_COLUMNS),
        normalisation=(
            pd.concat(refs, ignore_index=True)
            if refs
            else pd.DataFrame(columns=NORMALISATION_COLUMNS)
        ),
        notes=tuple(notes),
    )


def write_aggregate(
    results: pd.DataFrame, run_dir: str | Path, options: Any = None, *, plots: bool = True
) -> Aggregate:
    """Compute the aggregate statistics and write them (and their plots) into ``run_dir``.

    :param results: the evaluation's results table.
    :param run_dir: the evaluation run directory.
    :param options: an :class:`~leogym.agents.config.AggregateConfig` (``None``: defaults).
    :param plots: also draw ``plots/aggregate_<metric>.png``,
        ``plots/probability_of_improvement.png`` and ``plots/performance_profile.png``.
    """
    import time

    run_dir = Path(run_dir)
    kwargs: dict[str, Any] = {}
    if options is not None:
        kwargs = {
            "metrics": list(options.metrics),
            "reference": list(options.reference),
            "reps": int(options.reps),
            "confidence": float(options.confidence),
            "seed": int(options.seed),
        }
    t0 = time.perf_counter()
    result = aggregate(results, **kwargs)
    for note in result.notes:
        log.warning("aggregate: %s", note)
    atomic_write_parquet(run_dir / AGGREGATE, result.aggregate)
    atomic_write_parquet(run_dir / IMPROVEMENT, result.improvement)
    atomic_write_parquet(run_dir / PROFILE, result.profiles)
    atomic_write_parquet(run_dir / NORMALISATION, result.normalisation)
    if plots and len(result.aggregate):
        from leogym.agents.results.plots import plot_aggregate

        plot_aggregate(result, run_dir / "plots")
    log.info(
        "aggregate statistics (%d reps) in %.1f s: %s",
        kwargs.get("reps", 2000),
        time.perf_counter() - t0,
        run_dir / AGGREGATE,
    )
    return result


def load_aggregate(run_dir: str | Path) -> pd.DataFrame | None:
    """``aggregate.parquet`` of an evaluation (or main-job) run directory, or ``None``."""
    run_dir = Path(run_dir)
    for candidate in (run_dir / AGGREGATE, run_dir / "eval" / AGGREGATE):
        if candidate.is_file():
            return pd.read_parquet(candidate)
    return None
