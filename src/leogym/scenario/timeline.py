"""The timeline data model: per-path arrays over time, the Python -> C++ contract.

A :class:`Timeline` holds, per path (:class:`PathTimeline`), on a uniform grid ``t_i = i * dt``
covering ``[0, duration_s]``, the one-way delays, capacities, Bernoulli loss probabilities, SNR,
elevation and serving satellite, plus the outage intervals, the handover instants and the
drop-tail queue size (``docs/architecture.md``, "The Timeline contract"). The same object
answers handover-prediction queries (:meth:`Timeline.time_to_next_handover`,
:meth:`Timeline.next_handover`) through its oracle (:mod:`leogym.scenario.forecast`).
:func:`leogym.simulation.native_paths` hands the arrays to the native core.

The builder, :func:`leogym.scenario.timeline_builder.build_timeline`, lives beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leogym.scenario.forecast import HandoverForecast, HandoverOracle
from leogym.scenario.hops.graph import HopNetwork
from leogym.scenario.links.arrays import NATIVE_ARRAYS, PathTimeline

__all__ = ["PathTimeline", "Timeline", "HandoverForecast", "NATIVE_ARRAYS"]


@dataclass
class Timeline:
    """All paths of a scenario on one uniform grid.

    :param t0_s: time of sample 0 (always 0.0).
    :param dt_s: grid step.
    :param n: number of samples (covers ``[0, duration_s]``).
    :param epoch_utc_s: UTC second-of-day at ``t = 0`` (phase of the handover schedule).
    :param paths: one entry per configured path, in config order.
    :param sat_positions: ``(K, S, 3)`` Earth-fixed satellite positions (km) on the geometry
        grid, only when built with ``keep_geometry=True``.
    :param geometry_times_s: times of ``sat_positions``.
    """

    t0_s: float
    dt_s: float
    n: int
    epoch_utc_s: float
    paths: list[PathTimeline]
    sat_positions: np.ndarray | None = None
    geometry_times_s: np.ndarray | None = None
    #: Seconds after a handover at which its effects are over (for the forecasts).
    settle_s: float = 0.0
    #: The scenario's ``rate_scale``: the rates above are the real ones divided by it.
    rate_scale: float = 1.0
    #: The hop graph of a ``topology: hops`` scenario (``None`` in path mode); its routes,
    #: collapsed end to end, are ``paths`` (:mod:`leogym.scenario.hops.graph`).
    network: HopNetwork | None = None
    _oracles: dict[str, HandoverOracle] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def times(self) -> np.ndarray:
        """Sample times ``t0_s + i * dt_s``."""
        return self.t0_s + np.arange(self.n) * self.dt_s

    @property
    def duration_s(self) -> float:
        """Time of the last sample."""
        return self.t0_s + (self.n - 1) * self.dt_s

    def path_index(self, name: str) -> int:
        """Index of the path called ``name``."""
        for i, p in enumerate(self.paths):
            if p.name == name:
                return i
        raise KeyError(name)

    def index_at(self, t: float) -> int:
        """Grid index of the sample at or just before ``t`` (clipped to the grid)."""
        return int(min(max(math.floor((t - self.t0_s) / self.dt_s + 1e-9), 0), self.n - 1))

    def time_to_next_handover(self, t: float, path: int | None = None) -> float | np.ndarray:
        """Seconds from ``t`` to the next handover strictly after ``t`` (inf if none).

        :param t: the current simulation time.
        :param path: a path index; ``None`` gives an array with one value per path.
        """
        tth = self.oracle().time_to_handover(t)
        return tth if path is None else float(tth[path])

    def next_handover(self, t: float, forecast: str = "oracle") -> list[HandoverForecast | None]:
        """Forecast of each path's next handover after ``t`` (``None`` if none).

        :param forecast: ``oracle`` (the timeline's own values once the handover's effects are
            over) or ``realistic`` (the geometric values; see :mod:`leogym.scenario.forecast`).
        """
        return self.oracle(forecast).next_handover(t)

    def oracle(self, forecast: str = "oracle") -> HandoverOracle:
        """The handover oracle of this timeline for a forecast mode (``oracle`` or
        ``realistic``; built on first use; see :mod:`leogym.scenario.forecast`)."""
        oracle = self._oracles.get(forecast)
        if oracle is None:
            oracle = self._oracles[forecast] = HandoverOracle(self, forecast)
        return oracle
