"""Fairness between flows: Jain's index and each flow's share of a shared bottleneck.

The per-flow byte counts come from :class:`~leogym.simulation.Measurements`
(``flow_goodput_bytes``, flow 0 the connection under study, then the scenario's
``traffic.flows``); which flows share a link comes from their routes (hop topology) or paths
(path topology).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from leogym.scenario.config import ScenarioConfig
from leogym.scenario.flows import connection_path_count, expanded_flows, route_index
from leogym.scenario.timeline import Timeline

__all__ = [
    "jain_index",
    "flow_routes",
    "flows_on_link",
    "bottleneck_shares",
    "flow_windows",
    "scheduled_seconds",
]


def jain_index(x: Any) -> float:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)`` of the non-negative values ``x``
    (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984): 1 for an equal split, ``1/n`` when one
    value takes everything; NaN if all are zero or the input is empty."""
    v = np.asarray(x, dtype=np.float64).ravel()
    if v.size == 0 or not np.isfinite(v).all():
        return math.nan
    s2 = float(np.sum(v * v))
    if s2 <= 0.0:
        return math.nan
    return float(np.sum(v) ** 2 / (v.size * s2))


def flow_windows(scenario: ScenarioConfig) -> np.ndarray:
    """When each flow is scheduled to send: ``[start_s, stop_s)`` per row, ``stop_s`` inf for
    "until the end".

    Rows in the order the core reports flows and cross traffic: the connection
    (``traffic.start_s``), every flow of ``traffic.flows`` (``count`` expanded), then every
    cross-traffic source (``count`` expanded). A ``file`` flow stays scheduled after its file
    completes (its end is not known in advance).
    """
    inf = math.inf
    rows = [(float(scenario.traffic.start_s), inf)]
    rows += [
        (float(fc.start_s), inf if fc.stop_s is None else float(fc.stop_s))
        for _, fc in expanded_flows(scenario)
    ]
    for ct in scenario.traffic.cross_traffic:
        stop = inf if ct.stop_s is None else float(ct.stop_s)
        rows += [(float(ct.start_s), stop)] * int(ct.count)
    return np.asarray(rows, dtype=np.float64).reshape(-1, 2)


def scheduled_seconds(windows: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """Seconds of ``[t0, t1)`` that each row of :func:`flow_windows` is scheduled."""
    overlap = np.minimum(windows[:, 1], t1) - np.maximum(windows[:, 0], t0)
    return np.maximum(overlap, 0.0)


def flow_routes(
    scenario: ScenarioConfig, subflow_paths: Sequence[int] | None = None
) -> list[list[int]]:
    """The route (hop topology) or path (path topology) indices of every flow, the connection
    first: its paths (``subflow_paths``, default all), then each of ``traffic.flows``."""
    n_paths = connection_path_count(scenario)
    own = list(subflow_paths) if subflow_paths is not None else list(range(n_paths))
    out = [own]
    for _, fc in expanded_flows(scenario):
        out.append([route_index(scenario, r) for r in fc.routes])
    return out


def flows_on_link(timeline: Timeline, routes: list[list[int]], link: int) -> np.ndarray:
    """Which flows cross ``link`` at some time: bool per flow.

    ``routes`` as :func:`flow_routes` gives them. In the path topology a link is a path (the
    connection's entries are its topology paths); in the hop topology a link is one of
    ``timeline.network.links``, crossed by a route if any of its steps goes over it. The
    connection's entries are path indices there too, mapped to their routes.
    """
    net = timeline.network
    hit = np.zeros(len(routes), dtype=bool)
    for f, rs in enumerate(routes):
        for r in rs:
            if net is None:
                hit[f] |= r == link
                continue
            route = net.routes[net.path_routes[r] if f == 0 else r]
            for nodes in route.nodes:
                pairs = zip(nodes[:-1].tolist(), nodes[1:].tolist(), strict=True)
                if any(net.link_between(u, v) == link for u, v in pairs):
                    hit[f] = True
                    break
    return hit


def bottleneck_shares(flow_bytes: Any, on_link: np.ndarray) -> np.ndarray:
    """Each flow's share of the bytes that the flows crossing one link delivered (NaN for
    flows that do not cross it); the shares of the crossing flows add up to 1."""
    b = np.asarray(flow_bytes, dtype=np.float64).ravel()
    total = float(np.sum(b[on_link]))
    out = np.full(b.shape, math.nan)
    if total > 0:
        out[on_link] = b[on_link] / total
    return out
