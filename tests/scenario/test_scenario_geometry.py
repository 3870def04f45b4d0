"""Look angles and closed-form geometry against the Earth-centred triangle; link budget vs MACO."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from leogym.scenario.config import LinkBudgetConfig
from leogym.scenario.links.linkbudget import (
    capacity_bps,
    rain_attenuation_db,
    rain_path_length_km,
    snr_db,
)
from leogym.scenario.orbital.look import (
    coverage_half_angle_deg,
    look_angles,
    slant_range_at_elevation_km,
)

R = 6378.137


def _law_of_cosines(h: float, gamma_deg: float) -> tuple[float, float]:
    """Slant range and elevation for central angle gamma (Earth-centred triangle)."""
    r = R + h
    g = math.radians(gamma_deg)
    d = math.sqrt(R**2 + r**2 - 2 * R * r * math.cos(g))
    # angle at the ground point between the local vertical and the satellite (law of sines)
    elev = math.degrees(math.acos(min(1.0, r * math.sin(g) / d)))
    if r * math.cos(g) < R:  # below the horizon
        elev = -elev
    return d, elev


def _mask_edge_range(h: float, eps_deg: float) -> float:
    """Solve the triangle numerically for the central angle where elevation == eps."""
    gamma = brentq(lambda g: _law_of_cosines(h, g)[1] - eps_deg, 1e-9, 89.9)
    return _law_of_cosines(h, gamma)[0]


@pytest.mark.parametrize("h", [550.0, 780.0, 1150.0])
@pytest.mark.parametrize("gamma", [0.0, 1.0, 5.0, 12.0, 20.0, 30.0])
def test_look_angles_match_law_of_cosines(h, gamma):
    rng = np.random.default_rng(int(h + 10 * gamma))
    lat, lon, az = rng.uniform(-60, 60), rng.uniform(-180, 180), rng.uniform(0, 2 * np.pi)
    ground = R * _unit(lat, lon)
    # the satellite at central angle gamma from the ground point, in a random direction
    east = np.cross([0.0, 0.0, 1.0], ground)
    east /= np.linalg.norm(east)
    north = np.cross(ground / R, east)
    tangent = math.cos(az) * north + math.sin(az) * east
    g = math.radians(gamma)
    sat = (R + h) * (math.cos(g) * ground / R + math.sin(g) * tangent)
    d, elev = look_angles(ground, sat[None, :])
    d_ref, elev_ref = _law_of_cosines(h, gamma)
    assert d[0] == pytest.approx(d_ref, rel=1e-9)
    assert elev[0] == pytest.approx(elev_ref, abs=1e-7)


@pytest.mark.parametrize(
    ("h", "eps", "spec_km"),
    [
        (780.0, 8.2, 2465.0),  # Iridium, docs/specs/scenarios.md [D]
        (1150.0, 40.0, 1627.0),  # LEOTP, docs/specs/scenarios.md [D]
        (1150.0, 25.0, 2127.0),
        (550.0, 90.0, 550.0),  # zenith
    ],
)
def test_mask_edge_slant_range(h, eps, spec_km):
    ref = h if eps == 90.0 else _mask_edge_range(h, eps)  # zenith: the altitude itself
    assert slant_range_at_elevation_km(h, eps) == pytest.approx(ref, rel=1e-6)
    assert slant_range_at_elevation_km(h, eps) == pytest.approx(spec_km, abs=3.0)


def test_iridium_coverage_half_angle_and_overhead_pass():
    gamma = coverage_half_angle_deg(780.0, 8.2)
    assert gamma == pytest.approx(19.9, abs=0.05)  # docs/specs/scenarios.md [D]
    period_min = 2 * math.pi * math.sqrt((R + 780.0) ** 3 / 398600.4418) / 60.0
    assert 2 * gamma / 360.0 * period_min == pytest.approx(11.1, abs=0.05)


# MACO link budget, docs/specs/maco.md#access-link-capacity (P_t = 35.12 dBm, Table 3)
MACO_TABLE = [
    (550, 48.81, 198.62),
    (560, 48.65, 197.98),
    (575, 48.42, 197.05),
    (600, 48.05, 195.54),
    (650, 47.36, 192.71),
    (700, 46.71, 190.09),
    (800, 45.55, 185.37),
    (1000, 43.62, 177.49),
]


@pytest.mark.parametrize(("d_km", "snr", "mbps"), MACO_TABLE)
def test_maco_link_budget_table(d_km, snr, mbps):
    budget = LinkBudgetConfig()
    assert float(snr_db(d_km, budget)) == pytest.approx(snr, abs=0.01)
    assert float(capacity_bps(d_km, budget)) / 1e6 == pytest.approx(mbps, abs=0.01)


@pytest.mark.parametrize(("w_mhz", "mbps"), [(5, 85.9), (12.5, 198.6), (20, 304.5), (40, 569.8)])
def test_maco_capacity_vs_bandwidth(w_mhz, mbps):
    budget = LinkBudgetConfig(bandwidth_hz=w_mhz * 1e6)
    assert float(capacity_bps(550.0, budget)) / 1e6 == pytest.approx(mbps, abs=0.05)


def test_link_budget_is_the_shannon_formula():
    # eq. (2)-(3) evaluated by hand in linear units
    pt = 10 ** (35.12 / 10) / 1000.0
    g = 10 ** (37.7 / 10) * 10 ** (37.1 / 10)
    fspl = (4 * math.pi * 550e3 / 0.086) ** 2
    snr = pt * g / (fspl * 1.6e-20 * 12.5e6)
    expected = 0.98 * 12.5e6 * math.log2(1 + snr)
    assert float(capacity_bps(550.0, LinkBudgetConfig())) == pytest.approx(expected, rel=1e-12)


def test_rain_path_length_itu_p618():
    # zenith: the slant path below the rain height is h_R - h_s
    assert float(rain_path_length_km(90.0, 5.0, 0.5)) == pytest.approx(4.5)
    # 30 deg: 1 / sin(30) = 2x
    assert float(rain_path_length_km(30.0, 5.0, 0.0)) == pytest.approx(10.0)
    # below 5 deg the curved-Earth form stays finite and below the flat-Earth one
    low = float(rain_path_length_km(1.0, 5.0, 0.0))
    assert 0.0 < low < 5.0 / math.sin(math.radians(1.0))
    assert float(rain_attenuation_db(30.0, 0.5, 5.0)) == pytest.approx(5.0)
    # attenuation lowers SNR dB-for-dB
    budget = LinkBudgetConfig()
    assert float(snr_db(600.0, budget, 3.0)) == pytest.approx(float(snr_db(600.0, budget)) - 3.0)


def _unit(lat: float, lon: float) -> np.ndarray:
    la, lo = math.radians(lat), math.radians(lon)
    return np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])
