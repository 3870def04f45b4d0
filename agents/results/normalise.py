"""Normalised scores and score matrices of an evaluation's results table, what the aggregate
statistics (:mod:`leogym.agents.results.aggregate`, whose docstring defines both) resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from leogym.agents.results.table import is_lower_better
from leogym.schema import FieldError

__all__ = ["NORMALISATION_COLUMNS", "normalise", "score_matrices"]

NORMALISATION_COLUMNS = [
    "scenario",
    "metric",
    "zero_policy",
    "zero_value",
    "one_policy",
    "one_value",
]


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
    :param reference: two or more policy labels, or empty for the worst and best baseline.
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
