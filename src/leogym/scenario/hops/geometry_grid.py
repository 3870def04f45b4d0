"""The grid a geometry-derived hop network is built on (:mod:`leogym.scenario.hops.geometry`):
the geometry computed for the paths (:class:`GeometrySources`) and its coarse steps sampled at
the timeline's grid points (:class:`GeometryGrid`: step ``k`` and fraction ``f`` of each
sample, as :mod:`leogym.scenario.links.satpath` interpolates them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leogym.scenario.config import ScenarioConfig
from leogym.scenario.links.handover import ServingPlan
from leogym.scenario.links.satpath import SatelliteArrays
from leogym.scenario.orbital.isl import ShortestPaths
from leogym.scenario.orbital.scene import GroundSide, SceneGeometry

__all__ = ["GeometryGrid", "GeometrySources"]


@dataclass
class GeometrySources:
    """What :func:`~leogym.scenario.timeline_builder.build_timeline` computed for the paths.

    ``arrays`` holds each satellite path's :class:`SatelliteArrays` as assembled (before
    ``rate_scale``); ``sides``, ``preds`` and ``plans`` are keyed by path index.
    """

    cfg: ScenarioConfig
    times: np.ndarray
    dt: float
    scene: SceneGeometry | None
    router: ShortestPaths | None
    sides: dict[int, GroundSide]
    preds: dict[int, list[np.ndarray]]
    plans: dict[int, ServingPlan]
    arrays: dict[int, SatelliteArrays]


class GeometryGrid:
    """The timeline's grid over the coarse geometry steps of :class:`GeometrySources`."""

    def __init__(self, src: GeometrySources) -> None:
        self.src = src
        self.cfg = src.cfg
        self.times = src.times
        self.n = len(src.times)
        self.duration = float(src.times[-1])
        self.rate_scale = float(src.cfg.rate_scale)
        scene = src.scene
        self.k = np.zeros(self.n, dtype=np.int64)
        self.f = np.zeros(self.n)
        if scene is not None:
            steps = scene.num_steps
            self.k = np.clip(
                np.floor(self.times / scene.dt_s + 1e-9).astype(np.int64), 0, steps - 2
            )
            self.f = np.clip(self.times / scene.dt_s - self.k, 0.0, 1.0)

    def lerp_table(self, table: np.ndarray, sl: slice) -> np.ndarray:
        """``table[k]`` to ``table[k + 1]`` at the samples ``sl`` (``table`` indexed by step)."""
        k = self.k[sl]
        return table[k] + (table[k + 1] - table[k]) * self.f[sl]

    def chord_km(self, u: int, v: int, sl: slice) -> np.ndarray:
        """Distance (km) between satellites ``u`` and ``v`` at the samples ``sl``."""
        assert self.src.scene is not None
        pos = self.src.scene.positions
        k = self.k[sl]
        c0 = np.linalg.norm(pos[k, u, :] - pos[k, v, :], axis=-1)
        c1 = np.linalg.norm(pos[k + 1, u, :] - pos[k + 1, v, :], axis=-1)
        return c0 + (c1 - c0) * self.f[sl]
