"""Shared fixtures of the baseline tests."""

from __future__ import annotations

from types import ModuleType

import pytest

from leogym.native import core as load_core


@pytest.fixture(scope="session")
def testing() -> ModuleType:
    """``leogym._core.testing``: probes that evaluate the native baselines' code."""
    return load_core().testing
