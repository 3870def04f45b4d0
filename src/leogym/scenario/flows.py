"""The flows of a scenario: the connection under study and ``traffic.flows``.

Flow 0 is always the connection under study (the one an agent or an analytic baseline
drives); flows ``1..`` are the scenario's ``traffic.flows``, each repeated ``count`` times, in
config order. Every per-flow measurement (``Measurements.flow_*``) follows this order, and
:func:`flow_names` names it.

A flow names the paths (path topology) or routes (hop topology) it uses; :func:`route_index`
turns a name into the index the native core takes.
"""

from __future__ import annotations

import dataclasses

from leogym.scenario.config import MAX_UDP_RATE_MBPS, FlowConfig, ScenarioConfig
from leogym.scenario.errors import field_error

__all__ = [
    "CONNECTION_FLOW",
    "check_flow_names",
    "check_flow_settings",
    "check_udp_load",
    "connection_path_count",
    "expanded_flows",
    "flow_names",
    "route_names",
    "route_index",
    "path_names",
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


def check_flow_names(scenario: ScenarioConfig, where: str = "scenario.traffic.flows") -> None:
    """Every flow has its own name: results, ``Simulation.apply`` and the multi-agent env key
    flows by name, so two flows of one name would be merged.

    :raises ScenarioConfigError: naming ``<where>[i].name`` of the first flow whose name (or
        one of its ``count`` expansions ``<name>.<j>``) is already taken, by
        :data:`CONNECTION_FLOW` or an earlier flow.
    """
    taken = {CONNECTION_FLOW: "the connection under study"}
    for i, fc in enumerate(scenario.traffic.flows):
        base = fc.name or f"flow{i}"
        names = [base] if fc.count == 1 else [f"{base}.{j}" for j in range(fc.count)]
        for name in names:
            if name in taken:
                raise field_error(
                    f"{where}[{i}].name",
                    f"gives flow name {name!r}, already that of {taken[name]}; flow names "
                    "must be unique (a flow with count > 1 is named <name>.0, <name>.1, ...)",
                    fc.name,
                )
            taken[name] = f"{where}[{i}]"


#: ``FlowConfig`` fields that a ``udp_onoff`` flow does not take (it has no congestion control
#: and no scheduler): each must keep its default.
_NOT_UDP_FIELDS = ("cc", "scheduler")


def check_flow_settings(scenario: ScenarioConfig, where: str = "scenario.traffic.flows") -> None:
    """Settings a flow's transport does not use are refused rather than ignored: a
    ``udp_onoff`` flow sends at ``rate_mbps`` and takes no ``cc`` or ``scheduler``.

    :raises ScenarioConfigError: naming ``<where>[i].<field>``.
    """
    defaults = {f.name: f.default for f in dataclasses.fields(FlowConfig)}
    for i, fc in enumerate(scenario.traffic.flows):
        if fc.transport != "udp_onoff":
            continue
        for name in _NOT_UDP_FIELDS:
            value = getattr(fc, name)
            if value != defaults[name]:
                raise field_error(
                    f"{where}[{i}].{name}",
                    f"a udp_onoff flow has no congestion control or scheduler (it sends at "
                    f"rate_mbps); leave {name} unset",
                    value,
                )


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


def check_udp_load(scenario: ScenarioConfig, where: str = "scenario.traffic") -> None:
    """All UDP on/off sources of a scenario (cross traffic and ``udp_onoff`` flows, ``count``
    included) together send at most :data:`MAX_UDP_RATE_MBPS` once divided by ``rate_scale``:
    every packet they send is simulated, so their sum, not each rate alone, decides how long a
    step takes.

    :raises ScenarioConfigError: naming ``<where>.<list>[i].rate_mbps`` of the source that
        takes the sum over the limit.
    """
    scale = float(scenario.rate_scale)
    sources = [
        (f"{where}.cross_traffic[{j}]", ct.rate_mbps, ct.count)
        for j, ct in enumerate(scenario.traffic.cross_traffic)
        if ct.kind == "udp_onoff"
    ] + [
        (f"{where}.flows[{i}]", fc.rate_mbps, fc.count)
        for i, fc in enumerate(scenario.traffic.flows)
        if fc.transport == "udp_onoff"
    ]
    total = 0.0
    for path, rate, count in sources:
        total += rate * count / scale
        if total > MAX_UDP_RATE_MBPS:
            raise field_error(
                f"{path}.rate_mbps",
                f"the scenario's UDP on/off sources together send at most "
                f"{MAX_UDP_RATE_MBPS:g} Mbit/s after rate_scale ({scale:g}), and with this one "
                f"(count {count}) they send {total:.6g}",
                rate,
            )


def path_names(cfg: ScenarioConfig) -> list[str]:
    """The names of the scenario's paths as the timeline gives them (``<kind><i>`` if unset)."""
    return [p.name or f"{p.kind}{i}" for i, p in enumerate(cfg.paths)]
