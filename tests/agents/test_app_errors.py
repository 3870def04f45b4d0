"""A bad config ends every leogym app with one line naming the field and exit status 2 (as
argparse ends a usage error); ``HYDRA_FULL_ERROR=1`` brings the full traceback back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

STEP_MS = "env.step_ms: must be in [1, 60000] (got -5"


def _run(args: list[str], cwd: Path, full_error: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HYDRA_FULL_ERROR"}
    if full_error:
        env["HYDRA_FULL_ERROR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=cwd,
        env=env,
    )


def _one_line(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("module", "prog"),
    [
        ("leogym.agents.train", "leogym-train"),
        ("leogym.agents.evaluate", "leogym-eval"),
        ("leogym.agents.main_job", "leogym-run"),
    ],
)
def test_hydra_apps_report_a_bad_value_in_one_line(module: str, prog: str, tmp_path: Path) -> None:
    proc = _run([module, "env.step_ms=-5", f"hydra.run.dir={tmp_path / 'run'}"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert _one_line(proc).startswith(f"{prog}: error: {STEP_MS}")
    assert not (tmp_path / "run" / "run_info.json").exists()  # nothing was started


def test_hydra_composition_errors_are_one_line_too(tmp_path: Path) -> None:
    run_dir = f"hydra.run.dir={tmp_path / 'run'}"
    proc = _run(["leogym.agents.train", "train.n_envs=many", run_dir], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert _one_line(proc).startswith("leogym-train: error: train.n_envs: Value 'many'")
    proc = _run(["leogym.agents.train", "agent=foo", run_dir], tmp_path)
    assert proc.returncode == 2, proc.stderr
    line = _one_line(proc)
    assert line.startswith("leogym-train: error: agent: no option 'foo'") and "ppo" in line


def test_hydra_full_error_keeps_the_traceback(tmp_path: Path) -> None:
    proc = _run(
        ["leogym.agents.train", "env.step_ms=-5", f"hydra.run.dir={tmp_path / 'run'}"],
        tmp_path,
        full_error=True,
    )
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr
    assert f"ConfigError: {STEP_MS}" in proc.stderr


def test_ns3gym_server_reports_a_bad_env_option_in_one_line(tmp_path: Path) -> None:
    proc = _run(
        ["leogym.ns3gym.cli", "--port", "5599", "env=leogym/LeoCC-v0", "env.step_ms=-5"], tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert _one_line(proc) == f"leogym-ns3gym-serve: error: {STEP_MS})"


def test_reproduce_reports_a_bad_option_in_one_line(tmp_path: Path) -> None:
    proc = _run(["leogym.agents.reproduce.cli", "maco", "--seeds", "0"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert _one_line(proc) == "leogym-reproduce: error: --seeds: must be >= 1 (got 0)"
