"""Distinct policies: two baselines that run the same native algorithms are one policy.

A baseline runs inside the simulator, selected by env settings (``cc``, ``scheduler``, their
parameters); where the env leaves a control to the agent the evaluation fills it with
``eval.fallback_cc`` / ``eval.fallback_scheduler``. So on ``LeoCC-v0`` the baseline ``CUBIC``
(CUBIC + the fallback minRTT) and the baseline ``minRTT`` (the fallback CUBIC + minRTT) are
the same connection, and the same seed gives the same episode, bit for bit. Such baselines
are merged under one label that names them all, ``"CUBIC = minRTT"``:

* :func:`merge_identical_baselines`, before an evaluation runs: baselines whose envs are
  identical (same env id and every env setting equal, parameters included) become one policy,
  evaluated once;
* :func:`merge_identical_rows`, on a results table written before that (or by hand): baselines
  with the same CC and scheduler whose episodes have identical metrics, scenario by scenario
  and seed by seed, become one row.

Agents are never merged: the agent acts, so its env settings do not define its episodes.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import TYPE_CHECKING

import pandas as pd

from leogym.agents.results.table import metric_columns

if TYPE_CHECKING:
    from leogym.agents.runtime.rollout import PolicyRef
    from leogym.agents.sb3.env_factory import EnvFactory

__all__ = [
    "SEPARATOR",
    "members",
    "merge_identical_baselines",
    "merge_identical_rows",
    "merge_notes",
]

log = logging.getLogger("leogym.agents.results.distinct")

#: Joins the labels of merged baselines.
SEPARATOR = " = "


def members(label: str) -> list[str]:
    """The labels merged into ``label`` (itself alone when it is not a merged label)."""
    return str(label).split(SEPARATOR)


def _identity(env: EnvFactory) -> str | None:
    """What determines a baseline's episodes: its env id and env settings (``None`` if the
    env leaves a control to the policy, whose actions would then matter)."""
    kwargs = dict(env.kwargs)
    if "external" in (kwargs.get("cc"), kwargs.get("scheduler")):
        return None
    return json.dumps(
        {"env_id": env.env_id, "env": kwargs, "scenario": env.scenario},
        sort_keys=True,
        default=str,
    )


def merge_identical_baselines(
    policies: list[tuple[PolicyRef, EnvFactory]],
) -> list[tuple[PolicyRef, EnvFactory]]:
    """Merge the baselines whose envs are identical into one policy, labelled ``"A = B"``.

    :param policies: ``(PolicyRef, EnvFactory)`` pairs, as the evaluation builds them.
    :return: the same list with each group of identical baselines replaced by its first
        member, relabelled; order otherwise kept.
    """
    groups: dict[str, list[int]] = {}
    for i, (ref, env) in enumerate(policies):
        key = _identity(env) if ref.kind == "baseline" else None
        if key is not None:
            groups.setdefault(key, []).append(i)
    merged: dict[int, tuple[PolicyRef, EnvFactory]] = {}
    dropped: set[int] = set()
    for idx in groups.values():
        if len(idx) < 2:
            continue
        labels = [policies[i][0].label for i in idx]
        ref, env = policies[idx[0]]
        kwargs = dict(env.kwargs)
        label = SEPARATOR.join(labels)
        log.info(
            "baselines %s run the same native algorithms (cc=%s, scheduler=%s, same "
            "parameters): evaluated once, as %r",
            ", ".join(labels),
            kwargs.get("cc"),
            kwargs.get("scheduler"),
            label,
        )
        merged[idx[0]] = (dataclasses.replace(ref, label=label), env)
        dropped.update(idx[1:])
    return [merged.get(i, p) for i, p in enumerate(policies) if i not in dropped]


def merge_identical_rows(results: pd.DataFrame) -> pd.DataFrame:
    """Merge baselines of a results table that ran the same CC and scheduler and whose
    episodes have identical metrics (same scenarios and seeds, every metric equal).

    The merged rows keep the first member's episodes under the label ``"A = B"`` (members in
    alphabetical order). A table without such baselines is returned unchanged.
    """
    if not len(results) or not {"kind", "cc", "scheduler"} <= set(results.columns):
        return results  # without the algorithms, nothing says two baselines are the same
    metrics = metric_columns(results)
    base = results[results["kind"] == "baseline"]
    keys = [c for c in ("env_id", "cc", "scheduler", "step_ms", "episode_s") if c in results]
    rename: dict[str, str] = {}
    drop: set[str] = set()
    for _, group in base.groupby(keys, sort=True, dropna=False):
        labels = sorted(set(group["policy"]))
        episodes = {
            p: group[group["policy"] == p]
            .sort_values(["scenario", "seed"], kind="stable")[["scenario", "seed", *metrics]]
            .reset_index(drop=True)
            for p in labels
        }
        remaining = list(labels)
        while remaining:
            first = remaining.pop(0)
            same = [p for p in remaining if episodes[first].equals(episodes[p])]
            if same:
                names = dict.fromkeys(m for p in (first, *same) for m in members(p))
                rename[first] = SEPARATOR.join(names)
                drop.update(same)
                remaining = [p for p in remaining if p not in same]
    if not rename:
        return results
    out = results[~results["policy"].isin(drop)].copy()
    out["policy"] = out["policy"].replace(rename)
    return out.reset_index(drop=True)


def merge_notes(results: pd.DataFrame) -> list[str]:
    """One sentence per merged policy of a results table, for the leaderboard."""
    notes = []
    for label in dict.fromkeys(results["policy"]) if len(results) else ():
        parts = members(label)
        if len(parts) < 2:
            continue
        row = results[results["policy"] == label].iloc[0]
        notes.append(
            f"`{label}`: the baselines {', '.join(parts[:-1])} and {parts[-1]} run the same "
            f"native algorithms (CC {row.get('cc')}, scheduler {row.get('scheduler')}, same "
            "parameters), so they are one policy, listed once."
        )
    return notes
