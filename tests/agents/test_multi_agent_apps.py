"""The multi-flow and multi-agent envs under the apps (docs/multi_agent.md, "Under the apps"):
``env.flows`` is checked field by field, ``leogym-train experiment=multiagent`` trains one
policy shared by every flow (parameter sharing: one VecEnv slot per flow), and ``leogym-eval``
runs it on flow 0 of ``LeoMultiFlowCC-v0`` beside the evaluation's ``flows.others``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from leogym.agents.config import ConfigError, env_kwargs, validate_config
from leogym.agents.runtime.app import compose, to_objects

pytestmark = pytest.mark.native

SMALL = [
    "experiment=multiagent",
    "env.episode_s=2",
    "train.total_timesteps=256",
    "agent.n_steps=32",
    "agent.batch_size=64",
    "agent.n_epochs=1",
    "train.progress=false",
    "train.checkpoint_freq=0",
    "train.tensorboard=false",
]


def _app(module: str, *overrides: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", f"leogym.agents.{module}", *overrides],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"{module} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["env=cc", "env.flows.n_flows=3"], "env.flows"),
        (["experiment=multiagent", "env.flows.others=[cubic]"], "env.flows.others"),
        (["env=multiflow", "env.flows.others=[nosuchcc]"], "env.flows.others[0]"),
        (["env=multiflow", "env.flows.others=[external]"], "env.flows.others[0]"),
        (["env=multiflow", "env.flows.fairness.jain=1"], "env.flows.fairness"),
        (["env=multiflow", "env.flows.n_flows=0"], "env.flows.n_flows"),
        (["experiment=multiagent", "env.flows.fairness.team=2"], "env.flows.fairness.team"),
    ],
)
def test_bad_flows_settings_name_the_field(overrides: list[str], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_config(to_objects(compose("train", overrides)))
    assert info.value.field == field


def test_flows_reach_the_env_kwargs() -> None:
    c = to_objects(compose("evaluate", ["env=multiflow", "scenario=bottleneck4"]))
    assert "n_flows" not in env_kwargs(c.env) and "others" not in env_kwargs(c.env)
    c = to_objects(
        compose("evaluate", ["env=multiflow", "env.flows.n_flows=3", "env.flows.others=[TcpBbr]"])
    )
    assert env_kwargs(c.env)["n_flows"] == 3 and env_kwargs(c.env)["others"] == "TcpBbr"
    c = to_objects(compose("evaluate", ["env=multiflow", "env.flows.others=[bbr,cubic,cubic]"]))
    assert env_kwargs(c.env)["others"] == ["bbr", "cubic", "cubic"]


@pytest.fixture(scope="module")
def ma_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("ma") / "train"
    _app("train", *SMALL, f"hydra.run.dir={run}")
    return run


def test_multi_agent_training_shares_one_policy_and_evaluates_on_flow_0(
    ma_run: Path, tmp_path: Path
) -> None:
    """One VecEnv slot per flow (n_flows x n_envs = 4 slots), so the rollout holds
    n_steps x 4 agent-steps; the evaluation runs the policy beside the evaluation's others."""
    from leogym.agents.sb3.algos import load_model

    run = ma_run
    model = load_model(run / "model.zip", "ppo", device="cpu")
    assert model.n_envs == 4  # bottleneck4's four flows, one env
    assert model.n_steps * model.n_envs == 128  # agent-steps per rollout: 32 x 4
    assert json.loads((run / "train_summary.json").read_text())["num_timesteps"] == 256

    out = tmp_path / "eval"
    _app(
        "evaluate",
        "experiment=multiagent",
        "env.episode_s=2",
        "env.flows.others=[bbr]",
        "baseline=[cubic]",
        "eval.seeds=[0]",
        "eval.progress=false",
        "eval.aggregate.enabled=false",
        f"+eval.agents.MA={run}",
        f"hydra.run.dir={out}",
    )
    results = pd.read_parquet(out / "results.parquet").set_index("policy")
    assert set(results.index) == {"MA", "CUBIC"}
    assert results["goodput_mbps"].notna().all() and results["jain_flows"].notna().all()
    policies = {
        p["policy"]["label"]: p for p in json.loads((out / "policies.json").read_text())["policies"]
    }
    # the trained env's flow count, the evaluation's others
    assert policies["MA"]["env"]["n_flows"] == 4
    assert policies["MA"]["env"]["others"] == policies["CUBIC"]["env"]["others"] == "bbr"


def test_multi_flow_zoo_model_installs_probes_and_scores_self_play(
    ma_run: Path, tmp_path: Path
) -> None:
    """A multi-agent run becomes a zoo model: its determinism probe runs on its own scenario
    (``tiny`` has one flow), it loads by name into its multi-flow env, and its self-play
    score is Jain's index over the four flows (in [1/4, 1]) and their goodput share."""
    from leogym.agents.zoo import load_pretrained
    from leogym.agents.zoo.cards import install, self_play_scores

    zoo = tmp_path / "zoo"
    card = install("ma", ma_run, description="test", overrides=SMALL, models_dir=zoo)
    assert card["env_id"] == "leogym/LeoMultiFlowCC-v0"
    assert card["determinism"]["scenario"] == card["scenario"] == "bottleneck4"
    policy = load_pretrained("ma", models_dir=zoo)
    env = policy.make_env(episode_s=1.0)
    try:
        assert len(env.unwrapped.flow_names) == 4
    finally:
        env.close()
    entry = self_play_scores("ma", [100], episode_s=2.0, models_dir=zoo)
    assert entry["n_flows"] == 4 and entry["seeds"] == [100]
    assert 0.25 <= entry["mean"]["jain"] <= 1.0
    assert 0.0 < entry["mean"]["goodput_over_capacity"] <= 1.0
    again = self_play_scores("ma", [100], episode_s=2.0, models_dir=zoo)
    assert again["episodes"] == entry["episodes"]  # same seed, same episode


def test_self_play_refuses_a_single_flow_model() -> None:
    from leogym.agents.zoo import ZooError
    from leogym.agents.zoo.cards import self_play_scores

    with pytest.raises(ZooError, match="ppo-cc-default.*LeoMultiFlowCC-v0"):
        self_play_scores("ppo-cc-default", [0], episode_s=1.0)
