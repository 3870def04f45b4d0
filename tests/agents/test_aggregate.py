"""Cross-scenario aggregate statistics (leogym.agents.results.aggregate) and the bootstrap
interval of a mean (leogym.agents.results.intervals), on synthetic results tables: no
simulation. Expected values come from their definitions (Agarwal et al., NeurIPS 2021),
SciPy and the normal distribution, not from the code under test."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leogym.agents.config import AggregateConfig
from leogym.agents.results.aggregate import aggregate, write_aggregate
from leogym.agents.results.bootstrap import estimate, improvement, rliable_modules, statistics
from leogym.agents.results.intervals import mean_ci
from leogym.agents.results.normalise import normalise, score_matrices
from leogym.schema import FieldError

REPS = 200  # enough for the checks below, and fast


def _table(
    means: dict[str, tuple[str, float]],
    *,
    scenarios: int = 3,
    seeds: int = 5,
    spread: float = 1.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Episodes of policies ``label -> (kind, mean goodput)``; scenario ``s`` adds ``10 s``.
    RTT p95 falls as goodput rises (a better policy has both); the return is goodput / 10."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(scenarios):
        for label, (kind, mu) in means.items():
            for k in range(seeds):
                g = mu + 10.0 * s + rng.normal(0.0, spread)
                rows.append(
                    {
                        "scenario": f"s{s}",
                        "policy": label,
                        "kind": kind,
                        "seed": k,
                        "goodput_mbps": g,
                        "rtt_p95_ms": 200.0 - 2.0 * g + rng.normal(0.0, spread),
                        "return": g / 10.0,
                    }
                )
    return pd.DataFrame(rows)


POLICIES = {
    "PPO": ("agent", 12.0),
    "MACO": ("baseline", 14.0),
    "CUBIC": ("baseline", 10.0),
    "OLIA": ("baseline", 11.0),
}


def _by_hand(results: pd.DataFrame, metric: str, lower_is_better: bool) -> pd.DataFrame:
    """The normalised score of every episode, from the definition: per scenario, 0 at the
    worst baseline mean and 1 at the best."""
    out = []
    for _, sub in results.groupby("scenario"):
        means = sub[sub["kind"] == "baseline"].groupby("policy")[metric].mean()
        worst = means.max() if lower_is_better else means.min()
        best = means.min() if lower_is_better else means.max()
        part = sub[["scenario", "policy", "seed"]].copy()
        part["score"] = (sub[metric] - worst) / (best - worst)
        out.append(part)
    return pd.concat(out, ignore_index=True)


# ------------------------------------------------------------------------------ normalise
@pytest.mark.parametrize(("metric", "lower"), [("goodput_mbps", False), ("rtt_p95_ms", True)])
def test_normalisation_maps_the_worst_and_best_baseline_to_0_and_1(
    metric: str, lower: bool
) -> None:
    results = _table(POLICIES)
    scores, refs, notes = normalise(results, metric)
    assert not notes
    means = scores.groupby(["scenario", "policy"])["score"].mean()
    for scenario in ("s0", "s1", "s2"):
        baseline_means = means.loc[scenario].drop("PPO")
        assert baseline_means.min() == pytest.approx(0.0, abs=1e-12)
        assert baseline_means.max() == pytest.approx(1.0, abs=1e-12)
    # the best reference is the best by the metric's own direction
    raw = results[results["kind"] == "baseline"].groupby(["scenario", "policy"])[metric].mean()
    for r in refs.itertuples():
        best = raw.loc[r.scenario].idxmin() if lower else raw.loc[r.scenario].idxmax()
        assert r.one_policy == best
    expected = _by_hand(results, metric, lower).sort_values(["scenario", "policy", "seed"])
    got = scores.sort_values(["scenario", "policy", "seed"])
    np.testing.assert_allclose(got["score"].to_numpy(), expected["score"].to_numpy(), rtol=1e-12)


def test_named_reference_pair_maps_the_worse_to_0_and_the_better_to_1() -> None:
    results = _table(POLICIES)
    for pair in (["CUBIC", "MACO"], ["MACO", "CUBIC"]):  # order does not matter
        scores, refs, _ = normalise(results, "rtt_p95_ms", pair)
        means = scores.groupby(["scenario", "policy"])["score"].mean()
        for scenario in ("s0", "s1", "s2"):
            assert means.loc[(scenario, "MACO")] == pytest.approx(1.0, abs=1e-12)  # lower RTT
            assert means.loc[(scenario, "CUBIC")] == pytest.approx(0.0, abs=1e-12)
        assert set(refs["one_policy"]) == {"MACO"}


def test_named_references_keep_the_scale_when_a_worse_baseline_joins() -> None:
    # A control evaluated as a baseline (a fixed gain far below CUBIC) would become the new
    # zero; naming the analytic baselines keeps the scores the evaluation had without it.
    control = {**POLICIES, "CTRL": ("baseline", 2.0)}
    named = ["CUBIC", "MACO", "OLIA"]
    scores, refs, _ = normalise(_table(control), "goodput_mbps", named)
    assert set(refs["zero_policy"]) == {"CUBIC"} and set(refs["one_policy"]) == {"MACO"}
    means = scores.groupby(["scenario", "policy"])["score"].mean()
    for scenario in ("s0", "s1", "s2"):
        assert means.loc[(scenario, "MACO")] == pytest.approx(1.0, abs=1e-12)
        assert means.loc[(scenario, "CUBIC")] == pytest.approx(0.0, abs=1e-12)
        assert means.loc[(scenario, "CTRL")] < 0.0
    moved, _, _ = normalise(_table(control), "goodput_mbps")  # the default: every baseline
    assert moved.groupby("policy")["score"].mean()["CUBIC"] > 0.0  # CTRL became the zero


def test_reference_names_a_merged_policy_by_either_member() -> None:
    results = _table(POLICIES).replace({"policy": {"CUBIC": "CUBIC = minRTT"}})
    scores, refs, _ = normalise(results, "goodput_mbps", ["minRTT", "MACO"])
    assert set(refs["zero_policy"]) == {"CUBIC = minRTT"}


def test_bad_reference_or_metric_names_the_field() -> None:
    results = _table(POLICIES)
    with pytest.raises(FieldError, match=r"^eval\.aggregate\.reference: 'BBR' is not"):
        aggregate(results, reference=["BBR", "MACO"], reps=REPS)
    with pytest.raises(FieldError, match=r"^eval\.aggregate\.metrics: 'goodput' is not"):
        aggregate(results, metrics=["goodput"], reps=REPS)


def test_a_scenario_whose_references_tie_is_left_out_with_a_note() -> None:
    results = _table(POLICIES)
    tie = results["scenario"] == "s1"
    results.loc[tie & (results["kind"] == "baseline"), "return"] = 1.0
    scores, _, notes = normalise(results, "return")
    assert set(scores["scenario"]) == {"s0", "s2"}
    assert any("s1" in n and "same mean" in n for n in notes)


# ----------------------------------------------------------------------------- statistics
def test_iqm_is_the_25_percent_trimmed_mean_of_the_pooled_normalised_scores() -> None:
    results = _table(POLICIES, seeds=6)
    agg = aggregate(results, metrics=["goodput_mbps"], reps=REPS).aggregate
    by_hand = _by_hand(results, "goodput_mbps", lower_is_better=False)
    for policy in POLICIES:
        pooled = by_hand.loc[by_hand["policy"] == policy, "score"].to_numpy()
        row = agg[(agg["policy"] == policy) & (agg["statistic"] == "iqm")].iloc[0]
        assert row["value"] == pytest.approx(stats.trim_mean(pooled, 0.25), rel=1e-12)
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
        assert (row["n_scenarios"], row["n_seeds"], row["reps"]) == (3, 6, REPS)
        # mean and optimality gap, from their definitions
        mean = agg[(agg["policy"] == policy) & (agg["statistic"] == "mean")]["value"].iloc[0]
        per_scenario = by_hand[by_hand["policy"] == policy].groupby("scenario")["score"].mean()
        assert mean == pytest.approx(per_scenario.mean(), rel=1e-12)
        gap = agg[(agg["policy"] == policy) & (agg["statistic"] == "optimality_gap")]
        assert gap["value"].iloc[0] == pytest.approx(np.mean(1.0 - np.minimum(pooled, 1.0)))


def test_bootstrap_interval_of_a_mean_covers_the_true_mean_about_95_percent() -> None:
    rng = np.random.default_rng(2024)
    draws, hits = 200, 0
    for i in range(draws):
        x = rng.normal(3.0, 2.0, size=40)
        low, high = mean_ci(x, reps=2000, seed=i)
        hits += low <= 3.0 <= high
    assert 0.9 <= hits / draws <= 0.99


def test_mean_ci_is_seeded_and_handles_degenerate_samples() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert mean_ci(x) == mean_ci(x.copy())
    assert mean_ci(x, seed=1) != mean_ci(x, seed=2)
    low, high = mean_ci(x)
    assert x.min() <= low < x.mean() < high <= x.max()
    assert mean_ci([3.0, 3.0, 3.0]) == (3.0, 3.0)
    assert all(math.isnan(v) for v in mean_ci([5.0, math.nan]))


def test_probability_of_improvement_of_n1_over_n0_is_phi_of_1_over_sqrt2() -> None:
    expected = stats.norm.cdf(1.0 / math.sqrt(2.0))  # P(X - Y > 0), X - Y ~ N(1, 2)
    assert expected == pytest.approx(0.760, abs=1e-3)
    rng = np.random.default_rng(7)
    rows = []
    for s in range(2):
        for policy, kind, mu in (("X", "agent", 1.0), ("Y", "baseline", 0.0)):
            for k in range(300):
                rows.append(
                    {
                        "scenario": f"s{s}",
                        "policy": policy,
                        "kind": kind,
                        "seed": k,
                        "return": rng.normal(mu, 1.0),
                    }
                )
    results = pd.DataFrame(rows)
    poi = aggregate(results, metrics=["return"], reps=REPS).improvement
    assert len(poi) == 1
    row = poi.iloc[0]
    assert (row["policy_x"], row["policy_y"]) == ("X", "Y")
    assert row["value"] == pytest.approx(expected, abs=0.03)
    assert row["ci_low"] < expected < row["ci_high"]


def test_fast_improvement_equals_rliables_probability_of_improvement() -> None:
    _, metrics = rliable_modules()
    rng = np.random.default_rng(3)
    for shape_x, shape_y in (((5, 3), (5, 3)), ((8, 4), (3, 4)), ((1, 2), (6, 2))):
        x = rng.integers(0, 4, size=shape_x).astype(float)  # many ties
        y = rng.integers(0, 4, size=shape_y).astype(float)
        assert improvement(x, y) == pytest.approx(
            metrics.probability_of_improvement(x, y), abs=1e-12
        )
    same = rng.normal(size=(4, 3))
    assert improvement(same, same.copy()) == metrics.probability_of_improvement(same, same)


def test_one_seed_per_scenario_gives_rliables_interval_without_resampling() -> None:
    library, _ = rliable_modules()
    one = np.array([[0.2, 0.9, 0.4]])
    np.random.seed(0)
    _, expected = library.get_interval_estimates({"p": one}, statistics, reps=REPS)
    point, interval = estimate(library, one, statistics, reps=REPS, confidence=0.95, seed=0)
    np.testing.assert_allclose(interval, expected["p"], rtol=1e-12)
    np.testing.assert_allclose(interval[0], point, rtol=1e-12)


def test_score_matrices_drop_seeds_missing_a_scenario() -> None:
    results = _table(POLICIES)
    gap = (results["policy"] == "PPO") & (results["seed"] == 2) & (results["scenario"] == "s1")
    results = results[~gap]
    scores, _, _ = normalise(results, "goodput_mbps")
    matrices, scenarios, notes = score_matrices(scores)
    assert scenarios == ["s0", "s1", "s2"]
    assert matrices["PPO"].shape == (4, 3) and matrices["MACO"].shape == (5, 3)
    assert any(n.startswith("PPO: seeds [2]") for n in notes)


def test_same_inputs_and_seed_give_bit_identical_statistics(tmp_path: Path) -> None:
    results = _table(POLICIES)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = aggregate(results, reps=REPS, seed=5)
    assert (np.random.get_state()[1] == before).all(), "the global random state is restored"
    b = aggregate(results.sample(frac=1.0, random_state=1), reps=REPS, seed=5)  # row order
    for x, y in (
        (a.aggregate, b.aggregate),
        (a.improvement, b.improvement),
        (a.profiles, b.profiles),
    ):
        pd.testing.assert_frame_equal(x, y, check_exact=True)
    c = aggregate(results, metrics=["goodput_mbps"], reps=REPS, seed=6)
    goodput = a.aggregate[a.aggregate["metric"] == "goodput_mbps"]
    assert not np.array_equal(c.aggregate["ci_low"], goodput["ci_low"])
    # a policy's interval does not depend on which other policies were evaluated
    alone = aggregate(
        results[results["policy"] != "OLIA"], metrics=["goodput_mbps"], reps=REPS, seed=5
    ).aggregate
    ppo = goodput[goodput["policy"] == "PPO"].reset_index(drop=True)
    ppo_alone = alone[alone["policy"] == "PPO"].reset_index(drop=True)
    # (OLIA, between CUBIC and MACO, is never a reference: PPO's scores are unchanged)
    pd.testing.assert_frame_equal(ppo, ppo_alone, check_exact=True)
    # and the files are the same
    options = AggregateConfig(metrics=["rtt_p95_ms"], reps=REPS)
    write_aggregate(results, tmp_path / "1", options, plots=False)
    write_aggregate(results, tmp_path / "2", options, plots=False)
    for name in ("aggregate", "probability_of_improvement", "performance_profile"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "1" / f"{name}.parquet"),
            pd.read_parquet(tmp_path / "2" / f"{name}.parquet"),
            check_exact=True,
        )


def test_write_aggregate_writes_tables_and_plots(tmp_path: Path) -> None:
    agg = write_aggregate(_table(POLICIES), tmp_path, AggregateConfig(reps=REPS), plots=True)
    table = pd.read_parquet(tmp_path / "aggregate.parquet")
    assert list(table.columns) == [
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
    assert set(table["metric"]) == {"goodput_mbps", "rtt_p95_ms", "return"}
    assert np.isfinite(table[["value", "ci_low", "ci_high"]].to_numpy()).all()
    pairs = pd.read_parquet(tmp_path / "probability_of_improvement.parquet")
    assert set(pairs["policy_x"]) == {"PPO"}  # the agent against every baseline
    assert set(pairs["policy_y"]) == {"MACO", "CUBIC", "OLIA"}
    assert len(agg.profiles) and (agg.profiles["ci_low"] <= agg.profiles["value"]).all()
    assert {p.name for p in (tmp_path / "plots").glob("*.png")} == {
        "aggregate_goodput_mbps.png",
        "aggregate_rtt_p95_ms.png",
        "aggregate_return.png",
        "probability_of_improvement.png",
        "performance_profile.png",
    }
