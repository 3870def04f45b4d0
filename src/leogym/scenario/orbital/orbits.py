"""Circular Walker constellations (delta and star) and two-body propagation.

Each satellite moves on a circular Keplerian orbit of radius ``a = R_E + h`` with mean motion
``n = sqrt(mu / a^3)`` (Kepler's third law; period ``T = 2 pi / n``). In the inertial frame, with
argument of latitude ``u = u0 + n t``, right ascension of the ascending node ``Omega`` and
inclination ``i``::

    x = a (cos u cos Omega - sin u cos i sin Omega)
    y = a (cos u sin Omega + sin u cos i cos Omega)
    z = a  sin u sin i

Walker pattern ``i: T/P/F`` (Walker 1984): plane ``p`` has ``Omega_p = Omega_0 + p * dOmega``
(``dOmega = 360/P`` for delta, ``180/P`` for star unless set) and satellite ``j`` of plane ``p``
has ``u0 = j * 360/S + p * F * 360/T`` (+ ``odd_plane_phase`` on odd planes, NS-2's Iridium
layout). Satellite ids are contiguous: ``id = p * S + j``.

Not modelled (documented choice): J2 nodal precession (Starlink shell 1: about -4.5 deg/day,
0.003 deg per minute of episode), drag, eccentricity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leogym.scenario.constants import EARTH_RADIUS_KM, MU_EARTH_KM3_S2
from leogym.scenario.orbital.frames import eci_to_ecef, walker_rotation_angle
from leogym.scenario.orbital.presets import ResolvedConstellation

__all__ = ["WalkerConstellation", "orbital_period_s", "mean_motion_rad_s"]


def mean_motion_rad_s(altitude_km: float) -> float:
    """Mean motion of a circular orbit at ``altitude_km`` above the spherical Earth (rad/s)."""
    a = EARTH_RADIUS_KM + altitude_km
    return float(np.sqrt(MU_EARTH_KM3_S2 / a**3))


def orbital_period_s(altitude_km: float) -> float:
    """Kepler period ``2 pi sqrt(a^3 / mu)`` of a circular orbit (s)."""
    return float(2.0 * np.pi / mean_motion_rad_s(altitude_km))


@dataclass(frozen=True)
class WalkerConstellation:
    """A Walker constellation with its per-satellite orbital elements.

    :param params: the resolved constellation parameters.
    :param earth_angle0_deg: Earth rotation angle at ``t = 0``.
    :param earth_rotation: model Earth rotation (sidereal rate).
    """

    params: ResolvedConstellation
    earth_angle0_deg: float = 0.0
    earth_rotation: bool = True

    @property
    def num_sats(self) -> int:
        """Number of satellites ``T = P * S``."""
        return self.params.num_planes * self.params.sats_per_plane

    @property
    def plane(self) -> np.ndarray:
        """Plane index of every satellite."""
        return np.repeat(np.arange(self.params.num_planes), self.params.sats_per_plane)

    @property
    def index_in_plane(self) -> np.ndarray:
        """In-plane index of every satellite."""
        return np.tile(np.arange(self.params.sats_per_plane), self.params.num_planes)

    @property
    def altitude_km(self) -> float:
        """Orbit altitude (all satellites)."""
        return self.params.altitude_km

    def elements(self) -> tuple[np.ndarray, np.ndarray]:
        """RAAN and initial argument of latitude of every satellite (radians)."""
        p = self.params
        plane, j = self.plane, self.index_in_plane
        raan = np.radians(p.raan0_deg + plane * p.raan_spacing_deg)
        total = max(self.num_sats, 1)
        u0 = (
            j * 360.0 / p.sats_per_plane
            + plane * p.phasing * 360.0 / total
            + np.where(plane % 2 == 1, p.odd_plane_phase_deg, 0.0)
        )
        return raan, np.radians(u0)

    def positions_eci(self, t_s: np.ndarray) -> np.ndarray:
        """Inertial positions (km) at orbit times ``t_s``, shape ``(T, S, 3)``."""
        t = np.atleast_1d(np.asarray(t_s, dtype=float))
        a = EARTH_RADIUS_KM + self.params.altitude_km
        n = mean_motion_rad_s(self.params.altitude_km)
        raan, u0 = self.elements()
        inc = np.radians(self.params.inclination_deg)
        u = u0[None, :] + n * t[:, None]
        cu, su = np.cos(u), np.sin(u)
        co, so = np.cos(raan)[None, :], np.sin(raan)[None, :]
        ci, si = np.cos(inc), np.sin(inc)
        out = np.empty(u.shape + (3,))
        out[..., 0] = a * (cu * co - su * ci * so)
        out[..., 1] = a * (cu * so + su * ci * co)
        out[..., 2] = a * su * si
        return out

    def positions_ecef(self, t_s: np.ndarray) -> np.ndarray:
        """Earth-fixed positions (km) at orbit times ``t_s``, shape ``(T, S, 3)``."""
        t = np.atleast_1d(np.asarray(t_s, dtype=float))
        theta = walker_rotation_angle(t, self.earth_angle0_deg, self.earth_rotation)
        return eci_to_ecef(self.positions_eci(t), theta)
