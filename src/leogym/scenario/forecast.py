"""The handover oracle: what a perfect predictor knows of each path's next handover.

A :class:`~leogym.scenario.Timeline` is the scenario's ground truth, so forecasts read off it are
perfect predictions (the envs add Gaussian jitter for prediction-error ablations). This is the
one place in Python that computes them: the env's observation (:class:`HandoverOracle`) and the
notebooks' :meth:`Timeline.next_handover` both come from here. The native congestion
controllers and schedulers read the same link schedule through the core's own oracle
(``cpp/helper/leo-schedule-oracle.h``); a test checks that both give the same time to the next
handover.

Speed: the env asks at every step, so everything that depends only on the timeline (each
handover's forecast, the outage intervals) is computed once per episode; a query is then a
binary search per path.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from leogym.scenario.timeline import PathTimeline, Timeline

__all__ = ["HandoverForecast", "HandoverOracle", "settled_sample"]


@dataclass(frozen=True)
class HandoverForecast:
    """What the oracle knows about a path's next handover.

    The "after" values are sampled once the handover's effects (outage, delay spike) are over.
    """

    path: int
    time_s: float
    time_to_s: float
    sat_from: int
    sat_to: int
    #: End of the outage that the handover causes (= ``time_s`` if none).
    outage_end_s: float
    delay_down_before_s: float
    delay_down_after_s: float
    delay_up_after_s: float
    rate_down_before_bps: float
    rate_down_after_bps: float
    rate_up_after_bps: float


def settled_sample(timeline: Timeline, path: PathTimeline, handover_s: float) -> tuple[float, int]:
    """The end of the outage a handover causes (``handover_s`` if none) and the index of the
    first grid sample after its effects (outage, delay spike: ``timeline.settle_s``) are over."""
    o = path.outages
    hit = o[(o[:, 0] <= handover_s + 1e-9) & (handover_s < o[:, 1])] if len(o) else o
    outage_end = float(hit[:, 1].max()) if len(hit) else handover_s
    after = timeline.index_at(max(outage_end, handover_s + timeline.settle_s) + timeline.dt_s)
    return outage_end, after


def forecast(timeline: Timeline, i: int, k: int, t: float) -> HandoverForecast:
    """The full forecast of handover ``k`` of path ``i``, seen from time ``t``."""
    p = timeline.paths[i]
    th = float(p.handovers[k])
    ev = p.events[k] if k < len(p.events) else None
    outage_end, after = settled_sample(timeline, p, th)
    before = timeline.index_at(th - timeline.dt_s)
    return HandoverForecast(
        path=i,
        time_s=th,
        time_to_s=th - t,
        sat_from=ev.sat_from if ev else -1,
        sat_to=ev.sat_to if ev else -1,
        outage_end_s=outage_end,
        delay_down_before_s=float(p.delay_down_s[before]),
        delay_down_after_s=float(p.delay_down_s[after]),
        delay_up_after_s=float(p.delay_up_s[after]),
        rate_down_before_bps=float(p.rate_down_bps[before]),
        rate_down_after_bps=float(p.rate_down_bps[after]),
        rate_up_after_bps=float(p.rate_up_bps[after]),
    )


class HandoverOracle:
    """Per-path oracle values at simulation time ``t``, read off a timeline."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.n_paths = len(timeline.paths)
        paths = timeline.paths
        self._snr = np.stack([np.asarray(p.snr_db, dtype=np.float64) for p in paths])
        self._elev = np.stack([np.asarray(p.elevation_deg, dtype=np.float64) for p in paths])
        self._rate = np.stack([np.asarray(p.rate_down_bps, dtype=np.float64) for p in paths])
        self._rtt_now = np.stack(
            [np.asarray(p.delay_down_s, dtype=np.float64) for p in paths]
        ) + np.stack([np.asarray(p.delay_up_s, dtype=np.float64) for p in paths])
        # Per path: handover instants, and the propagation RTT and capacity after each one.
        self._ho: list[list[float]] = []
        self._rtt_after: list[list[float]] = []
        self._cap_after: list[list[float]] = []
        for p in paths:
            times = [float(x) for x in np.asarray(p.handovers, dtype=np.float64)]
            after = [settled_sample(timeline, p, th)[1] for th in times]
            self._ho.append(times)
            self._rtt_after.append(
                [float(p.delay_down_s[a]) + float(p.delay_up_s[a]) for a in after]
            )
            self._cap_after.append([float(p.rate_down_bps[a]) for a in after])
        # Per path: outage starts (sorted) and the running maximum of their ends, so that
        # "t lies in some [start, end)" is one binary search.
        self._out_start: list[list[float]] = []
        self._out_maxend: list[list[float]] = []
        for p in paths:
            o = np.asarray(p.outages, dtype=np.float64).reshape(-1, 2)
            o = o[np.argsort(o[:, 0], kind="stable")]
            self._out_start.append([float(x) for x in o[:, 0]])
            self._out_maxend.append(list(accumulate((float(x) for x in o[:, 1]), max)))

    def time_to_handover(self, t: float) -> np.ndarray:
        """Seconds from ``t`` to each path's next handover strictly after ``t`` (inf: none)."""
        out = np.empty(self.n_paths)
        for i, ho in enumerate(self._ho):
            k = bisect_right(ho, t)
            out[i] = ho[k] - t if k < len(ho) else np.inf
        return out

    def next_handover(self, t: float) -> list[HandoverForecast | None]:
        """The full forecast of each path's next handover after ``t`` (``None``: none)."""
        out: list[HandoverForecast | None] = []
        for i, ho in enumerate(self._ho):
            k = bisect_right(ho, t)
            out.append(forecast(self.timeline, i, k, t) if k < len(ho) else None)
        return out

    def after_handover(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Propagation RTT and capacity once each path's next handover has settled.

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
