"""Constellation presets and the resolution of a :class:`ConstellationConfig` against them.

Numbers and their sources (docs/specs/scenarios.md, docs/specs/maco.md):

* ``starlink_shell1``: Starlink shell 1 of the FCC filing, 550 km, 53 deg, 72 planes x 22
  satellites, 25 deg minimum elevation (docs/specs/scenarios.md#alcs-testbed-defaults [R]).
  Walker phasing F = 1 is our choice (not published).
* ``iridium``: 780 km, 86.4 deg, 6 planes x 11, 8.2 deg elevation mask (Table I of seed 004);
  Walker-star with NS-2's stock layout: ascending nodes 0, 31.6, ..., 158 deg (seam 22 deg) and
  odd planes shifted by 16.36 deg in-plane
  (docs/specs/scenarios.md#iridium-constellation-and-links).
* ``leotp``: the original 1150 km Starlink core, 32 planes x 50, 53 deg (seed 003); 40 deg
  minimum elevation (docs/specs/scenarios.md#leotp-constellation [R]); F = 1 is our choice.
* ``maco_string``: MACO's stylised "string of satellites"
  (docs/specs/maco.md#stylised-constellation): one polar plane at 550 km with satellites every
  R1 = 150 km along the orbit (2*pi*6928/150 = 290), and a 65 deg mask, which is the footprint
  edge for R2 = 230 km (docs/specs/maco.md#geometry-of-the-stylised-constellation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leogym.scenario.config import ConstellationConfig

__all__ = ["PRESETS", "ResolvedConstellation", "resolve_constellation"]

PRESETS: dict[str, dict[str, Any]] = {
    "starlink_shell1": {
        "kind": "walker_delta",
        "altitude_km": 550.0,
        "inclination_deg": 53.0,
        "num_planes": 72,
        "sats_per_plane": 22,
        "phasing": 1,
        "min_elevation_deg": 25.0,
    },
    "iridium": {
        "kind": "walker_star",
        "altitude_km": 780.0,
        "inclination_deg": 86.4,
        "num_planes": 6,
        "sats_per_plane": 11,
        "phasing": 0,
        "raan_spacing_deg": 31.6,
        "odd_plane_phase_deg": 16.36,
        "min_elevation_deg": 8.2,
    },
    "leotp": {
        "kind": "walker_delta",
        "altitude_km": 1150.0,
        "inclination_deg": 53.0,
        "num_planes": 32,
        "sats_per_plane": 50,
        "phasing": 1,
        "min_elevation_deg": 40.0,
    },
    "maco_string": {
        "kind": "walker_star",
        "altitude_km": 550.0,
        "inclination_deg": 90.0,
        "num_planes": 1,
        "sats_per_plane": 290,
        "phasing": 0,
        "min_elevation_deg": 65.0,
    },
}

_WALKER_FIELDS = (
    "kind",
    "altitude_km",
    "inclination_deg",
    "num_planes",
    "sats_per_plane",
    "phasing",
    "raan_spacing_deg",
    "raan0_deg",
    "odd_plane_phase_deg",
    "min_elevation_deg",
)

_FALLBACKS: dict[str, Any] = {
    "phasing": 0,
    "raan0_deg": 0.0,
    "odd_plane_phase_deg": 0.0,
    "min_elevation_deg": 25.0,
}


@dataclass(frozen=True)
class ResolvedConstellation:
    """A constellation config with the preset applied and every Walker field filled in.

    For ``kind == "tle"`` the Walker fields are unused (``altitude_km`` etc. may be 0).
    """

    kind: str
    altitude_km: float
    inclination_deg: float
    num_planes: int
    sats_per_plane: int
    phasing: int
    raan_spacing_deg: float
    raan0_deg: float
    odd_plane_phase_deg: float
    min_elevation_deg: float


def resolve_constellation(cfg: ConstellationConfig) -> ResolvedConstellation:
    """Apply the preset, then the explicitly set fields, then fallbacks.

    Call only on a validated config.

    :param cfg: the constellation section.
    :return: the resolved parameters.
    """
    values: dict[str, Any] = dict(PRESETS[cfg.preset]) if cfg.preset else {}
    for name in _WALKER_FIELDS:
        explicit = getattr(cfg, name)
        if explicit is not None:
            values[name] = explicit
    for name, fallback in _FALLBACKS.items():
        values.setdefault(name, fallback)
    kind = values.get("kind", "tle" if cfg.tle_file else "walker_delta")
    if kind == "tle":
        for name in ("altitude_km", "inclination_deg"):
            values.setdefault(name, 0.0)
        for name in ("num_planes", "sats_per_plane"):
            values.setdefault(name, 0)
    planes = int(values["num_planes"])
    spread = 180.0 if kind == "walker_star" else 360.0
    spacing = values.get("raan_spacing_deg")
    if spacing is None:
        spacing = spread / planes if planes > 0 else 0.0
    return ResolvedConstellation(
        kind=kind,
        altitude_km=float(values["altitude_km"]),
        inclination_deg=float(values["inclination_deg"]),
        num_planes=planes,
        sats_per_plane=int(values["sats_per_plane"]),
        phasing=int(values["phasing"]),
        raan_spacing_deg=float(spacing),
        raan0_deg=float(values["raan0_deg"]),
        odd_plane_phase_deg=float(values["odd_plane_phase_deg"]),
        min_elevation_deg=float(values["min_elevation_deg"]),
    )
