"""The hop network of a geometry-derived ``topology: hops`` scenario.

With ``topology: hops`` and an empty ``hops.nodes``, the scenario's paths are built exactly as
in path mode (:func:`leogym.scenario.timeline_builder.build_timeline`), and this module turns
the same geometry (scene, serving plans, ground sides, ISL router and its predecessor trees)
into a graph whose routes, collapsed end to end, give back each path's arrays.

**Nodes.** ``server`` (kind ``server``), ``client`` (``terminal``), ``sat<id>``
(``satellite``), ``gs:<name>`` (``ground_station``), and ``isp:<path name>`` (``router``) for
each terrestrial path. Only the satellites and ground stations that some route uses during
the episode are nodes (the union over the episode).

**Links** are keyed by their two nodes, so two routes through the same pair share the link
and its queues (:meth:`HopNetwork.validate` refuses a second link between a pair). Each is
named ``"<a>-<b>"``; ``down`` is ``a -> b``:

* ``sat<s>-client``, kind ``gsl`` (``a`` = the satellite, so ``down`` is toward the client):
  the terminal's access link;
* ``sat<s>-sat<t>``, kind ``isl``: ``a`` is the end nearer the server at the link's first use
  in time (the lower path index first at a tie);
* ``gs:<g>-sat<s>``, kind ``gsl`` (``a`` = the gateway): the feeder;
* ``server-gs:<g>``, kind ``backhaul``;
* ``server-isp:<p>``, kind ``terrestrial``: a terrestrial path's own arrays, and
  ``isp:<p>-client``, kind ``terrestrial``: delay 0, loss 0, :data:`ACCESS_BPS`.

Links that are never a bottleneck get :data:`UNLIMITED_BPS` (feeders; ISLs and backhauls
without a configured rate). Rates are divided by ``rate_scale`` as in path mode. Link arrays
are :class:`PathTimeline` objects: kind ``satellite`` for GSLs and ISLs, ``terrestrial``
otherwise; SNR NaN; a GSL's ``serving_sat`` is its satellite and its ``elevation_deg`` the
satellite's elevation at the terminal (-1 and NaN on the other links).

**Routes.** One per path, named after it, from the data source to the sink:
``[server, gs, egress sat, ..., serving sat, client]`` (ISL routing),
``[server, gs, sat, client]`` (bent pipe), ``[server, isp:<name>, client]`` (terrestrial). At
each grid sample the node list is the one path mode used there: the serving satellite of the
plan, the route of the predecessor tree and the gateway of the coarse geometry step (the same
``k``, ``f`` as :mod:`leogym.scenario.links.satpath`). A route step begins where that list changes;
its start time is the exact event (handover instant, end of a handover outage, coarse step
boundary) when one falls in the grid interval, else the grid sample. Consecutive equal lists
are one step. Two rules hold a node list where path mode has no usable one:

* **break-before-make**: during a handover's outage ``[t, t + outage_s)`` the route keeps the
  old node list, and the outage lies on the old GSL (the link being torn down); the new list
  takes over when the outage ends. So a path that migrates onto a satellite another path
  already uses (MACO's merge) does not cut that path's traffic. When another path's plan is
  served by the old satellite during the outage (the old GSL is shared), the route takes the
  new node list at ``t`` instead and the outage lies on the new GSL, so that it falls on
  whichever link the path does not share. A handover to the same satellite (a scheduled slot
  that keeps it) can only cut that one GSL;
* **no usable satellite or route** (dark or unreachable intervals, unknown positions): the
  route keeps the previous node list (the next one at the start of the episode; the satellite
  highest in the sky at ``t = 0`` if there is none) and the outage lies on its GSL.

**Split of the path's arrays.** Path mode's one-way delay is
``(r_ut + far) / c + backhaul + spike``. The feeder carries the gateway slant range / c and
each ISL its chord / c, both interpolated inside the coarse step exactly as path mode does
(so they add up to its ``far``), the backhaul ``backhaul_delay_ms``, and the GSL the rest:
``r_ut / c + spike``. With the ``envelope`` delay model every propagation leg is scaled by the
path's factor (modelled over geometric delay), so the legs add up to the modelled delay. Rates:
the GSL has the access rate before the ISL and backhaul caps (link budget or fixed, V-curve,
noise, ``min_rate_mbps`` floor), each ISL ``max(isl.rate_mbps, floor)``, the backhaul
``max(backhaul_rate_mbps, floor)`` (the floor keeps the path's ``max(min(rate, caps), floor)``
exact). Losses: each ISL has ``loss_per_hop``, the feeder and the backhaul 0, and the GSL the
rest (path loss, rain, handover window), so ``1 - prod(1 - p)`` is the path's loss. With
``satellite.bottleneck_gsl: gateway`` the feeder takes the GSL's rates (the GSL gets
:data:`UNLIMITED_BPS`) and the GSL's loss ``p`` is split into ``1 - sqrt(1 - p)`` on each of the
two (LEOTP's Producer-side uplink bottleneck, 1 % per GSL); the product is unchanged. The GSL's
delay and loss are computed as that rest (the path's value less the other links'), which keeps
the collapse exact at every sample, held ones included (a rest below 0 is clipped to 0: only
possible while a held node list is in an outage). Where no satellite serves, the GSL takes the
path's own (filled) rates.

**Outages.** The path's outage intervals go, step by step, on the GSL of the route step in
force (handover outages, dark and unreachable intervals). A GSL or feeder that no route uses
at some time keeps finite delays (its geometry) and rates > 0 (the nearest used values, linear
in between) there, and is in an outage while its satellite is below the terminal's (GSL) or
the gateway's (feeder) elevation mask.

**Sharing.** Two paths served by the same satellite at the same time use the same GSL (one
queue per direction: the point of hop mode), and the same feeder and backhaul when they land
at the same gateway. Where two paths would put different values on one link at the same
sample (different access rates or backhaul settings, a spike or an outage of one of them),
the lower path index wins: its values and outages stand, and a higher path's outage is left
off the link while a lower path uses it outside an outage. The collapse of the winning path
equals its path-mode arrays at every grid point; a losing path's equals them wherever it does
not share a link with a lower path at differing values. The queue of each link is the
``queue_packets`` of the lowest-index path that uses it.
"""

from __future__ import annotations

import numpy as np

from leogym.scenario.config import PathConfig
from leogym.scenario.constants import SPEED_OF_LIGHT_KM_S
from leogym.scenario.hops.geometry_grid import GeometryGrid, GeometrySources
from leogym.scenario.hops.geometry_links import (
    Leg,
    LinkDraft,
    finish_links,
    move_bottleneck_to_feeder,
    place_outages,
    swap_direction,
    symmetric,
)
from leogym.scenario.hops.graph import HopNetwork, HopNode, HopRoute
from leogym.scenario.links.arrays import LINK_ARRAYS, PathTimeline
from leogym.scenario.links.handover import HandoverEvent

__all__ = ["build_geometry_network", "UNLIMITED_BPS", "ACCESS_BPS"]

#: Rate (bit/s, before ``rate_scale``) of a link that is never the bottleneck: feeders, and
#: ISLs and backhauls without a configured capacity.
UNLIMITED_BPS = 1e11
#: Rate (bit/s, before ``rate_scale``) of the zero-delay link from a terrestrial path's router
#: to the client.
ACCESS_BPS = 1e12

_C = SPEED_OF_LIGHT_KM_S


class _Builder(GeometryGrid):
    """Lays out the routes of every path and the links they cross (see the module docstring);
    the links are finished by :mod:`leogym.scenario.hops.geometry_links`."""

    def __init__(self, src: GeometrySources) -> None:
        super().__init__(src)
        self.nodes: list[HopNode] = []
        self.node_ids: dict[str, int] = {}
        self.links: dict[tuple[int, int], LinkDraft] = {}
        self.link_order: list[tuple[int, int]] = []
        self.server = self.node("server", "server")
        self.client = self.node("client", "terminal")
        #: Serving satellite of each satellite path's plan at each sample.
        self.serving = {i: p.serving_at(self.times) for i, p in src.plans.items()}

    # ------------------------------------------------------------------ graph pieces
    def node(self, name: str, kind: str) -> int:
        """Index of node ``name``, added on first use."""
        if name not in self.node_ids:
            self.node_ids[name] = len(self.nodes)
            self.nodes.append(HopNode(name, kind))
        return self.node_ids[name]

    def sat_node(self, sat: int) -> int:
        return self.node(f"sat{sat}", "satellite")

    def gs_node(self, gs: int) -> int:
        assert self.src.scene is not None
        return self.node(f"gs:{self.src.scene.station_names[gs]}", "ground_station")

    def link(self, leg: Leg, t_first: float, path: int) -> LinkDraft:
        """The link of ``leg`` (created on first use; an ISL is re-oriented by an earlier use)."""
        key = (min(leg.u, leg.v), max(leg.u, leg.v))
        ln = self.links.get(key)
        if ln is None:
            values = {name: np.zeros(self.n) for name in LINK_ARRAYS}
            ln = LinkDraft(
                leg.kind,
                leg.u,
                leg.v,
                (t_first, path),
                values,
                np.full(self.n, -1, dtype=np.int64),
                sat=leg.sat,
                gs=leg.gs,
                sat2=leg.sat2,
            )
            self.links[key] = ln
            self.link_order.append(key)
        elif leg.kind == "isl" and (t_first, path) < ln.first_use:
            ln.first_use = (t_first, path)
            if ln.a != leg.u:
                ln.flip()
        return ln

    def lay(self, path: int, legs: list[Leg], sl: slice, t0: float, t1: float) -> list[LinkDraft]:
        """Put one route step's legs on their links (lower path index wins each sample)."""
        out = []
        for leg in legs:
            ln = self.link(leg, t0, path)
            fwd = ln.a == leg.u
            free = ln.owner[sl] == -1
            if free.any():
                idx = np.flatnonzero(free) + sl.start
                for name in LINK_ARRAYS:
                    src_name = name if fwd else swap_direction(name)
                    ln.values[name][idx] = leg.values[src_name][free]
                ln.owner[idx] = path
            ln.usage.setdefault(path, []).append((t0, t1))
            if ln.queue_path < 0:
                ln.queue_path = path
            out.append(ln)
        return out

    # ------------------------------------------------------------------ legs
    def satellite_legs(
        self,
        i: int,
        pc: PathConfig,
        pt: PathTimeline,
        chain: tuple[int, ...],
        sl: slice,
    ) -> list[Leg]:
        """The legs of route step ``chain`` = ``(gs, egress, ..., serving sat)`` on ``sl``."""
        src = self.src
        scene = src.scene
        assert scene is not None
        res = src.arrays[i]
        s = pc.satellite
        k = self.rate_scale
        floor = s.min_rate_mbps * 1e6
        m = sl.stop - sl.start
        scale = np.ones(m)
        if res.delay_scale is not None:
            scale = np.where(np.isfinite(res.delay_scale[sl]), res.delay_scale[sl], 1.0)
        gs, sats = chain[0], chain[1:]
        legs: list[Leg] = []
        backhaul = UNLIMITED_BPS
        if s.backhaul_rate_mbps is not None:
            backhaul = max(s.backhaul_rate_mbps * 1e6, floor)
        g_node, s_nodes = self.gs_node(gs), [self.sat_node(x) for x in sats]
        legs.append(
            Leg(
                self.server,
                g_node,
                "backhaul",
                symmetric(np.full(m, s.backhaul_delay_ms * 1e-3), backhaul / k, 0.0),
                gs=gs,
            )
        )
        feeder = scale * self.lerp_table(scene.gs_range_km[gs, :, sats[0]], sl) / _C
        legs.append(
            Leg(
                g_node,
                s_nodes[0],
                "gsl",
                symmetric(np.nan_to_num(feeder, nan=0.0), UNLIMITED_BPS / k, 0.0),
                sat=sats[0],
                gs=gs,
            )
        )
        isl = self.cfg.constellation.isl
        isl_rate = UNLIMITED_BPS if isl.rate_mbps is None else max(isl.rate_mbps * 1e6, floor)
        for x, y, nx, ny in zip(sats[:-1], sats[1:], s_nodes[:-1], s_nodes[1:], strict=True):
            chord = scale * self.chord_km(x, y, sl) / _C
            legs.append(
                Leg(
                    nx,
                    ny,
                    "isl",
                    symmetric(np.nan_to_num(chord, nan=0.0), isl_rate / k, isl.loss_per_hop),
                    sat=x,
                    sat2=y,
                )
            )
        # The GSL: the rest of the path's delay and loss, the access rate.
        delay = {"delay_down_s": np.zeros(m), "delay_up_s": np.zeros(m)}
        keep = {"loss_down": np.ones(m), "loss_up": np.ones(m)}
        for leg in legs:
            for name in delay:
                delay[name] = delay[name] + leg.values[name]
            for name in keep:
                keep[name] = keep[name] * (1.0 - leg.values[name])
        valid = res.serving_sat[sl] >= 0
        assert res.access_rate_down_bps is not None
        down = np.maximum(res.access_rate_down_bps[sl], floor) / k
        rate_down = np.where(valid, down, pt.rate_down_bps[sl])
        if res.access_rate_up_bps is None:
            rate_up = rate_down.copy()
        else:
            up = max(res.access_rate_up_bps, floor) / k
            rate_up = np.where(valid, up, pt.rate_up_bps[sl])
        gsl = {
            "delay_down_s": np.maximum(pt.delay_down_s[sl] - delay["delay_down_s"], 0.0),
            "delay_up_s": np.maximum(pt.delay_up_s[sl] - delay["delay_up_s"], 0.0),
            "rate_down_bps": rate_down,
            "rate_up_bps": rate_up,
            "loss_down": np.clip(1.0 - (1.0 - pt.loss_down[sl]) / keep["loss_down"], 0.0, 1.0),
            "loss_up": np.clip(1.0 - (1.0 - pt.loss_up[sl]) / keep["loss_up"], 0.0, 1.0),
        }
        if s.bottleneck_gsl == "gateway":
            move_bottleneck_to_feeder(legs[1].values, gsl, UNLIMITED_BPS / k)
        legs.append(Leg(s_nodes[-1], self.client, "gsl", gsl, sat=sats[-1]))
        return legs

    # ------------------------------------------------------------------ node lists
    def _chains(self, i: int, pc: PathConfig) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        """Per sample, the index of the satellite chain ``(gs, egress, ..., serving sat)`` in
        force, and the chains (see "Routes" in the module docstring)."""
        src = self.src
        scene = src.scene
        assert scene is not None
        plan = src.plans[i]
        side = src.sides[i]
        res = src.arrays[i]
        h = self.cfg.handover
        sat = plan.serving_at(self.times).astype(np.int64)
        held = res.serving_sat < 0
        for e in self._held_handovers(i):
            held |= (self.times >= e.t_s) & (self.times < e.t_s + h.outage_s)
        ids = np.full(self.n, -1, dtype=np.int64)
        chains: list[tuple[int, ...]] = []
        known: dict[tuple[int, ...], int] = {}
        own = np.flatnonzero(~held)
        if len(own):
            keys = self.k[own] * scene.num_sats + sat[own]
            uniq, inv = np.unique(keys, return_inverse=True)
            cid = np.empty(len(uniq), dtype=np.int64)
            for u, key in enumerate(uniq.tolist()):
                k, first = divmod(int(key), scene.num_sats)
                if pc.satellite.routing == "isl":
                    assert src.router is not None
                    route = src.router.route(src.preds[i][k], first)
                    gs = int(side.choice[k, route[-1]])
                    chain = (gs, *reversed(route))
                else:
                    gs = int(side.choice[k, first])
                    if gs < 0:
                        gs = int(side.fallback[k, first])
                    chain = (gs, first)
                cid[u] = known.setdefault(chain, len(known))
                if cid[u] == len(chains):
                    chains.append(chain)
            ids[own] = cid[np.asarray(inv).reshape(-1)]
        else:
            elev = np.nan_to_num(scene.ut_elevation_deg[0], nan=-np.inf)
            first = int(np.argmax(elev))
            chains.append((int(side.fallback[0, first]), first))
            ids[:] = 0
        # hold: the previous chain, or the next one before the first
        pos = np.where(ids >= 0, np.arange(self.n), -1)
        pos = np.maximum.accumulate(pos)
        lead = pos < 0
        pos[lead] = int(np.flatnonzero(ids >= 0)[0])
        return ids[pos], chains

    def _held_handovers(self, i: int) -> list[HandoverEvent]:
        """The handovers of path ``i`` during whose outage its route keeps the old node list:
        those with an outage, from a satellite that no other path's plan serves during it."""
        h = self.cfg.handover
        if h.outage_s <= 0:
            return []
        out = []
        for e in self.src.plans[i].events:
            if not e.effects or e.t_s > self.duration or e.sat_from < 0:
                continue
            window = (self.times >= e.t_s) & (self.times < e.t_s + h.outage_s)
            shared = any(
                np.any(other[window] == e.sat_from) for j, other in self.serving.items() if j != i
            )
            if not shared:
                out.append(e)
        return out

    def _step_times(self, i: int, starts: np.ndarray) -> np.ndarray:
        """Start time of the route steps beginning at samples ``starts`` (see "Routes")."""
        src = self.src
        plan = src.plans[i]
        h = self.cfg.handover
        cands = [float(t) for t in plan.starts[1:]]
        cands += [e.t_s + h.outage_s for e in self._held_handovers(i)]
        if src.scene is not None:
            cands += (np.arange(1, src.scene.num_steps) * src.scene.dt_s).tolist()
        cand = np.unique(np.asarray(cands, dtype=np.float64))
        out = np.zeros(len(starts))
        for m, j in enumerate(starts.tolist()):
            if j == 0:
                continue
            t, prev = float(self.times[j]), float(self.times[j - 1])
            c = int(np.searchsorted(cand, t, side="right")) - 1
            out[m] = cand[c] if c >= 0 and cand[c] > prev else t
        return out

    def satellite_route(self, i: int, pc: PathConfig, pt: PathTimeline) -> HopRoute:
        ids, chains = self._chains(i, pc)
        starts = np.concatenate([[0], np.flatnonzero(np.diff(ids) != 0) + 1])
        step_times = self._step_times(i, starts)
        ends = np.append(starts[1:], self.n)
        lists = []
        for m, (j0, j1) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            chain = chains[int(ids[j0])]
            legs = self.satellite_legs(i, pc, pt, chain, slice(j0, j1))
            t1 = float(step_times[m + 1]) if m + 1 < len(step_times) else np.inf
            self.lay(i, legs, slice(j0, j1), float(step_times[m]), t1)
            lists.append(np.asarray([self.server, *[leg.v for leg in legs]], dtype=np.int64))
        return HopRoute(pt.name, step_times, lists)

    def terrestrial_route(self, i: int, pt: PathTimeline) -> HopRoute:
        isp = self.node(f"isp:{pt.name}", "router")
        sl = slice(0, self.n)
        carried = {name: np.asarray(getattr(pt, name), dtype=np.float64) for name in LINK_ARRAYS}
        access = symmetric(np.zeros(self.n), ACCESS_BPS / self.rate_scale, 0.0)
        legs = [
            Leg(self.server, isp, "terrestrial", carried),
            Leg(isp, self.client, "terrestrial", access),
        ]
        self.lay(i, legs, sl, 0.0, np.inf)
        return HopRoute(
            pt.name, np.zeros(1), [np.asarray([self.server, isp, self.client], dtype=np.int64)]
        )


def build_geometry_network(src: GeometrySources, paths: list[PathTimeline]) -> HopNetwork:
    """Build the hop network of a geometry-derived scenario (see the module docstring).

    :param src: the geometry ``build_timeline`` used for the paths.
    :param paths: the timeline's paths as path mode builds them (rates after ``rate_scale``).
    :return: the validated network; route ``i`` is path ``i``'s.
    """
    b = _Builder(src)
    routes: list[HopRoute] = []
    for i, (pc, pt) in enumerate(zip(src.cfg.paths, paths, strict=True)):
        if pc.kind == "terrestrial":
            routes.append(b.terrestrial_route(i, pt))
        else:
            routes.append(b.satellite_route(i, pc, pt))
    place_outages(b.links, routes, paths)
    links = finish_links(b, b.nodes, b.links, b.link_order, paths)
    net = HopNetwork(b.nodes, links, routes, list(range(len(paths))))
    return net.validate("scenario.hops")
