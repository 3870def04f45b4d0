"""Shared fixtures of the native network tests."""

from __future__ import annotations

from types import ModuleType

import pytest

from leogym.native import core as load_core
from leogym.native import testing as load_testing


@pytest.fixture(scope="session")
def core() -> ModuleType:
    """The compiled ``leogym._core`` (honours ``LEOGYM_CORE_DIR``)."""
    return load_core()


@pytest.fixture(scope="session")
def testing() -> ModuleType:
    """``leogym._core.testing``, the probes (a core built with ``LEOGYM_TESTING=ON``)."""
    return load_testing()
