"""The constellation presets (data only; :mod:`leogym.scenario.orbital.presets` resolves a config).

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

from typing import Any

__all__ = ["PRESETS"]

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
