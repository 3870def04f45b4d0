"""Fixtures for the ns3-gym tests."""

from __future__ import annotations

import pytest
from ns3gym_helpers import free_port


@pytest.fixture
def port() -> int:
    """A free TCP port on 127.0.0.1 for a test's agent to bind."""
    return free_port()
