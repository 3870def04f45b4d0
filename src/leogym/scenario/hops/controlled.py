"""Controlled hop networks: the graph that a scenario spells out in ``hops`` (no geometry).

A ``topology: hops`` scenario with a non-empty ``hops.nodes`` describes its network directly
(``docs/scenario.md``, "Path and hop topologies"):

* **nodes** by name and kind;
* **links** with a constant rate, delay and loss per direction (``down`` = ``a -> b``, ``up`` =
  ``b -> a``; an ``*_up`` field left at ``None`` takes the ``down`` value), outage intervals
  and a drop-tail queue. Rates are divided by ``rate_scale`` as in path mode. A link's
  ``bdp`` queue is its down rate times the propagation RTT (the sum of the down and up delays
  of every link) of the *longest* route step that crosses it, so the queue holds one BDP of
  the longest flow it carries; a link that no route uses takes its own RTT. Packet- and
  byte-sized queues shrink with ``rate_scale`` as path mode's do;
* **routes**: a fixed node list (``nodes``: one step at ``t = 0``) or a timetable (``steps``);
* ``hops.paths``: the routes of the connection under study, in path order.

Two time patterns that the controlled experiments of LEOTP (Jiang et al., ICDCS 2023, section
V.B: Fig. 13's alternating paths, Fig. 14's fluctuating bottleneck) need:

* a link's ``rate_square_wave``: each direction's rate is ``rate + amplitude`` in the first half
  of every period and ``rate - amplitude`` in the second (:func:`square_wave`). The wave is
  sampled on the timeline grid and the core interpolates linearly between samples, so each
  edge is a ramp one grid step (``timeline_dt_s``) long;
* a route's ``repeat_s``: its ``steps`` timetable is repeated every ``repeat_s`` seconds up to
  the end of the episode (:func:`expand_steps`), and its ``switch_mode``. With
  ``break_before_make`` every link that some step of the route uses and the step in force does
  not is in an outage while that step is in force (:func:`break_before_make_outages`): what is
  queued or in flight on the branch left behind is dropped when the route switches (cause
  ``OUTAGE``), and nothing drains along the old branch. The outages are the links' own, so
  other routes over those links see them too. ``make_before_break`` (the default) leaves the
  links alone: packets past the branching point drain along the old node list
  (``cpp/doc/hops.md``, "Packets in flight across a route change").

The timeline's paths are these routes collapsed end to end (:meth:`HopNetwork.collapse`):
delays add up, losses compound, the rate is the smallest; the outages are the link outages
that fall in a route step in force (exact intervals, so ``in_outage`` at every grid point is
the collapse's), the handovers are the route's step times after 0 (route changes), and the
queue is that of the route's bottleneck (the link of step 0 with the lowest rate in the data
direction at ``t = 0``).
"""

from __future__ import annotations

import numpy as np

from leogym.scenario.config import (
    HopLinkConfig,
    HopRouteConfig,
    HopSquareWaveConfig,
    ScenarioConfig,
)
from leogym.scenario.hops.graph import HopLink, HopNetwork, HopNode, HopRoute, outage_mask
from leogym.scenario.links.arrays import PathTimeline
from leogym.scenario.links.intervals import merge_intervals
from leogym.scenario.links.queues import resolve_queue_packets

__all__ = [
    "break_before_make_outages",
    "build_controlled_network",
    "expand_steps",
    "link_name",
    "route_timeline",
    "square_wave",
]

ROOT = "scenario.hops"


def link_name(link: HopLinkConfig) -> str:
    """The name of a configured link: its own, else ``"<a>-<b>"``."""
    return link.name or f"{link.a}-{link.b}"


def square_wave(times: np.ndarray, wave: HopSquareWaveConfig) -> np.ndarray:
    """The square wave's offset (bit/s) at ``times``: ``+amplitude`` where ``t + phase_s`` lies
    in the first half of its period, ``-amplitude`` in the second (zero without a wave).

    A point within 1e-9 of a half period of an edge takes the new level, so that a grid point
    on an edge (``t = 1.0`` of a 2 s wave, computed as ``100 * 0.01``) does.
    """
    amplitude = float(wave.amplitude_mbps) * 1e6
    if amplitude == 0.0:
        return np.zeros(len(times))
    period = float(wave.period_s)
    eps = 0.5e-9 * period
    x = np.mod(np.asarray(times, dtype=np.float64) + float(wave.phase_s), period)
    high = (x < 0.5 * period - eps) | (x >= period - eps)
    return np.where(high, amplitude, -amplitude)


def _constant_link(
    cfg: ScenarioConfig, link: HopLinkConfig, times: np.ndarray, duration: float
) -> PathTimeline:
    """The arrays of one configured link on the grid (``queue_packets`` resolved later):
    constant, but for the rate's square wave."""
    n = len(times)
    k = float(cfg.rate_scale)
    down_s = link.delay_ms * 1e-3
    up_s = (link.delay_up_ms if link.delay_up_ms is not None else link.delay_ms) * 1e-3
    wave = square_wave(times, link.rate_square_wave)
    rate_down = link.rate_mbps * 1e6 + wave
    rate_up = (link.rate_up_mbps if link.rate_up_mbps is not None else link.rate_mbps) * 1e6 + wave
    loss_up = link.loss_up if link.loss_up is not None else link.loss
    outages = merge_intervals([(float(a), float(b)) for a, b in link.outages], duration)
    return PathTimeline(
        name=link_name(link),
        kind="terrestrial",
        delay_down_s=np.full(n, down_s),
        delay_up_s=np.full(n, up_s),
        rate_down_bps=rate_down / k,
        rate_up_bps=rate_up / k,
        loss_down=np.full(n, float(link.loss)),
        loss_up=np.full(n, float(loss_up)),
        snr_db=np.full(n, np.nan),
        elevation_deg=np.full(n, np.nan),
        serving_sat=np.full(n, -1, dtype=np.int32),
        outages=outages,
        handovers=np.zeros(0),
        queue_packets=0,
    )


def expand_steps(route: HopRouteConfig, duration: float) -> list[tuple[float, list[str]]]:
    """A route's timetable as ``(start, node names)`` steps: ``nodes`` as one step at 0,
    ``steps`` as they are, or, with ``repeat_s``, ``steps`` shifted by ``j * repeat_s`` for
    ``j = 0, 1, ...`` while the start lies before ``duration``."""
    if not route.steps:
        return [(0.0, list(route.nodes))]
    base = [(float(st.t_s), list(st.nodes)) for st in route.steps]
    if route.repeat_s <= 0.0:
        return base
    out: list[tuple[float, list[str]]] = []
    j = 0
    while j * route.repeat_s < duration:
        out.extend((t + j * route.repeat_s, nodes) for t, nodes in base)
        j += 1
    return [step for step in out if step[0] < duration]


def _route(route: HopRouteConfig, index: dict[str, int], duration: float) -> HopRoute:
    """A configured route as node indices per step (the config is validated)."""
    steps = expand_steps(route, duration)
    times = [t for t, _ in steps]
    lists = [names for _, names in steps]
    return HopRoute(
        name=route.name,
        step_times_s=np.asarray(times, dtype=np.float64),
        nodes=[np.asarray([index[v] for v in names], dtype=np.int64) for names in lists],
    )


def _step_links(net: HopNetwork, nodes: np.ndarray) -> list[tuple[int, bool]]:
    """``(link index, traversed a -> b)`` of each hop of a route step, in data order."""
    out = []
    for u, v in zip(nodes[:-1].tolist(), nodes[1:].tolist(), strict=True):
        li = net.link_between(u, v)
        out.append((li, net.links[li].a == u))
    return out


def break_before_make_outages(
    net: HopNetwork, route: int, duration: float
) -> dict[int, list[tuple[float, float]]]:
    """The outages a ``break_before_make`` route puts on its links: per link index, the
    ``[start, end)`` intervals in which a step that does not use the link is in force, for
    every link that some step of the route uses (the episode ends at ``duration``)."""
    r = net.routes[route]
    steps = np.asarray(r.step_times_s, dtype=np.float64)
    used = [{li for li, _ in _step_links(net, np.asarray(nodes))} for nodes in r.nodes]
    every = set().union(*used)
    out: dict[int, list[tuple[float, float]]] = {}
    for k, links in enumerate(used):
        t0 = float(steps[k])
        t1 = float(steps[k + 1]) if k + 1 < len(steps) else duration
        for li in sorted(every - links):
            out.setdefault(li, []).append((t0, t1))
    return out


def _longest_rtt(net: HopNetwork) -> list[float]:
    """Per link: the propagation RTT (s, at ``t = 0``) of the longest route step crossing it,
    or the link's own RTT when no route crosses it."""
    own = [float(ln.arrays.delay_down_s[0] + ln.arrays.delay_up_s[0]) for ln in net.links]
    best = [-1.0] * len(net.links)
    for route in net.routes:
        for nodes in route.nodes:
            hops = _step_links(net, np.asarray(nodes))
            rtt = sum(own[li] for li, _ in hops)
            for li, _ in hops:
                best[li] = max(best[li], rtt)
    return [b if b >= 0.0 else o for b, o in zip(best, own, strict=True)]


def _outages_within(outages: np.ndarray, t0: float, t1: float) -> list[list[float]]:
    """The intervals of a link's ``outages`` (sorted and disjoint, as
    :func:`~leogym.scenario.links.satpath.merge_intervals` leaves them) that may overlap
    ``[t0, t1)``, in order: found by bisection, so a route's steps do not each scan every
    outage of a link (break-before-make gives a link one outage per step)."""
    pairs = outages.reshape(-1, 2)
    first = int(np.searchsorted(pairs[:, 1], t0, side="right"))
    last = int(np.searchsorted(pairs[:, 0], t1, side="left"))
    return pairs[first:last].tolist()


def route_timeline(
    net: HopNetwork, route: int, times: np.ndarray, duration: float, queue_packets: int
) -> PathTimeline:
    """Route ``route`` of ``net`` collapsed end to end into a terrestrial path's arrays.

    :param net: a validated network.
    :param route: the route's index.
    :param times: the timeline grid.
    :param duration: the time of the last sample (outages are clipped to it).
    :param queue_packets: the path's queue.
    """
    r = net.routes[route]
    c = net.collapse(route, times)
    steps = np.asarray(r.step_times_s, dtype=np.float64)
    pieces: list[tuple[float, float]] = []
    for k, nodes in enumerate(r.nodes):
        t0 = float(steps[k])
        t1 = float(steps[k + 1]) if k + 1 < len(steps) else np.inf
        for li, _ in _step_links(net, np.asarray(nodes)):
            for a, b in _outages_within(net.links[li].arrays.outages, t0, t1):
                lo, hi = max(a, t0), min(b, t1)
                if hi > lo:
                    pieces.append((lo, hi))
    n = len(times)
    return PathTimeline(
        name=r.name,
        kind="terrestrial",
        delay_down_s=np.ascontiguousarray(c.delay_down_s, dtype=np.float64),
        delay_up_s=np.ascontiguousarray(c.delay_up_s, dtype=np.float64),
        rate_down_bps=np.ascontiguousarray(c.rate_down_bps, dtype=np.float64),
        rate_up_bps=np.ascontiguousarray(c.rate_up_bps, dtype=np.float64),
        loss_down=np.ascontiguousarray(c.loss_down, dtype=np.float64),
        loss_up=np.ascontiguousarray(c.loss_up, dtype=np.float64),
        snr_db=np.full(n, np.nan),
        elevation_deg=np.full(n, np.nan),
        serving_sat=np.full(n, -1, dtype=np.int32),
        outages=merge_intervals(pieces, duration),
        handovers=np.ascontiguousarray(steps[steps > 0.0], dtype=np.float64),
        queue_packets=int(queue_packets),
    )


def build_controlled_network(
    cfg: ScenarioConfig, times: np.ndarray
) -> tuple[HopNetwork, list[PathTimeline]]:
    """Build the network of a controlled ``topology: hops`` scenario and its paths.

    :param cfg: a validated scenario with a non-empty ``hops.nodes``.
    :param times: the timeline grid.
    :return: the validated network and, per entry of ``hops.paths``, its route collapsed end
        to end (see the module docstring).
    :raises FieldError: a link's queue that resolves beyond the core's limit, or a graph that
        :meth:`HopNetwork.validate` refuses.
    """
    hops = cfg.hops
    duration = float(times[-1])
    nodes = [HopNode(nc.name, nc.kind) for nc in hops.nodes]
    index = {nd.name: i for i, nd in enumerate(nodes)}
    links = [
        HopLink(
            name=link_name(lc),
            kind="link",
            a=index[lc.a],
            b=index[lc.b],
            arrays=_constant_link(cfg, lc, times, duration),
        )
        for lc in hops.links
    ]
    routes = [_route(rc, index, duration) for rc in hops.routes]
    by_name = {r.name: i for i, r in enumerate(routes)}
    net = HopNetwork(nodes, links, routes, [by_name[name] for name in hops.paths])
    net.validate(ROOT)
    extra: dict[int, list[tuple[float, float]]] = {}
    for i, rc in enumerate(hops.routes):
        if rc.switch_mode == "break_before_make":
            for li, pieces in break_before_make_outages(net, i, duration).items():
                extra.setdefault(li, []).extend(pieces)
    for li, pieces in extra.items():
        arrays = net.links[li].arrays
        own = [(float(a), float(b)) for a, b in arrays.outages.reshape(-1, 2).tolist()]
        arrays.outages = merge_intervals(own + pieces, duration)

    rtts = _longest_rtt(net)
    for i, (lc, ln) in enumerate(zip(hops.links, links, strict=True)):
        a = ln.arrays
        # The samples outside the link's outages, picked here by bisection and handed over
        # with no outages left: the same means as the full arrays with their outages, without
        # a scan of the grid per outage (break-before-make gives a link one per route step).
        up = ~outage_mask(a.outages, times)
        if not up.any():
            up[:] = True
        queue = resolve_queue_packets(
            lc.queue,
            cfg.traffic.packet_bytes,
            a.rate_down_bps[up],
            np.full(int(up.sum()), rtts[i]),
            np.zeros((0, 2)),
            times[up],
            field=f"{ROOT}.links[{i}].queue.size",
        )
        if cfg.rate_scale != 1.0 and lc.queue.unit != "bdp":
            # The same queueing delay at 1/k of the rate (a BDP queue follows the rates).
            queue = max(int(round(queue / cfg.rate_scale)), int(lc.queue.min_packets))
        a.queue_packets = queue

    paths = []
    for r in net.path_routes:
        first = _step_links(net, np.asarray(net.routes[r].nodes[0]))
        rates = [
            (net.links[li].arrays.rate_down_bps if fwd else net.links[li].arrays.rate_up_bps)[0]
            for li, fwd in first
        ]
        bottleneck = first[int(np.argmin(rates))][0]
        queue = net.links[bottleneck].arrays.queue_packets
        paths.append(route_timeline(net, r, times, duration, queue))
    return net, paths
