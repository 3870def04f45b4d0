"""The conditions a sampled episode drew, in its results row (``draw.*``), and ``gap_by_draw``,
which groups two policies' paired episodes by them (docs/evaluation.md, "Where a policy gains
or loses")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leogym.agents.results.analysis import gap_by_draw
from leogym.agents.results.table import metric_columns


def _table() -> pd.DataFrame:
    """Twelve seeds: A gains 2 on loss-free episodes and loses 10 on lossy ones, whatever the
    latitude; B is the reference."""
    rows = []
    for seed in range(12):
        loss = 1e-3 if seed % 2 else 0.0
        lat = 30.0 + seed
        ref = 100.0 + seed
        for policy, value in (("A", ref + (-10.0 if loss else 2.0)), ("B", ref)):
            rows.append(
                {
                    "scenario": "s",
                    "seed": seed,
                    "policy": policy,
                    "return": value,
                    "draw.loss.sat": loss,
                    "draw.terminal_lat_deg": lat,
                    "draw.dynamics_preset": "variable" if seed < 6 else "default",
                    "draw.rain_db_km": 0.0 if seed < 8 else 0.1 * seed,
                }
            )
    return pd.DataFrame(rows)


def test_paired_gaps_by_each_drawn_quantity() -> None:
    gaps = gap_by_draw(_table(), "A", "B", bins=3).set_index(["draw", "level"])
    assert gaps.loc[("loss.sat", "0.0"), ["n", "gap", "ci_low", "ci_high"]].tolist() == [
        6,
        2.0,
        2.0,  # the same gap in every pair: an interval of zero width
        2.0,
    ]
    assert gaps.loc[("loss.sat", "0.001"), "gap"] == -10.0
    assert gaps.loc[("loss.sat", "0.001"), "reference"] == np.mean([101, 103, 105, 107, 109, 111])
    # a continuous quantity: three quantile bins of four seeds, each two lossy and two not
    lat = gaps.loc["terminal_lat_deg"]
    assert len(lat) == 3 and (lat["n"] == 4).all() and np.allclose(lat["gap"], -4.0)
    # the 95 % t-interval of four gaps (2, -10, 2, -10): mean -4, sd 6.93, t(0.975, 3) 3.182
    assert lat["ci_high"].iloc[0] == pytest.approx(-4.0 + 3.182446 * np.sqrt(48.0) / 2.0)
    # a point mass (no rain in 8 episodes) is a level of its own, the rest share 2 bins
    rain = gaps.loc["rain_db_km"]
    assert list(rain.index) == ["0.0", "(0.799, 0.95]", "(0.95, 1.1]"]  # median 0.95 of 0.8-1.1
    assert rain["n"].tolist() == [8, 2, 2]
    preset = gaps.loc["dynamics_preset"]
    assert sorted(preset.index) == ["default", "variable"] and (preset["gap"] == -4.0).all()


def test_several_labels_pool_their_pairs() -> None:
    """A recipe's training seeds under labels of their own: their pairs count together."""
    df = _table()
    twin = df[df["policy"] == "A"].assign(policy="A2", **{"return": lambda d: d["return"] + 6.0})
    gaps = gap_by_draw(pd.concat([df, twin]), ["A", "A2"], "B").set_index(["draw", "level"])
    assert gaps.loc[("loss.sat", "0.0"), "n"] == 12
    assert gaps.loc[("loss.sat", "0.0"), "gap"] == 5.0  # (2 + 8) / 2
    assert gaps.loc[("loss.sat", "0.001"), "gap"] == -7.0  # (-10 - 4) / 2


def test_bad_arguments_name_the_argument() -> None:
    df = _table()
    with pytest.raises(ValueError, match="policy: 'C'"):
        gap_by_draw(df, "C", "B")
    with pytest.raises(ValueError, match="reference: 'C'"):
        gap_by_draw(df, "A", "C")
    with pytest.raises(ValueError, match="metric: 'goodput'"):
        gap_by_draw(df, "A", "B", metric="goodput")
    with pytest.raises(ValueError, match="bins: must be >= 1"):
        gap_by_draw(df, "A", "B", bins=0)
    plain = df.drop(columns=[c for c in df.columns if c.startswith("draw.")])
    with pytest.raises(ValueError, match="env.sample_scenarios=true"):
        gap_by_draw(plain, "A", "B")


def test_drawn_conditions_are_no_metrics() -> None:
    assert metric_columns(_table()) == ["return"]


@pytest.mark.native
@pytest.mark.timeout(600)
def test_an_evaluation_records_what_each_episode_drew(tmp_path: Path) -> None:
    """Two baselines on a sampled scenario: both policies' episodes of a seed drew the same
    terminal and UTC phase, inside the scenario's ranges, and the summary has no draw rows."""
    from leogym.agents.evaluate import evaluate
    from leogym.agents.runtime.app import compose
    from leogym.scenario import load_scenario

    cfg = compose(
        "evaluate",
        [
            "scenario=starlink_geometric",
            "env.sample_scenarios=true",
            "baseline=[cubic,bbr3]",
            "eval.seeds=[0,1,2]",
            "env.episode_s=3",
            "eval.n_workers=2",
            "eval.plots=false",
            "eval.progress=false",
            "eval.traces=false",
        ],
    )
    evaluate(cfg, tmp_path)
    rows = pd.read_parquet(tmp_path / "results.parquet")
    assert len(rows) == 6
    drawn = ["draw.epoch_utc_s", "draw.orbit_offset_s", "draw.terminal_lat_deg"]
    assert rows.groupby("seed")[drawn].nunique().eq(1).all().all()
    assert rows.groupby("policy")["draw.terminal_lat_deg"].nunique().eq(3).all()
    lo, hi = load_scenario("starlink_geometric").sampling.terminal_lat_deg
    assert rows["draw.terminal_lat_deg"].between(lo, hi).all()
    summary = pd.read_parquet(tmp_path / "summary.parquet")
    assert not summary["metric"].str.startswith("draw.").any()
    gaps = gap_by_draw(rows, *sorted(rows["policy"].unique()))
    assert set(gaps["draw"]) >= {"epoch_utc_s", "terminal_lat_deg"}
    assert gaps["n"].sum() == 3 * gaps["draw"].nunique()
