"""Fixtures of the reliability tests (the machinery is in ``reliability_support.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from reliability_support import Figure, write_figure


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Callable[[Figure], None]:
    """``record(Figure(...))`` writes one row of the reliability table for this test."""

    def write(fig: Figure) -> None:
        fig.test = request.node.nodeid
        write_figure(fig)

    return write
