"""``leogym.scenario`` has floors: no import cycle between its modules, and its schemas
(``leogym.scenario.config``) import no implementation.

The graph is read from the sources (``ast``), so an import inside a function or under
``if TYPE_CHECKING:`` counts as much as one at the top: a cycle cannot hide behind a
function-local import. Each module is also imported alone, first, in a fresh interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import leogym.scenario

PACKAGE = "leogym.scenario"
ROOT = Path(leogym.scenario.__file__).parent
#: The schema floor: these modules may import leogym.schema and each other, nothing else of
#: leogym.
SCHEMA = f"{PACKAGE}.config"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a sub-package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((PACKAGE, *parts))] = path
    return out


def _imports(name: str, path: Path) -> set[str]:
    """The leogym modules ``path`` imports anywhere in it (top level, functions, ``if`` blocks),
    as written: ``from a.b import c`` gives ``a.b`` and ``a.b.c``."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m.startswith("leogym")}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {n: {m for m in _imports(n, p) if m in mods and m != n} for n, p in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules in order, the first repeated), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current chain, 2: done
    chain: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        chain.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return [*chain[chain.index(m) :], m]
            if m not in state and (found := visit(m)) is not None:
                return found
        chain.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_function_local_imports(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from leogym.scenario.timeline import Timeline\n")
    assert "leogym.scenario.timeline" in _imports("leogym.scenario.m", src)


def test_the_package_has_no_import_cycle() -> None:
    graph = _graph()
    assert len(graph) > 30  # the whole package was read
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_schemas_import_no_implementation() -> None:
    for name, path in _modules().items():
        if name == SCHEMA or name.startswith(f"{SCHEMA}."):
            outside = {
                m
                for m in _imports(name, path)
                if not any(m == ok or m.startswith(f"{ok}.") for ok in ("leogym.schema", SCHEMA))
            }
            assert not outside, f"{name} imports {sorted(outside)}"


#: Run in a fresh interpreter: import the third-party libraries and ``leogym`` (which loads no
#: scenario module), then, in a forked child per module, import that module first.
_IMPORT_EACH = """
import importlib, os, sys, traceback
import numpy, scipy.signal, scipy.special, omegaconf, leogym
assert not [m for m in sys.modules if m.startswith("leogym.scenario")]
failed = []
for name in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed.append(name)
print("FAILED", failed)
sys.exit(1 if failed else 0)
"""


@pytest.mark.timeout(300)
@pytest.mark.skipif(sys.platform == "win32", reason="forks a child per module")
def test_each_module_imports_alone_first() -> None:
    names = sorted(_modules())
    run = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *names],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FAILED []" in run.stdout
