"""Resolution of a :class:`ConstellationConfig` against the constellation presets
(:data:`leogym.scenario.config.constellations.PRESETS`: their numbers and sources)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leogym.scenario.config import ConstellationConfig
from leogym.scenario.config.constellations import PRESETS

__all__ = ["ResolvedConstellation", "resolve_constellation"]

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
