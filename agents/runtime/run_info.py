"""Provenance of a run: resolved config, overrides, git SHA, package versions and seeds.

Every run directory holds:

* ``config.yaml``: the resolved config the run uses (resuming reads it back);
* ``overrides.yaml``: the command-line overrides of the first invocation;
* ``run_info.json``: ``app``, ``git`` (SHA and dirty flag of the leogym checkout, if any),
  ``versions`` (Python, leogym, ns-3 wheel, torch, SB3, ...), ``seeds``, ``host``, and one entry
  per invocation in ``invocations`` (a resume appends one).

Hydra's own ``.hydra/`` directory is there too when the run was started from the command line.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from omegaconf import DictConfig, OmegaConf

from leogym.agents.runtime.resolvers import RUN_CONFIG
from leogym.agents.runtime.storage import atomic_write_json, atomic_write_text

__all__ = [
    "RUN_INFO",
    "collect_versions",
    "git_state",
    "read_run_config",
    "record_invocation",
    "write_run_files",
]

RUN_INFO = "run_info.json"
_DISTRIBUTIONS = (
    "leogym",
    "ns3",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "gymnasium",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "hydra-core",
    "omegaconf",
    "matplotlib",
    "sgp4",
)


def collect_versions() -> dict[str, str | None]:
    """Python and the versions of the distributions leogym runs on (``None`` if missing)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in _DISTRIBUTIONS:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def git_state() -> dict[str, Any]:
    """SHA and dirty flag of the git checkout leogym is imported from (``sha=None`` if none)."""
    import leogym

    root = Path(leogym.__file__).resolve().parent
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {"sha": None, "dirty": None}
    return {"sha": sha, "dirty": bool(status.strip())}


def _invocation(overrides: list[str]) -> dict[str, Any]:
    return {
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "pid": os.getpid(),
        "argv": list(sys.argv),
        "overrides": list(overrides),
        "git": git_state(),
    }


def write_run_files(
    run_dir: str | Path,
    cfg: DictConfig,
    *,
    app: str,
    overrides: list[str],
    seeds: dict[str, Any],
) -> None:
    """Write ``config.yaml``, ``overrides.yaml`` and ``run_info.json`` into a new run directory.

    :param run_dir: the run directory (created if needed).
    :param cfg: the composed config (the ``hydra`` node, if any, is left out).
    :param app: ``train``, ``evaluate`` or ``main_job``.
    :param overrides: the command-line overrides.
    :param seeds: every seed the run uses, by role (``{"train": 0, "eval": [0, 1, 2]}``).
    """
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    container = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(container, dict)
    container.pop("hydra", None)
    atomic_write_text(run_dir / RUN_CONFIG, OmegaConf.to_yaml(OmegaConf.create(container)))
    atomic_write_text(
        run_dir / "overrides.yaml", OmegaConf.to_yaml(OmegaConf.create(list(overrides)))
    )
    info = {
        "app": app,
        "seeds": seeds,
        "versions": collect_versions(),
        "host": {"hostname": socket.gethostname(), "platform": platform.platform()},
        "invocations": [_invocation(overrides)],
    }
    atomic_write_json(run_dir / RUN_INFO, info)


def record_invocation(run_dir: str | Path, overrides: list[str], **extra: Any) -> None:
    """Append an invocation (a resume) to ``run_info.json``."""
    import json

    path = Path(run_dir) / RUN_INFO
    info = json.loads(path.read_text()) if path.exists() else {"invocations": []}
    entry = _invocation(overrides)
    entry.update(extra)
    info.setdefault("invocations", []).append(entry)
    info["versions_latest"] = collect_versions()
    atomic_write_json(path, info)


def read_run_config(run_dir: str | Path) -> DictConfig:
    """The resolved config saved in a run directory."""
    path = Path(run_dir) / RUN_CONFIG
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir} holds no {RUN_CONFIG}; is it a leogym run directory?")
    cfg = OmegaConf.load(path)
    assert isinstance(cfg, DictConfig)
    return cfg


def process_tree_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process, its finished children and
    every child process still running (recursively: the env workers under a forkserver)."""
    me = psutil.Process()
    t = me.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in me.children(recursive=True):
        with contextlib.suppress(psutil.Error):  # a child that just exited
            c = child.cpu_times()
            total += c.user + c.system + c.children_user + c.children_system
    return float(total)
