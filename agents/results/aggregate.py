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
than two baselines ran), or the means of two named policies (``eval.aggregate.reference``).
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
:func:`_seeded`, which seeds that state with ``seed`` and restores it afterwards. Each policy
(and pair) is resampled from the same seed, so its interval does not depend on which other
policies were evaluated, and the same results give bit-identical tables.

Files (:func:`write_aggregate`, in the evaluation run directory): ``aggregate.parquet``
(policy, metric, statistic, value, ci_low, ci_high, reps, n_scenarios, n_seeds),
``probability_of_improvement.parquet``, ``performance_profile.parquet``,
``normalisation.parquet`` (the reference pair of each scenario and metric) and the plots of
:func:`leogym.agents.results.plots.plot_aggregate`. How to read them: docs/evaluation.md.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.results.table import is_lower_better
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
#: The statistics of ``aggregate.parquet``, in rliable's terms.
STATISTICS = ("iqm", "mean", "median", "optimality_gap")
#: Points of the performance profiles' tau grid.
PROFILE_POINTS = 101
#: Separates the two labels of a pair in rliable's dictionaries.
_PAIR = "\x1f"

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
NORMALISATION_COLUMNS = [
    "scenario",
    "metric",
    "zero_policy",
    "zero_value",
    "one_policy",
    "one_value",
]


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


# ------------------------------------------------------------------------------- rliable
@functools.cache
def _rliable() -> tuple[Any, Any]:
    """``(rliable.library, rliable.metrics)``.

    rliable 1.2 needs ``arch < 8``, and arch 7's import applies pandas' ``deprecate_kwarg``
    decorator with the pandas 2 signature (``old_arg_name, new_arg_name``); pandas 3 added a
    leading warning class. While arch is imported, and only then, a pandas 3 decorator is
    given that class (``FutureWarning``, pandas' own choice for renamed keywords).
    """
    decorators: Any = importlib.import_module("pandas.util._decorators")
    original = decorators.deprecate_kwarg
    needs_class = "klass" in inspect.signature(original).parameters

    def compatible(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], str):
            return original(FutureWarning, *args, **kwargs)
        return original(*args, **kwargs)

    if needs_class:
        decorators.deprecate_kwarg = compatible
    try:
        library = importlib.import_module("rliable.library")
        metrics = importlib.import_module("rliable.metrics")
    finally:
        decorators.deprecate_kwarg = original
    return library, metrics


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed NumPy's global random state, which rliable's bootstraps draw from; restore it."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _estimate(
    library: Any,
    scores: np.ndarray | tuple[np.ndarray, ...],
    func: Any,
    *,
    reps: int,
    confidence: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``func`` of ``scores`` and its stratified bootstrap interval
    (``rliable.library.get_interval_estimates``, seeded).

    :return: the point estimate (1-D) and the interval (shape ``(2, k)``: lows, highs).
    """
    arrays = scores if isinstance(scores, tuple) else (scores,)
    point = np.atleast_1d(np.asarray(func(*arrays), dtype=np.float64))
    if all(a.shape[0] == 1 for a in arrays):
        # one seed per scenario: every stratified resample is the data itself, so the
        # interval is the point (what the bootstrap would return, without its cost)
        return point, np.vstack([point, point])
    with _seeded(seed):
        _, interval = library.get_interval_estimates(
            {"x": scores}, func, reps=reps, confidence_interval_size=confidence
        )
    return point, np.asarray(interval["x"], dtype=np.float64).reshape(2, -1)


def _statistics(scores: np.ndarray) -> np.ndarray:
    """The :data:`STATISTICS` of a ``(n_seeds, n_scenarios)`` score matrix (rliable's)."""
    _, metrics = _rliable()
    return np.array(
        [
            metrics.aggregate_iqm(scores),
            metrics.aggregate_mean(scores),
            metrics.aggregate_median(scores),
            metrics.aggregate_optimality_gap(scores),
        ]
    )


def _improvement(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """``rliable.metrics.probability_of_improvement`` without its per-scenario Mann-Whitney
    test: the same :math:`U / (n m)`, counted over all pairs of episodes at once.

    The bootstrap evaluates this thousands of times; ``scipy.stats.mannwhitneyu`` costs about
    a millisecond per scenario and call. ``tests/agents/test_aggregate.py`` checks that both
    give the same value.
    """
    above = scores_x[:, None, :] > scores_y[None, :, :]
    tied = scores_x[:, None, :] == scores_y[None, :, :]
    return float(np.mean(above.mean(axis=(0, 1)) + 0.5 * tied.mean(axis=(0, 1))))


# ------------------------------------------------------------------------------ normalise
def _resolve(name: str, policies: Sequence[str]) -> str:
    """A reference label: a policy's label, or one member of a merged ``A = B`` label."""
    from leogym.agents.results.distinct import members

    if name in policies:
        return name
    for p in policies:
        if name in members(p):
            return p
    raise FieldError(
        "eval.aggregate.reference",
        f"{name!r} is not an evaluated policy (policies: {', '.join(policies)})",
    )


def _finite(series: pd.Series) -> pd.Series:
    return series.astype(float).where(np.isfinite(series.astype(float)))


def normalise(
    results: pd.DataFrame, metric: str, reference: Sequence[str] = ()
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Normalised scores of every episode for one metric (see the module docstring).

    :param results: the evaluation's results table (``scenario``, ``policy``, ``kind``,
        ``seed`` and the metric's column).
    :param metric: a results column.
    :param reference: two policy labels, or empty for the worst and best baseline.
    :return: ``(scores, references, notes)``: the episodes' ``scenario``, ``policy``, ``seed``
        and ``score`` (scenarios without a scale left out); each scenario's reference pair;
        what was left out.
    """
    if metric not in results:
        raise FieldError(
            "eval.aggregate.metrics",
            f"{metric!r} is not a column of the results table",
        )
    policies = list(dict.fromkeys(results["policy"]))
    named = [_resolve(n, policies) for n in reference]
    lower = is_lower_better(metric)
    frames: list[pd.DataFrame] = []
    refs: list[dict[str, Any]] = []
    notes: list[str] = []
    fallback = False
    for scenario, sub in results.groupby("scenario", sort=True):
        values = _finite(sub[metric])
        means = values.groupby(sub["policy"], sort=True).mean().dropna()
        if named:
            if any(p not in means.index for p in named):
                notes.append(f"{metric}: scenario {scenario} left out (no value for {named})")
                continue
            pool = means.loc[named]
        else:
            kinds = sub.groupby("policy", sort=True)["kind"].first()
            pool = means[[kinds.get(p) == "baseline" for p in means.index]]
            if len(pool) < 2:
                pool, fallback = means, True
        if len(pool) < 2:
            notes.append(f"{metric}: scenario {scenario} left out (fewer than two policies)")
            continue
        worse = str(pool.idxmax() if lower else pool.idxmin())
        better = str(pool.idxmin() if lower else pool.idxmax())
        r0 = float(pool.max() if lower else pool.min())  # the worse reference: score 0
        r1 = float(pool.min() if lower else pool.max())  # the better: score 1
        if not r1 != r0:
            notes.append(
                f"{metric}: scenario {scenario} left out (its references {worse} and {better} "
                f"have the same mean, {r0:g})"
            )
            continue
        refs.append(
            {
                "scenario": scenario,
                "metric": metric,
                "zero_policy": worse,
                "zero_value": r0,
                "one_policy": better,
                "one_value": r1,
            }
        )
        frames.append(
            pd.DataFrame(
                {
                    "scenario": sub["scenario"].to_numpy(),
                    "policy": sub["policy"].to_numpy(),
                    "seed": sub["seed"].to_numpy(),
                    "score": ((values - r0) / (r1 - r0)).to_numpy(dtype=np.float64),
                }
            )
        )
    if fallback:
        notes.append(f"{metric}: fewer than two baselines; references from all policies")
    scores = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame({"scenario": [], "policy": [], "seed": [], "score": []})
    )
    return scores, pd.DataFrame(refs, columns=NORMALISATION_COLUMNS), notes


def score_matrices(
    scores: pd.DataFrame, policies: Sequence[str] | None = None
) -> tuple[dict[str, np.ndarray], list[str], list[str]]:
    """Per policy, the ``(n_seeds, n_scenarios)`` matrix of scores (rows: seeds with a finite
    score in every scenario, ascending; columns: scenarios, sorted by name).

    :param scores: from :func:`normalise`.
    :param policies: the policies to include, in order (default: all, in table order).
    :return: ``(matrices, scenarios, notes)``.
    """
    scenarios = sorted(set(scores["scenario"]))
    policies = list(dict.fromkeys(scores["policy"])) if policies is None else list(policies)
    out: dict[str, np.ndarray] = {}
    notes: list[str] = []
    for policy in policies:
        sub = scores[scores["policy"] == policy]
        table = sub.pivot_table(
            index="seed", columns="scenario", values="score", aggfunc="mean", dropna=False
        ).reindex(columns=scenarios)
        complete = table.dropna(axis=0, how="any").sort_index()
        if len(complete) < len(table):
            dropped = sorted(set(table.index) - set(complete.index))
            notes.append(f"{policy}: seeds {dropped} lack a score in some scenario, left out")
        if len(complete):
            out[policy] = complete.to_numpy(dtype=np.float64)
        else:
            notes.append(f"{policy}: no seed scored in every scenario, left out")
    return out, scenarios, notes


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
    :param reference: two policy labels (0 and 1 of the normalised score) or empty (the worst
        and best baseline).
    :param reps: bootstrap replications of every interval.
    :param confidence: coverage of the intervals.
    :param seed: seed of the bootstrap resampling.
    """
    if reference and len(reference) != 2:
        raise FieldError("eval.aggregate.reference", "must be empty or two policy labels")
    from leogym.agents.results.distinct import merge_identical_rows

    results = merge_identical_rows(results)  # each distinct policy once, as the leaderboard
    library, metrics_mod = _rliable()
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
            point, interval = _estimate(
                library, m, _statistics, reps=reps, confidence=confidence, seed=seed
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
            _, interval = _estimate(
                library,
                (matrices[x], matrices[y]),
                _improvement,
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
                    curve = _score_distribution(m, taus)
                    band = np.vstack([curve, curve])
                else:
                    with _seeded(seed):
                        profiles, bands = library.create_performance_profile(
                            {policy: m},
                            taus,
                            custom_profile_func=_score_distribution,
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


def _score_distribution(scores: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """rliable's score distribution (the fraction of all scores above each tau,
    ``rliable.library.score_distributions``), vectorised over the tau grid."""
    return np.mean(scores.reshape(-1, 1) > np.asarray(taus).reshape(1, -1), axis=0)


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
