"""``rgb_array`` rendering: a small per-path dashboard drawn with NumPy alone.

For each real path, three horizontal bars: delivery rate as a fraction of the path's current
capacity (green), smoothed RTT on a 0–500 ms scale (blue), and the time to the next handover on
a 0–15 s scale (orange). A path in an outage is drawn with a red background.
"""

from __future__ import annotations

import numpy as np

__all__ = ["render_paths"]

_BG = np.array([245, 245, 245], np.uint8)
_OUTAGE = np.array([255, 215, 215], np.uint8)
_COLOURS = (
    np.array([46, 139, 87], np.uint8),
    np.array([65, 105, 225], np.uint8),
    np.array([255, 140, 0], np.uint8),
)


def render_paths(
    utilisation: np.ndarray,
    srtt_s: np.ndarray,
    time_to_handover_s: np.ndarray,
    in_outage: np.ndarray,
    width: int = 320,
    row_height: int = 48,
) -> np.ndarray:
    """Return an ``(H, W, 3)`` uint8 image with one row of bars per path."""
    n = len(utilisation)
    img = np.empty((max(n, 1) * row_height, width, 3), np.uint8)
    img[:] = _BG
    fractions = np.stack(
        [
            np.clip(np.nan_to_num(utilisation), 0, 1),
            np.clip(np.nan_to_num(srtt_s) / 0.5, 0, 1),
            np.clip(np.nan_to_num(time_to_handover_s, posinf=15.0) / 15.0, 0, 1),
        ],
        axis=1,
    )
    bar_h = (row_height - 12) // 3
    for i in range(n):
        top = i * row_height
        if in_outage[i]:
            img[top : top + row_height] = _OUTAGE
        for j, colour in enumerate(_COLOURS):
            y = top + 4 + j * (bar_h + 2)
            x = int(round(fractions[i, j] * (width - 8)))
            img[y : y + bar_h, 4 : 4 + x] = colour
        img[top + row_height - 1] = 180
    return img
