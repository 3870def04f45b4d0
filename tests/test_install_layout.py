"""The install puts only leogym's own code on the import path.

The wheel's package map (``[tool.scikit-build.wheel.packages]`` in pyproject.toml) decides both
layouts: the files a wheel stores under ``leogym/``, and the folders an editable install's
``.pth`` adds to ``sys.path`` (scikit-build-core adds, for each entry, its source folder less as
many levels as the entry's key is deep). A map entry like ``"leogym/envs" = "envs"`` therefore
put the checkout's *parent* folder on ``sys.path``, and any folder beside the checkout named like
a package (``/tmp/ray`` beside a clone in ``/tmp``) shadowed the installed one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DIR = REPO / "src" / "leogym"


def _package_map() -> dict[str, str]:
    with open(REPO / "pyproject.toml", "rb") as f:
        meta = tomllib.load(f)
    packages: dict[str, str] = meta["tool"]["scikit-build"]["wheel"]["packages"]
    return packages


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _top_level_modules(folder: Path) -> list[str]:
    """What ``import NAME`` finds in ``folder`` when it is on ``sys.path``."""
    names = {p.stem for p in folder.glob("*.py")}
    names |= {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    return sorted(names)


def test_the_package_map_puts_only_leogym_on_the_path() -> None:
    for key, source in _package_map().items():
        assert key.split("/")[0] == "leogym", f"wheel.packages: {key!r} is not under leogym/"
        search = (REPO / source).resolve()
        for _ in Path(key).parts:
            search = search.parent
        assert _inside(search, REPO), (
            f"wheel.packages: {key!r} = {source!r} puts {search} on sys.path in an editable "
            f"install, outside the checkout {REPO}: folders beside it would shadow packages"
        )
        assert _top_level_modules(search) == ["leogym"], (
            f"wheel.packages: {key!r} = {source!r} puts {search} on sys.path, which holds "
            f"{_top_level_modules(search)}, not leogym alone"
        )


@pytest.mark.parametrize("sub", ["envs", "agents", "baselines", "conf"])
def test_the_package_folder_links_each_subpackage(sub: str) -> None:
    link = PACKAGE_DIR / sub
    assert link.is_symlink() and link.resolve() == REPO / sub, (
        f"{link} must be a symbolic link to {REPO / sub} (a checkout without symbolic links, "
        "e.g. git's core.symlinks=false, cannot build leogym)"
    )
    assert (link / "__init__.py").is_file()


_PROBE = """
import importlib.util, json, sys
spec = importlib.util.find_spec("leogym")
print(json.dumps({
    "path": sys.path,
    "origin": spec.origin if spec else None,
    "locations": list(spec.submodule_search_locations or []) if spec else [],
}))
"""


@pytest.mark.timeout(60)
def test_the_installed_leogym_adds_nothing_else_of_the_checkout(tmp_path: Path) -> None:
    # a fresh interpreter, isolated from PYTHONPATH and pytest's own sys.path entries: what the
    # install (site-packages and its .pth files) puts on the path
    out = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=50,
    )
    probe = json.loads(out.stdout)
    entries = [Path(p).resolve() for p in probe["path"] if p]
    assert REPO.parent not in entries, f"the checkout's parent {REPO.parent} is on sys.path"
    own = {REPO / "src"}
    extra = [p for p in entries if _inside(p, REPO) and p not in own and not _in_outputs(p)]
    assert not extra, f"sys.path holds folders of the checkout besides src/: {extra}"
    if probe["origin"] is None or not _inside(Path(probe["origin"]).resolve(), REPO):
        return  # leogym is not installed from this checkout (e.g. from a wheel)
    for location in map(Path, probe["locations"]):
        # the compiled core sits in site-packages/leogym, which may be in .venv/ of the checkout
        mine = _inside(location, PACKAGE_DIR) or _in_outputs(location)
        assert mine or not _inside(location, REPO), (
            f"leogym.__path__ holds {location}, a folder of the checkout outside {PACKAGE_DIR}"
        )


def _in_outputs(path: Path) -> bool:
    """The venv and build folders of ``make install``, which may sit inside the checkout."""
    return _inside(path, REPO / ".venv") or _inside(path, REPO / "build")
