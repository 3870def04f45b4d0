"""The hop network: nodes, links and routes of a ``topology: hops`` scenario.

In path mode (the default) each path is one link between the client and the server: the
satellite route, its ISLs and its ground station are folded into one delay, rate and loss
(``docs/scenario.md``, "Path and hop topologies"). In hop mode the same geometry is kept as a
graph: one node per terminal, satellite, ground station, server or router, one link per
physical link (GSL, ISL, backhaul, terrestrial access), and for each route (a transport
path or an extra flow) the node list in force at each routing step.

* **Links are keyed by physical identity** (their two nodes), so two routes over the same GSL
  or ISL share its queue. Each link carries the arrays of a
  :class:`~leogym.scenario.timeline.PathTimeline` on the timeline grid: ``*_down`` is the
  direction ``a -> b`` (``a`` is the node nearer the data source at the link's first use),
  ``*_up`` is ``b -> a``. A link that does not physically exist at a time (satellite below the
  mask, ISL switched off) is in an outage then.
* **Routes** list nodes from the data source (the server side) to the data sink (the client
  side); step ``k`` is in force on ``[step_times_s[k], step_times_s[k + 1])``.
* :attr:`HopNetwork.path_routes` names the route of each of the timeline's paths: the
  timeline's :class:`PathTimeline` of a path is its route collapsed end to end
  (:meth:`HopNetwork.collapse`), so the handover oracle, the env features and MACO's, ALCS's
  and freeze's inputs keep their meaning in hop mode.

The native core receives it through :func:`leogym.simulation.native_network`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from leogym.scenario.links.arrays import LinkArrays, PathTimeline
from leogym.schema import FieldError

__all__ = [
    "NODE_KINDS",
    "LINK_KINDS",
    "MAX_NODES",
    "MAX_LINKS",
    "MAX_ROUTE_STEPS",
    "TIMELINE_BYTES_PER_SAMPLE",
    "timeline_bytes",
    "HopNode",
    "HopLink",
    "HopRoute",
    "HopNetwork",
    "CollapsedRoute",
    "outage_mask",
]

#: What a node is.
NODE_KINDS = ("terminal", "satellite", "ground_station", "server", "router")
#: What a link is: ground-to-satellite, inter-satellite, ground station to server, a terrestrial
#: access path, or a link of a controlled (geometry-free) network.
LINK_KINDS = ("gsl", "isl", "backhaul", "terrestrial", "link")

#: Limits of one hop network (documented in docs/scenario.md): beyond them one episode's arrays
#: and ns-3 nodes no longer fit comfortably in memory (each link holds 6 float64 arrays of the
#: timeline's length, ~2.9 MB for a 300 s episode on a 10 ms grid).
MAX_NODES = 4096
MAX_LINKS = 8192
MAX_ROUTE_STEPS = 100_000
#: Timeline samples times links: 2e8 float64 samples x 6 arrays is ~9.6 GB; refuse above it.
MAX_LINK_SAMPLES = 200_000_000
#: Bytes one timeline sample of one path or hop link costs at ``reset()``'s peak: the Python
#: arrays (8 float64 + 1 int32, 68 B), the core's copies (6 float64) and the builders'
#: temporaries. Measured: 215 B for a 2-link network of 1e6 samples (6.6 GB at 1e7 samples).
TIMELINE_BYTES_PER_SAMPLE = 216


def timeline_bytes(samples: int, paths: int, links: int) -> int:
    """The memory (bytes) a timeline of ``samples`` grid points over ``paths`` paths and
    ``links`` hop links needs at ``reset()`` (:data:`TIMELINE_BYTES_PER_SAMPLE` each)."""
    return samples * (paths + links) * TIMELINE_BYTES_PER_SAMPLE


@dataclass
class HopNode:
    """One node of the hop graph."""

    name: str
    #: One of :data:`NODE_KINDS`.
    kind: str


@dataclass
class HopLink:
    """One physical link between nodes ``a`` and ``b`` (indices into :attr:`HopNetwork.nodes`).

    ``arrays`` holds its delay, rate and loss per direction (``down`` = ``a -> b``), its
    outages and its drop-tail queue (``queue_packets``, per transmitting device).
    """

    name: str
    #: One of :data:`LINK_KINDS`.
    kind: str
    a: int
    b: int
    arrays: PathTimeline


@dataclass
class HopRoute:
    """The node list of one route at each routing step (source first)."""

    name: str
    #: float64[k]: start of each step (s), strictly increasing, the first 0.
    step_times_s: np.ndarray
    #: One int array of node indices per step, the data source first and the sink last.
    nodes: list[np.ndarray]

    def step_at(self, t: float) -> int:
        """Index of the step in force at ``t``."""
        return max(int(np.searchsorted(self.step_times_s, t, side="right")) - 1, 0)


@dataclass
class CollapsedRoute(LinkArrays):
    """A route's end-to-end view on the timeline grid (what path mode would see)."""

    #: bool[n]: some link of the route in force is in an outage.
    in_outage: np.ndarray


@dataclass
class HopNetwork:
    """The graph of a hop scenario (see the module docstring)."""

    nodes: list[HopNode]
    links: list[HopLink]
    routes: list[HopRoute]
    #: Route index of each of the timeline's paths (the connection's transport paths).
    path_routes: list[int]
    _pairs: dict[tuple[int, int], int] = field(default_factory=dict, init=False, repr=False)

    # ------------------------------------------------------------------ lookup
    def node_index(self, name: str) -> int:
        """Index of the node called ``name``."""
        for i, nd in enumerate(self.nodes):
            if nd.name == name:
                return i
        raise KeyError(name)

    def route_index(self, name: str) -> int:
        """Index of the route called ``name``."""
        for i, r in enumerate(self.routes):
            if r.name == name:
                return i
        raise KeyError(name)

    def link_between(self, u: int, v: int) -> int:
        """Index of the link joining nodes ``u`` and ``v`` (either orientation), -1 if none."""
        if not self._pairs:
            for i, ln in enumerate(self.links):
                self._pairs[(ln.a, ln.b)] = i
                self._pairs[(ln.b, ln.a)] = i
        return self._pairs.get((u, v), -1)

    # ------------------------------------------------------------------ checks
    def validate(self, path: str = "scenario.hops") -> HopNetwork:
        """Check the graph before it reaches the core.

        :raises FieldError: naming the field, for an unknown node kind, a link joining a node
            to itself or to an unknown node, two links between the same nodes, a route through
            an unknown node or a missing link, a route that visits a node twice (a loop), a
            route with fewer than two nodes or badly ordered steps, a path without a route,
            and a graph above the documented limits.
        """
        n_nodes = len(self.nodes)
        if n_nodes < 2:
            raise FieldError(f"{path}.nodes", "a hop network needs at least two nodes")
        if n_nodes > MAX_NODES:
            raise FieldError(f"{path}.nodes", f"at most {MAX_NODES} nodes (got {n_nodes})")
        if len(self.links) > MAX_LINKS:
            raise FieldError(f"{path}.links", f"at most {MAX_LINKS} links (got {len(self.links)})")
        names: set[str] = set()
        for i, nd in enumerate(self.nodes):
            if nd.kind not in NODE_KINDS:
                raise FieldError(f"{path}.nodes[{i}].kind", f"must be one of {NODE_KINDS}")
            if nd.name in names:
                raise FieldError(f"{path}.nodes[{i}].name", f"duplicate node {nd.name!r}")
            names.add(nd.name)
        samples = 0
        seen: dict[tuple[int, int], int] = {}
        for i, ln in enumerate(self.links):
            where = f"{path}.links[{i}]"
            if ln.kind not in LINK_KINDS:
                raise FieldError(f"{where}.kind", f"must be one of {LINK_KINDS}")
            for end in ("a", "b"):
                idx = getattr(ln, end)
                if not 0 <= idx < n_nodes:
                    raise FieldError(f"{where}.{end}", f"unknown node {idx}")
            if ln.a == ln.b:
                raise FieldError(where, f"joins node {self.nodes[ln.a].name!r} to itself")
            key = (min(ln.a, ln.b), max(ln.a, ln.b))
            if key in seen:
                raise FieldError(
                    where,
                    f"a second link between {self.nodes[ln.a].name!r} and "
                    f"{self.nodes[ln.b].name!r} (links are keyed by their two nodes)",
                )
            seen[key] = i
            samples += len(ln.arrays.delay_down_s)
        if samples > MAX_LINK_SAMPLES:
            raise FieldError(
                f"{path}.links",
                f"{samples} link samples exceed the limit {MAX_LINK_SAMPLES} "
                "(shorten the episode, coarsen timeline_dt_s or use fewer links)",
            )
        self._pairs.clear()
        for r_i, route in enumerate(self.routes):
            where = f"{path}.routes[{r_i}]"
            st = np.asarray(route.step_times_s, dtype=np.float64)
            if st.ndim != 1 or len(st) == 0 or len(st) != len(route.nodes):
                raise FieldError(f"{where}.step_times_s", "one start time per step expected")
            if len(st) > MAX_ROUTE_STEPS:
                raise FieldError(f"{where}.step_times_s", f"at most {MAX_ROUTE_STEPS} steps")
            if st[0] != 0.0 or not np.all(np.isfinite(st)) or np.any(np.diff(st) <= 0):
                raise FieldError(
                    f"{where}.step_times_s", "must start at 0 and increase strictly (finite)"
                )
            for k, nodes in enumerate(route.nodes):
                self._check_route_step(f"{where}.nodes[{k}]", np.asarray(nodes))
        if not self.path_routes:
            raise FieldError(f"{path}.path_routes", "every path needs a route")
        for i, r in enumerate(self.path_routes):
            if not 0 <= r < len(self.routes):
                raise FieldError(f"{path}.path_routes[{i}]", f"no route {r}")
        return self

    def _check_route_step(self, where: str, nodes: np.ndarray) -> None:
        n_nodes = len(self.nodes)
        if nodes.ndim != 1 or len(nodes) < 2:
            raise FieldError(where, "a route needs at least two nodes")
        for j, v in enumerate(nodes.tolist()):
            if not 0 <= v < n_nodes:
                raise FieldError(f"{where}[{j}]", f"unknown node {v}")
        if len(set(nodes.tolist())) != len(nodes):
            names = [self.nodes[v].name for v in nodes.tolist()]
            raise FieldError(where, f"the route visits a node twice (a loop): {names}")
        for u, v in zip(nodes[:-1].tolist(), nodes[1:].tolist(), strict=True):
            if self.link_between(u, v) < 0:
                raise FieldError(
                    where,
                    f"no link between {self.nodes[u].name!r} and {self.nodes[v].name!r}",
                )

    # ------------------------------------------------------------------ end-to-end view
    def collapse(self, route: int, times: np.ndarray) -> CollapsedRoute:
        """The end-to-end arrays of route ``route`` on the timeline grid ``times`` (the link
        arrays' own sample times, non-decreasing: they are indexed sample by sample).

        At each time, the step in force gives the node list; delays add up along it, loss
        probabilities compound as independent Bernoulli drops (``1 - prod(1 - p)``), the rate
        is the smallest link rate, and the route is in an outage if any of its links is.

        The samples of one step are a contiguous run of the grid, so the cost is linear in
        the samples, the steps' hops and the links' outages (a timetable of ``k`` steps is not
        scanned ``k`` times).
        """
        r = self.routes[route]
        n = len(times)
        out = CollapsedRoute(
            delay_down_s=np.zeros(n),
            delay_up_s=np.zeros(n),
            rate_down_bps=np.full(n, np.inf),
            rate_up_bps=np.full(n, np.inf),
            loss_down=np.zeros(n),
            loss_up=np.zeros(n),
            in_outage=np.zeros(n, dtype=bool),
        )
        keep_down = np.ones(n)
        keep_up = np.ones(n)
        step = np.clip(np.searchsorted(r.step_times_s, times, side="right") - 1, 0, None)
        bounds = np.searchsorted(step, np.arange(len(r.nodes) + 1), side="left").tolist()
        down: dict[int, np.ndarray] = {}
        for k, nodes in enumerate(r.nodes):
            sel = slice(bounds[k], bounds[k + 1])
            if sel.start >= sel.stop:
                continue
            for u, v in zip(nodes[:-1].tolist(), nodes[1:].tolist(), strict=True):
                li = self.link_between(u, v)
                a = self.links[li].arrays
                fwd = self.links[li].a == u  # traversed a -> b by data: "down" is data's way
                dd, du = (a.delay_down_s, a.delay_up_s) if fwd else (a.delay_up_s, a.delay_down_s)
                rd, ru = (
                    (a.rate_down_bps, a.rate_up_bps) if fwd else (a.rate_up_bps, a.rate_down_bps)
                )
                ld, lu = (a.loss_down, a.loss_up) if fwd else (a.loss_up, a.loss_down)
                out.delay_down_s[sel] += dd[sel]
                out.delay_up_s[sel] += du[sel]
                out.rate_down_bps[sel] = np.minimum(out.rate_down_bps[sel], rd[sel])
                out.rate_up_bps[sel] = np.minimum(out.rate_up_bps[sel], ru[sel])
                keep_down[sel] *= 1.0 - ld[sel]
                keep_up[sel] *= 1.0 - lu[sel]
                if li not in down:
                    down[li] = outage_mask(a.outages, times)
                out.in_outage[sel] |= down[li][sel]
        out.loss_down[:] = 1.0 - keep_down
        out.loss_up[:] = 1.0 - keep_up
        return out


def outage_mask(outages: np.ndarray, times: np.ndarray) -> np.ndarray:
    """bool[n]: which of the (non-decreasing) ``times`` fall in one of the ``[start, end)``
    intervals of ``outages``; each interval is found by bisection, not by a scan of the grid."""
    mask = np.zeros(len(times), dtype=bool)
    for s0, s1 in outages.reshape(-1, 2).tolist():
        if s0 < s1:
            lo, hi = np.searchsorted(times, [s0, s1], side="left").tolist()
            mask[lo:hi] = True
    return mask
