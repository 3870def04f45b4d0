"""Time intervals ``[start, stop)`` (outages, stalls): merging, union and difference, and finding
them on a grid."""

from __future__ import annotations

import numpy as np

__all__ = ["false_runs", "merge_intervals", "subtract_intervals", "union_intervals"]

#: A ``[start, stop)`` interval in seconds.
Interval = tuple[float, float]


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


def union_intervals(intervals: list[Interval]) -> list[Interval]:
    """Sorted, merged ``[start, end)`` intervals (no clipping)."""
    out: list[list[float]] = []
    for a, b in sorted(iv for iv in intervals if iv[1] > iv[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract_intervals(base: list[Interval], cut: list[Interval]) -> list[Interval]:
    """``base`` minus ``cut`` (both lists of ``[start, end)`` intervals)."""
    cut = union_intervals(cut)
    out: list[Interval] = []
    for a, b in union_intervals(base):
        pieces = [(a, b)]
        for c0, c1 in cut:
            if c0 >= b:
                break
            nxt: list[Interval] = []
            for p0, p1 in pieces:
                if c1 <= p0 or c0 >= p1:
                    nxt.append((p0, p1))
                    continue
                if c0 > p0:
                    nxt.append((p0, c0))
                if c1 < p1:
                    nxt.append((c1, p1))
            pieces = nxt
        out.extend(pieces)
    return out
