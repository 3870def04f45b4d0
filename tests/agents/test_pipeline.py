"""End to end on scenario=tiny: leogym-train -> leogym-eval -> notebooks, resuming both apps,
multirun, and the main job (quick preset). The apps run as subprocesses, as users run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

# Every test runs an app end to end on the compiled core
pytestmark = pytest.mark.native

ROOT = Path(__file__).resolve().parents[2]
TINY = ["scenario=tiny", "env.episode_s=8", "train.progress=false", "eval.progress=false"]
TRAIN = [
    *TINY,
    "train.total_timesteps=256",
    "agent.n_steps=64",
    "agent.batch_size=64",
    "agent.n_epochs=2",
    "train.eval_freq=128",
    "train.eval_episodes=1",
    "train.checkpoint_freq=128",
]


def run_app(
    module: str, *overrides: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", f"leogym.agents.{module}", *overrides],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, f"{module} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


def sidecar_steps(model: Path) -> int:
    return int(json.loads(model.with_suffix(".json").read_text())["num_timesteps"])


@pytest.fixture(scope="module")
def train_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "train"
    run_app("train", *TRAIN, f"hydra.run.dir={out}")
    return out


@pytest.fixture(scope="module")
def eval_dir(train_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "eval"
    run_app(
        "evaluate",
        *TINY,
        "baseline=[cubic,maco]",
        "eval.seeds=[0,1]",
        "eval.aggregate.reps=200",
        f"+eval.agents.PPO={train_dir}",
        f"hydra.run.dir={out}",
    )
    return out


# ------------------------------------------------------------------------------------ train
def test_train_writes_a_complete_run_directory(train_dir: Path) -> None:
    # 2 envs x 64 steps per rollout: 256 timesteps are exactly two rollouts
    assert sidecar_steps(train_dir / "model.zip") == 256
    assert json.loads((train_dir / "model.json").read_text())["algo"] == "ppo"
    steps = sorted(p.name for p in (train_dir / "checkpoints").glob("step_*.zip"))
    assert steps == ["step_000000128.zip", "step_000000256.zip"]
    assert (train_dir / "best_model.zip").is_file()
    assert len(pd.read_csv(train_dir / "evaluations.csv")) == 2
    assert list((train_dir / "tb").glob("events.out.tfevents.*"))
    progress = pd.read_csv(train_dir / "progress.csv")
    goodput = progress["net/goodput_mbps"].dropna()
    assert len(goodput) and (goodput > 0).all(), "the agent's connection carried data"
    summary = json.loads((train_dir / "train_summary.json").read_text())
    assert 0 < summary["cpu_s"] and 0 < summary["wall_s"]
    # provenance
    cfg = OmegaConf.load(train_dir / "config.yaml")
    assert cfg.scenario.name == "tiny" and cfg.train.total_timesteps == 256
    assert "scenario=tiny" in OmegaConf.load(train_dir / "overrides.yaml")
    info = json.loads((train_dir / "run_info.json").read_text())
    assert info["app"] == "train" and info["seeds"]["seed"] == 0
    assert re.fullmatch(r"[0-9a-f]{40}", info["invocations"][0]["git"]["sha"])
    for dist in ("leogym", "torch", "stable-baselines3", "gymnasium", "hydra-core"):
        assert info["versions"][dist], dist
    assert (train_dir / ".hydra" / "config.yaml").is_file()


def test_resume_continues_the_step_count_with_the_same_config(
    train_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(train_dir, run)
    config_before = (run / "config.yaml").read_text()
    run_app("train", f"resume={run}", "train.total_timesteps=512")
    assert sidecar_steps(run / "model.zip") == 512
    assert (run / "config.yaml").read_text() == config_before
    summary = json.loads((run / "train_summary.json").read_text())
    assert summary["resumed_from"].endswith("step_000000256.zip")
    # the run's cost is both invocations': the first run's summary is kept as a segment
    first = json.loads((train_dir / "train_summary.json").read_text())
    assert [s["num_timesteps"] for s in summary["segments"]] == [256, 512]
    assert summary["segments"][0]["cpu_s"] == first["cpu_s"]
    assert summary["wall_s"] == sum(s["wall_s"] for s in summary["segments"]) > first["wall_s"]
    assert summary["cpu_s"] == sum(s["cpu_s"] for s in summary["segments"]) > first["cpu_s"]
    second = pd.read_csv(run / "progress.1.csv")["time/total_timesteps"].dropna()
    assert second.min() > 256, "the resumed segment logs steps after the checkpoint"
    info = json.loads((run / "run_info.json").read_text())
    assert len(info["invocations"]) == 2
    assert [p.name for p in (run / ".hydra").iterdir() if p.name.startswith("resume-")]


def test_resume_from_a_checkpoint_file(train_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(train_dir, run)
    (run / "model.zip").unlink()
    run_app("train", f"resume={run / 'checkpoints' / 'step_000000128.zip'}")
    # the run's own target (256) is reached from step 128: one more rollout
    assert sidecar_steps(run / "model.zip") == 256
    summary = json.loads((run / "train_summary.json").read_text())
    assert summary["resumed_from"].endswith("step_000000128.zip")


def test_resume_refuses_config_changes(train_dir: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.train",
            f"resume={train_dir}",
            "agent.learning_rate=0.1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "agent.learning_rate: cannot be changed when resuming" in proc.stderr


# ------------------------------------------------------------------------------------- eval
def test_evaluate_writes_results_summary_traces_and_plots(eval_dir: Path) -> None:
    df = pd.read_parquet(eval_dir / "results.parquet")
    assert len(df) == 6
    assert set(df["policy"]) == {"PPO", "CUBIC", "MACO"}
    assert (
        df.groupby("policy")["seed"].apply(sorted)
        == pd.Series([[0, 1]] * 3, index=["CUBIC", "MACO", "PPO"])
    ).all()
    by = df.set_index("policy")
    assert by.loc["PPO", "cc"].iloc[0] == "external" and by.loc["PPO", "kind"].iloc[0] == "agent"
    assert (
        by.loc["CUBIC", "cc"].iloc[0] == "cubic"
        and by.loc["CUBIC", "scheduler"].iloc[0] == "minrtt"
    )
    assert by.loc["MACO", "cc"].iloc[0] == "maco"
    assert (df["scenario"] == "tiny").all()
    assert (df["goodput_mbps"] > 0).all()
    assert (df["sim_time_s"].round(6) == 8.0).all()
    assert (df["handovers"] == 1).all()  # tiny: one handover, at 7 s
    for col in (
        "rtt_p50_ms",
        "rtt_p95_ms",
        "rtt_p99_ms",
        "convergence_time_s",
        "loss_outage_pkts",
        "loss_random_pkts",
        "loss_overflow_pkts",
        "jain_paths",
    ):
        assert col in df
    summary = pd.read_parquet(eval_dir / "summary.parquet")
    assert set(summary["policy"]) == {"PPO", "CUBIC", "MACO"}
    goodput = summary[summary["metric"] == "goodput_mbps"]
    assert (goodput["ci_low"] <= goodput["mean"]).all() and (
        goodput["mean"] <= goodput["ci_high"]
    ).all()
    # the aggregate statistics (rliable): normalised between CUBIC and MACO, finite
    agg = pd.read_parquet(eval_dir / "aggregate.parquet")
    assert set(agg["policy"]) == {"PPO", "CUBIC", "MACO"}
    assert set(agg["metric"]) == {"goodput_mbps", "rtt_p95_ms", "return"}
    assert set(agg["statistic"]) == {"iqm", "mean", "median", "optimality_gap"}
    assert np.isfinite(agg[["value", "ci_low", "ci_high"]].to_numpy()).all()
    assert (agg["n_scenarios"] == 1).all() and (agg["n_seeds"] == 2).all()
    assert (agg["reps"] == 200).all()
    means = agg[agg["statistic"] == "mean"].set_index(["metric", "policy"])["value"]
    for metric in ("goodput_mbps", "rtt_p95_ms", "return"):  # the references are 0 and 1
        assert sorted(round(means[(metric, p)], 9) for p in ("CUBIC", "MACO")) == [0.0, 1.0]
    poi = pd.read_parquet(eval_dir / "probability_of_improvement.parquet")
    assert set(zip(poi["policy_x"], poi["policy_y"], strict=True)) == {
        ("PPO", "CUBIC"),
        ("PPO", "MACO"),
    }
    assert ((poi["value"] >= 0) & (poi["value"] <= 1)).all()
    for key in df["key"]:
        trace = pd.read_parquet(eval_dir / "traces" / f"{key}.parquet")
        assert trace["step"].max() == 80  # 8 s of 100 ms steps
    assert {p.name for p in (eval_dir / "plots").glob("*.png")} >= {
        "goodput.png",
        "tradeoff.png",
        "losses.png",
        "timeseries.png",
        "aggregate_goodput_mbps.png",
        "probability_of_improvement.png",
        "performance_profile.png",
    }
    info = json.loads((eval_dir / "run_info.json").read_text())
    assert info["seeds"]["eval"] == [0, 1]


def test_interrupted_evaluation_resumes_without_redoing_episodes(
    eval_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "eval"
    shutil.copytree(eval_dir, run)
    full = pd.read_parquet(run / "results.parquet")
    # an evaluation interrupted after 4 of its 6 episodes
    kept = full.iloc[:4]
    kept.to_parquet(run / "results.parquet", index=False)
    run_app("evaluate", f"resume={run}")
    after = pd.read_parquet(run / "results.parquet")
    assert sorted(after["key"]) == sorted(full["key"])
    old = kept.set_index("key")
    new = after.set_index("key")
    # finished episodes are kept as they were, not rerun
    pd.testing.assert_frame_equal(new.loc[old.index], old)
    # the rerun episodes reproduce the original ones exactly (same seed, same trajectory)
    redo = full.iloc[4:].set_index("key")
    cols = ["return", "goodput_mbps", "rtt_p95_ms", "loss_overflow_pkts"]
    pd.testing.assert_frame_equal(new.loc[redo.index, cols], redo[cols])


def test_seed_field_pairs_each_training_run_with_its_evaluation_seed(
    train_dir: Path, eval_dir: Path, tmp_path: Path
) -> None:
    # two "training seeds" of one recipe: the final model (256 steps) and its 128-step checkpoint
    for k in (0, 1):
        shutil.copytree(train_dir, tmp_path / f"seed{k}")
    for ext in ("zip", "json"):
        shutil.copy(
            train_dir / "checkpoints" / f"step_000000128.{ext}", tmp_path / "seed1" / f"model.{ext}"
        )
    out = tmp_path / "eval"
    run_app(
        "evaluate",
        *TINY,
        "baseline=[cubic]",
        "eval.seeds=[0,1]",
        "eval.aggregate.reps=100",
        f"+eval.agents.PPO='{tmp_path}/seed{{seed}}'",
        f"hydra.run.dir={out}",
    )
    df = pd.read_parquet(out / "results.parquet")
    ppo = df[df["policy"] == "PPO"].set_index("seed")
    assert sorted(ppo.index) == [0, 1]  # one episode per seed, not one per seed and model
    assert ppo.loc[0, "model_steps"] == 256 and ppo.loc[1, "model_steps"] == 128
    # seed 0 ran run 0 (the fixture's model): the same episode as the plain evaluation's
    plain = pd.read_parquet(eval_dir / "results.parquet").set_index(["policy", "seed"])
    assert ppo.loc[0, "return"] == plain.loc[("PPO", 0), "return"]
    agg = pd.read_parquet(out / "aggregate.parquet")
    assert (agg[agg["policy"] == "PPO"]["n_seeds"] == 2).all()
    # a seed without its run is an error naming the agent, before any episode runs
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.evaluate",
            *TINY,
            "eval.seeds=[0,2]",
            f"+eval.agents.PPO='{tmp_path}/seed{{seed}}'",
            f"hydra.run.dir={tmp_path / 'bad'}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert bad.returncode != 0 and "eval.agents.PPO" in bad.stderr and "seed2" in bad.stderr
    assert not (tmp_path / "bad" / "results.parquet").exists()


def test_an_agent_is_scored_with_the_evaluations_reward(
    train_dir: Path, eval_dir: Path, tmp_path: Path
) -> None:
    # trained on `leo`, evaluated under `aurora`: the same episode, the other currency; in a
    # copy of the plain evaluation's folder, whose episodes (the `leo` ones) are not counted
    out = tmp_path / "eval"
    shutil.copytree(eval_dir, out)
    run_app(
        "evaluate",
        *TINY,
        "env.reward.name=aurora",
        "baseline=[cubic,maco]",
        "eval.seeds=[0]",
        "eval.aggregate.enabled=false",
        f"+eval.agents.PPO={train_dir}",
        f"hydra.run.dir={out}",
    )
    plain = pd.read_parquet(eval_dir / "results.parquet")
    kept = pd.read_parquet(out / "results.parquet")
    assert len(kept) == len(plain) + 3  # the earlier episodes stay in the folder ...
    summary = pd.read_parquet(out / "summary.parquet")
    assert summary["n"].max() == 1  # ... but this run counts its own three only
    scored = kept[~kept["key"].isin(plain["key"])].set_index("policy")
    plain = plain[plain["seed"] == 0].set_index("policy")
    for policy in ("PPO", "CUBIC", "MACO"):  # the same trajectories ...
        for col in ("goodput_mbps", "rtt_p95_ms", "loss_overflow_pkts"):
            assert scored.loc[policy, col] == plain.loc[policy, col]
        # ... each given the evaluation's reward, the agent's as the baselines'
        assert scored.loc[policy, "return"] != plain.loc[policy, "return"]


#: Short episodes (about 0.3 s each): one or two may finish between the first write and the
#: interrupt; the run must still stop well before the end.
SIGINT_EPISODES = 8


def _default_sigint() -> None:
    """In the child: SIGINT back to its default. A test run started in the background by a
    non-interactive shell inherits SIGINT ignored, and Python then installs no handler, so the
    interrupt would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_leaves_a_resumable_evaluation(tmp_path: Path) -> None:
    run = tmp_path / "eval"
    args = [
        sys.executable,
        "-m",
        "leogym.agents.evaluate",
        *TINY,
        "baseline=[cubic]",
        f"eval.seeds=[{','.join(str(i) for i in range(SIGINT_EPISODES))}]",
        "eval.n_workers=1",
        f"hydra.run.dir={run}",
    ]
    log = tmp_path / "stderr.txt"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            preexec_fn=_default_sigint,
        )
        results = run / "results.parquet"
        deadline = time.monotonic() + 240
        while not results.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert results.exists(), log.read_text()[-4000:]
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
    partial = pd.read_parquet(results)
    assert 1 <= len(partial) < SIGINT_EPISODES
    run_app("evaluate", f"resume={run}")
    final = pd.read_parquet(results)
    assert sorted(final["seed"]) == list(range(SIGINT_EPISODES))
    # the episodes finished before the interrupt are kept as they were (rows sorted by key)
    kept = final.set_index("key").loc[partial["key"]].reset_index()
    pd.testing.assert_frame_equal(kept, partial.reset_index(drop=True))


# -------------------------------------------------------------------------------- notebooks
@pytest.mark.parametrize(
    "name",
    [
        "01_scenario_anatomy",
        "02_baseline_comparison",
        "03_training_and_handovers",
        "04_zoo_heldout",
    ],
)
def test_notebook_runs_on_the_apps_outputs(
    name: str, train_dir: Path, eval_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("LEOGYM_SCENARIO", "tiny")
    monkeypatch.setenv("LEOGYM_TRAIN_DIR", str(train_dir))
    monkeypatch.setenv("LEOGYM_EVAL_DIR", str(eval_dir))
    monkeypatch.setenv("LEOGYM_DEMO_DIR", str(tmp_path / "must-not-be-used"))
    monkeypatch.setenv("LEOGYM_ZOO_QUICK", "1")  # 04: 2 held-out scenarios, 1 seed, 4 s
    path = ROOT / "notebooks" / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "notebooks are committed with outputs stripped"
    )
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
    assert not (tmp_path / "must-not-be-used").exists(), "the notebook ignored its inputs"
    images = sum(
        "image/png" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    assert images >= 1
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "no handover" not in text, "tiny's 8 s episodes contain the handover at 7 s"


# ------------------------------------------------------------------- multirun and main job
def test_multirun_jobs_share_one_process_safely(tmp_path: Path) -> None:
    """Hydra's basic launcher runs both jobs in one process: fine, because a job never hosts
    a simulator itself (every env lives in a subprocess)."""
    sweep = tmp_path / "sweep"
    run_app(
        "train",
        "-m",
        *TRAIN,
        "seed=0,1",
        "train.total_timesteps=128",
        "train.eval_freq=0",
        f"hydra.sweep.dir={sweep}",
    )
    models = sorted(sweep.glob("*/model.zip"))
    assert [m.parent.name for m in models] == ["0_cc-ppo-seed0", "1_cc-ppo-seed1"]
    assert all(sidecar_steps(m) == 128 for m in models)
    assert len({_job_pid(m.parent) for m in models}) == 1


def _job_pid(run_dir: Path) -> int:
    return json.loads((run_dir / "run_info.json").read_text())["invocations"][0]["pid"]


def test_multirun_with_a_fresh_process_per_job(tmp_path: Path) -> None:
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    sweep = tmp_path / "sweep"
    run_app(
        "train",
        "-m",
        "hydra/launcher=local",
        *TRAIN,
        "seed=0,1",
        "train.total_timesteps=128",
        "train.eval_freq=0",
        f"hydra.sweep.dir={sweep}",
    )
    runs = sorted(m.parent for m in sweep.glob("*/model.zip"))
    assert len(runs) == 2
    assert len({_job_pid(r) for r in runs}) == 2


def test_main_job_quick(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    proc = run_app(
        "main_job",
        "experiment=quick",
        "env.episode_s=3",
        "train.progress=false",
        "eval.progress=false",
        "eval.aggregate.reps=200",
        f"hydra.run.dir={out}",
        timeout=600,
    )
    board = pd.read_csv(out / "leaderboard.csv")
    # CUBIC and minRTT are the same native pair (cubic + minrtt): one policy, evaluated once
    # the shipped v2 agent beside the fresh one (main_job.shipped)
    assert set(board["policy"]) == {
        *("PPO", "PPO-v2", "MACO", "freeze+CUBIC", "CUBIC = minRTT", "OLIA", "ALCS")
    }
    md = (out / "leaderboard.md").read_text()
    assert md.count("| PPO |") == 1 and md.count("| CUBIC = minRTT |") == 1
    assert "the baselines CUBIC and minRTT run the same native algorithms" in md
    assert "Fewer than 5 seeds" in md  # the quick preset runs one seed
    assert "leogym main job" in proc.stdout
    assert (out / "train" / "model.zip").is_file()
    assert (out / "eval" / "plots" / "goodput.png").is_file()
    # a second invocation resumes: nothing left to train or evaluate
    run_app("main_job", f"resume={out}")
    assert len(pd.read_parquet(out / "eval" / "results.parquet")) == 7


@pytest.mark.timeout(900)
def test_a_sweep_through_ray(tmp_path: Path) -> None:
    """A multirun whose jobs train on Ray actors (``train.vec_env=ray``, a local instance per
    job): sweeps reach Ray through leogym's own Ray support, with no Hydra launcher plugin."""
    probe = subprocess.run([sys.executable, "-c", "import ray"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("Ray not importable (pip install -e '.[distributed]'; make install does)")
    sweep = tmp_path / "sweep"
    run_app(
        "train",
        "-m",
        *TRAIN,
        "seed=0,1",
        "train.total_timesteps=128",
        "train.eval_freq=0",
        "train.vec_env=ray",
        "train.n_envs=2",
        "ray.num_cpus=2",
        f"hydra.sweep.dir={sweep}",
        timeout=600,
    )
    assert len(list(sweep.glob("*/model.zip"))) == 2


def test_an_unreadable_summary_before_a_resume_is_named_and_not_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from leogym.agents.train import training_summary

    previous = tmp_path / "train_summary.json"
    previous.write_text("{not json")
    segment = {"num_timesteps": 512, "wall_s": 2.0, "cpu_s": 3.0, "resumed_from": None}
    summary = training_summary("ppo", segment, previous)
    assert summary["segments"] == [segment] and summary["cpu_s"] == 3.0
    assert str(previous) in caplog.text
