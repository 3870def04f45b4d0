"""MACO's window analysis: the recovery (convergence) times and slow-start phases of one path's
congestion-window series (docs/reproduction.md, "MACO"; :mod:`leogym.agents.reproduce.maco`
runs the simulations and reports them).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["DROP", "RESTART", "initial_slow_start", "recovery_times", "slow_start_phases"]

DROP = 0.7  # a sample below 70 % of the previous one is a window reduction
RESTART = 0.25  # ... below 25 % of it, a (re)start (slow-start phase)


def recovery_times(
    cwnd: np.ndarray, dt: float, ss_target: float = math.inf
) -> tuple[list[float], list[float], int]:
    """SS and CA recovery times (s) of one path's cwnd series, and the reduction count.

    A reduction to below ``RESTART`` of the previous sample is a (re)start (SS phase): it
    recovers when the window is back at ``min(previous level, ss_target)``; any other
    reduction (CA phase) when it is back at its previous level. A recovery cut short by the
    next reduction or the end of the run counts with the time it had (a lower bound).
    """
    ss: list[float] = []
    ca: list[float] = []
    n = 0
    i = 1
    while i < len(cwnd):
        if not (cwnd[i - 1] > 0 and cwnd[i] < DROP * cwnd[i - 1]):
            i += 1
            continue
        n += 1
        restart = cwnd[i] < RESTART * cwnd[i - 1]
        target = min(cwnd[i - 1], ss_target) if restart else cwnd[i - 1]
        j = i + 1
        while j < len(cwnd) and cwnd[j] < target and not cwnd[j] < DROP * cwnd[j - 1]:
            j += 1
        (ss if restart else ca).append((j - i) * dt)
        i = j  # recovered, a new reduction, or the end
    return ss, ca, n


def slow_start_phases(
    cwnd: np.ndarray, ssthresh: np.ndarray, dt: float, bdp: float, margin: float = 0.0
) -> dict[str, list[float]]:
    """The slow-start (SS) phases of one path's window series, under two readings.

    A phase begins at a sample in slow start (cwnd < ssthresh - ``margin``; one segment keeps
    a window that rounding left a few bytes under ssthresh out) whose predecessor was not (a
    window cut below ssthresh: OLIA's restart after a verified timeout, MACO's quick-start
    re-entry, eq. 16), or was cut to below ``RESTART`` of it; the flow's first live sample
    begins its first slow start. Each phase is measured until

    * ``to_bdp``: the window reaches the path's BDP ``bdp`` (the paper's definition, section
      6.3.4: "until the moment that the cwnd reaches the path BDP"), and
    * ``to_ssthresh``: the window reaches ssthresh, i.e. slow start ends (the reading of
      docs/specs/testbed-transports.md, which fits the paper's numbers),

    either cut short by a reduction (below ``DROP`` of the previous sample), a new phase or the
    end of the run (counted with the time it had: a lower bound).

    :return: ``first_to_bdp``, ``first_to_ssthresh`` (the flow's first slow start) and
        ``later_to_bdp``, ``later_to_ssthresh`` (every later phase), in seconds.
    """
    out: dict[str, list[float]] = {
        "first_to_bdp": [],
        "first_to_ssthresh": [],
        "later_to_bdp": [],
        "later_to_ssthresh": [],
    }
    live = np.flatnonzero(cwnd > 0)
    if live.size == 0:
        return out
    i0 = int(live[0])
    in_ss = (cwnd < ssthresh - margin) & (cwnd > 0)
    n = len(cwnd)

    def entry(k: int) -> bool:
        if k == i0:
            return bool(in_ss[k])
        cut = cwnd[k - 1] > 0 and cwnd[k] < RESTART * cwnd[k - 1]
        return bool(in_ss[k] and (not in_ss[k - 1] or cut))

    def until(i: int, reached: Any) -> int:
        j = i
        while j < n and not reached(j):
            if j > i and (cwnd[j] < DROP * cwnd[j - 1] or entry(j)):
                break
            j += 1
        return j

    for i in range(i0, n):
        if not entry(i):
            continue
        kind = "first" if i == i0 else "later"
        j_bdp = until(i, lambda k: cwnd[k] >= bdp)
        j_ss = until(i, lambda k: cwnd[k] >= ssthresh[k])
        out[f"{kind}_to_bdp"].append((j_bdp - i) * dt)
        out[f"{kind}_to_ssthresh"].append((j_ss - i) * dt)
    return out


def initial_slow_start(cwnd: np.ndarray, dt: float, target: float) -> list[float]:
    """The flow's first slow start: from its first sample until the window reaches
    ``target`` (cut short by the first reduction or the end of the run: a lower bound)."""
    live = np.flatnonzero(cwnd > 0)
    if live.size == 0:
        return []
    i0 = int(live[0])
    j = i0
    while j < len(cwnd) and cwnd[j] < target:
        if j > i0 and cwnd[j] < DROP * cwnd[j - 1]:
            break
        j += 1
    return [(j - i0) * dt]
