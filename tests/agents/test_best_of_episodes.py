"""The hindsight bound ``best_of_episodes``: per scenario and seed, the best episode among
several policies (docs/evaluation.md, "Fixed gains"), on a table written out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from leogym.agents.results.aggregate import aggregate
from leogym.agents.results.analysis import best_of_episodes

# (scenario, seed) -> {policy: (return, rtt_p95_ms)}
EPISODES = {
    ("s0", 0): {"A": (1.0, 50.0), "B": (2.0, 80.0), "C": (0.5, 40.0)},
    ("s0", 1): {"A": (3.0, 70.0), "B": (3.0, 60.0), "C": (0.0, 90.0)},
    ("s1", 0): {"A": (-1.0, 30.0), "B": (-2.0, 20.0), "C": (5.0, 30.0)},
    ("s1", 1): {"A": (4.0, 10.0), "B": (1.0, 10.0)},  # C did not run
}


def _table() -> pd.DataFrame:
    rows = [
        {
            "scenario": s,
            "seed": k,
            "policy": p,
            "kind": "baseline",
            "return": r,
            "rtt_p95_ms": d,
            "goodput_mbps": 10.0 + r,
        }
        for (s, k), row in EPISODES.items()
        for p, (r, d) in row.items()
    ]
    return pd.DataFrame(rows)


def test_each_episode_is_the_best_policys_with_ties_to_the_first_named() -> None:
    best = best_of_episodes(_table(), ["A", "B"], "best")
    assert list(zip(best["scenario"], best["seed"], best["return"], strict=True)) == [
        ("s0", 0, 2.0),  # B
        ("s0", 1, 3.0),  # A and B tie: A, named first
        ("s1", 0, -1.0),  # A
        ("s1", 1, 4.0),  # A
    ]
    assert set(best["policy"]) == {"best"} and set(best["kind"]) == {"agent"}
    assert best.loc[1, "rtt_p95_ms"] == 70.0  # the whole row of the chosen episode (A's)
    tie = best_of_episodes(_table(), ["B", "A"], "best")
    assert tie.loc[1, "rtt_p95_ms"] == 60.0  # now B's


def test_a_lower_is_better_metric_picks_the_smallest_and_incomplete_episodes_drop() -> None:
    best = best_of_episodes(_table(), ["A", "B", "C"], "fastest", metric="rtt_p95_ms")
    # (s1, 1) lacks C: left out
    assert list(best["rtt_p95_ms"]) == [40.0, 60.0, 20.0]
    assert list(best["return"]) == [0.5, 3.0, -2.0]


def test_the_bound_is_scored_but_never_a_reference() -> None:
    table = _table()
    with_bound = pd.concat([table, best_of_episodes(table, ["A", "B"], "best")])
    ref = aggregate(with_bound, metrics=["return"], reps=100).normalisation
    assert "best" not in set(ref["zero_policy"]) | set(ref["one_policy"])


@pytest.mark.parametrize(
    ("policies", "label", "metric", "match"),
    [
        (["A", "Z"], "x", "return", r"policies: \['Z'\] not in"),
        ([], "x", "return", "policies: none given"),
        (["A"], "x", "nope", "metric: 'nope' is not a column"),
        (["A"], "B", "return", "label: 'B' is already a policy"),
    ],
)
def test_bad_arguments_name_what_is_wrong(
    policies: list[str], label: str, metric: str, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        best_of_episodes(_table(), policies, label, metric)
