"""Shared fixtures of the baseline tests."""

from __future__ import annotations

from types import ModuleType

import pytest

from leogym.native import testing as load_testing


@pytest.fixture(scope="session")
def testing() -> ModuleType:
    """``leogym._core.testing``: probes that evaluate the native baselines' code (a core built
    with ``LEOGYM_TESTING=ON``)."""
    return load_testing()
