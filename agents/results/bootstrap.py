"""The ``rliable`` side of the aggregate statistics (:mod:`leogym.agents.results.aggregate`):
rliable imported under pandas 3, its bootstraps seeded, and the statistics they resample
(:data:`STATISTICS`, the probability of improvement, the score distribution).

rliable draws its bootstrap indices from NumPy's global random state (its ``random_state``
argument does not reach the index sampling); :func:`seeded` seeds that state for one
bootstrap and restores it afterwards.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = [
    "STATISTICS",
    "estimate",
    "improvement",
    "rliable_modules",
    "score_distribution",
    "seeded",
    "statistics",
]

#: The statistics of ``aggregate.parquet``, in rliable's terms.
STATISTICS = ("iqm", "mean", "median", "optimality_gap")


@functools.cache
def rliable_modules() -> tuple[Any, Any]:
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
def seeded(seed: int) -> Iterator[None]:
    """Seed NumPy's global random state, which rliable's bootstraps draw from; restore it."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def estimate(
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
    with seeded(seed):
        _, interval = library.get_interval_estimates(
            {"x": scores}, func, reps=reps, confidence_interval_size=confidence
        )
    return point, np.asarray(interval["x"], dtype=np.float64).reshape(2, -1)


def statistics(scores: np.ndarray) -> np.ndarray:
    """The :data:`STATISTICS` of a ``(n_seeds, n_scenarios)`` score matrix (rliable's)."""
    _, metrics = rliable_modules()
    return np.array(
        [
            metrics.aggregate_iqm(scores),
            metrics.aggregate_mean(scores),
            metrics.aggregate_median(scores),
            metrics.aggregate_optimality_gap(scores),
        ]
    )


def improvement(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """``rliable.metrics.probability_of_improvement`` without its per-scenario Mann-Whitney
    test: the same :math:`U / (n m)`, counted over all pairs of episodes at once.

    The bootstrap evaluates this thousands of times; ``scipy.stats.mannwhitneyu`` costs about
    a millisecond per scenario and call. ``tests/agents/test_aggregate.py`` checks that both
    give the same value.
    """
    above = scores_x[:, None, :] > scores_y[None, :, :]
    tied = scores_x[:, None, :] == scores_y[None, :, :]
    return float(np.mean(above.mean(axis=(0, 1)) + 0.5 * tied.mean(axis=(0, 1))))


def score_distribution(scores: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """rliable's score distribution (the fraction of all scores above each tau,
    ``rliable.library.score_distributions``), vectorised over the tau grid."""
    return np.mean(scores.reshape(-1, 1) > np.asarray(taus).reshape(1, -1), axis=0)
