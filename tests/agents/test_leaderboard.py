"""The leaderboard lists each distinct policy once, with intervals and the 5-seed flag
(leogym.agents.results.leaderboard, .distinct); synthetic tables and composed configs, no
simulation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leogym.agents.config import validate_config
from leogym.agents.evaluate import build_tasks
from leogym.agents.results.distinct import (
    members,
    merge_identical_baselines,
    merge_identical_rows,
)
from leogym.agents.results.leaderboard import MIN_SEEDS, leaderboard, notes, to_markdown
from leogym.agents.results.table import ResultsStore
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.runtime.rollout import PolicyRef
from leogym.agents.sb3.env_factory import EnvFactory
from leogym.schema import FieldError


def _baseline(label: str, **env: object) -> tuple[PolicyRef, EnvFactory]:
    return PolicyRef(label=label, kind="baseline", name=label.lower()), EnvFactory(
        "leogym/LeoCC-v0", {"step_ms": 100, **env}
    )


# ---------------------------------------------------------------------------------- dedupe
def test_merge_identical_baselines_merges_exactly_the_identical_pairs() -> None:
    agent = (
        PolicyRef(label="PPO", kind="agent", name="ppo", path="m.zip"),
        EnvFactory("leogym/LeoCC-v0", {"step_ms": 100, "cc": "cubic", "scheduler": "minrtt"}),
    )
    policies = [
        agent,  # same settings as CUBIC, but the agent acts: never merged
        _baseline("CUBIC", cc="cubic", scheduler="minrtt"),
        _baseline("MACO", cc="maco", scheduler="minrtt"),
        _baseline("minRTT", scheduler="minrtt", cc="cubic"),  # key order does not matter
        _baseline("CUBIC-0.8", cc="cubic", scheduler="minrtt", cc_params={"Beta": 0.8}),
        _baseline("CUBIC-beta", cc="cubic", scheduler="minrtt", cc_params={"Beta": 0.8}),
        _baseline("ext", cc="external", scheduler="minrtt"),
        _baseline("ext2", cc="external", scheduler="minrtt"),  # the policy acts: not merged
    ]
    merged = merge_identical_baselines(policies)
    assert [r.label for r, _ in merged] == [
        "PPO",
        "CUBIC = minRTT",
        "MACO",
        "CUBIC-0.8 = CUBIC-beta",
        "ext",
        "ext2",
    ]
    ref, env = merged[1]
    assert (ref.kind, ref.name) == ("baseline", "cubic") and env is policies[1][1]
    assert members("CUBIC = minRTT") == ["CUBIC", "minRTT"] and members("MACO") == ["MACO"]


def test_the_main_jobs_cubic_and_minrtt_are_evaluated_once(tmp_path: Path) -> None:
    c = to_objects(compose("main_job", ["eval.seeds=[0,1]", "eval.traces=false"]))
    tasks = build_tasks(c, ResultsStore(tmp_path))
    labels = list(dict.fromkeys(t.policy.label for t in tasks))
    assert labels == ["MACO", "freeze+CUBIC", "CUBIC = minRTT", "OLIA", "ALCS"]
    assert len(tasks) == 5 * 2
    cubic = next(t for t in tasks if t.policy.label == "CUBIC = minRTT")
    assert (cubic.env.kwargs["cc"], cubic.env.kwargs["scheduler"]) == ("cubic", "minrtt")


def _results() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for label, kind, cc, sched, mu, seeds in (
        ("PPO", "agent", "external", "minrtt", 12.0, 3),
        ("CUBIC", "baseline", "cubic", "minrtt", 8.0, 5),
        ("minRTT", "baseline", "cubic", "minrtt", 8.0, 5),
        ("NewReno", "baseline", "cubic", "minrtt", 6.0, 5),  # same pair, other episodes
        ("MACO", "baseline", "maco", "minrtt", 10.0, 5),
    ):
        for seed in range(seeds):
            # CUBIC and minRTT: the same episodes (same draws for the same seed)
            g = mu + np.random.default_rng(seed).normal(0, 1) if mu == 8.0 else rng.normal(mu, 1)
            rows.append(
                {
                    "key": f"{label}-{seed}",
                    "policy": label,
                    "kind": kind,
                    "algorithm": label.lower(),
                    "cc": cc,
                    "scheduler": sched,
                    "scenario": "default",
                    "seed": seed,
                    "goodput_mbps": g,
                    "rtt_p95_ms": 100 - g,
                    "return": 2 * g,
                }
            )
    return pd.DataFrame(rows)


def test_merge_identical_rows_merges_only_baselines_with_identical_episodes() -> None:
    merged = merge_identical_rows(_results())
    assert sorted(set(merged["policy"])) == ["CUBIC = minRTT", "MACO", "NewReno", "PPO"]
    assert (merged["policy"] == "CUBIC = minRTT").sum() == 5
    assert merge_identical_rows(merged).equals(merged)  # nothing left to merge
    # a resumed old run: the merged policy beside its old members merges into one label
    results = _results()
    again = results[results["policy"] == "CUBIC"].assign(policy="CUBIC = minRTT")
    merged = merge_identical_rows(pd.concat([results, again], ignore_index=True))
    assert sorted(set(merged["policy"])) == ["CUBIC = minRTT", "MACO", "NewReno", "PPO"]


# ------------------------------------------------------------------------------ leaderboard
def test_leaderboard_lists_distinct_policies_with_intervals_and_flags_few_seeds() -> None:
    results = _results()
    board = leaderboard(results)
    assert list(board["policy"]) == ["PPO", "MACO", "CUBIC = minRTT", "NewReno"]
    row = board.set_index("policy").loc["MACO"]
    g = results.loc[results["policy"] == "MACO", "goodput_mbps"]
    assert row["goodput_mbps"] == pytest.approx(g.mean())
    assert g.min() <= row["goodput_mbps_ci_low"] < g.mean() < row["goodput_mbps_ci_high"]
    assert row["return_ci_low"] < row["return"] < row["return_ci_high"]
    md = to_markdown(board)
    assert md.count("| CUBIC = minRTT |") == 1 and "| CUBIC |" not in md
    assert f"{row['goodput_mbps']:.2f} [{row['goodput_mbps_ci_low']:.2f}, " in md
    assert f"| 3 (< {MIN_SEEDS}) |" in md  # PPO ran 3 seeds
    text = "\n".join(notes(board))
    assert "`CUBIC = minRTT`: the baselines CUBIC and minRTT run the same" in text
    assert f"Fewer than {MIN_SEEDS} seeds: PPO (3)" in text


def test_leaderboard_shows_the_aggregate_section_with_several_scenarios() -> None:
    board = leaderboard(_results())
    agg = pd.DataFrame(
        [
            {
                "policy": p,
                "metric": m,
                "statistic": "iqm",
                "value": v,
                "ci_low": v - 0.1,
                "ci_high": v + 0.1,
                "reps": 2000,
                "n_scenarios": n,
                "n_seeds": 5,
            }
            for n in (3,)
            for p, v in (("MACO", 1.0), ("PPO", 0.5))
            for m in ("goodput_mbps", "rtt_p95_ms", "return")
        ]
    )
    md = to_markdown(board, aggregate=agg)
    assert "### aggregate over 3 scenarios" in md
    assert "| MACO | 1.00 [0.90, 1.10] | 1.00 [0.90, 1.10] | 1.00 [0.90, 1.10] | 3 | 5 |" in md
    one = agg.assign(n_scenarios=1)
    assert "aggregate over" not in to_markdown(board, aggregate=one)


# ----------------------------------------------------------------------------------- config
def test_eval_defaults_to_five_seeds_and_checks_the_reference_pair() -> None:
    c = to_objects(compose("evaluate"))
    assert list(c.eval.seeds) == [0, 1, 2, 3, 4]
    assert list(c.eval.aggregate.metrics) == ["goodput_mbps", "rtt_p95_ms", "return"]
    bad = to_objects(compose("evaluate", ["eval.aggregate.reference=[MACO]"]))
    with pytest.raises(FieldError, match=r"^eval\.aggregate\.reference: must be empty or at least"):
        validate_config(bad, ("eval",))
    bad = to_objects(compose("evaluate", ["eval.aggregate.reps=10"]))
    with pytest.raises(FieldError, match=r"^eval\.aggregate\.reps: must be in \[100, "):
        validate_config(bad, ("eval",))
