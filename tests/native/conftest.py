"""Shared fixtures of the native network tests."""

from __future__ import annotations

from types import ModuleType

import pytest

from leogym.native import core as load_core


@pytest.fixture(scope="session")
def core() -> ModuleType:
    """The compiled ``leogym._core`` (honours ``LEOGYM_CORE_DIR``)."""
    return load_core()
