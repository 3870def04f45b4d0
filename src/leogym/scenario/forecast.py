"""The handover oracle: what a perfect predictor knows of each path's next handover.

A :class:`~leogym.scenario.Timeline` is the scenario's ground truth, so forecasts read off it are
perfect predictions (the envs add Gaussian jitter for prediction-error ablations). This is the
one place in Python that computes them: the env's observation (:class:`HandoverOracle`) and the
notebooks' :meth:`Timeline.next_handover` both come from here. The native congestion
controllers and schedulers read the same link schedule through the core's own oracle
(``cpp/helper/leo-schedule-oracle.h``); a test checks that both give the same time to the next
handover.

Two forecast modes tell what the "after" values (delay, capacity once the handover's effects are
over) may reveal:

* ``oracle``: the timeline's own arrays at the first sample after the handover's effects
  (outage, spike, and on a path with per-slot dynamics the drawn stall and its recovery,
  ``Timeline.settle_s``). A perfect predictor: on a path with the dynamics layer or a trace
  replay it knows the next slot's drawn capacity multiplier and RTT excursion.
* ``realistic``: the same instants, read from the geometric model's arrays
  (``PathTimeline.geometric``) on paths with dynamics or a replay. That is what a real sender
  can compute: the global 15 s schedule is public, and the serving satellite's geometry follows
  from published ephemerides and the link budget; the slot's drawn load, route change, stall
  and spike are not known before they happen (docs/specs/starlink-dynamics.md). On every other
  path the two modes are the same.

The time to the next handover, SNR, elevation, outages and the current capacity (the rewards'
utilisation) are the same in both modes.

Speed: the env asks at every step, so everything that depends only on the timeline (each
handover's forecast, the outage intervals) is computed once per episode; a query is then a
binary search per path.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

import numpy as np

from leogym.scenario.links.arrays import PathTimeline

__all__ = ["FORECAST_MODES", "HandoverForecast", "HandoverOracle", "TimelineGrid", "settled_sample"]

#: The forecast modes (see above): ``oracle`` first, the default of the notebooks' API.
FORECAST_MODES = ("oracle", "realistic")


class TimelineGrid(Protocol):
    """What the oracle reads of a :class:`~leogym.scenario.timeline.Timeline`: its paths on
    one grid. (A timeline holds its oracles, so this module names the part it reads instead of
    importing it.)"""

    paths: list[PathTimeline]
    dt_s: float
    settle_s: float

    def index_at(self, t: float) -> int:
        """Grid index of the sample at or just before ``t``."""
        ...


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


def settled_sample(
    timeline: TimelineGrid, path: PathTimeline, handover_s: float
) -> tuple[float, int]:
    """The end of the outage a handover causes (``handover_s`` if none) and the index of the
    first grid sample after its effects (outage, delay spike: ``timeline.settle_s``) are over."""
    o = path.outages
    hit = o[(o[:, 0] <= handover_s + 1e-9) & (handover_s < o[:, 1])] if len(o) else o
    outage_end = float(hit[:, 1].max()) if len(hit) else handover_s
    after = timeline.index_at(max(outage_end, handover_s + timeline.settle_s) + timeline.dt_s)
    return outage_end, after


def _forecast_arrays(path: PathTimeline, mode: str) -> tuple[np.ndarray, ...]:
    """``delay_down_s``, ``delay_up_s``, ``rate_down_bps``, ``rate_up_bps`` for a mode."""
    if mode == "realistic" and path.geometric is not None:
        g = path.geometric
        return g["delay_down_s"], g["delay_up_s"], g["rate_down_bps"], g["rate_up_bps"]
    return path.delay_down_s, path.delay_up_s, path.rate_down_bps, path.rate_up_bps


def forecast(
    timeline: TimelineGrid, i: int, k: int, t: float, mode: str = "oracle"
) -> HandoverForecast:
    """The full forecast of handover ``k`` of path ``i``, seen from time ``t``."""
    p = timeline.paths[i]
    d_down, d_up, r_down, r_up = _forecast_arrays(p, mode)
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
        delay_down_before_s=float(d_down[before]),
        delay_down_after_s=float(d_down[after]),
        delay_up_after_s=float(d_up[after]),
        rate_down_before_bps=float(r_down[before]),
        rate_down_after_bps=float(r_down[after]),
        rate_up_after_bps=float(r_up[after]),
    )


class HandoverOracle:
    """Per-path oracle values at simulation time ``t``, read off a timeline.

    :param timeline: the ground truth.
    :param mode: ``oracle`` or ``realistic`` (what the "after handover" values may reveal).
    """

    def __init__(self, timeline: TimelineGrid, mode: str = "oracle") -> None:
        if mode not in FORECAST_MODES:
            raise ValueError(f"forecast mode must be one of {FORECAST_MODES} (got {mode!r})")
        self.timeline = timeline
        self.mode = mode
        self.n_paths = len(timeline.paths)
        paths = timeline.paths
        self._snr = np.stack([np.asarray(p.snr_db, dtype=np.float64) for p in paths])
        self._elev = np.stack([np.asarray(p.elevation_deg, dtype=np.float64) for p in paths])
        self._rate = np.stack([np.asarray(p.rate_down_bps, dtype=np.float64) for p in paths])
        self._rtt = np.stack(
            [
                np.asarray(p.delay_down_s, np.float64) + np.asarray(p.delay_up_s, np.float64)
                for p in paths
            ]
        )
        # The mode's current RTT and capacity: what after_handover reports past the last one.
        fc = [_forecast_arrays(p, mode) for p in paths]
        self._rtt_now = np.stack([np.asarray(f[0] + f[1], dtype=np.float64) for f in fc])
        self._rate_now = np.stack([np.asarray(f[2], dtype=np.float64) for f in fc])
        # Per path: handover instants, and the propagation RTT and capacity after each one.
        self._ho: list[list[float]] = []
        self._rtt_after: list[list[float]] = []
        self._cap_after: list[list[float]] = []
        for p in paths:
            times = [float(x) for x in np.asarray(p.handovers, dtype=np.float64)]
            after = [settled_sample(timeline, p, th)[1] for th in times]
            d_down, d_up, r_down, _ = _forecast_arrays(p, mode)
            self._ho.append(times)
            self._rtt_after.append([float(d_down[a]) + float(d_up[a]) for a in after])
            self._cap_after.append([float(r_down[a]) for a in after])
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
            out.append(forecast(self.timeline, i, k, t, self.mode) if k < len(ho) else None)
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
                cap[i] = self._rate_now[i, k_now]
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

    def propagation_rtt(self, t: float) -> np.ndarray:
        """Each path's propagation RTT at ``t`` (the timeline's one-way delays, down plus up)."""
        return self._rtt[:, self.timeline.index_at(t)]

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
