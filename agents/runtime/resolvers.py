"""OmegaConf resolvers used by ``conf/*.yaml`` to place run directories.

* ``${leogym.run_dir:${resume},<default>}`` is the run directory of ``resume`` when it is set
  (a resumed run continues in its own directory), else ``<default>``.
* ``${leogym.output_subdir:${resume},<stamp>}`` is ``.hydra`` for a new run and
  ``.hydra/resume-<stamp>`` for a resumed one, so resuming never overwrites the original
  ``.hydra/`` files.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import OmegaConf

__all__ = ["RUN_CONFIG", "find_run_dir", "register_resolvers"]

#: The resolved config every run directory holds (written by :mod:`leogym.agents.runtime.run_info`).
RUN_CONFIG = "config.yaml"


def find_run_dir(path: str | Path) -> Path:
    """The run directory of ``path``: the directory itself, or the nearest parent of a file
    (e.g. ``checkpoints/step_000001000.zip``) that holds a run ``config.yaml``.

    :raises FileNotFoundError: ``path`` does not exist or is not inside a run directory.
    """
    p = Path(path).expanduser().resolve()
    if not p.exists():
        raise FileNotFoundError(f"resume: no such run directory or checkpoint: {path}")
    start = p if p.is_dir() else p.parent
    for candidate in (start, *start.parents):
        if (candidate / RUN_CONFIG).is_file():
            return candidate
    raise FileNotFoundError(
        f"resume: {path} is not inside a leogym run directory (no {RUN_CONFIG})"
    )


def _run_dir(resume: str | None, default: str) -> str:
    if resume in (None, ""):
        return default
    return str(find_run_dir(resume))


def _output_subdir(resume: str | None, stamp: str) -> str:
    return ".hydra" if resume in (None, "") else f".hydra/resume-{stamp}"


def register_resolvers() -> None:
    """Register the ``leogym.*`` resolvers (idempotent)."""
    OmegaConf.register_new_resolver("leogym.run_dir", _run_dir, replace=True)
    OmegaConf.register_new_resolver("leogym.output_subdir", _output_subdir, replace=True)
