"""The apps under faults, as users run them (subprocesses): nothing finished is lost.

* ``leogym-train`` killed outright (SIGKILL to its process group) resumes from its newest
  checkpoint; every file it left is whole (atomic writes).
* an env worker of ``leogym-train`` killed mid-run: reported with its env and seed, a checkpoint
  saved, and the run resumes (``on_worker_death=stop``) or carries on (``restart``).
* ``leogym-eval`` killed outright at random moments, again and again: its results file is always
  readable, and resuming finishes the evaluation without redoing or losing an episode; the
  final table equals an uninterrupted run's (same config, same seeds).
* a worker of ``leogym-eval`` killed mid-episode: that episode is reported as failed with its
  env and seed, the others continue, and a resume retries it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
from reliability_support import ROOT, Figure, sized

pytestmark = [pytest.mark.timeout(900), pytest.mark.native]  # the apps run simulations

APP = [sys.executable, "-m"]
TRAIN = [
    "scenario=tiny",
    "env.episode_s=4",
    "train.progress=false",
    "eval.progress=false",
    "train.total_timesteps=2048",
    "agent.n_steps=64",
    "agent.batch_size=64",
    "agent.n_epochs=2",
    "train.eval_freq=0",
    "train.checkpoint_freq=256",
    "train.tensorboard=false",
]
EVAL = [
    "scenario=tiny",
    "env.episode_s=6",
    "eval.progress=false",
    "eval.plots=false",
    "baseline=[cubic]",
    "eval.n_workers=1",
]
SEEDS = "eval.seeds=[0,1,2,3,4,5]"


def start(module: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*APP, f"leogym.agents.{module}", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def run(module: str, *args: str, ok: bool = True, timeout: float = 600) -> str:
    proc = subprocess.run(
        [*APP, f"leogym.agents.{module}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert (proc.returncode == 0) == ok, out[-6000:]
    return out


def wait_for(cond, proc: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if proc.poll() is not None:
            raise AssertionError(f"the app ended first:\n{proc.stdout.read()[-6000:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def kill_group(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()


def steps_of(model: Path) -> int:
    return int(json.loads(model.with_suffix(".json").read_text())["num_timesteps"])


def checkpoints(run_dir: Path) -> list[Path]:
    """The run's complete checkpoints: a model with its sidecar (written last; a kill between
    the two leaves a model without one, which resuming skips)."""
    zips = sorted((run_dir / "checkpoints").glob("step_*.zip"))
    return [z for z in zips if z.with_suffix(".json").is_file()]


def env_workers(proc: subprocess.Popen) -> list[psutil.Process]:
    """The app's env worker processes: the forkserver's children (not the forkserver, not the
    resource tracker, which are the app's own children)."""
    try:
        return [
            p for p in psutil.Process(proc.pid).children(recursive=True) if p.ppid() != proc.pid
        ]
    except psutil.NoSuchProcess:
        return []


def assert_loadable(run_dir: Path) -> int:
    """Every model file the run left loads; returns how many there are."""
    from leogym.agents.sb3.algos import load_model

    models = [*checkpoints(run_dir), *run_dir.glob("*.zip")]
    for m in models:
        load_model(m, "ppo")
        json.loads(m.with_suffix(".json").read_text())
    # at most the newest save was cut short between its model and its sidecar; that model is
    # whole all the same (atomic writes)
    zips = sorted((run_dir / "checkpoints").glob("step_*.zip"))
    unrecorded = [z for z in zips if not z.with_suffix(".json").is_file()]
    assert unrecorded in ([], zips[-1:]), unrecorded
    for m in unrecorded:
        load_model(m, "ppo")
    return len(models)


# ------------------------------------------------------------------------------- training
def test_training_killed_outright_resumes_from_its_newest_checkpoint(
    tmp_path: Path, record
) -> None:
    run_dir = tmp_path / "train"
    proc = start("train", *TRAIN, f"hydra.run.dir={run_dir}")
    wait_for(lambda: len(checkpoints(run_dir)) >= 3, proc)
    kill_group(proc)
    newest = checkpoints(run_dir)[-1]
    at_kill = steps_of(newest)
    n_models = assert_loadable(run_dir)
    assert not (run_dir / "model.zip").exists()
    run("train", f"resume={run_dir}")
    summary = json.loads((run_dir / "train_summary.json").read_text())
    assert Path(summary["resumed_from"]).name == newest.name
    assert steps_of(run_dir / "model.zip") == 2048
    assert_loadable(run_dir)
    record(
        Figure(
            id="fault/train_sigkill",
            category="fault",
            what="leogym-train killed with SIGKILL (whole process group) mid-run",
            cases=1,
            outcomes={"resumed_from_newest_checkpoint": 1},
            notes=f"killed at checkpoint step {at_kill}; {n_models} model files left, "
            "all loadable; "
            "resume reached the 2048-step target",
            extra={"steps_at_kill": at_kill},
        )
    )


def test_resuming_from_a_corrupt_checkpoint_names_the_file(tmp_path: Path, record) -> None:
    run_dir = tmp_path / "train"
    short = [
        a for a in TRAIN if not a.startswith(("train.total_timesteps=", "train.checkpoint_freq="))
    ]
    run(
        "train",
        *short,
        "train.total_timesteps=512",
        "train.checkpoint_freq=128",
        f"hydra.run.dir={run_dir}",
    )
    (run_dir / "model.zip").unlink()
    newest, older = checkpoints(run_dir)[-1], checkpoints(run_dir)[-2]
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])  # truncated
    out = run("train", f"resume={run_dir}", ok=False)
    assert "CheckpointError" in out and str(newest) in out, out[-4000:]
    run("train", f"resume={older}")  # an older checkpoint is the way on
    assert steps_of(run_dir / "model.zip") == 512
    record(
        Figure(
            id="corrupt_file/train_resume_checkpoint",
            category="corrupt file",
            what="leogym-train resume= a run whose newest checkpoint is truncated",
            cases=1,
            outcomes={"clear_error": 1},
            notes="CheckpointError names the file; resume= an older checkpoint finishes the run",
        )
    )


@pytest.mark.parametrize("policy", ["stop", "restart"])
def test_training_env_worker_killed(policy: str, tmp_path: Path, record) -> None:
    run_dir = tmp_path / "train"
    proc = start("train", *TRAIN, f"train.on_worker_death={policy}", f"hydra.run.dir={run_dir}")
    wait_for(lambda: len(checkpoints(run_dir)) >= 1 and len(env_workers(proc)) >= 2, proc)
    victim = env_workers(proc)[-1]
    victim.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=600)
    assert "died during" in out and "killed by SIGKILL" in out, out[-6000:]
    assert "leogym/LeoCC-v0" in out and "scenario='tiny'" in out and "seeded " in out
    if policy == "stop":
        assert proc.returncode != 0
        assert "checkpoint saved at" in out
        saved = checkpoints(run_dir)[-1]
        run("train", f"resume={run_dir}")
        assert (
            Path(json.loads((run_dir / "train_summary.json").read_text())["resumed_from"]).name
            == saved.name
        )
        outcome = {"reported_checkpointed_resumed": 1}
    else:
        assert proc.returncode == 0, out[-6000:]
        assert "restarting the VecEnv" in out
        outcome = {"reported_and_continued": 1}
    # the target, rounded up to whole rollouts (2 envs x 64 steps) after an off-grid checkpoint
    assert 2048 <= steps_of(run_dir / "model.zip") < 2048 + 128
    record(
        Figure(
            id=f"fault/train_worker_killed_{policy}",
            category="fault",
            what=f"env worker of leogym-train killed (SIGKILL), train.on_worker_death={policy}",
            cases=1,
            outcomes=outcome,
            notes="stop: checkpoint saved, exit 1, resume finishes"
            if policy == "stop"
            else "restart: VecEnv rebuilt, training reached its target",
        )
    )


# ----------------------------------------------------------------------------- evaluation
@pytest.fixture(scope="module")
def clean_eval(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """An uninterrupted evaluation: the reference for the interrupted ones."""
    out = tmp_path_factory.mktemp("clean") / "eval"
    run("evaluate", *EVAL, SEEDS, f"hydra.run.dir={out}")
    return pd.read_parquet(out / "results.parquet")


def _same_results(a: pd.DataFrame, b: pd.DataFrame) -> None:
    cols = [c for c in a.columns if c != "wall_s"]
    a = a.sort_values("key").reset_index(drop=True)[cols]
    b = b.sort_values("key").reset_index(drop=True)[cols]
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_evaluation_killed_outright_again_and_again_loses_nothing(
    clean_eval: pd.DataFrame, tmp_path: Path, record
) -> None:
    run_dir = tmp_path / "eval"
    results = run_dir / "results.parquet"
    rng = random.Random(7)
    kills = sized(2, 6)
    prev = pd.DataFrame()
    mid_run = 0
    args = [*EVAL, SEEDS, f"hydra.run.dir={run_dir}"]
    for k in range(kills):
        proc = start("evaluate", *(args if k == 0 else [f"resume={run_dir}"]))
        before = len(prev)
        # kill at a random moment after the next episode is saved
        wait_for(lambda b=before: results.exists() and len(pd.read_parquet(results)) > b, proc)
        time.sleep(rng.uniform(0.0, 0.5))
        kill_group(proc)
        partial = pd.read_parquet(results)  # always a whole file
        # finished episodes are never redone or changed
        if len(prev):  # rows are kept sorted by key: compare episode by episode
            kept = partial.set_index("key").loc[prev["key"]].reset_index()
            pd.testing.assert_frame_equal(kept, prev.reset_index(drop=True))
        prev = partial
        if len(prev) == len(clean_eval):  # it finished before the kill
            break
        mid_run += 1
    assert mid_run >= 1, "the evaluation was never killed mid-run"
    run("evaluate", f"resume={run_dir}")
    final = pd.read_parquet(results)
    assert len(final) == len(clean_eval) and final["key"].is_unique
    _same_results(final, clean_eval)
    leftovers = [p.name for p in run_dir.rglob("*.tmp")]
    record(
        Figure(
            id="fault/eval_sigkill",
            category="fault",
            what="leogym-eval killed with SIGKILL (whole process group) at random moments, "
            "resumed each time",
            cases=mid_run,
            outcomes={"resumed_without_loss": mid_run},
            lost=len(clean_eval) - len(final),
            notes=f"{len(final)} episodes in the end, equal to an uninterrupted run "
            f"(bit for bit); temporary files left after the final resume: {len(leftovers)}",
        )
    )


def test_evaluation_worker_killed_mid_episode(
    clean_eval: pd.DataFrame, tmp_path: Path, record
) -> None:
    run_dir = tmp_path / "eval"
    results = run_dir / "results.parquet"
    proc = start("evaluate", *EVAL, SEEDS, f"hydra.run.dir={run_dir}")
    killed: dict = {}

    def kill_second_episode() -> bool:
        if not (results.exists() and len(pd.read_parquet(results)) >= 1):
            return False
        for marker in (run_dir / ".inflight").glob("*.json"):
            try:
                killed.update(json.loads(marker.read_text()))
            except ValueError:  # being written
                return False
            os.kill(killed["pid"], signal.SIGKILL)
            return True
        return False

    wait_for(kill_second_episode, proc)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode != 0
    victim = clean_eval.set_index("key").loc[killed["key"]]
    expected = f"{victim['policy']}/tiny/seed={victim['seed']}"
    assert f"1 of {len(clean_eval)} episodes failed ({expected}: WorkerDied" in out, out[-6000:]
    assert f"pid {killed['pid']}" in out and f"seed={victim['seed']}" in out
    partial = pd.read_parquet(results)
    assert len(partial) == len(clean_eval) - 1 and killed["key"] not in set(partial["key"])
    run("evaluate", f"resume={run_dir}")
    final = pd.read_parquet(results)
    _same_results(final, clean_eval)
    record(
        Figure(
            id="fault/eval_worker_killed",
            category="fault",
            what="worker of leogym-eval killed (SIGKILL) mid-episode, eval.on_worker_death="
            "continue",
            cases=1,
            outcomes={"reported_continued_retried": 1},
            lost=len(clean_eval) - len(final),
            notes="the episode is reported failed with env kwargs, scenario and seed; the others "
            "ran on; resume retried it; final table equals an uninterrupted run",
        )
    )
