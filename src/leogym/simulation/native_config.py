"""The one translation of (algorithms, scenario, timeline, seed) into the native core's inputs.

``leogym._core.Simulation(config, paths)`` takes a config dict and one dict of arrays per path
(``docs/architecture.md``, "The native simulation contract"). Only this module builds them, for
every caller: the envs (and so ``leogym-train``, ``leogym-eval``, ``leogym-run``), the paper
reproductions (``leogym-reproduce``) and the benchmarks. Same scenario, algorithms and seed:
the same native inputs, whichever app asks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from leogym.scenario.config import (
    TCP_TIMER_FIELDS,
    LeotpFlowConfig,
    ScenarioConfig,
    TrafficConfig,
)
from leogym.scenario.flows import connection_path_count, expanded_flows, route_index
from leogym.scenario.hops.graph import HopNetwork
from leogym.scenario.relations import LEOTP_DATA_HEADER_BYTES, LEOTP_MAX_BYTES
from leogym.scenario.timeline import NATIVE_ARRAYS, PathTimeline, Timeline
from leogym.schema import FieldError
from leogym.simulation.transport import TransportOptions, check_against_scenario

__all__ = [
    "AlgorithmSettings",
    "native_config",
    "native_field_paths",
    "native_paths",
    "native_cross_traffic",
    "native_flows",
    "native_leotp",
    "native_connection",
    "native_network",
    "native_queues",
    "synthetic_path",
]

#: The ns-3 RngSeedManager seed; the episode seed becomes the RngRun (ns-3's recommended way to
#: get independent replications).
NS3_RNG_SEED = 1
#: IPv4 (20 B) + UDP (8 B) headers around each transport datagram.
UDP_IPV4_HEADER_BYTES = 28
#: The MTU of a link unless the packet size needs more (jumbo packets).
DEFAULT_MTU = 1500

#: Native config keys set from the env's own fields (``<prefix>.<key>`` in errors).
_SETTING_KEYS = frozenset(
    ("cc", "cc_params", "scheduler", "scheduler_params", "connection", "leotp")
)
#: Native config keys set from ``<prefix>.transport`` and from ``scenario.traffic``.
_TRANSPORT_KEYS = frozenset(f.name for f in dataclasses.fields(TransportOptions))
_TRAFFIC_KEYS = frozenset(f.name for f in dataclasses.fields(TrafficConfig))


class AlgorithmSettings(Protocol):
    """What the simulation needs to know of the algorithms (``EnvConfig`` has it).

    Read-only members, so that any mapping type (a ``dict`` field) satisfies them.
    """

    @property
    def cc(self) -> str: ...
    @property
    def scheduler(self) -> str: ...
    @property
    def cc_params(self) -> Mapping[str, float]: ...
    @property
    def scheduler_params(self) -> Mapping[str, float]: ...
    @property
    def transport(self) -> TransportOptions: ...


def native_config(
    settings: AlgorithmSettings, scenario: ScenarioConfig, seed: int, prefix: str = "env"
) -> dict:
    """The ``config`` dict of ``_core.Simulation``.

    :param settings: the algorithms (``cc`` names such as ``"freeze+cubic"`` pass through as
        they are: the core's registry parses the wrapper) and the transport options.
    :param scenario: the episode's scenario (after sampling).
    :param seed: the episode seed; it becomes the ns-3 ``RngRun``, so that every random stream
        of the simulator follows it.
    :param prefix: the settings' config section, for errors (:func:`native_connection`).
    """
    traffic = scenario.traffic
    packet_bytes = int(traffic.packet_bytes)
    config: dict[str, Any] = {
        "seed": NS3_RNG_SEED,
        "run": int(seed),
        "cc": settings.cc,
        "cc_params": {str(k): float(v) for k, v in settings.cc_params.items()},
        "scheduler": settings.scheduler,
        "scheduler_params": {str(k): float(v) for k, v in settings.scheduler_params.items()},
        "packet_bytes": packet_bytes,
        "mtu": max(DEFAULT_MTU, packet_bytes + UDP_IPV4_HEADER_BYTES),
        "workload": traffic.workload,
        "start_s": float(traffic.start_s),
        "cross_traffic": native_cross_traffic(scenario),
    }
    flows = native_flows(scenario)
    if flows:
        config["flows"] = flows
    if traffic.workload == "file":
        config["file_bytes"] = _scaled_bytes(int(traffic.file_bytes), float(scenario.rate_scale))
    config.update(settings.transport.native())
    config.update(native_connection(settings, scenario, prefix))
    queues = native_queues(scenario)
    if queues:
        config["queues"] = queues
    config["field_paths"] = native_field_paths(config, prefix)
    return config


def native_field_paths(keys: Iterable[str], prefix: str = "env") -> dict[str, str]:
    """The core's ``config["field_paths"]``: the user's field of each native config key that
    comes from one, so that the core's errors name it (``config.ack_every`` is
    ``env.transport.ack_every``). Keys that leogym derives itself (``seed``, ``run``, ``mtu``,
    ``queues``) have none: the core names them ``config.<key>``.

    :param keys: the native config's keys.
    :param prefix: the config section of the env settings (``env``).
    """
    paths: dict[str, str] = {}
    for key in keys:
        if key in _SETTING_KEYS:
            paths[key] = f"{prefix}.{key}"
        elif key in _TRANSPORT_KEYS:
            paths[key] = f"{prefix}.transport.{key}"
        elif key in _TRAFFIC_KEYS:
            paths[key] = f"scenario.traffic.{key}"
    return paths


def native_queues(scenario: ScenarioConfig) -> dict[str, Any]:
    """The queue disciplines of the core's ``config["queues"]``: ``paths`` (one queue dict
    per path) and, in hop mode, ``links`` (one per ``hops.links`` entry of a controlled
    network) or ``every_link`` (a network built from the geometry: its links are shared by the
    paths, whose queues validation requires to agree). Empty when every queue is drop-tail,
    the core's default, and every link carries ECN (so drop-tail runs marshal exactly what
    they did before)."""
    paths = [p.queue.native() for p in scenario.paths]
    links = [ln.queue.native() for ln in scenario.hops.links] if scenario.hops.nodes else []
    if all(q["discipline"] == "droptail" and "ecn_handling" not in q for q in paths + links):
        return {}
    out: dict[str, Any] = {}
    if paths:
        out["paths"] = paths
    if scenario.topology == "hops":
        if scenario.hops.nodes:
            out["links"] = links
        elif paths:
            out["every_link"] = paths[0]
    return out


def native_cross_traffic(scenario: ScenarioConfig) -> list[dict[str, Any]]:
    """The scenario's cross traffic as the core's flow dicts (``count`` flows of a kind become
    ``count`` flows; rates at the scenario's ``rate_scale``)."""
    k = float(scenario.rate_scale)
    flows: list[dict[str, Any]] = []
    for ct in scenario.traffic.cross_traffic:
        spec: dict[str, Any] = {
            "kind": ct.kind,
            "path": int(ct.path),
            "direction": ct.direction,
            "start_s": float(ct.start_s),
        }
        if ct.stop_s is not None:
            spec["stop_s"] = float(ct.stop_s)
        if ct.ecn:
            spec["ecn"] = True
        if ct.kind == "udp_onoff":
            spec.update(
                rate_bps=float(ct.rate_mbps) * 1e6 / k, on_s=float(ct.on_s), off_s=float(ct.off_s)
            )
        flows.extend(dict(spec) for _ in range(int(ct.count)))
    return flows


def native_flows(scenario: ScenarioConfig) -> list[dict[str, Any]]:
    """The scenario's ``traffic.flows`` as the core's flow dicts, ``count`` expanded (the order
    of :func:`leogym.scenario.flows.flow_names` after the connection); routes by index, rates
    and file sizes at the scenario's ``rate_scale``."""
    k = float(scenario.rate_scale)
    out: list[dict[str, Any]] = []
    for name, fc in expanded_flows(scenario):
        spec: dict[str, Any] = {
            "name": name,
            "transport": fc.transport,
            "cc": fc.cc,
            "routes": [route_index(scenario, r) for r in fc.routes],
            "start_s": float(fc.start_s),
        }
        if fc.transport == "mpquic":
            spec["scheduler"] = fc.scheduler
        if fc.stop_s is not None:
            spec["stop_s"] = float(fc.stop_s)
        if fc.workload == "file":
            spec["file_bytes"] = _scaled_bytes(int(fc.file_bytes), k)
        if fc.transport == "udp_onoff":
            spec.update(
                rate_bps=float(fc.rate_mbps) * 1e6 / k, on_s=float(fc.on_s), off_s=float(fc.off_s)
            )
        if fc.transport == "leotp":
            spec["leotp"] = native_leotp(fc.leotp)
        for name in TCP_TIMER_FIELDS:
            value = getattr(fc, name)
            if value is not None:
                spec[name] = float(value)
        if fc.ecn:
            spec["ecn"] = True
        out.append(spec)
    return out


def native_leotp(leotp: LeotpFlowConfig) -> dict[str, Any]:
    """A LEOTP flow's (or connection's) ``leotp`` dict of the core."""
    return {
        "variant": leotp.variant,
        "target_buffer_packets": float(leotp.target_buffer_packets),
        "cache_blocks": int(leotp.cache_blocks),
        "midnode_fraction": float(leotp.midnode_fraction),
    }


def native_connection(settings: Any, scenario: ScenarioConfig, prefix: str = "env") -> dict:
    """The connection's transport keys of the core's config: ``{}`` for leogym's transport,
    or ``connection: "leotp"`` and its ``leotp`` dict.

    :param settings: the env settings; ``connection`` (``"mpquic"`` when absent) and
        ``leotp`` (a :class:`~leogym.scenario.config.LeotpFlowConfig`).
    :param scenario: the episode's scenario: variants A-C need Midnodes, so a hop topology.
    :param prefix: the settings' config section, for errors.
    :raises FieldError: a LEOTP variant with Midnodes on a path scenario, transport options
        the scenario cannot take (:func:`~leogym.simulation.transport.check_against_scenario`);
        the field named.
    """
    transport = getattr(settings, "transport", None)
    if isinstance(transport, TransportOptions):
        check_against_scenario(
            transport,
            connection_path_count(scenario),
            int(scenario.traffic.packet_bytes),
            f"{prefix}.transport",
        )
    if getattr(settings, "connection", "mpquic") != "leotp":
        return {}
    leotp = getattr(settings, "leotp", None) or LeotpFlowConfig()
    if scenario.topology != "hops" and leotp.variant != "D":
        raise FieldError(
            f"{prefix}.leotp.variant",
            f"LEOTP variant {leotp.variant!r} needs Midnodes, which only a hop scenario has "
            f"(scenario.topology: hops; this one is {scenario.topology!r}); on a path scenario "
            "run variant 'D', end-to-end LEOTP",
        )
    traffic = scenario.traffic
    if traffic.packet_bytes <= LEOTP_DATA_HEADER_BYTES:
        raise FieldError(
            "scenario.traffic.packet_bytes",
            f"a leotp connection needs more than its {LEOTP_DATA_HEADER_BYTES}-byte header "
            f"(got {traffic.packet_bytes})",
        )
    if traffic.workload == "file" and traffic.file_bytes > LEOTP_MAX_BYTES:
        raise FieldError(
            "scenario.traffic.file_bytes",
            f"a leotp connection carries at most {LEOTP_MAX_BYTES} bytes (32-bit ranges; got "
            f"{traffic.file_bytes})",
        )
    return {"connection": "leotp", "leotp": native_leotp(leotp)}


def native_network(timeline: Timeline) -> dict[str, Any] | None:
    """The hop topology's ``network`` dict of ``_core.Simulation`` (``None`` in path mode):
    node names, one dict per link (its two node indices and its arrays, as
    :func:`native_paths` marshals a path), one dict per route (step start times and the node
    lists flattened with offsets) and the route of each path."""
    net: HopNetwork | None = timeline.network
    if net is None:
        return None
    links = []
    for ln in net.links:
        d = _path_dict(ln.arrays, timeline.t0_s, timeline.dt_s)
        d["a"] = int(ln.a)
        d["b"] = int(ln.b)
        links.append(d)
    routes = []
    for r in net.routes:
        lengths = [len(n) for n in r.nodes]
        routes.append(
            {
                "times_s": np.array(r.step_times_s, dtype=np.float64, order="C", copy=True),
                "nodes": np.concatenate([np.asarray(n, dtype=np.int64) for n in r.nodes]),
                "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            }
        )
    return {
        "nodes": [nd.name for nd in net.nodes],
        "kinds": [nd.kind for nd in net.nodes],
        "links": links,
        "routes": routes,
        "path_routes": [int(i) for i in net.path_routes],
    }


def native_paths(timeline: Timeline) -> list[dict[str, Any]]:
    """The per-path dicts of ``_core.Simulation``: the timeline arrays (float64, ``serving_sat``
    int32, ``outages`` ``(k, 2)``; C-contiguous copies), ``t0_s``, ``dt_s``, ``queue_packets``,
    ``name``, ``kind`` and, where the timeline has it, ``slant_range_m``."""
    out = []
    for p in timeline.paths:
        d = _path_dict(p, timeline.t0_s, timeline.dt_s)
        if p.slant_range_m is not None:
            d["slant_range_m"] = np.array(p.slant_range_m, dtype=np.float64, order="C", copy=True)
        out.append(d)
    return out


def synthetic_path(
    duration_s: float = 10.0,
    dt_s: float = 0.01,
    *,
    rate_bps: float | np.ndarray = 20e6,
    delay_s: float | np.ndarray = 0.02,
    loss: float | np.ndarray = 0.0,
    rate_up_bps: float | np.ndarray | None = None,
    delay_up_s: float | np.ndarray | None = None,
    loss_up: float | np.ndarray | None = None,
    outages: list[tuple[float, float]] | None = None,
    handovers: list[float] | None = None,
    queue_packets: int = 100,
    name: str = "p0",
) -> dict[str, Any]:
    """A path dict of the native contract built from given arrays, not from a scenario: for
    driving ``leogym._core.Simulation`` and the core's test probes directly (the native tests
    and the link-level benchmarks).

    The grid has ``round(duration_s / dt_s) + 1`` samples from 0. Scalars are broadcast, arrays
    must have the grid's length; the up direction takes the down direction's values unless
    given. The path is a satellite path with an SNR of 10 dB, an elevation rising from 30 to
    60 degrees and satellite 0 serving throughout (what only the forecasts and the oracle read).
    The core checks the arrays when it takes the dict (``_core.validate_path``, naming the
    field); this function checks the grid.

    :raises ValueError: ``dt_s`` or ``duration_s`` not finite and > 0, naming it.
    """
    for arg, value in (("dt_s", dt_s), ("duration_s", duration_s)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"synthetic_path: {arg} must be finite and > 0, got {value!r}")
    n = int(round(duration_s / dt_s)) + 1

    def grid(x: float | np.ndarray) -> np.ndarray:
        a = np.asarray(x, dtype=np.float64)
        return np.full(n, float(a)) if a.ndim == 0 else a.astype(np.float64)

    path = PathTimeline(
        delay_down_s=grid(delay_s),
        delay_up_s=grid(delay_s if delay_up_s is None else delay_up_s),
        rate_down_bps=grid(rate_bps),
        rate_up_bps=grid(rate_bps if rate_up_bps is None else rate_up_bps),
        loss_down=grid(loss),
        loss_up=grid(loss if loss_up is None else loss_up),
        name=name,
        kind="satellite",
        snr_db=np.full(n, 10.0),
        elevation_deg=np.linspace(30.0, 60.0, n),
        serving_sat=np.zeros(n, dtype=np.int32),
        outages=np.asarray(outages if outages else np.zeros((0, 2)), dtype=np.float64),
        handovers=np.asarray(handovers if handovers else [], dtype=np.float64),
        queue_packets=queue_packets,
    )
    return _path_dict(path, 0.0, dt_s)


def _path_dict(p: PathTimeline, t0_s: float, dt_s: float) -> dict[str, Any]:
    """One path's (or hop link's) arrays as the core takes them, on the grid ``t0_s + k dt_s``."""
    d: dict[str, Any] = {
        "name": p.name,
        "kind": p.kind,
        "t0_s": float(t0_s),
        "dt_s": float(dt_s),
        "queue_packets": int(p.queue_packets),
    }
    for key in NATIVE_ARRAYS:
        dtype = np.int32 if key == "serving_sat" else np.float64
        d[key] = np.array(getattr(p, key), dtype=dtype, order="C", copy=True)
    d["outages"] = d["outages"].reshape(-1, 2)
    return d


def _scaled_bytes(n: int, rate_scale: float) -> int:
    """A byte count at the scenario's ``rate_scale`` ``k``: ``n / k``, at least one byte."""
    return n if rate_scale == 1.0 else max(1, int(round(n / rate_scale)))
