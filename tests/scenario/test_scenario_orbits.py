"""Orbital mechanics and frames against textbook numbers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from leogym.scenario.config import ConstellationConfig
from leogym.scenario.orbital.frames import eci_to_ecef, gmst_rad
from leogym.scenario.orbital.isl import ShortestPaths, plus_grid
from leogym.scenario.orbital.orbits import WalkerConstellation, orbital_period_s
from leogym.scenario.orbital.presets import resolve_constellation
from leogym.scenario.orbital.tle import TleConstellation, read_tle_file

DATA = Path(__file__).parent / "data"
MU = 398600.4418  # km^3/s^2


def walker(preset: str, **kw) -> WalkerConstellation:
    return WalkerConstellation(resolve_constellation(ConstellationConfig(preset=preset, **kw)))


def test_period_at_550_km_is_95_6_minutes():
    assert orbital_period_s(550.0) / 60.0 == pytest.approx(95.6, abs=0.1)


@pytest.mark.parametrize(
    ("preset", "minutes"),
    [("iridium", 100.45), ("leotp", 108.3)],  # docs/specs/scenarios.md [D]
)
def test_periods_of_other_shells(preset, minutes):
    shell = walker(preset)
    assert orbital_period_s(shell.altitude_km) / 60.0 == pytest.approx(minutes, abs=0.1)


def test_walker_orbit_repeats_after_kepler_period_and_keeps_radius():
    shell = walker("starlink_shell1")
    a = 6378.137 + 550.0
    period = 2.0 * math.pi * math.sqrt(a**3 / MU)
    pos = shell.positions_eci(np.array([0.0, 1234.5, period]))
    radius = np.linalg.norm(pos, axis=-1)
    np.testing.assert_allclose(radius, a, rtol=1e-12)
    np.testing.assert_allclose(pos[2], pos[0], atol=1e-6)
    assert np.linalg.norm(pos[1] - pos[0], axis=-1).min() > 1000.0


def test_starlink_shell1_layout():
    shell = walker("starlink_shell1")
    assert shell.num_sats == 72 * 22
    raan, _ = shell.elements()
    planes = np.degrees(raan[::22])
    np.testing.assert_allclose(np.diff(planes), 5.0)  # 360 / 72
    inc = np.degrees(np.arccos(_orbit_normal(shell)[:, 2]))
    np.testing.assert_allclose(inc, 53.0, atol=1e-9)


def test_iridium_walker_star_with_seam():
    shell = walker("iridium")
    raan, u0 = shell.elements()
    planes = np.degrees(raan[::11])
    np.testing.assert_allclose(planes, [0.0, 31.6, 63.2, 94.8, 126.4, 158.0], atol=1e-9)
    assert 180.0 - planes[-1] == pytest.approx(22.0)  # the seam, Table I of seed 004
    # NS-2 layout: satellites every 360/11 deg, odd planes shifted by 16.36 deg
    np.testing.assert_allclose(np.degrees(np.diff(u0[:11])), 360.0 / 11.0)
    assert np.degrees(u0[11] - u0[0]) == pytest.approx(16.36)


def test_iridium_intra_plane_isl_chord_is_4033_km():
    shell = walker("iridium")
    topo = plus_grid(6, 11, star=True, cross_seam=False)
    pos = shell.positions_ecef(np.array([0.0, 300.0]))
    paths = ShortestPaths(topo, pos, None)
    intra = paths.lengths[:, ~topo.interplane]
    # docs/specs/scenarios.md#iridium-constellation-and-links [D]
    np.testing.assert_allclose(intra, 4033.0, atol=2.0)
    # 4 ISLs per satellite except across the seam: 66 * 2 / 2 ring links + 5 * 11 cross links
    assert len(topo.edges) == 66 + 55


def test_interplane_links_off_above_latitude_cutoff():
    shell = walker("iridium")
    topo = plus_grid(6, 11, star=True, cross_seam=False)
    pos = shell.positions_ecef(np.arange(0.0, 3000.0, 100.0))
    paths = ShortestPaths(topo, pos, 60.0)
    lat = np.degrees(np.arcsin(pos[..., 2] / np.linalg.norm(pos, axis=-1)))
    e = topo.edges
    high = (np.abs(lat[:, e[:, 0]]) > 60.0) | (np.abs(lat[:, e[:, 1]]) > 60.0)
    assert not np.any(paths.up & high & topo.interplane)
    assert np.all(paths.up[:, ~topo.interplane])


def test_earth_fixed_frame_returns_after_one_sidereal_day():
    vec = np.array([[[7000.0, 100.0, 50.0]]])
    sidereal_day = 86164.0905  # s
    theta = np.array([7.292115e-5 * sidereal_day])
    np.testing.assert_allclose(eci_to_ecef(vec, theta), vec, atol=1e-2)


def test_gmst_vallado_example_3_5():
    # Vallado, Fundamentals of Astrodynamics, Example 3-5: 1992-08-20 12:14 UT1
    assert np.degrees(gmst_rad(2448855.009722)) == pytest.approx(152.578787, abs=1e-4)
    # J2000.0 epoch: 18h 41m 50.54841s
    assert np.degrees(gmst_rad(2451545.0)) == pytest.approx(280.46061837, abs=1e-6)


def test_tle_fixture_propagates_near_its_mean_motion_radius():
    records = read_tle_file(DATA / "tiny.tle", "f")
    assert [r.name for r in records] == [f"LEOGYM-TEST-{i}" for i in range(1, 5)]
    shell = TleConstellation(records)
    pos = shell.positions_ecef(np.linspace(0.0, 6000.0, 7))
    n = 15.055 * 2.0 * math.pi / 86400.0  # rev/day of the fixture, rad/s
    a = (MU / n**2) ** (1.0 / 3.0)
    np.testing.assert_allclose(np.linalg.norm(pos, axis=-1), a, atol=25.0)
    # inclination 53 deg: |latitude| never exceeds it
    lat = np.degrees(np.arcsin(pos[..., 2] / np.linalg.norm(pos, axis=-1)))
    assert np.abs(lat).max() <= 53.2


def _orbit_normal(shell: WalkerConstellation) -> np.ndarray:
    pos = shell.positions_eci(np.array([0.0, 10.0]))
    normal = np.cross(pos[0], pos[1])
    return normal / np.linalg.norm(normal, axis=-1, keepdims=True)


@pytest.mark.parametrize(("lat", "lon"), [(15.51, -1.0), (45.0, 10.0)])
def test_iridium_passes_last_8_to_10_minutes_and_at_most_11_1(lat, lon):
    """Seed 004: "the visibility period of a satellite is usually 8-10 minutes"; an overhead
    pass at the 8.2 deg mask lasts 2 * 19.9 / 360 * 100.45 min = 11.1 min
    (docs/specs/scenarios.md#iridium-constellation-and-links)."""
    from leogym.scenario.orbital.frames import geodetic_to_ecef
    from leogym.scenario.orbital.look import look_angles

    shell = walker("iridium")
    step = 5.0
    t = np.arange(0.0, 24 * 3600.0, step)
    _, elev = look_angles(geodetic_to_ecef(lat, lon), shell.positions_ecef(t))
    visible = np.vstack([np.zeros((1, shell.num_sats)), elev >= 8.2, np.zeros((1, shell.num_sats))])
    edges = np.diff(visible.astype(np.int8), axis=0)
    durations = []
    for s in range(shell.num_sats):
        rise = np.flatnonzero(edges[:, s] == 1)
        fall = np.flatnonzero(edges[:, s] == -1)
        for a, b in zip(rise, fall, strict=True):
            if a > 0 and b < len(t):  # complete passes only
                durations.append((b - a) * step / 60.0)
    durations = np.array(durations)
    assert len(durations) > 100
    assert durations.max() <= 11.1 * 1.01 + step / 60.0
    assert durations.max() >= 10.5  # some passes are nearly overhead
    assert 8.0 <= np.median(durations) <= 10.0
    assert 8.0 <= durations.mean() <= 10.0
