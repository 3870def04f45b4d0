"""Run leogym's Hydra apps for tests/docs/test_documented_commands.py, one process per command.

Started as a script by the test; reads one JSON job per line on stdin,
``{"argv": [prog, *args], "cwd": ..., "log": ..., "timeout": s}``, and answers one JSON line
per job, ``{"rc": exit status, "wall": seconds, "cpu": seconds}``.

Each job runs in a child forked from this process after ``leogym.agents`` (and with it
PyTorch and Stable-Baselines3) has been imported once: the child sets ``sys.argv``, calls the
console entry point ``main()`` that ``leogym-train`` / ``leogym-eval`` / ``leogym-run`` call,
and exits with its status. The child leads its own process group (so a timeout stops the env
workers too) and writes stdout and stderr to ``log``. The runner is a child subreaper, so the
job's orphans (env workers started through a fork server) are reaped here too and ``cpu``
counts the job's whole process tree.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import signal
import sys
import time

#: Imported once before any job: the apps import these lazily, and PyTorch's optimiser pulls
#: in torch._dynamo (seconds of CPU per process otherwise).
PRELOAD = (
    "torch",
    "torch._dynamo",
    "torch.utils.tensorboard",
    "stable_baselines3",
    "sb3_contrib",
    "gymnasium",
    "pandas",
    "pyarrow.parquet",
    "matplotlib.pyplot",
    "leogym.envs",
    "leogym.baselines",
)
APPS = {
    "leogym-train": "leogym.agents.train",
    "leogym-eval": "leogym.agents.evaluate",
    "leogym-run": "leogym.agents.main_job",
}


def _child(job: dict) -> int:
    os.setsid()
    os.chdir(job["cwd"])
    fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.argv = list(job["argv"])
    try:
        importlib.import_module(APPS[sys.argv[0]]).main()
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # report, as the interpreter would, and fail
        import traceback

        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _cpu() -> float:
    """CPU seconds of every process this runner has reaped (as subreaper: grandchildren too)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _reap_orphans() -> None:
    """Reap grandchildren re-parented to this subreaper (env workers, fork servers)."""
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not done:
            return


def _run(job: dict) -> dict:
    t0 = time.monotonic()
    cpu0 = _cpu()
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            code = _child(job)
        finally:
            os._exit(code)
    deadline = t0 + float(job.get("timeout", 300))
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            time.sleep(0.2)  # let the job's orphans (fork servers) exit, then count them
            _reap_orphans()
            rc = os.waitstatus_to_exitcode(status)
            return {"rc": rc, "wall": time.monotonic() - t0, "cpu": _cpu() - cpu0}
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return {"rc": "timeout", "wall": time.monotonic() - t0, "cpu": _cpu() - cpu0}
        time.sleep(0.05)


def main() -> None:
    if sys.platform == "linux":  # orphans of a job come back here, to be reaped and counted
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    os.environ.setdefault("MPLBACKEND", "Agg")
    for module in (*PRELOAD, *APPS.values()):
        importlib.import_module(module)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_run(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
