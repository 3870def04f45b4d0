"""The arrays of a path or a hop link on the timeline grid: one holder, :class:`LinkArrays`.

:class:`LinkArrays` holds the six per-direction arrays (:data:`LINK_ARRAYS`: delay, rate and
Bernoulli loss, ``down`` and ``up``). Every stage that makes or changes them (the satellite path,
the dynamics layer, a hop link, a collapsed route, a path of the :class:`~leogym.scenario.
timeline.Timeline`) holds them through it, so their names and meaning are written once.
:class:`PathTimeline` adds what the native core and the forecasts need of a path
(``docs/architecture.md``, "The Timeline contract").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from leogym.scenario.links.handover import HandoverEvent

__all__ = ["LINK_ARRAYS", "NATIVE_ARRAYS", "LinkArrays", "PathTimeline"]

#: The six per-direction arrays, by field name: ``down`` is the data's direction (server to
#: client; ``a -> b`` on a hop link), ``up`` the acknowledgements'.
LINK_ARRAYS = ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps", "loss_down", "loss_up")


@dataclass
class LinkArrays:
    """One-way delays (s), rates (bit/s) and Bernoulli loss probabilities per direction, float64
    on the timeline grid (or a part of it)."""

    delay_down_s: np.ndarray
    delay_up_s: np.ndarray
    rate_down_bps: np.ndarray
    rate_up_bps: np.ndarray
    loss_down: np.ndarray
    loss_up: np.ndarray

    def link_arrays(self) -> dict[str, np.ndarray]:
        """The six arrays by field name (the same objects, not copies)."""
        return {name: getattr(self, name) for name in LINK_ARRAYS}


#: The array fields handed to the C++ core, in contract order.
NATIVE_ARRAYS = (
    *LINK_ARRAYS,
    "snr_db",
    "elevation_deg",
    "serving_sat",
    "outages",
    "handovers",
)


@dataclass
class PathTimeline(LinkArrays):
    """Arrays of one path on the timeline grid (the contract of docs/architecture.md).

    The six per-direction arrays are :class:`LinkArrays`'s. All float arrays are float64 and
    finite, except ``snr_db`` and ``elevation_deg`` of terrestrial paths (NaN). Rates are > 0
    everywhere.
    """

    name: str
    #: ``satellite`` or ``terrestrial``.
    kind: str
    snr_db: np.ndarray
    elevation_deg: np.ndarray
    #: int32; -1 for terrestrial paths and when no satellite serves.
    serving_sat: np.ndarray
    #: ``(k, 2)`` ``[start, end)`` intervals in which the link drops everything.
    outages: np.ndarray
    #: Sorted handover instants (s).
    handovers: np.ndarray
    queue_packets: int
    #: Handover events with satellites and causes (not sent to C++).
    events: list[HandoverEvent] = field(default_factory=list)
    #: ISL hops of the route at each sample (not sent to C++).
    isl_hops: np.ndarray | None = None
    #: Range from the terminal to the serving satellite (m), from the elevation and the shell's
    #: altitude; NaN where no satellite serves. ``None`` for terrestrial paths and for TLE
    #: constellations (no single altitude). The congestion controllers' oracle reads it (MACO's
    #: link budget, seed paper 000 eq. 3).
    slant_range_m: np.ndarray | None = None
    #: The geometric model's ``delay_down_s``, ``delay_up_s``, ``rate_down_bps`` and
    #: ``rate_up_bps`` before the per-slot dynamics layer or a trace replay changed them: what a
    #: sender can compute from the ephemerides, the schedule and the link budget. The
    #: "realistic" handover forecast reports these. ``None`` when neither is on (the arrays
    #: above are then the geometric ones). Not sent to C++.
    geometric: dict[str, np.ndarray] | None = None

    def in_outage(self, t: float) -> bool:
        """Whether ``t`` lies in an outage interval."""
        o = self.outages
        return bool(np.any((o[:, 0] <= t) & (t < o[:, 1]))) if len(o) else False
