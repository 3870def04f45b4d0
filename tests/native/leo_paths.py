"""Helpers for the native tests' path dicts (built by
:func:`leogym.simulation.native_config.synthetic_path`)."""

from __future__ import annotations

from typing import Any

import numpy as np


def grid(path: dict[str, Any]) -> np.ndarray:
    """Sample times of a path dict."""
    n = len(path["delay_down_s"])
    return path["t0_s"] + path["dt_s"] * np.arange(n)
