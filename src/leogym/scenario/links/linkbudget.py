"""Access-link capacity from slant range (MACO link budget) and rain attenuation.

MACO (Yang et al., IEEE TMC 2024, DOI 10.1109/TMC.2024.3397164), eqs. (2)-(3), with the
parameters of its Table 3 (docs/specs/maco.md#access-link-capacity), all quantities linear::

    SNR = P_t g_1 g_2 / ((4 pi d / lambda)^2 N_0 W)          (2)
    C   = eta W log2(1 + SNR)                                  (3)

With ``P_t = 35.12 dBm`` this gives 198.6 Mbit/s and SNR 48.81 dB at ``d = 550 km``.

Rain (our extension, off by default; docs/specs/scenarios.md#weather-and-snr makes weather an
optional process): attenuation ``A = gamma_R * L_s`` (dB) with ``gamma_R`` a configured
specific attenuation (dB/km) and ``L_s`` the slant path length below the rain height ``h_R``,
ITU-R P.618 step 2::

    L_s = (h_R - h_s) / sin(eps)                                         eps >= 5 deg
    L_s = 2 (h_R - h_s) / (sqrt(sin^2 eps + 2 (h_R - h_s) / R_e) + sin eps)  eps < 5 deg

(``R_e = 8500 km``, the effective Earth radius of P.618). The horizontal reduction factor of
P.618 step 6 is not applied (conservative). ``A`` is subtracted from the SNR in dB.
"""

from __future__ import annotations

import numpy as np

from leogym.scenario.config import LinkBudgetConfig

__all__ = ["snr_db", "capacity_bps", "rain_path_length_km", "rain_attenuation_db"]

_P618_EFFECTIVE_RADIUS_KM = 8500.0


def snr_db(
    distance_km: np.ndarray | float,
    budget: LinkBudgetConfig,
    extra_loss_db: np.ndarray | float = 0.0,
) -> np.ndarray:
    """SNR (dB) of the access link at slant range ``distance_km``, eq. (2).

    :param distance_km: slant range(s).
    :param budget: link-budget parameters.
    :param extra_loss_db: additional attenuation (rain), subtracted in dB.
    """
    d_m = np.asarray(distance_km, dtype=float) * 1000.0
    fspl_db = 20.0 * np.log10(4.0 * np.pi * d_m / budget.wavelength_m)
    pt_dbw = budget.tx_power_dbm - 30.0
    noise_dbw = 10.0 * np.log10(budget.noise_psd_w_hz * budget.bandwidth_hz)
    return pt_dbw + budget.tx_gain_dbi + budget.rx_gain_dbi - fspl_db - noise_dbw - extra_loss_db


def capacity_bps(
    distance_km: np.ndarray | float,
    budget: LinkBudgetConfig,
    extra_loss_db: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Shannon capacity ``eta W log2(1 + SNR)`` (bit/s), eq. (3)."""
    snr = 10.0 ** (snr_db(distance_km, budget, extra_loss_db) / 10.0)
    return budget.efficiency * budget.bandwidth_hz * np.log2(1.0 + snr)


def rain_path_length_km(
    elevation_deg: np.ndarray | float, rain_height_km: float, station_height_km: float = 0.0
) -> np.ndarray:
    """Slant path length below the rain height, ITU-R P.618 step 2 (km); 0 below the horizon."""
    eps = np.radians(np.clip(np.asarray(elevation_deg, dtype=float), 0.0, 90.0))
    dh = max(rain_height_km - station_height_km, 0.0)
    s = np.sin(eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        high = dh / np.maximum(s, 1e-12)
    low = 2.0 * dh / (np.sqrt(s**2 + 2.0 * dh / _P618_EFFECTIVE_RADIUS_KM) + s)
    return np.where(np.degrees(eps) >= 5.0, high, low)


def rain_attenuation_db(
    elevation_deg: np.ndarray | float,
    specific_attenuation_db_km: float,
    rain_height_km: float,
    station_height_km: float = 0.0,
) -> np.ndarray:
    """Rain attenuation ``gamma_R * L_s`` (dB) on the slant path."""
    length = rain_path_length_km(elevation_deg, rain_height_km, station_height_km)
    return specific_attenuation_db_km * length
