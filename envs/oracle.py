"""The handover oracle of the observation, read off a :class:`~leogym.scenario.Timeline`.

The timeline is the scenario's ground truth, so its forecasts are perfect predictions; the env
adds configurable Gaussian jitter for prediction-error ablations. This adapter turns the
timeline's per-path forecasts into the arrays the observation needs.

Speed: the env asks these questions at every step, so everything that depends only on the
timeline (each handover's forecast, the outage intervals) is computed once, when the episode's
timeline is built; a query is then a binary search per path. The answers are the same numbers
as :meth:`Timeline.next_handover` / :meth:`Timeline.time_to_next_handover` /
:meth:`PathTimeline.in_outage` give (the tests compare them).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

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
        self._rtt_now = np.stack(
            [np.asarray(p.delay_down_s, dtype=np.float64) for p in timeline.paths]
        ) + np.stack([np.asarray(p.delay_up_s, dtype=np.float64) for p in timeline.paths])
        # Per path: handover instants, and the forecast after each one (as next_handover()).
        self._ho: list[list[float]] = []
        self._rtt_after: list[list[float]] = []
        self._cap_after: list[list[float]] = []
        for p in timeline.paths:
            times = [float(x) for x in np.asarray(p.handovers, dtype=np.float64)]
            rtt, cap = [], []
            for th in times:
                f = _forecast(timeline, p, th)
                rtt.append(f[0])
                cap.append(f[1])
            self._ho.append(times)
            self._rtt_after.append(rtt)
            self._cap_after.append(cap)
        # Per path: outage starts (sorted) and the running maximum of their ends, so that
        # "t lies in some [start, end)" is one binary search.
        self._out_start: list[list[float]] = []
        self._out_maxend: list[list[float]] = []
        for p in timeline.paths:
            o = np.asarray(p.outages, dtype=np.float64).reshape(-1, 2)
            o = o[np.argsort(o[:, 0], kind="stable")]
            self._out_start.append([float(x) for x in o[:, 0]])
            self._out_maxend.append(list(accumulate((float(x) for x in o[:, 1]), max)))

    def time_to_handover(self, t: float) -> np.ndarray:
        """Seconds to each path's next handover, capped at the prediction horizon."""
        out = np.empty(self.n_paths)
        for i, ho in enumerate(self._ho):
            k = bisect_right(ho, t)
            out[i] = ho[k] - t if k < len(ho) else np.inf
        return np.minimum(out, NO_HANDOVER_HORIZON_S)

    def after_handover(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Predicted propagation RTT and capacity once each path's next handover has settled.

        Paths with no further handover report their current values.
        """
        k_now = self.timeline.index_at(t)
        rtt = np.empty(self.n_paths)
        cap = np.empty(self.n_paths)
        for i, ho in enumerate(self._ho):
            k = bisect_right(ho, t)
            if k < len(ho):
                rtt[i] = self._rtt_after[i][k]
                cap[i] = self._cap_after[i][k]
            else:
                rtt[i] = self._rtt_now[i, k_now]
                cap[i] = self._rate[i, k_now]
        return rtt, cap

    def in_outage(self, t: float) -> np.ndarray:
        """Whether each path is inside an outage interval at ``t``."""
        out = np.zeros(self.n_paths, dtype=bool)
        for i, starts in enumerate(self._out_start):
            j = bisect_right(starts, t)
            out[i] = j > 0 and t < self._out_maxend[i][j - 1]
        return out

    def capacity(self, t: float) -> np.ndarray:
        """Each path's downlink capacity at ``t`` (0 during an outage)."""
        cap = self._rate[:, self.timeline.index_at(t)].copy()
        cap[self.in_outage(t)] = 0.0
        return cap

    def snr_db(self, t: float) -> np.ndarray:
        return self._snr[:, self.timeline.index_at(t)]

    def elevation_deg(self, t: float) -> np.ndarray:
        return self._elev[:, self.timeline.index_at(t)]

    def handovers_between(self, t0: float, t1: float) -> list[tuple[int, float]]:
        """``(path, time)`` of every handover in ``(t0, t1]``, in time order."""
        events = []
        for i, ho in enumerate(self._ho):
            lo, hi = bisect_right(ho, t0), bisect_right(ho, t1)
            events += [(i, x) for x in ho[lo:hi]]
        if len(events) > 1:
            events.sort(key=lambda e: e[1])
        return events


def _forecast(timeline, p, th: float) -> tuple[float, float]:
    """RTT and capacity after the handover at ``th`` (the values of ``Timeline.next_handover``)."""
    o = np.asarray(p.outages, dtype=np.float64).reshape(-1, 2)
    hit = o[(o[:, 0] <= th + 1e-9) & (th < o[:, 1])] if len(o) else o
    outage_end = float(hit[:, 1].max()) if len(hit) else th
    after = timeline.index_at(max(outage_end, th + timeline.settle_s) + timeline.dt_s)
    return (
        float(p.delay_down_s[after]) + float(p.delay_up_s[after]),
        float(p.rate_down_bps[after]),
    )
