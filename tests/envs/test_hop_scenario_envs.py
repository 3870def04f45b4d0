"""The envs and ``leogym-eval`` run unchanged on the bundled hop scenarios
(docs/scenario.md#11-bundled-scenarios-confscenario): Gymnasium's env checker passes without a
warning on ``maco_shared``, and a one-episode evaluation of one baseline on ``beam16`` writes
its result.

Runtime: about 20 s on the 2-core development machine (the checker's resets at 2-path
198.6 Mbit/s, and the evaluation subprocess's start-up).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import leogym  # noqa: F401  (registers the ids)

pytestmark = pytest.mark.native


def test_cc_env_on_maco_shared_passes_the_checker_and_steps() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("leogym/LeoCC-v0", scenario="maco_shared", episode_s=1.0, step_ms=100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
        obs, _ = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        for _ in range(5):
            obs, reward, terminated, _, info = env.step(env.action_space.sample())
            assert env.observation_space.contains(obs) and np.isfinite(reward)
            assert not terminated
    # the connection has two paths: routes f0 and f1 of the controlled network
    assert env.unwrapped.n_paths == 2
    env.close()


def test_leogym_eval_runs_one_baseline_on_beam16(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.evaluate",
            "scenario=beam16",
            "env.episode_s=2",
            "baseline=[cubic]",
            "eval.seeds=[0]",
            "eval.n_workers=1",
            "eval.progress=false",
            f"hydra.run.dir={out}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 1 and df["scenario"].iloc[0] == "beam16"
    assert df["policy"].iloc[0] == "CUBIC" and df["sim_time_s"].round(6).iloc[0] == 2.0
    # the connection of terminal t00 moved data beside the 15 other terminals' flows, and no
    # more than the beam's 187.7 Mbit/s
    assert 0 < df["goodput_mbps"].iloc[0] <= 187.7


def test_a_flow_that_joins_late_is_rated_over_its_schedule() -> None:
    from leogym.agents.results.metrics import EpisodeRecorder
    from leogym.simulation.fairness import jain_index

    # heldout/isl_merge_bbr: flow b sends from 8 s to 22 s (start_s, stop_s in its yaml)
    env = gym.make("leogym/LeoCC-v0", scenario="heldout/isl_merge_bbr", cc="bbr3", episode_s=25.0)
    env.reset(seed=0)
    rec = EpisodeRecorder()
    scheduled = goodput = np.zeros(2)
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        rec.add(reward, info, terminated, truncated)
        scheduled = scheduled + info["flow_scheduled_s"]
        goodput = goodput + info["flow_goodput_bytes"]
        done = terminated or truncated
    env.close()
    assert scheduled == pytest.approx([25.0, 14.0])
    assert rec.metrics()["jain_flows"] == pytest.approx(jain_index(goodput / scheduled))
