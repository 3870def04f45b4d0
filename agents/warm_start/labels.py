"""The actions a baseline took, in the agent's action space, inferred from its trajectory's
windows: :func:`continuous_labels` (``env.action_mode=continuous``, the inverse of Aurora's
factor) and :func:`residual_labels` (``env.action_mode=residual``, over the base controller's
run on the same episode). :mod:`leogym.agents.warm_start` explains both rules and their limits.
"""

from __future__ import annotations

import numpy as np

__all__ = ["INITIAL_CWND_PACKETS", "continuous_labels", "residual_labels"]

#: The window the env scales before the first measurement (cc_env: 10 packets).
INITIAL_CWND_PACKETS = 10


def continuous_labels(
    cwnd: np.ndarray, *, packet_bytes: int, scale: float, width: int
) -> np.ndarray:
    """The continuous actions that reproduce a trajectory's windows step by step.

    :param cwnd: ``(steps, paths)`` windows at the end of each step, in bytes.
    :param packet_bytes: the scenario's packet size (the env's first window is 10 packets).
    :param scale: ``env.action_scale``.
    :param width: the action's width (``observation.max_paths``); padded entries are 0.
    :return: ``(steps, width)`` float32 in [-1, 1]: the inverse of Aurora's factor
        (:func:`leogym.envs.actions.multiplicative_factor`) of each step's window ratio.
    """
    cwnd = np.asarray(cwnd, dtype=np.float64)
    first = float(INITIAL_CWND_PACKETS * packet_bytes)
    ref = np.vstack([np.full((1, cwnd.shape[1]), first), cwnd[:-1]])
    ref = np.where(ref > 0, ref, first)  # as the env: no window measured yet -> 10 packets
    ratio = np.where(cwnd > 0, cwnd / ref, 1.0)
    a = np.where(ratio >= 1.0, (ratio - 1.0) / scale, (1.0 - 1.0 / ratio) / scale)
    return _pad(np.clip(a, -1.0, 1.0), width)


def residual_labels(cwnd: np.ndarray, base_cwnd: np.ndarray, *, width: int) -> np.ndarray:
    """The residual actions ``log2(cwnd / base_cwnd)`` of a trajectory over the base
    controller's run on the same episode, clipped to [-1, 1].

    :param cwnd: ``(steps, paths)`` windows of the teacher, in bytes.
    :param base_cwnd: ``(steps', paths)`` windows of the base controller on the same seed.
    :param width: the action's width; padded entries (and steps past the base's run, or
        without a window on either side) are 0.
    """
    cwnd = np.asarray(cwnd, dtype=np.float64)
    base = np.asarray(base_cwnd, dtype=np.float64)
    a = np.zeros_like(cwnd)
    n = min(len(cwnd), len(base))
    both = (cwnd[:n] > 0) & (base[:n] > 0)
    a[:n] = np.where(
        both, np.log2(np.where(both, cwnd[:n], 1.0) / np.where(both, base[:n], 1.0)), 0
    )
    return _pad(np.clip(a, -1.0, 1.0), width)


def _pad(a: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((a.shape[0], width), dtype=np.float32)
    out[:, : min(width, a.shape[1])] = a[:, :width]
    return out
