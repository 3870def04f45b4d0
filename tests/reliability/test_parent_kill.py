"""Killing only an app's own process takes its worker processes with it.

``leogym-eval`` runs episodes in a process pool and ``leogym-train`` its envs in worker
processes. When only the app's process is killed (SIGKILL by a scheduler or the OOM killer, or a
plain SIGTERM), its workers must not live on: each watches the app's process
(:func:`leogym.agents.runtime.subproc_worker.exit_with_parent`) and ends within a second.

Each app is killed with each signal once its workers are at work; at full size
(``LEOGYM_RELIABILITY_SIZE=full``) also at seeded random moments while its workers are still
being started (the pool or VecEnv half built, a worker before its watch began).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from reliability_support import ROOT, Figure, sized

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
    # enough episodes that the evaluation outlasts the wait for all its workers at work on a
    # loaded machine (with six, it once ended before the test saw three episodes in flight)
    f"eval.seeds=[{','.join(str(i) for i in range(24))}]",
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


#: Kill moments: ``at_work`` (every worker busy), and at full size, per app and signal, this many
#: ``early`` ones: a seeded random delay after the app's first worker process appears.
EARLY_KILLS = sized(0, 2)
EARLY_DELAY_S = (0.0, 3.0)
SEED = 20261205


def moments() -> list[str]:
    return ["at_work"] + [f"early{i}" for i in range(EARLY_KILLS)]


def session_of(app: subprocess.Popen) -> list[psutil.Process]:
    """Every live process of the app's session (the app was started in a session of its own),
    the app aside: its workers, forkserver and resource tracker, also those started after the
    last look, and after the app itself has gone."""
    out = []
    for p in psutil.process_iter():
        try:
            if p.pid != app.pid and os.getsid(p.pid) == app.pid:
                out.append(p)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return out


def first_worker(app: subprocess.Popen, app_name: str) -> None:
    """Wait until the app has started its first worker process (a child of its forkserver)."""
    deadline = time.monotonic() + 180
    while not any(p.ppid() != app.pid for p in _children(app)):
        if app.poll() is not None:
            raise AssertionError(f"{app_name} ended first:\n{app.stdout.read()[-6000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{app_name} never started a worker")
        time.sleep(0.02)


def _children(app: subprocess.Popen) -> list[psutil.Process]:
    try:
        return psutil.Process(app.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


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


@pytest.mark.parametrize("moment", moments())
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
@pytest.mark.parametrize("module", ["evaluate", "train"])
def test_workers_end_with_their_app(
    module: str, sig: signal.Signals, moment: str, tmp_path: Path, record
) -> None:
    args = EVAL if module == "evaluate" else TRAIN
    delay = random.Random(f"{SEED}/{module}/{sig.name}/{moment}").uniform(*EARLY_DELAY_S)
    app = subprocess.Popen(
        [sys.executable, "-m", f"leogym.agents.{module}", *args, f"hydra.run.dir={tmp_path}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        if moment == "at_work":
            workers_of(app, tmp_path, module)
            when = f"with {N_WORKERS} workers mid-run"
        else:
            first_worker(app, module)
            time.sleep(delay)
            when = f"{delay:.2f} s after its first worker started"
        seen = {p.pid: p for p in session_of(app)}
        os.kill(app.pid, sig)  # the app's process only, not its group
        killed = time.monotonic()
        app.wait(timeout=30)
        while time.monotonic() < killed + GRACE_S:
            seen.update((p.pid, p) for p in session_of(app))  # late starters count too
            if not any(alive(p) for p in seen.values()):
                break
            time.sleep(0.05)
        gone_s = time.monotonic() - killed
        left = [f"{p.pid} {p.cmdline()[:3]}" for p in seen.values() if alive(p)]
        app_name = f"leogym-{'eval' if module == 'evaluate' else module}"
        record(
            Figure(
                id=f"fault/app_killed_{module}_{sig.name.lower()}"
                + ("" if moment == "at_work" else f"_{moment}"),
                category="fault",
                what=f"only the process of {app_name} killed ({sig.name}) {when}",
                cases=1,
                outcomes={"workers_ended_with_it": int(not left), "workers_left": int(bool(left))},
                notes=f"all {len(seen)} processes it started (workers, forkserver, "
                f"resource tracker) gone {gone_s:.2f} s after the kill (limit {GRACE_S:g} s)",
            )
        )
        assert not left, (
            f"{len(left)} of the {len(seen)} processes of {app_name} outlived it by "
            f"{GRACE_S} s: {left}"
        )
    finally:
        try:
            os.killpg(app.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        app.wait(timeout=30)
        app.stdout.close()
