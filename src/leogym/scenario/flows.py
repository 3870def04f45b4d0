"""The flows of a scenario: the connection under study and ``traffic.flows``.

Flow 0 is always the connection under study (the one an agent or an analytic baseline
drives); flows ``1..`` are the scenario's ``traffic.flows``, each repeated ``count`` times, in
config order. Every per-flow measurement (``Measurements.flow_*``) follows this order, and
:func:`flow_names` names it.

A flow names the paths (path topology) or routes (hop topology) it uses; :func:`route_index`
turns a name into the index the native core takes.
"""

from __future__ import annotations

from leogym.scenario.config import FlowConfig, ScenarioConfig

__all__ = [
    "CONNECTION_FLOW",
    "connection_path_count",
    "expanded_flows",
    "flow_names",
    "route_names",
    "route_index",
]

#: Name of flow 0 in results.
CONNECTION_FLOW = "connection"


def connection_path_count(scenario: ScenarioConfig) -> int:
    """How many paths the connection under study has: the scenario's ``paths``, or, in a
    controlled hop network (where ``paths`` is empty), the routes named by ``hops.paths``."""
    return len(scenario.hops.paths) if scenario.hops.nodes else len(scenario.paths)


def expanded_flows(scenario: ScenarioConfig) -> list[tuple[str, FlowConfig]]:
    """``traffic.flows`` with ``count`` expanded: ``(name, config)`` per flow, in order.

    A flow without a name is ``flow<i>`` (``i`` its position in ``traffic.flows``); a flow with
    ``count > 1`` gives ``<name>.0``, ``<name>.1``, ...
    """
    out: list[tuple[str, FlowConfig]] = []
    for i, fc in enumerate(scenario.traffic.flows):
        base = fc.name or f"flow{i}"
        if fc.count == 1:
            out.append((base, fc))
        else:
            out.extend((f"{base}.{j}", fc) for j in range(fc.count))
    return out


def flow_names(scenario: ScenarioConfig) -> list[str]:
    """Names of all flows, the connection first (the order of ``Measurements.flow_*``)."""
    return [CONNECTION_FLOW] + [name for name, _ in expanded_flows(scenario)]


def route_names(scenario: ScenarioConfig) -> list[str]:
    """The names flows may use, in the core's index order: the paths' names (path topology, and
    hop networks built from the geometry, where route ``i`` is path ``i``) or the controlled
    network's routes (``hops.routes``)."""
    if scenario.topology == "hops" and scenario.hops.nodes:
        return [r.name for r in scenario.hops.routes]
    return [p.name or f"{p.kind}{i}" for i, p in enumerate(scenario.paths)]


def route_index(scenario: ScenarioConfig, name: str, field: str = "routes") -> int:
    """The core's index of the path or route called ``name``.

    :raises KeyError: no such path or route (scenario validation reports it as a field error
        before this is reached).
    """
    names = route_names(scenario)
    if name not in names:
        raise KeyError(f"{field}: no path or route named {name!r} (known: {names})")
    return names.index(name)
