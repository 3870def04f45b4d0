"""A training run interrupted in the middle of a rollout (Ctrl-C) resumes to exactly its target.

PPO learns from whole rollouts (``agent.n_steps`` per env); its step count also counts the
rollout under way. A checkpoint taken then used to carry that count into the resume, which then
took whole rollouts from there and overshot the target (3,304 steps against 3,072).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import ROOT

pytestmark = [pytest.mark.timeout(600), pytest.mark.native]  # the app runs simulations

# rollouts of 256 steps; the target is ten of them, so that the run is still going when the
# Ctrl-C arrives on a loaded machine (with three, a 3.7 s run once finished first)
N_STEPS, N_ENVS, TARGET = 128, 2, 2560
TRAIN = [
    "scenario=tiny",
    "env.episode_s=4",
    "train.progress=false",
    f"train.total_timesteps={TARGET}",
    f"train.n_envs={N_ENVS}",
    f"agent.n_steps={N_STEPS}",
    "agent.batch_size=64",
    "agent.n_epochs=1",
    "train.eval_freq=0",
    "train.checkpoint_freq=64",  # four checkpoints per rollout: they show where training is
    "train.tensorboard=false",
]


def _app(*args: str) -> list[str]:
    return [sys.executable, "-m", "leogym.agents.train", *args]


def _steps(model: Path) -> int:
    return int(json.loads(model.with_suffix(".json").read_text())["num_timesteps"])


def _checkpoint_steps(run_dir: Path) -> list[int]:
    return sorted(
        _steps(z)
        for z in (run_dir / "checkpoints").glob("step_*.zip")
        if z.with_suffix(".json").is_file()
    )


def test_ctrl_c_mid_rollout_then_resume_reaches_the_target_exactly(tmp_path: Path) -> None:
    run_dir = tmp_path / "train"
    proc = subprocess.Popen(
        _app(*TRAIN, f"hydra.run.dir={run_dir}"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        # a checkpoint at step 320 is a quarter into the second rollout (256-512)
        while (
            not (run_dir / "checkpoints").is_dir()
            or max(_checkpoint_steps(run_dir), default=0) < 320
        ):
            assert proc.poll() is None, proc.stdout.read()[-4000:] if proc.stdout else ""
            assert time.monotonic() < deadline, "no checkpoint at step 320 in time"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGINT)  # Ctrl-C, to the trainer only (not its env workers)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "interrupted: checkpoint saved" in out, out[-4000:]
    at_interrupt = max(_checkpoint_steps(run_dir))
    rollout = N_STEPS * N_ENVS
    assert at_interrupt % rollout != 0, f"the interrupt fell on a rollout's end ({at_interrupt})"
    assert not (run_dir / "model.zip").exists()
    # the interrupted invocation's cost is kept, with the step count of its checkpoint
    interrupted = json.loads((run_dir / "train_summary.json").read_text())
    assert [s["num_timesteps"] for s in interrupted["segments"]] == [at_interrupt]
    assert interrupted["cpu_s"] > 0 and interrupted["wall_s"] > 0

    resumed = subprocess.run(
        _app(f"resume={run_dir}"), cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, (resumed.stdout + resumed.stderr)[-4000:]
    assert _steps(run_dir / "model.zip") == TARGET
    summary = json.loads((run_dir / "train_summary.json").read_text())
    assert summary["num_timesteps"] == TARGET
    # the resume's cost adds to the interrupted one's: the model's whole cost
    assert summary["segments"][0] == interrupted["segments"][0]
    assert summary["cpu_s"] == pytest.approx(sum(s["cpu_s"] for s in summary["segments"]))
    assert summary["cpu_s"] > interrupted["cpu_s"]
