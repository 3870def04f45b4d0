"""Path builders for the native network tests (PathTimeline dicts, see docs/architecture.md)."""

from __future__ import annotations

from typing import Any

import numpy as np


def make_path(
    duration_s: float = 10.0,
    dt_s: float = 0.01,
    *,
    rate_bps: float | np.ndarray = 20e6,
    delay_s: float | np.ndarray = 0.02,
    loss: float | np.ndarray = 0.0,
    rate_up_bps: float | np.ndarray | None = None,
    delay_up_s: float | np.ndarray | None = None,
    loss_up: float | np.ndarray | None = None,
    outages: list[tuple[float, float]] | None = None,
    handovers: list[float] | None = None,
    queue_packets: int = 100,
    name: str = "p0",
) -> dict[str, Any]:
    """A PathTimeline dict on a uniform grid covering ``[0, duration_s]``.

    Scalars are broadcast; arrays must have the grid's length. Up-direction values default to
    the down-direction ones.
    """
    n = int(round(duration_s / dt_s)) + 1

    def arr(x: float | np.ndarray) -> np.ndarray:
        a = np.asarray(x, dtype=np.float64)
        return np.full(n, float(a)) if a.ndim == 0 else a.astype(np.float64)

    return {
        "name": name,
        "kind": "satellite",
        "t0_s": 0.0,
        "dt_s": dt_s,
        "queue_packets": queue_packets,
        "delay_down_s": arr(delay_s),
        "delay_up_s": arr(delay_s if delay_up_s is None else delay_up_s),
        "rate_down_bps": arr(rate_bps),
        "rate_up_bps": arr(rate_bps if rate_up_bps is None else rate_up_bps),
        "loss_down": arr(loss),
        "loss_up": arr(loss if loss_up is None else loss_up),
        "snr_db": np.full(n, 10.0),
        "elevation_deg": np.linspace(30.0, 60.0, n),
        "serving_sat": np.zeros(n, dtype=np.int32),
        "outages": np.asarray(outages if outages else np.zeros((0, 2)), dtype=np.float64),
        "handovers": np.asarray(handovers if handovers else [], dtype=np.float64),
    }


def grid(path: dict[str, Any]) -> np.ndarray:
    """Sample times of a path dict."""
    n = len(path["delay_down_s"])
    return path["t0_s"] + path["dt_s"] * np.arange(n)
