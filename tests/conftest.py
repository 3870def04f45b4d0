"""Suite-wide test configuration: the ``native`` marker by folder (see tests/README.md).

A test that needs the compiled core (``leogym._core``: it opens a simulation, resets or steps a
leogym env, or runs an app that does) carries the ``native`` marker, so that
``pytest -m "not native"`` (``make test-fast``) runs the pure-Python layer alone. Folders whose
every test needs the core are listed here; elsewhere the marker is set in the test module
(``pytestmark``) or on the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

#: Folders (under tests/) whose every test needs the compiled core.
NATIVE_FOLDERS = frozenset({"native"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            folder = item.path.resolve().relative_to(HERE).parts[0]
        except (ValueError, IndexError):
            continue
        if folder in NATIVE_FOLDERS:
            item.add_marker(pytest.mark.native)
