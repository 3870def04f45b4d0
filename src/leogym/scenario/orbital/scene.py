"""Coarse-grid geometry of a scenario: satellite positions and look angles from the ground.

Positions are computed once per scenario on the grid ``t_k = k * geometry_dt_s`` (orbit time
``t_k + orbit_offset_s``), for every satellite, in the Earth-fixed frame. From them: slant range
and elevation at the user terminal and at every ground station, and for each satellite path the
"ground side" (which gateway lands a satellite's traffic, and at what slant range).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leogym.scenario.config import ScenarioConfig
from leogym.scenario.files import tle_records
from leogym.scenario.orbital.frames import geodetic_to_ecef, parse_utc
from leogym.scenario.orbital.look import coverage_half_angle_deg, look_angles
from leogym.scenario.orbital.orbits import WalkerConstellation, orbital_period_s
from leogym.scenario.orbital.presets import resolve_constellation
from leogym.scenario.orbital.tle import TleConstellation

__all__ = ["GroundSide", "SceneGeometry", "make_constellation", "terminal_mask_deg"]


def make_constellation(cfg: ScenarioConfig) -> WalkerConstellation | TleConstellation:
    """Build the constellation object of a validated scenario."""
    c = cfg.constellation
    params = resolve_constellation(c)
    if params.kind == "tle":
        assert c.tle_file is not None
        records = tle_records(c.tle_file, "scenario.constellation.tle_file")
        start = parse_utc(cfg.start_utc).timestamp() if cfg.start_utc else None
        return TleConstellation(records, start)
    return WalkerConstellation(params, c.earth_angle0_deg, c.earth_rotation)


def terminal_mask_deg(cfg: ScenarioConfig) -> float:
    """Elevation mask of the user terminal (its own, else the constellation's)."""
    if cfg.terminal.elevation_mask_deg is not None:
        return float(cfg.terminal.elevation_mask_deg)
    return resolve_constellation(cfg.constellation).min_elevation_deg


@dataclass
class GroundSide:
    """Where a satellite path's traffic lands.

    :param cost_km: ``(K, S)`` slant range to the nearest gateway that sees the satellite
        above its mask (inf if none).
    :param choice: ``(K, S)`` index (into the scene's stations) of that gateway, -1 if none.
    :param fallback: ``(K, S)`` nearest gateway ignoring masks (geometry-only delays).
    """

    cost_km: np.ndarray
    choice: np.ndarray
    fallback: np.ndarray


class SceneGeometry:
    """Satellite positions and look angles on the coarse grid.

    :param cfg: a validated scenario.
    :param horizon_s: the grid covers ``[0, horizon_s]`` (plus one step).
    """

    def __init__(self, cfg: ScenarioConfig, horizon_s: float) -> None:
        self.dt_s = float(cfg.geometry_dt_s)
        steps = int(np.ceil(horizon_s / self.dt_s - 1e-9)) + 2
        self.times_s = np.arange(steps) * self.dt_s
        self.constellation = make_constellation(cfg)
        self.positions = self.constellation.positions_ecef(self.times_s + cfg.orbit_offset_s)
        ut = geodetic_to_ecef(cfg.terminal.lat_deg, cfg.terminal.lon_deg)
        self.ut_range_km, self.ut_elevation_deg = look_angles(ut, self.positions)
        self.ut_mask_deg = terminal_mask_deg(cfg)
        default_mask = resolve_constellation(cfg.constellation).min_elevation_deg
        self.station_names = [gs.name for gs in cfg.ground_stations]
        self.station_masks = np.array(
            [
                default_mask if gs.elevation_mask_deg is None else gs.elevation_mask_deg
                for gs in cfg.ground_stations
            ]
        )
        ranges, elevations = [], []
        for gs in cfg.ground_stations:
            r, e = look_angles(geodetic_to_ecef(gs.lat_deg, gs.lon_deg), self.positions)
            ranges.append(r)
            elevations.append(e)
        shape = (0,) + self.ut_range_km.shape
        self.gs_range_km = np.stack(ranges) if ranges else np.zeros(shape)
        self.gs_elevation_deg = np.stack(elevations) if elevations else np.zeros(shape)

    @property
    def num_steps(self) -> int:
        """Number of coarse samples K."""
        return len(self.times_s)

    @property
    def num_sats(self) -> int:
        """Number of satellites S."""
        return int(self.positions.shape[1])

    @property
    def altitude_km(self) -> float:
        """(Mean) altitude of the constellation."""
        return float(self.constellation.altitude_km)

    def ground_side(self, gateways: list[str]) -> GroundSide:
        """Gateway choice and cost for a path that may land at ``gateways`` (empty = all)."""
        idx = np.array(
            [i for i, n in enumerate(self.station_names) if not gateways or n in gateways],
            dtype=np.int64,
        )
        rng = self.gs_range_km[idx]
        seen = (
            np.nan_to_num(self.gs_elevation_deg[idx], nan=-90.0)
            >= self.station_masks[idx][:, None, None]
        )
        seen &= np.isfinite(rng)
        masked = np.where(seen, rng, np.inf)
        best = np.argmin(masked, axis=0)
        cost = np.take_along_axis(masked, best[None], axis=0)[0]
        choice = np.where(np.isfinite(cost), idx[best], -1)
        fallback = idx[np.argmin(np.nan_to_num(rng, nan=np.inf), axis=0)]
        return GroundSide(cost, choice, fallback)


def max_pass_s(altitude_km: float, mask_deg: float) -> float:
    """Upper bound on one pass over a ground point (s): the overhead pass, plus 50 % margin
    for Earth rotation and ground-track geometry."""
    gamma = coverage_half_angle_deg(altitude_km, mask_deg)
    return 1.5 * 2.0 * gamma / 360.0 * orbital_period_s(altitude_km)
