#!/usr/bin/env python3
"""Type-check the ``leogym`` package with mypy, as the wheel lays it out.

The wheel's package folder is ``src/leogym`` (pyproject.toml,
``[tool.scikit-build.wheel.packages]``); ``envs/``, ``agents/``, ``baselines/`` and ``conf/`` enter
it through symbolic links (``src/leogym/envs`` -> ``envs/``, ...). This script lays the package
out as a tree of symbolic links under ``build/typecheck/leogym``, so that mypy sees ``leogym``
and nothing else of the repository, and runs mypy on ``-p leogym`` there, with the settings of
``[tool.mypy]`` in pyproject.toml. Paths in mypy's report are mapped back to the repository's
files (``leogym/envs/cc_env.py`` -> ``envs/cc_env.py``), so editors and humans can jump to them.

Usage: ``python tools/typecheck.py [extra mypy arguments]`` (``make lint`` runs it; so does the
pre-commit hook). Exit status is mypy's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: mypy itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"
PACKAGE = "leogym"


def wheel_packages() -> dict[str, Path]:
    """The wheel's package map: import path (``leogym/envs``) -> source folder."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        meta = tomllib.load(f)
    mapping = meta["tool"]["scikit-build"]["wheel"]["packages"]
    return {dest: ROOT / src for dest, src in mapping.items()}


def build_tree() -> dict[str, str]:
    """Lay out ``build/typecheck/leogym`` as links; return tree prefix -> repository prefix."""
    mapping = wheel_packages()
    top = TREE / PACKAGE
    if top.exists():
        shutil.rmtree(top)
    top.mkdir(parents=True)
    # The top-level package: link each entry of its folder, so that the subpackages that come
    # from other folders can sit beside them.
    root_src = mapping.pop(PACKAGE)
    for entry in sorted(root_src.iterdir()):
        if entry.name == "__pycache__" or entry.suffix == ".so":
            continue
        (top / entry.name).symlink_to(entry)
    prefixes = {f"{PACKAGE}/": f"{root_src.relative_to(ROOT)}/"}
    for entry in sorted(root_src.iterdir()):
        if entry.is_symlink() and entry.is_dir():  # src/leogym/envs -> envs/
            prefixes[f"{PACKAGE}/{entry.name}/"] = f"{entry.resolve().relative_to(ROOT)}/"
    for dest, src in mapping.items():
        link = TREE / dest
        if link.exists() or link.is_symlink():
            raise SystemExit(f"typecheck: {dest} is both in {root_src} and mapped from {src}")
        link.symlink_to(src, target_is_directory=True)
        prefixes[f"{dest}/"] = f"{src.relative_to(ROOT)}/"
    return prefixes


def main(argv: list[str]) -> int:
    prefixes = build_tree()
    # Longest prefix first, so leogym/envs/ wins over leogym/.
    ordered = sorted(prefixes.items(), key=lambda kv: -len(kv[0]))
    pattern = re.compile("^(" + "|".join(re.escape(k) for k, _ in ordered) + ")", re.MULTILINE)
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(TREE / ".mypy_cache"),
        *argv,
        "-p",
        PACKAGE,
    ]
    env = dict(os.environ, MYPYPATH=str(TREE))
    proc = subprocess.run(cmd, cwd=TREE, env=env, capture_output=True, text=True)
    sys.stdout.write(pattern.sub(lambda m: prefixes[m.group(1)], proc.stdout))
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
