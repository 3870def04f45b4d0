"""The core's source lists (cpp/CMakeLists.txt) and the .cc files under cpp/ agree.

CMake builds exactly the files listed there (no GLOB), so a .cc file that is added but not
listed would be silently left out of the build: a self-registering algorithm would vanish from
the registry, anything else would fail only at import with an undefined symbol. These tests make
it fail in CI instead, with the file's name.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CPP = ROOT / "cpp"
LISTS = CPP / "CMakeLists.txt"


def _source_lists() -> dict[str, list[str]]:
    """``set(LEOGYM_* ...)`` blocks of cpp/CMakeLists.txt, comments dropped."""
    text = re.sub(r"#[^\n]*", "", LISTS.read_text())
    return {
        m.group(1): m.group(2).split()
        for m in re.finditer(r"set\(\s*(LEOGYM_\w+)\b(.*?)\)", text, re.S)
    }


def _on_disk() -> list[str]:
    return sorted(p.relative_to(CPP).as_posix() for p in CPP.rglob("*.cc"))


def _includes(source: str) -> list[str]:
    """Project headers a file includes (paths relative to cpp/)."""
    path = CPP / source
    out = []
    for name in re.findall(r'^#include "([^"]+)"', path.read_text(), re.M):
        beside = path.parent / name
        out.append((beside if beside.exists() else CPP / name).relative_to(CPP).as_posix())
    return out


def test_no_glob_in_the_build() -> None:
    for cmake in (ROOT / "CMakeLists.txt", LISTS):
        assert not re.search(r"file\s*\(\s*GLOB", cmake.read_text(), re.I), cmake


def test_every_cc_file_is_listed_exactly_once() -> None:
    lists = _source_lists()
    assert set(lists) == {
        "LEOGYM_SOURCES",
        "LEOGYM_TESTING_SOURCES",
        "LEOGYM_UNIT_TEST_SOURCES",
        "LEOGYM_UNIT_TEST_MODELS",
    }, set(lists)
    listed = (
        lists["LEOGYM_SOURCES"]
        + lists["LEOGYM_TESTING_SOURCES"]
        + lists["LEOGYM_UNIT_TEST_SOURCES"]
    )
    twice = sorted(name for name, n in Counter(listed).items() if n > 1)
    assert not twice, f"listed more than once in cpp/CMakeLists.txt: {twice}"
    disk = _on_disk()
    missing = sorted(set(disk) - set(listed))
    assert not missing, (
        f"not in cpp/CMakeLists.txt (add each to LEOGYM_SOURCES, to LEOGYM_TESTING_SOURCES "
        f"if only the test probes use it, or a C++ unit test to LEOGYM_UNIT_TEST_SOURCES): "
        f"{missing}"
    )
    stale = sorted(set(listed) - set(disk))
    assert not stale, f"listed in cpp/CMakeLists.txt but not under cpp/: {stale}"


def test_probes_are_testing_only_and_the_public_core_does_not_need_them() -> None:
    lists = _source_lists()
    public, testing = set(lists["LEOGYM_SOURCES"]), set(lists["LEOGYM_TESTING_SOURCES"])
    # every testing binding unit is testing-only
    probes = {s for s in _on_disk() if re.fullmatch(r"bindings/bind-[\w-]+-testing\.cc", s)}
    assert probes and probes <= testing, sorted(probes - testing)
    # a LEOGYM_TESTING=OFF build links: no public file includes a testing-only unit's header
    testing_headers = {s[: -len(".cc")] + ".h" for s in testing} | {
        p.relative_to(CPP).as_posix() for p in CPP.rglob("probe-*.h")
    }
    offending = {s: sorted(set(_includes(s)) & testing_headers) for s in sorted(public)}
    offending = {s: h for s, h in offending.items() if h}
    assert not offending, f"public sources include testing-only headers: {offending}"


def test_cpp_unit_tests_are_apart_from_the_core() -> None:
    """The files of the C++ unit tests (any test/ folder) build only the test runner, and the
    model sources the runner compiles again are the core's own."""
    lists = _source_lists()
    unit = set(lists["LEOGYM_UNIT_TEST_SOURCES"])
    in_test_folders = {s for s in _on_disk() if "test" in Path(s).parts[:-1]}
    assert in_test_folders == unit, (
        f"only in a test/ folder: {sorted(in_test_folders - unit)}; "
        f"in LEOGYM_UNIT_TEST_SOURCES outside one: {sorted(unit - in_test_folders)}"
    )
    models = set(lists["LEOGYM_UNIT_TEST_MODELS"])
    assert models <= set(lists["LEOGYM_SOURCES"]), sorted(models - set(lists["LEOGYM_SOURCES"]))
    public = lists["LEOGYM_SOURCES"] + lists["LEOGYM_TESTING_SOURCES"]
    offending = {s: [h for h in _includes(s) if "test" in Path(h).parts[:-1]] for s in public}
    offending = {s: h for s, h in offending.items() if h}
    assert not offending, f"the core includes headers of the unit tests: {offending}"
