"""The links of a geometry-derived hop network (:mod:`leogym.scenario.hops.geometry`) while its
routes are laid out (:class:`LinkDraft`, one hop of a route step: :class:`Leg`), and their
completion into :class:`~leogym.scenario.hops.graph.HopLink` objects: each path's outages on
the link that cuts its route step (:func:`place_outages`), then the outages resolved between
paths, the samples no route uses filled and the arrays assembled (:func:`finish_links`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leogym.scenario.constants import SPEED_OF_LIGHT_KM_S
from leogym.scenario.hops.geometry_grid import GeometryGrid
from leogym.scenario.hops.graph import HopLink, HopNode, HopRoute
from leogym.scenario.links.arrays import LINK_ARRAYS, PathTimeline
from leogym.scenario.links.intervals import (
    Interval,
    false_runs,
    merge_intervals,
    subtract_intervals,
)

__all__ = [
    "Leg",
    "LinkDraft",
    "fill_unused",
    "finish_links",
    "move_bottleneck_to_feeder",
    "place_outages",
    "swap_direction",
    "symmetric",
]

_C = SPEED_OF_LIGHT_KM_S


@dataclass
class LinkDraft:
    """A link while the routes are laid out: its arrays, who set them, who uses it when."""

    kind: str
    a: int
    b: int
    #: Time and path of the use that fixed the orientation.
    first_use: tuple[float, int]
    values: dict[str, np.ndarray]
    #: Path index whose values each sample holds (-1: no route uses the link there).
    owner: np.ndarray
    #: Per path: ``[start, end)`` intervals in which one of its route steps crosses the link.
    usage: dict[int, list[Interval]] = field(default_factory=dict)
    #: Per path: pieces of its outages that fall on this link.
    outages: dict[int, list[Interval]] = field(default_factory=dict)
    #: The lowest path index that uses the link (its queue is that path's).
    queue_path: int = -1
    #: Satellite and ground-station index of a GSL (``gs = -1``) or feeder, and the two
    #: satellites of an ISL (``sat``, ``sat2``), for the unused samples.
    sat: int = -1
    gs: int = -1
    sat2: int = -1

    def flip(self) -> None:
        """Swap the ends (and so the directions) of the link."""
        self.a, self.b = self.b, self.a
        v = self.values
        for x, y in (("delay_down_s", "delay_up_s"), ("rate_down_bps", "rate_up_bps")):
            v[x], v[y] = v[y], v[x]
        v["loss_down"], v["loss_up"] = v["loss_up"], v["loss_down"]


@dataclass
class Leg:
    """One hop of a route step: its nodes (data direction) and values on the step's samples."""

    u: int
    v: int
    kind: str
    values: dict[str, np.ndarray]
    sat: int = -1
    gs: int = -1
    sat2: int = -1


def symmetric(delay: np.ndarray, rate: float | np.ndarray, loss: float) -> dict[str, np.ndarray]:
    """The six arrays of a link that is the same both ways (the delay, a rate, a loss)."""
    m = len(delay)
    r = np.broadcast_to(np.asarray(rate, dtype=np.float64), (m,)).copy()
    return {
        "delay_down_s": delay,
        "delay_up_s": delay.copy(),
        "rate_down_bps": r,
        "rate_up_bps": r.copy(),
        "loss_down": np.full(m, float(loss)),
        "loss_up": np.full(m, float(loss)),
    }


def move_bottleneck_to_feeder(
    feeder: dict[str, np.ndarray], access: dict[str, np.ndarray], unlimited_bps: float
) -> None:
    """``bottleneck_gsl: gateway``: the access link's rates go to the (lossless, unlimited)
    feeder, the access link becomes unlimited, and the access link's loss ``p`` (the rest of
    the path's) is split into ``1 - sqrt(1 - p)`` on each, so the product is unchanged."""
    for name in ("rate_down_bps", "rate_up_bps"):
        feeder[name] = access[name]
        access[name] = np.full(len(access[name]), unlimited_bps)
    for name in ("loss_down", "loss_up"):
        each = 1.0 - np.sqrt(1.0 - access[name])
        feeder[name] = each
        access[name] = each.copy()


def swap_direction(name: str) -> str:
    """The opposite direction's field name (``delay_down_s`` <-> ``delay_up_s``, ...)."""
    if "_down" in name:
        return name.replace("_down", "_up")
    return name.replace("_up", "_down")


def fill_unused(values: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """``values`` where ``ok``; elsewhere linear in the sample index between the nearest ``ok``
    samples (held flat beyond the first and last)."""
    if ok.all() or not ok.any():
        return values
    idx = np.arange(len(values))
    out = values.copy()
    out[~ok] = np.interp(idx[~ok], idx[ok], values[ok])
    return out


def place_outages(
    links: dict[tuple[int, int], LinkDraft], routes: list[HopRoute], paths: list[PathTimeline]
) -> None:
    """Put each path's outage intervals on the link that cuts its route step in force: the
    GSL of a satellite path, the router's uplink of a terrestrial one."""
    for i, (route, pt) in enumerate(zip(routes, paths, strict=True)):
        st = route.step_times_s
        for k, nodes in enumerate(route.nodes):
            t0 = float(st[k])
            t1 = float(st[k + 1]) if k + 1 < len(st) else np.inf
            u, v = (
                (int(nodes[-2]), int(nodes[-1]))
                if pt.kind == "satellite"
                else (
                    int(nodes[0]),
                    int(nodes[1]),
                )
            )
            ln = links[(min(u, v), max(u, v))]
            for a, b in pt.outages.reshape(-1, 2).tolist():
                lo, hi = max(a, t0), min(b, t1)
                if hi > lo:
                    ln.outages.setdefault(i, []).append((lo, hi))


def _geometry_delay_s(grid: GeometryGrid, ln: LinkDraft) -> np.ndarray | None:
    """Propagation delay of a satellite link from the geometry alone (unused samples)."""
    scene = grid.src.scene
    if scene is None or ln.kind not in ("gsl", "isl"):
        return None
    sl = slice(0, grid.n)
    if ln.kind == "isl":
        return grid.chord_km(ln.sat, ln.sat2, sl) / _C
    if ln.gs < 0:
        return grid.lerp_table(scene.ut_range_km[:, ln.sat], sl) / _C
    return grid.lerp_table(scene.gs_range_km[ln.gs, :, ln.sat], sl) / _C


def _below_mask(grid: GeometryGrid, ln: LinkDraft) -> np.ndarray | None:
    """Samples at which a GSL's (feeder's) satellite is below the terminal's (gateway's)
    elevation mask."""
    scene = grid.src.scene
    if scene is None or ln.kind != "gsl":
        return None
    sl = slice(0, grid.n)
    if ln.gs < 0:
        elev = grid.lerp_table(scene.ut_elevation_deg[:, ln.sat], sl)
        mask = scene.ut_mask_deg
    else:
        elev = grid.lerp_table(scene.gs_elevation_deg[ln.gs, :, ln.sat], sl)
        mask = float(scene.station_masks[ln.gs])
    return ~(np.nan_to_num(elev, nan=-90.0) >= mask)


def finish_links(
    grid: GeometryGrid,
    nodes: list[HopNode],
    links: dict[tuple[int, int], LinkDraft],
    order: list[tuple[int, int]],
    paths: list[PathTimeline],
) -> list[HopLink]:
    """Resolve outages, fill unused samples, and turn the drafts (``links``, in ``order``)
    into links."""
    out_sets = [
        [(float(a), float(b)) for a, b in pt.outages.reshape(-1, 2).tolist()] for pt in paths
    ]
    out = []
    for key in order:
        ln = links[key]
        # Outages: a path's pieces stand except where a lower path uses the link while it
        # is not in an outage itself.
        pieces: list[Interval] = []
        for i in sorted(ln.outages):
            busy: list[Interval] = []
            for j, use in ln.usage.items():
                if j < i:
                    busy += subtract_intervals(use, out_sets[j])
            pieces += subtract_intervals(ln.outages[i], busy)
        used = ln.owner >= 0
        below = _below_mask(grid, ln)
        if below is not None and (below & ~used).any():
            all_use = [iv for use in ln.usage.values() for iv in use]
            free_below = false_runs(~(below & ~used), grid.times, grid.src.dt)
            pieces += subtract_intervals(free_below, all_use)
        # Values where no route uses the link.
        values = dict(ln.values)
        if not used.all():
            geo = _geometry_delay_s(grid, ln)
            for name in LINK_ARRAYS:
                filled = fill_unused(values[name], used)
                if geo is not None and name.startswith("delay"):
                    ok = ~used & np.isfinite(geo)
                    filled[ok] = geo[ok]
                values[name] = filled
        sat = ln.sat if (ln.kind == "gsl" and ln.gs < 0) else -1
        elevation = np.full(grid.n, np.nan)
        if sat >= 0 and grid.src.scene is not None:
            elevation = grid.lerp_table(grid.src.scene.ut_elevation_deg[:, sat], slice(0, grid.n))
        a = nodes[ln.a].name
        b = nodes[ln.b].name
        v: dict[str, Any] = {
            name: np.ascontiguousarray(values[name], dtype=np.float64) for name in LINK_ARRAYS
        }
        arrays = PathTimeline(
            name=f"{a}-{b}",
            kind="satellite" if ln.kind in ("gsl", "isl") else "terrestrial",
            **v,  # the six per-direction link arrays (LINK_ARRAYS)
            snr_db=np.full(grid.n, np.nan),
            elevation_deg=np.ascontiguousarray(elevation, dtype=np.float64),
            serving_sat=np.full(grid.n, sat, dtype=np.int32),
            outages=merge_intervals(pieces, grid.duration),
            handovers=np.zeros(0),
            queue_packets=paths[ln.queue_path].queue_packets,
        )
        out.append(HopLink(f"{a}-{b}", ln.kind, ln.a, ln.b, arrays))
    return out
