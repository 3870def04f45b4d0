"""Ground-to-satellite geometry: slant range and elevation, and their closed forms.

With ``R`` the Earth radius, ``r = R + h`` the orbit radius and ``gamma`` the Earth-central angle
between a ground point and the sub-satellite point, the Earth-centred triangle gives (law of
cosines and law of sines)::

    d^2 = R^2 + r^2 - 2 R r cos(gamma)              slant range
    cos(eps) = r sin(gamma) / d                     elevation eps
    d(eps) = sqrt(r^2 - R^2 cos^2 eps) - R sin eps  slant range at elevation eps
    gamma(eps) = arccos(R cos(eps) / r) - eps       coverage half-angle at mask eps

The vectorised :func:`look_angles` works from Earth-fixed vectors and is what the timeline uses;
the closed forms give bounds (mask-edge range) and are what the tests check it against.
"""

from __future__ import annotations

import numpy as np

from leogym.scenario.constants import EARTH_RADIUS_KM

__all__ = ["look_angles", "slant_range_at_elevation_km", "coverage_half_angle_deg"]


def look_angles(ground_ecef: np.ndarray, sat_ecef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slant range (km) and elevation (deg) of satellites seen from one ground point.

    :param ground_ecef: ground position, shape ``(3,)`` (on the sphere).
    :param sat_ecef: satellite positions, shape ``(..., 3)``.
    :return: ``(range_km, elevation_deg)``, each of shape ``sat_ecef.shape[:-1]``.
    """
    g = np.asarray(ground_ecef, dtype=float)
    up = g / np.linalg.norm(g)
    diff = sat_ecef - g
    rng = np.sqrt(np.einsum("...i,...i->...", diff, diff))
    sin_el = np.einsum("...i,i->...", diff, up) / rng
    return rng, np.degrees(np.arcsin(np.clip(sin_el, -1.0, 1.0)))


def slant_range_at_elevation_km(
    altitude_km: float, elevation_deg: float | np.ndarray
) -> np.ndarray:
    """Slant range from a ground point to a satellite at ``altitude_km`` seen at ``elevation_deg``.

    :return: range in km (``altitude_km`` at zenith).
    """
    eps = np.radians(np.asarray(elevation_deg, dtype=float))
    r = EARTH_RADIUS_KM + altitude_km
    return np.sqrt(r**2 - (EARTH_RADIUS_KM * np.cos(eps)) ** 2) - EARTH_RADIUS_KM * np.sin(eps)


def coverage_half_angle_deg(altitude_km: float, elevation_deg: float) -> float:
    """Earth-central half-angle of the region that sees a satellite above ``elevation_deg``."""
    eps = np.radians(elevation_deg)
    r = EARTH_RADIUS_KM + altitude_km
    return float(np.degrees(np.arccos(EARTH_RADIUS_KM * np.cos(eps) / r) - eps))
