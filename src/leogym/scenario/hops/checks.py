"""The rules of the hop topology's config (``topology: hops``): ``topology`` against ``hops``,
and a controlled network's nodes, links, routes and paths (``docs/scenario.md``, "Path and hop
topologies"). :func:`leogym.scenario.validation.validate_scenario` calls
:func:`check_topology`; :meth:`~leogym.scenario.hops.graph.HopNetwork.validate` checks the
built graph."""

from __future__ import annotations

from leogym.scenario.config import (
    MAX_PATHS,
    HopLinkConfig,
    HopRouteConfig,
    HopsConfig,
    ScenarioConfig,
)
from leogym.scenario.errors import ROOT, ScenarioConfigError, field_error
from leogym.scenario.flows import path_names
from leogym.scenario.hops.graph import MAX_LINKS, MAX_NODES, MAX_ROUTE_STEPS
from leogym.scenario.links.queues import check_queue

__all__ = ["check_topology"]


def check_topology(cfg: ScenarioConfig) -> bool:
    """Check ``topology`` against ``hops``; for a controlled network (``hops.nodes`` set), its
    nodes, links, routes and paths.

    :return: whether the scenario is a controlled hop network.
    """
    hops = cfg.hops
    hp = f"{ROOT}.hops"
    if cfg.topology == "path":
        for name in ("nodes", "links", "routes", "paths"):
            if getattr(hops, name):
                raise field_error(f"{hp}.{name}", "needs topology 'hops'", cfg.topology)
        return False
    if not hops.nodes:
        for name in ("links", "routes", "paths"):
            if getattr(hops, name):
                raise ScenarioConfigError(
                    f"{hp}.{name}",
                    "needs hops.nodes (a controlled network); leave hops empty to derive the "
                    "network from the scenario's paths",
                )
        seen: set[str] = set()
        for i, name in enumerate(path_names(cfg)):
            if name in seen:
                raise field_error(
                    f"{ROOT}.paths[{i}].name", "duplicate path name (the route names)", name
                )
            seen.add(name)
        return False
    _controlled(cfg, hops, hp)
    return True


def _controlled(cfg: ScenarioConfig, hops: HopsConfig, hp: str) -> None:
    """The rules of a controlled hop network (see ``docs/scenario.md``)."""
    if len(hops.nodes) < 2:
        raise field_error(f"{hp}.nodes", "a hop network needs at least two nodes", len(hops.nodes))
    if len(hops.nodes) > MAX_NODES:
        raise field_error(f"{hp}.nodes", f"at most {MAX_NODES} nodes", len(hops.nodes))
    if len(hops.links) > MAX_LINKS:
        raise field_error(f"{hp}.links", f"at most {MAX_LINKS} links", len(hops.links))
    nodes: set[str] = set()
    for i, nd in enumerate(hops.nodes):
        if not nd.name:
            raise field_error(f"{hp}.nodes[{i}].name", "must be a non-empty string", nd.name)
        if nd.name in nodes:
            raise field_error(f"{hp}.nodes[{i}].name", "duplicate node name", nd.name)
        nodes.add(nd.name)

    pairs: dict[frozenset[str], int] = {}
    link_names: set[str] = set()
    for i, ln in enumerate(hops.links):
        lp = f"{hp}.links[{i}]"
        for end in ("a", "b"):
            name = getattr(ln, end)
            if name not in nodes:
                raise field_error(f"{lp}.{end}", "unknown node", name)
        if ln.a == ln.b:
            raise field_error(f"{lp}.b", "must differ from a (a link joins two nodes)", ln.b)
        pair = frozenset((ln.a, ln.b))
        if pair in pairs:
            raise field_error(
                lp,
                f"a second link between {ln.a!r} and {ln.b!r} (links[{pairs[pair]}] joins them; "
                "links are keyed by their two nodes)",
                f"{ln.a}-{ln.b}",
            )
        pairs[pair] = i
        name = ln.name or f"{ln.a}-{ln.b}"
        if name in link_names:
            raise field_error(f"{lp}.name", "duplicate link name", name)
        link_names.add(name)
        check_queue(f"{lp}.queue", ln.queue)
        _square_wave(f"{lp}.rate_square_wave", ln, cfg.timeline_dt_s)
        _link_rate(lp, ln, cfg.rate_scale)
        for j, iv in enumerate(ln.outages):
            op = f"{lp}.outages[{j}]"
            if len(iv) != 2:
                raise field_error(op, "must be [start_s, end_s]", list(iv))
            t0, t1 = float(iv[0]), float(iv[1])
            if not 0.0 <= t0 < t1:
                raise field_error(
                    op, "must be [start_s, end_s) with 0 <= start_s < end_s", list(iv)
                )

    routes: set[str] = set()
    for i, rc in enumerate(hops.routes):
        rp = f"{hp}.routes[{i}]"
        if not rc.name:
            raise field_error(f"{rp}.name", "must be a non-empty string", rc.name)
        if rc.name in routes:
            raise field_error(f"{rp}.name", "duplicate route name", rc.name)
        routes.add(rc.name)
        if rc.nodes and rc.steps:
            raise ScenarioConfigError(rp, "give nodes (a fixed route) or steps, not both")
        if not rc.nodes and not rc.steps:
            raise ScenarioConfigError(rp, "needs nodes (a fixed route) or steps")
        if rc.nodes:
            if rc.repeat_s > 0.0:
                raise field_error(
                    f"{rp}.repeat_s", "repeats a timetable: needs steps, not nodes", rc.repeat_s
                )
            _route_nodes(f"{rp}.nodes", list(rc.nodes), nodes, pairs)
            continue
        _repeat(cfg, rp, rc)
        if len(rc.steps) > MAX_ROUTE_STEPS:
            raise field_error(f"{rp}.steps", f"at most {MAX_ROUTE_STEPS} steps", len(rc.steps))
        previous = -1.0
        for k, st in enumerate(rc.steps):
            sp = f"{rp}.steps[{k}]"
            if k == 0 and st.t_s != 0.0:
                raise field_error(f"{sp}.t_s", "the first step must start at 0", st.t_s)
            if k > 0 and st.t_s <= previous:
                raise field_error(
                    f"{sp}.t_s", f"must be > the previous step's ({previous:g})", st.t_s
                )
            previous = st.t_s
            _route_nodes(f"{sp}.nodes", list(st.nodes), nodes, pairs)

    if not hops.paths:
        raise ScenarioConfigError(
            f"{hp}.paths", "at least one route is required (the connection's paths)"
        )
    if len(hops.paths) > MAX_PATHS:
        raise field_error(f"{hp}.paths", f"at most {MAX_PATHS} paths", len(hops.paths))
    for j, name in enumerate(hops.paths):
        if name not in routes:
            raise field_error(f"{hp}.paths[{j}]", "unknown route", name)


def _link_rate(lp: str, ln: HopLinkConfig, rate_scale: float) -> None:
    """Each direction's lowest rate (less the square wave's amplitude) is at least 1 bit/s
    after ``rate_scale``, what the core carries."""
    amplitude = ln.rate_square_wave.amplitude_mbps
    for name in ("rate_mbps", "rate_up_mbps"):
        rate = getattr(ln, name)
        if rate is None or rate <= amplitude:  # a wave at or above the rate: _square_wave
            continue
        if (rate - amplitude) * 1e6 / rate_scale < 1.0:
            extra = f" less rate_square_wave.amplitude_mbps ({amplitude:g})" if amplitude else ""
            raise field_error(
                f"{lp}.{name}",
                f"must be >= 1 bit/s{extra} after rate_scale ({rate_scale:g})",
                rate,
            )


def _square_wave(wp: str, ln: HopLinkConfig, dt_s: float) -> None:
    """A link's rate square wave keeps both directions' rates above zero, and each half period
    spans at least one timeline step (the wave is sampled on the grid)."""
    wave = ln.rate_square_wave
    if wave.amplitude_mbps == 0.0:
        return
    lowest = min(ln.rate_mbps, ln.rate_up_mbps if ln.rate_up_mbps is not None else ln.rate_mbps)
    if wave.amplitude_mbps >= lowest:
        raise field_error(
            f"{wp}.amplitude_mbps",
            f"must be below the link's rate in both directions ({lowest:g} Mbit/s)",
            wave.amplitude_mbps,
        )
    if wave.period_s < 2.0 * dt_s:
        raise field_error(
            f"{wp}.period_s",
            f"must be at least two timeline steps (2 x timeline_dt_s = {2.0 * dt_s:g} s)",
            wave.period_s,
        )


def _repeat(cfg: ScenarioConfig, rp: str, rc: HopRouteConfig) -> None:
    """A repeated timetable: longer than its last step, and not too many steps expanded."""
    if rc.repeat_s <= 0.0 or not rc.steps:
        return
    last = float(rc.steps[-1].t_s)
    if rc.repeat_s <= last:
        raise field_error(
            f"{rp}.repeat_s", f"must be > the last step's t_s ({last:g})", rc.repeat_s
        )
    repeats = cfg.duration_s / rc.repeat_s  # may overflow to inf: compared, never rounded
    if repeats * len(rc.steps) > MAX_ROUTE_STEPS:
        raise field_error(
            f"{rp}.repeat_s",
            f"repeats the timetable into more than {MAX_ROUTE_STEPS} steps over duration_s",
            rc.repeat_s,
        )


def _route_nodes(
    where: str, names: list[str], nodes: set[str], pairs: dict[frozenset[str], int]
) -> None:
    """A route step's node list: known nodes, no node twice, a link between neighbours."""
    if len(names) < 2:
        raise field_error(where, "a route needs at least two nodes", names)
    seen: set[str] = set()
    for j, name in enumerate(names):
        if name not in nodes:
            raise field_error(f"{where}[{j}]", "unknown node", name)
        if name in seen:
            raise field_error(f"{where}[{j}]", "the route visits this node twice (a loop)", name)
        seen.add(name)
        if j > 0 and frozenset((names[j - 1], name)) not in pairs:
            raise field_error(
                f"{where}[{j}]", f"no link between {names[j - 1]!r} and this node", name
            )
