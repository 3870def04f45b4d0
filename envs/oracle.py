"""Observation-side view of the handover oracle of a :class:`~leogym.scenario.Timeline`.

The timeline is the scenario's ground truth, so its forecasts are perfect predictions; the env
adds configurable Gaussian jitter for prediction-error ablations. This adapter turns the
timeline's per-path forecasts into the arrays the observation needs.
"""

from __future__ import annotations

import numpy as np

from leogym.envs.features import NO_HANDOVER_HORIZON_S

__all__ = ["TimelineOracle"]


class TimelineOracle:
    """Per-path arrays at simulation time ``t``, read off a timeline."""

    def __init__(self, timeline) -> None:
        self.timeline = timeline
        self.n_paths = len(timeline.paths)
        self._snr = np.stack([np.asarray(p.snr_db, dtype=np.float64) for p in timeline.paths])
        self._elev = np.stack(
            [np.asarray(p.elevation_deg, dtype=np.float64) for p in timeline.paths]
        )
        self._rate = np.stack(
            [np.asarray(p.rate_down_bps, dtype=np.float64) for p in timeline.paths]
        )

    def time_to_handover(self, t: float) -> np.ndarray:
        """Seconds to each path's next handover, capped at the prediction horizon."""
        return np.minimum(self.timeline.time_to_next_handover(t), NO_HANDOVER_HORIZON_S)

    def after_handover(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Predicted propagation RTT and capacity once each path's next handover has settled.

        Paths with no further handover report their current values.
        """
        k = self.timeline.index_at(t)
        rtt = np.empty(self.n_paths)
        cap = np.empty(self.n_paths)
        for i, (p, f) in enumerate(zip(self.timeline.paths, self.timeline.next_handover(t))):
            if f is None:
                rtt[i] = p.delay_down_s[k] + p.delay_up_s[k]
                cap[i] = p.rate_down_bps[k]
            else:
                rtt[i] = f.delay_down_after_s + f.delay_up_after_s
                cap[i] = f.rate_down_after_bps
        return rtt, cap

    def capacity(self, t: float) -> np.ndarray:
        """Each path's downlink capacity at ``t`` (0 during an outage)."""
        cap = self._rate[:, self.timeline.index_at(t)].copy()
        for i, p in enumerate(self.timeline.paths):
            if p.in_outage(t):
                cap[i] = 0.0
        return cap

    def snr_db(self, t: float) -> np.ndarray:
        return self._snr[:, self.timeline.index_at(t)]

    def elevation_deg(self, t: float) -> np.ndarray:
        return self._elev[:, self.timeline.index_at(t)]

    def handovers_between(self, t0: float, t1: float) -> list[tuple[int, float]]:
        """``(path, time)`` of every handover in ``(t0, t1]``, in time order."""
        events = []
        for i, p in enumerate(self.timeline.paths):
            ho = np.asarray(p.handovers)
            lo, hi = np.searchsorted(ho, [t0, t1], side="right")
            events += [(i, float(x)) for x in ho[lo:hi]]
        return sorted(events, key=lambda e: e[1])
