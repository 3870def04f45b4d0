"""Physical constants used by the scenario layer (SI units unless the name says otherwise)."""

from __future__ import annotations

__all__ = [
    "EARTH_RADIUS_KM",
    "EARTH_ROTATION_RAD_S",
    "MU_EARTH_KM3_S2",
    "SPEED_OF_LIGHT_KM_S",
    "SPEED_OF_LIGHT_M_S",
    "BOLTZMANN",
]

#: Standard gravitational parameter of the Earth, GM (km^3/s^2), WGS-84 / EGM-96 value.
MU_EARTH_KM3_S2: float = 398600.4418

#: Radius of the spherical Earth used for all geometry (km). The WGS-84 equatorial radius, so
#: that altitudes match the usual "a = R_E + h" convention of constellation filings
#: (Iridium a = 7158 km, Starlink shell 1 a = 6928 km).
EARTH_RADIUS_KM: float = 6378.137

#: Earth's rotation rate relative to the stars (rad/s), IERS conventional value.
EARTH_ROTATION_RAD_S: float = 7.292115e-5

#: Speed of light in vacuum (exact, SI).
SPEED_OF_LIGHT_M_S: float = 299_792_458.0
SPEED_OF_LIGHT_KM_S: float = SPEED_OF_LIGHT_M_S / 1000.0

#: Boltzmann constant (J/K, exact, SI 2019).
BOLTZMANN: float = 1.380649e-23
