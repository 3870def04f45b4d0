"""``train.eval_suite``: a training's periodic evaluation runs on the validation suite's
scenarios, so that ``best_model.zip`` is the checkpoint chosen on them (docs/evaluation.md,
"Choosing the checkpoint")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from leogym.agents.runtime.app import suite_scenarios

pytestmark = pytest.mark.native


def test_the_best_model_is_chosen_on_every_scenario_of_the_suite(tmp_path: Path) -> None:
    out = tmp_path / "train"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.train",
            "train_dist=randomised",
            "env.episode_s=2",
            "train.total_timesteps=256",
            "agent.n_steps=64",
            "agent.batch_size=64",
            "agent.n_epochs=1",
            "train.eval_suite=validation",
            "train.eval_freq=128",
            "train.eval_episodes=1",
            "train.progress=false",
            f"hydra.run.dir={out}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    table = pd.read_parquet(out / "evaluations.parquet")
    assert table["timesteps"].tolist() == [128, 256]
    # one episode on each of the suite's eight scenarios, 2 s of 100 ms steps each
    assert len(suite_scenarios("validation")) == 8
    assert (table["episodes"] == 8).all()
    assert (table["mean_ep_length"] == 20).all()
    best = json.loads((out / "best_model.json").read_text())
    assert best["mean_reward"] == table["mean_reward"].max()
    episodes = pd.read_parquet(out / "evaluation_episodes.parquet")
    for step, g in episodes.groupby("timesteps"):
        assert sorted(g["scenario"]) == sorted(suite_scenarios("validation")), step
        assert g["return"].mean() == pytest.approx(
            float(table.set_index("timesteps").loc[step, "mean_reward"])
        )
