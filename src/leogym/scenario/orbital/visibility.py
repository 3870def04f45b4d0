"""What one path's terminal sees: visibility, set times and the selection policies.

The sky is sampled on the coarse geometry grid ``t_k = k * dt_g``. Between samples, elevation
and range are interpolated linearly, so visibility changes are located to well below
``dt_g`` (the elevation of a LEO satellite is smooth on a 1 s scale). A satellite is *usable*
at a sample when it is above the terminal's mask and the path's ground side can reach it
(bent pipe: some gateway sees it; ISL: always).

Policies (:data:`leogym.scenario.config.POLICIES`) rank the usable satellites at a time ``t``
(best first):

* ``max_elevation``: highest elevation (shortest slant range);
* ``longest_visibility``: latest set time (ties by elevation);
* ``min_delay``: smallest UT-satellite plus satellite-to-ground distance;
* ``random``: a uniformly random order from the path's seeded generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["PathSky"]

_EPS_S = 1e-6


@dataclass
class PathSky:
    """Coarse-grid view of the sky for one satellite path.

    :param dt_s: coarse step.
    :param elevation_deg: ``(K, S)`` elevation at the terminal (NaN = unknown position).
    :param range_km: ``(K, S)`` slant range from the terminal.
    :param mask_deg: the terminal's elevation mask.
    :param ground_ok: ``(K, S)`` the path's ground side can reach the satellite.
    :param ground_km: ``(K2, S)`` distance from the satellite to the ground side (for
        ``min_delay``), ``K2 <= K``; inf where unreachable.
    :param ground_interpolate: interpolate ``ground_km`` between samples (bent pipe) or hold it.
    """

    dt_s: float
    elevation_deg: np.ndarray
    range_km: np.ndarray
    mask_deg: float
    ground_ok: np.ndarray
    ground_km: np.ndarray
    ground_interpolate: bool = True
    usable: np.ndarray = field(init=False)
    next_unusable: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        el = self.elevation_deg
        self.usable = np.isfinite(el) & (np.nan_to_num(el, nan=-90.0) >= self.mask_deg)
        self.usable &= self.ground_ok
        k = el.shape[0]
        idx = np.where(self.usable, k, np.arange(k)[:, None])
        self.next_unusable = np.minimum.accumulate(idx[::-1], axis=0)[::-1]

    @property
    def num_steps(self) -> int:
        """Number of coarse samples K."""
        return int(self.elevation_deg.shape[0])

    @property
    def horizon_s(self) -> float:
        """Last time covered by the coarse grid."""
        return (self.num_steps - 1) * self.dt_s

    def _locate(self, t: float) -> tuple[int, float]:
        k = int(np.floor(t / self.dt_s + 1e-9))
        k = min(max(k, 0), self.num_steps - 2)
        return k, min(max(t / self.dt_s - k, 0.0), 1.0)

    def elevation_at(self, t: float) -> np.ndarray:
        """Elevation of every satellite at time ``t`` (deg)."""
        k, f = self._locate(t)
        return (1.0 - f) * self.elevation_deg[k] + f * self.elevation_deg[k + 1]

    def range_at(self, t: float) -> np.ndarray:
        """Slant range of every satellite at time ``t`` (km)."""
        k, f = self._locate(t)
        return (1.0 - f) * self.range_km[k] + f * self.range_km[k + 1]

    def ground_at(self, t: float) -> np.ndarray:
        """Satellite-to-ground distance of every satellite at time ``t`` (km)."""
        k, f = self._locate(t)
        last = self.ground_km.shape[0] - 1
        if not self.ground_interpolate or k + 1 > last:
            return self.ground_km[min(k, last)]
        return (1.0 - f) * self.ground_km[k] + f * self.ground_km[k + 1]

    def visible_at(self, t: float) -> np.ndarray:
        """Boolean ``(S,)``: above the mask at ``t`` and reachable from the ground side."""
        k, _ = self._locate(t)
        el = self.elevation_at(t)
        ok = np.isfinite(el) & (np.nan_to_num(el, nan=-90.0) >= self.mask_deg)
        return ok & self.ground_ok[k] & self.ground_ok[k + 1]

    def set_times(self, t: float, sats: np.ndarray) -> np.ndarray:
        """When each of ``sats`` stops being visible, searching forward from ``t``.

        :return: times ``>= t``; ``inf`` when visible to the end of the grid; ``t`` when not
            visible at ``t``.
        """
        sats = np.asarray(sats, dtype=np.int64)
        out = np.full(len(sats), np.inf)
        if len(sats) == 0:
            return out
        k, _ = self._locate(t)
        vis = self.visible_at(t)[sats]
        kk = self.next_unusable[k + 1, sats]
        out[~vis] = t
        end = vis & (kk < self.num_steps)
        if np.any(end):
            kk_e = kk[end]
            s_e = sats[end]
            e0 = self.elevation_deg[kk_e - 1, s_e]
            e1 = self.elevation_deg[kk_e, s_e]
            by_ground = ~self.ground_ok[kk_e, s_e]
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = (e0 - self.mask_deg) / (e0 - e1)
            frac = np.where(np.isfinite(frac) & ~by_ground, np.clip(frac, 0.0, 1.0), 0.0)
            out[end] = np.maximum((kk_e - 1 + frac) * self.dt_s, t)
        return out

    def first_usable_after(self, t: float) -> float:
        """Earliest coarse time ``> t`` at which some satellite is usable there and next step."""
        k, _ = self._locate(t)
        both = self.usable[:-1] & self.usable[1:]
        rows = np.flatnonzero(both[k + 1 :].any(axis=1))
        if len(rows) == 0:
            return np.inf
        return float((k + 1 + rows[0]) * self.dt_s)

    def ranking(
        self,
        t: float,
        policy: str,
        rng: np.random.Generator,
        exclude: tuple[int, ...] = (),
    ) -> np.ndarray:
        """Candidate satellites at ``t``, best first under ``policy``.

        Candidates are visible at ``t`` and stay visible a little longer (so a satellite exactly
        at its set time is not picked), minus ``exclude``.
        """
        cand = np.flatnonzero(self.visible_at(t))
        if exclude:
            cand = cand[~np.isin(cand, np.asarray(exclude, dtype=np.int64))]
        if len(cand) == 0:
            return cand
        sets = self.set_times(t, cand)
        keep = sets > t + _EPS_S
        cand, sets = cand[keep], sets[keep]
        if len(cand) == 0:
            return cand
        el = self.elevation_at(t)[cand]
        if policy == "max_elevation":
            order = np.argsort(-el, kind="stable")
        elif policy == "longest_visibility":
            order = np.lexsort((-el, -sets))
        elif policy == "min_delay":
            total = self.range_at(t)[cand] + self.ground_at(t)[cand]
            order = np.argsort(total, kind="stable")
        elif policy == "random":
            order = rng.permutation(len(cand))
        else:  # pragma: no cover - validated earlier
            raise ValueError(f"unknown policy {policy!r}")
        return cand[order]
