"""Killing only an app's own process takes its worker processes with it.

``leogym-eval`` runs episodes in a process pool and ``leogym-train`` its envs in worker
processes. When only the app's process is killed (SIGKILL by a scheduler or the OOM killer, or a
plain SIGTERM), its workers must not live on: each watches the app's process
(:func:`leogym.agents.runtime.subproc_worker.exit_with_parent`) and ends within a second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from reliability_support import ROOT, Figure

pytestmark = [pytest.mark.timeout(300), pytest.mark.native]  # the workers run simulations

N_WORKERS = 3
#: How long the workers may outlive the app: they notice at once, but the exit of a process
#: with a simulation and the wake-up of its watching thread take a moment on a loaded machine.
GRACE_S = 10.0

EVAL = [
    "scenario=tiny",
    "env.episode_s=60",
    "eval.progress=false",
    "eval.plots=false",
    "baseline=[cubic]",
    f"eval.n_workers={N_WORKERS}",
    "eval.seeds=[0,1,2,3,4,5]",
]
TRAIN = [
    "scenario=tiny",
    "env.episode_s=60",
    f"train.n_envs={N_WORKERS}",
    "train.progress=false",
    "eval.progress=false",
    "train.total_timesteps=100000",
    "train.eval_freq=0",
    "train.checkpoint_freq=0",
    "train.tensorboard=false",
]


def alive(proc: psutil.Process) -> bool:
    """Whether ``proc`` still runs (a zombie waiting to be reaped does not)."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def workers_of(app: subprocess.Popen, run_dir: Path, app_name: str) -> list[psutil.Process]:
    """Wait until the app runs ``N_WORKERS`` worker processes (the forkserver's children: not the
    forkserver, not the resource tracker) that are at work, and return them. An evaluation's
    workers are at work once each has an episode in flight (its marker in ``.inflight``)."""
    deadline = time.monotonic() + 180
    while True:
        if app.poll() is not None:
            raise AssertionError(f"{app_name} ended first:\n{app.stdout.read()[-6000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{app_name} never ran {N_WORKERS} workers")
        try:
            found = [
                p for p in psutil.Process(app.pid).children(recursive=True) if p.ppid() != app.pid
            ]
        except psutil.NoSuchProcess:
            found = []
        markers = list((run_dir / ".inflight").glob("*.json"))
        if len(found) >= N_WORKERS and (app_name == "train" or len(markers) >= N_WORKERS):
            time.sleep(2.0)  # into their work: envs made, simulating
            return found
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
@pytest.mark.parametrize("module", ["evaluate", "train"])
def test_workers_end_with_their_app(
    module: str, sig: signal.Signals, tmp_path: Path, record
) -> None:
    args = EVAL if module == "evaluate" else TRAIN
    app = subprocess.Popen(
        [sys.executable, "-m", f"leogym.agents.{module}", *args, f"hydra.run.dir={tmp_path}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        workers = workers_of(app, tmp_path, module)
        descendants = psutil.Process(app.pid).children(recursive=True)
        os.kill(app.pid, sig)  # the app's process only, not its group
        killed = time.monotonic()
        app.wait(timeout=30)
        while any(alive(p) for p in descendants) and time.monotonic() < killed + GRACE_S:
            time.sleep(0.05)
        gone_s = time.monotonic() - killed
        left = [f"{p.pid} {p.cmdline()[:3]}" for p in descendants if alive(p)]
        record(
            Figure(
                id=f"fault/app_killed_{module}_{sig.name.lower()}",
                category="fault",
                what=f"only the process of leogym-{'eval' if module == 'evaluate' else module} "
                f"killed ({sig.name}) with {N_WORKERS} workers mid-run",
                cases=1,
                outcomes={"workers_ended_with_it": int(not left), "workers_left": int(bool(left))},
                notes=f"all {len(descendants)} processes it started (workers, forkserver, "
                f"resource tracker) gone {gone_s:.2f} s after the kill (limit {GRACE_S:g} s)",
            )
        )
        assert not left, (
            f"{len(left)} of the {len(descendants)} processes of leogym {module} "
            f"({len(workers)} workers) outlived it by {GRACE_S} s: {left}"
        )
    finally:
        try:
            os.killpg(app.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        app.wait(timeout=30)
        app.stdout.close()
