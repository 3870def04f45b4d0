"""Inter-satellite links: the +Grid topology and shortest-delay routing to the ground.

+Grid (the usual LEO ISL pattern, e.g. Hypatia's ``isls_plus_grid``; NS-2's Iridium model): each
satellite links to its two in-plane neighbours (a ring) and to the same-index satellite of the
two adjacent planes. In a Walker-star constellation the first and last planes counter-rotate
across the seam and are not linked unless ``cross_seam``. Inter-plane links can be switched off
above a latitude (NS-2 Iridium: 60 deg). Link lengths are the chords between satellite
positions, so delays follow the geometry at every step.

Routing is Dijkstra (``scipy.sparse.csgraph``) on a graph of satellites plus one virtual node
for "the ground side of this path", linked to every satellite that a gateway sees above its mask
with the gateway's slant range as weight. One run from the virtual node gives, for every
satellite, the shortest distance to the ground and the route (predecessor tree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from leogym.scenario.orbital.frames import ecef_to_latlon

__all__ = ["IslTopology", "plus_grid", "ShortestPaths"]


@dataclass(frozen=True)
class IslTopology:
    """Undirected ISL edges of a constellation.

    :param edges: ``(E, 2)`` satellite ids.
    :param interplane: ``(E,)`` True for inter-plane links.
    :param num_sats: number of satellites.
    """

    edges: np.ndarray
    interplane: np.ndarray
    num_sats: int


def plus_grid(num_planes: int, sats_per_plane: int, star: bool, cross_seam: bool) -> IslTopology:
    """Build the +Grid topology for contiguous ids ``p * S + j``.

    :param num_planes: P.
    :param sats_per_plane: S.
    :param star: Walker-star (a seam between the last and first plane).
    :param cross_seam: link the seam anyway.
    """
    p = np.arange(num_planes)
    j = np.arange(sats_per_plane)
    pp, jj = np.meshgrid(p, j, indexing="ij")
    ids = (pp * sats_per_plane + jj).ravel()
    edges = []
    inter = []
    if sats_per_plane > 1:
        nxt = (pp * sats_per_plane + (jj + 1) % sats_per_plane).ravel()
        intra = np.stack([ids, nxt], axis=1)
        if sats_per_plane == 2:  # the ring 0-1-0 is a single link
            intra = intra[jj.ravel() == 0]
        edges.append(intra)
        inter.append(np.zeros(len(intra), dtype=bool))
    if num_planes > 1:
        last = num_planes if (not star or cross_seam) else num_planes - 1
        if num_planes == 2:  # plane 1 -> 0 would repeat the 0 -> 1 links
            last = 1
        src_planes = p[:last]
        sp, sj = np.meshgrid(src_planes, j, indexing="ij")
        a = (sp * sats_per_plane + sj).ravel()
        b = (((sp + 1) % num_planes) * sats_per_plane + sj).ravel()
        cross = np.stack([a, b], axis=1)
        edges.append(cross)
        inter.append(np.ones(len(cross), dtype=bool))
    if not edges:
        return IslTopology(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=bool), len(ids))
    return IslTopology(
        np.concatenate(edges).astype(np.int64), np.concatenate(inter), num_planes * sats_per_plane
    )


class ShortestPaths:
    """Shortest-delay routes from every satellite to a path's ground side, per geometry step.

    :param topology: the ISLs.
    :param positions: Earth-fixed satellite positions, ``(K, S, 3)`` km.
    :param interplane_max_lat_deg: disable inter-plane links above this |latitude| (or None).
    """

    def __init__(
        self,
        topology: IslTopology,
        positions: np.ndarray,
        interplane_max_lat_deg: float | None,
    ) -> None:
        self.topology = topology
        self.positions = positions
        e = topology.edges
        diff = positions[:, e[:, 0], :] - positions[:, e[:, 1], :]
        #: ``(K, E)`` chord lengths (km); NaN where a satellite position is unknown.
        self.lengths = np.sqrt(np.einsum("kei,kei->ke", diff, diff))
        up = np.isfinite(self.lengths)
        if interplane_max_lat_deg is not None and len(e):
            lat, _ = ecef_to_latlon(positions)
            high = np.abs(lat) > interplane_max_lat_deg
            blocked = (high[:, e[:, 0]] | high[:, e[:, 1]]) & topology.interplane[None, :]
            up &= ~blocked
        #: ``(K, E)`` whether each link is usable at each step.
        self.up = up

    def solve(
        self, k: int, ground_cost_km: np.ndarray, avoid_edges: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Dijkstra from the ground node at step ``k``.

        :param k: geometry step.
        :param ground_cost_km: ``(S,)`` gateway slant range of each satellite (inf = not seen).
        :param avoid_edges: boolean ``(E,)`` mask of links to leave out (link-disjoint routing).
        :return: ``(dist_km (S,), predecessors (S + 1,))``; node ``S`` is the ground node.
        """
        s = self.topology.num_sats
        e = self.topology.edges
        mask = self.up[k].copy()
        if avoid_edges is not None:
            mask &= ~avoid_edges
        seen = np.flatnonzero(np.isfinite(ground_cost_km))
        rows = np.concatenate([e[mask, 0], np.full(len(seen), s)])
        cols = np.concatenate([e[mask, 1], seen])
        w = np.concatenate([self.lengths[k, mask], ground_cost_km[seen]])
        w = np.maximum(w, 1e-9)  # csgraph drops explicit zeros
        graph = csr_matrix((w, (rows, cols)), shape=(s + 1, s + 1))
        # scipy-stubs types `indices` as an array only; scipy takes one int too (1-D results).
        dist, pred = dijkstra(  # type: ignore[call-overload]
            graph, directed=False, indices=s, return_predecessors=True
        )
        return dist[:s], pred

    def route(self, pred: np.ndarray, sat: int) -> list[int]:
        """Satellites from ``sat`` to the egress satellite (inclusive), following ``pred``.

        :return: the satellite sequence, or ``[]`` when ``sat`` cannot reach the ground.
        """
        s = self.topology.num_sats
        nodes = [sat]
        node = sat
        while True:
            nxt = int(pred[node])
            if nxt < 0:
                return []
            if nxt == s:
                return nodes
            nodes.append(nxt)
            node = nxt
            if len(nodes) > s:
                return []

    def edge_ids(self, route: list[int]) -> np.ndarray:
        """Boolean ``(E,)`` mask of the links a route uses."""
        e = self.topology.edges
        mask = np.zeros(len(e), dtype=bool)
        if len(route) < 2:
            return mask
        pairs = {(min(a, b), max(a, b)) for a, b in zip(route[:-1], route[1:], strict=True)}
        lo = np.minimum(e[:, 0], e[:, 1])
        hi = np.maximum(e[:, 0], e[:, 1])
        for a, b in pairs:
            mask |= (lo == a) & (hi == b)
        return mask

    def chord_sum(self, k: int, route: list[int]) -> float:
        """Length (km) of the ISL part of ``route`` at step ``k``."""
        if len(route) < 2:
            return 0.0
        a = self.positions[k, route[:-1], :]
        b = self.positions[k, route[1:], :]
        return float(np.sum(np.linalg.norm(a - b, axis=1)))
