"""Time intervals ``[start, stop)`` (outages, stalls): merging and finding them on a grid."""

from __future__ import annotations

import numpy as np

__all__ = ["false_runs", "merge_intervals"]


def merge_intervals(intervals: list[tuple[float, float]], end: float) -> np.ndarray:
    """Sort, clip to ``[0, end]`` and merge overlapping ``[start, stop)`` intervals.

    :return: ``(k, 2)`` float64 array.
    """
    clipped = sorted((max(a, 0.0), min(b, end)) for a, b in intervals if min(b, end) > max(a, 0.0))
    out: list[list[float]] = []
    for a, b in clipped:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return np.asarray(out, dtype=np.float64).reshape(-1, 2)


def false_runs(ok: np.ndarray, times: np.ndarray, dt: float) -> list[tuple[float, float]]:
    """``[start, stop)`` time intervals of the runs of False in ``ok``."""
    bad = ~ok
    if not bad.any():
        return []
    edges = np.diff(np.concatenate([[0], bad.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    stops = np.flatnonzero(edges == -1)
    return [(float(times[a]), float(times[b - 1] + dt)) for a, b in zip(starts, stops, strict=True)]
