"""Handover-prediction oracle read off a :class:`~leogym.scenario.timeline.Timeline`.

The timeline is the scenario's ground truth, so these are perfect predictions; the env adds
configurable Gaussian jitter for prediction-error ablations. Everything is vectorised over paths
and O(log m) per query.
"""

from __future__ import annotations

import numpy as np

from leogym.envs.features import NO_HANDOVER_HORIZON_S

__all__ = ["TimelineOracle"]


class TimelineOracle:
    """Per-path lookups at simulation time ``t`` over a timeline's arrays."""

    def __init__(self, timeline) -> None:
        self.t0 = float(timeline.t0_s)
        self.dt = float(timeline.dt_s)
        self.paths = list(timeline.paths)
        self.n_paths = len(self.paths)
        self.n = int(timeline.n)
        self._handovers = [np.asarray(p.handovers, dtype=np.float64) for p in self.paths]
        self._rtt = np.stack(
            [np.asarray(p.delay_down_s) + np.asarray(p.delay_up_s) for p in self.paths]
        )
        self._rate = np.stack([np.asarray(p.rate_down_bps, dtype=np.float64) for p in self.paths])
        self._snr = np.stack([np.asarray(p.snr_db, dtype=np.float64) for p in self.paths])
        self._elev = np.stack([np.asarray(p.elevation_deg, dtype=np.float64) for p in self.paths])
        self._outages = [np.asarray(p.outages, dtype=np.float64).reshape(-1, 2) for p in self.paths]

    def index(self, t: float) -> int:
        """Grid index at or before ``t`` (clamped into the timeline)."""
        return int(min(max((t - self.t0) / self.dt, 0), self.n - 1))

    def next_handover(self, t: float) -> np.ndarray:
        """Time of each path's next handover strictly after ``t`` (``inf`` if none)."""
        out = np.full(self.n_paths, np.inf)
        for i, ho in enumerate(self._handovers):
            k = np.searchsorted(ho, t, side="right")
            if k < len(ho):
                out[i] = ho[k]
        return out

    def time_to_handover(self, t: float) -> np.ndarray:
        """Seconds to each path's next handover, capped at the prediction horizon."""
        return np.minimum(self.next_handover(t) - t, NO_HANDOVER_HORIZON_S)

    def after_handover(self, t: float, settle_s: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
        """Predicted propagation RTT and capacity ``settle_s`` after each path's next handover.

        Paths with no handover in the timeline report their current values.
        """
        nxt = self.next_handover(t)
        rtt = np.empty(self.n_paths)
        cap = np.empty(self.n_paths)
        for i in range(self.n_paths):
            when = nxt[i] + settle_s if np.isfinite(nxt[i]) else t
            k = self.index(when)
            rtt[i] = self._rtt[i, k]
            cap[i] = self._rate[i, k]
        return rtt, cap

    def capacity(self, t: float) -> np.ndarray:
        """Each path's downlink capacity at ``t`` (0 during an outage)."""
        k = self.index(t)
        cap = self._rate[:, k].copy()
        for i, outages in enumerate(self._outages):
            if len(outages):
                j = np.searchsorted(outages[:, 0], t, side="right") - 1
                if j >= 0 and t < outages[j, 1]:
                    cap[i] = 0.0
        return cap

    def snr_db(self, t: float) -> np.ndarray:
        return self._snr[:, self.index(t)]

    def elevation_deg(self, t: float) -> np.ndarray:
        return self._elev[:, self.index(t)]

    def handovers_between(self, t0: float, t1: float) -> list[tuple[int, float]]:
        """``(path, time)`` of every handover in ``(t0, t1]``."""
        events = []
        for i, ho in enumerate(self._handovers):
            lo = np.searchsorted(ho, t0, side="right")
            hi = np.searchsorted(ho, t1, side="right")
            events += [(i, float(x)) for x in ho[lo:hi]]
        return sorted(events, key=lambda e: e[1])
