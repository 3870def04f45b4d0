"""Reference frames and time: geodetic to Earth-fixed, Earth rotation, Julian dates.

The Earth is a sphere of radius :data:`~leogym.scenario.constants.EARTH_RADIUS_KM` (latitudes are
geocentric). Earth-fixed (ECEF) coordinates come from inertial ones by one rotation about the
z axis by the Earth rotation angle ``theta(t)``:

* Walker constellations: ``theta(t) = theta0 + omega_E * t`` with ``omega_E`` the sidereal rate
  (a simple rotation; ``theta0`` is a config knob, 0 = inertial x axis through Greenwich at t = 0).
* TLE constellations: ``theta`` is the Greenwich mean sidereal time (IAU-82 expression, as
  given in Vallado, *Fundamentals of Astrodynamics and Applications*) of the UTC instant,
  applied to the TEME positions that SGP4 returns (TEME -> pseudo-Earth-fixed). UT1 - UTC
  (< 0.9 s, at most 0.4 km on the ground) and polar motion (tens of metres) are ignored.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from leogym.scenario.constants import EARTH_RADIUS_KM, EARTH_ROTATION_RAD_S

__all__ = [
    "geodetic_to_ecef",
    "ecef_to_latlon",
    "eci_to_ecef",
    "walker_rotation_angle",
    "gmst_rad",
    "julian_date",
    "parse_utc",
]

_UNIX_EPOCH_JD = 2440587.5
_J2000_JD = 2451545.0


def geodetic_to_ecef(lat_deg: float | np.ndarray, lon_deg: float | np.ndarray) -> np.ndarray:
    """Earth-fixed position (km) of points on the spherical Earth's surface.

    :param lat_deg: latitude(s) in degrees, north positive.
    :param lon_deg: longitude(s) in degrees, east positive.
    :return: array of shape ``(..., 3)``.
    """
    lat = np.radians(np.asarray(lat_deg, dtype=float))
    lon = np.radians(np.asarray(lon_deg, dtype=float))
    return EARTH_RADIUS_KM * np.stack(
        [np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=-1
    )


def ecef_to_latlon(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Geocentric latitude and longitude (degrees) of Earth-fixed positions.

    :param pos: array of shape ``(..., 3)`` (km).
    :return: ``(lat_deg, lon_deg)``.
    """
    x, y, z = pos[..., 0], pos[..., 1], pos[..., 2]
    lat = np.degrees(np.arctan2(z, np.hypot(x, y)))
    lon = np.degrees(np.arctan2(y, x))
    return lat, lon


def eci_to_ecef(pos: np.ndarray, theta_rad: np.ndarray) -> np.ndarray:
    """Rotate inertial positions into the Earth-fixed frame.

    :param pos: inertial positions, shape ``(T, ..., 3)``.
    :param theta_rad: Earth rotation angle per time, shape ``(T,)``.
    :return: Earth-fixed positions, same shape as ``pos``.
    """
    theta = np.asarray(theta_rad, dtype=float).reshape((-1,) + (1,) * (pos.ndim - 2))
    c, s = np.cos(theta), np.sin(theta)
    out = np.empty_like(pos)
    out[..., 0] = c * pos[..., 0] + s * pos[..., 1]
    out[..., 1] = -s * pos[..., 0] + c * pos[..., 1]
    out[..., 2] = pos[..., 2]
    return out


def walker_rotation_angle(t_s: np.ndarray, theta0_deg: float, rotate: bool = True) -> np.ndarray:
    """Earth rotation angle at times ``t_s`` for the simple-rotation model.

    :param t_s: seconds since the reference instant.
    :param theta0_deg: angle at ``t = 0``.
    :param rotate: False freezes the Earth (stylised scenarios).
    :return: angles in radians.
    """
    t = np.asarray(t_s, dtype=float)
    rate = EARTH_ROTATION_RAD_S if rotate else 0.0
    return np.radians(theta0_deg) + rate * t


def gmst_rad(jd_ut1: np.ndarray) -> np.ndarray:
    """Greenwich mean sidereal time (IAU-82 expression, Vallado), in radians in [0, 2 pi).

    :param jd_ut1: Julian date(s), UT1 (UTC is used; |UT1 - UTC| < 0.9 s).
    :return: GMST angle(s).
    """
    jd = np.asarray(jd_ut1, dtype=float)
    tu = (jd - _J2000_JD) / 36525.0
    seconds = (
        67310.54841 + (876600.0 * 3600.0 + 8640184.812866) * tu + 0.093104 * tu**2 - 6.2e-6 * tu**3
    )
    return np.mod(seconds, 86400.0) * (2.0 * np.pi / 86400.0)


def julian_date(unix_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split Julian date of POSIX times, as ``(whole_days + 0.5, fraction)`` like ``sgp4.jday``.

    :param unix_s: seconds since 1970-01-01T00:00:00Z.
    :return: ``(jd, fr)`` with ``jd + fr`` the Julian date; ``fr`` in [0, 1).
    """
    days = np.asarray(unix_s, dtype=float) / 86400.0
    whole = np.floor(days)
    return _UNIX_EPOCH_JD + whole, days - whole


def parse_utc(text: str) -> datetime:
    """Parse an ISO-8601 UTC timestamp (``2024-05-01T12:00:00Z``; naive means UTC).

    :param text: the timestamp.
    :return: an aware :class:`datetime` in UTC.
    :raises ValueError: not ISO-8601.
    """
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)
