"""The rules of a :class:`~leogym.scenario.config.ScenarioConfig` that relate several fields
(``timeline_dt_s <= duration_s``, a satellite path needs a ground station, a flow's routes
exist, ...), and the files the config names (TLE, traces), opened and parsed here (once per
process, :mod:`leogym.scenario.files`) so that a corrupt file is reported with its line number
before any simulation starts. The hop topology's rules are :mod:`leogym.scenario.hops.checks`,
a queue's :func:`leogym.scenario.links.queues.check_queue`.

:func:`check_relations` runs inside :func:`leogym.scenario.validation.validate_scenario`, once
every single field is well-typed and in range. Every error is a
:class:`~leogym.scenario.errors.ScenarioConfigError` whose message starts with the field path.
"""

from __future__ import annotations

from leogym.scenario.config import (
    MAX_CROSS_FLOWS,
    MAX_FLOWS,
    MAX_PATHS,
    TCP_TIMER_FIELDS,
    PathConfig,
    SatellitePathConfig,
    ScenarioConfig,
)
from leogym.scenario.config.constellations import PRESETS
from leogym.scenario.errors import ROOT, ScenarioConfigError, field_error
from leogym.scenario.files import mahimahi_trace, tle_records
from leogym.scenario.flows import (
    check_flow_names,
    check_flow_settings,
    check_udp_load,
    connection_path_count,
    path_names,
)
from leogym.scenario.hops.checks import check_topology
from leogym.scenario.hops.graph import timeline_bytes
from leogym.scenario.links.queues import check_queue
from leogym.scenario.links.replay import check_replay_span
from leogym.scenario.orbital.frames import parse_utc
from leogym.scenario.orbital.presets import resolve_constellation

__all__ = [
    "LEOTP_DATA_HEADER_BYTES",
    "LEOTP_MAX_BYTES",
    "MAX_GEOMETRY_POINTS",
    "MAX_TIMELINE_SAMPLES",
    "check_relations",
]

#: Upper bound on timeline samples per path (memory guard: 10 arrays x 8 B x 2e7 = 1.6 GB).
MAX_TIMELINE_SAMPLES = 20_000_000
#: Upper bound on coarse geometry points (steps x satellites).
MAX_GEOMETRY_POINTS = 60_000_000

#: A LEOTP flow's byte ranges are 32-bit (paper Table I).
LEOTP_MAX_BYTES = 2**32 - 1
#: The LEOTP Data header with its srcBacklog field (cpp/doc/leotp.md).
LEOTP_DATA_HEADER_BYTES = 21


def check_relations(cfg: ScenarioConfig) -> None:
    """The rules of a scenario that relate several fields, and its files.

    Called by :func:`~leogym.scenario.validation.validate_scenario` once every field is
    well-typed and in range.

    :raises ScenarioConfigError: naming the field.
    """
    if not cfg.name:
        raise field_error(f"{ROOT}.name", "must be a non-empty string", cfg.name)
    duration = cfg.duration_s
    dt = cfg.timeline_dt_s
    if dt > duration:
        raise field_error(f"{ROOT}.timeline_dt_s", f"must be <= duration_s ({duration:g})", dt)
    if duration / dt + 1 > MAX_TIMELINE_SAMPLES:
        raise field_error(
            f"{ROOT}.timeline_dt_s",
            f"gives more than {MAX_TIMELINE_SAMPLES} samples; increase it",
            dt,
        )
    gdt = cfg.geometry_dt_s
    if gdt < dt:
        raise field_error(f"{ROOT}.geometry_dt_s", f"must be >= timeline_dt_s ({dt:g})", gdt)
    if cfg.start_utc is not None:
        try:
            parse_utc(str(cfg.start_utc))
        except ValueError as exc:
            raise field_error(
                f"{ROOT}.start_utc", "must be an ISO-8601 time", cfg.start_utc
            ) from exc

    paths = cfg.paths
    controlled = check_topology(cfg)
    if controlled and paths:
        raise field_error(
            f"{ROOT}.paths",
            "must be empty for a controlled hop network (hops.nodes is set): hops.paths names "
            "the connection's routes",
            f"{len(paths)} paths",
        )
    if not paths and not controlled:
        raise ScenarioConfigError(f"{ROOT}.paths", "at least one path is required")
    if len(paths) > MAX_PATHS:
        raise field_error(f"{ROOT}.paths", f"at most {MAX_PATHS} paths", len(paths))
    has_sat = any(p.kind == "satellite" for p in paths)
    if has_sat:
        _constellation(cfg)

    names: set[str] = set()
    for j, gs in enumerate(cfg.ground_stations):
        gp = f"{ROOT}.ground_stations[{j}]"
        if not gs.name:
            raise field_error(f"{gp}.name", "must be a non-empty string", gs.name)
        if gs.name in names:
            raise field_error(f"{gp}.name", "duplicate ground-station name", gs.name)
        names.add(gs.name)

    h = cfg.handover
    hp = f"{ROOT}.handover"
    if not controlled:  # a controlled network has no handovers but its route steps: not used
        if h.offset_s >= h.period_s:
            raise field_error(f"{hp}.offset_s", f"must be < period_s ({h.period_s:g})", h.offset_s)
        if h.mode == "schedule" and h.outage_s >= h.period_s:
            raise field_error(f"{hp}.outage_s", f"must be < period_s ({h.period_s:g})", h.outage_s)
        if h.outage_s > duration:
            raise field_error(f"{hp}.outage_s", f"must be <= duration_s ({duration:g})", h.outage_s)

    seen: set[str] = set()
    for i, path in enumerate(paths):
        _path(cfg, i, path, names)
    _same_discipline(cfg)
    for i, path in enumerate(paths):
        if path.name:
            if path.name in seen:
                raise field_error(f"{ROOT}.paths[{i}].name", "duplicate path name", path.name)
            seen.add(path.name)
    sat_idx = [i for i, p in enumerate(paths) if p.kind == "satellite"]
    if h.assignment == "maco_alternate":
        if len(sat_idx) != 2:
            raise field_error(
                f"{hp}.assignment", "maco_alternate needs exactly two satellite paths", len(sat_idx)
            )
        for i in sat_idx:
            if paths[i].satellite.disjoint_from is not None:
                raise field_error(
                    f"{ROOT}.paths[{i}].satellite.disjoint_from",
                    "cannot be combined with handover.assignment maco_alternate",
                    paths[i].satellite.disjoint_from,
                )
        if h.mode != "schedule":
            raise field_error(f"{hp}.mode", "maco_alternate needs mode 'schedule'", h.mode)

    tr = cfg.traffic
    trp = f"{ROOT}.traffic"
    if tr.start_s >= duration:
        raise field_error(f"{trp}.start_s", f"must be < duration_s ({duration:g})", tr.start_s)
    n_paths = connection_path_count(cfg)
    flows = sum(x.count for x in tr.cross_traffic)
    if flows > MAX_CROSS_FLOWS:
        raise field_error(
            f"{trp}.cross_traffic", f"at most {MAX_CROSS_FLOWS} flows in all (count summed)", flows
        )
    for j, x in enumerate(tr.cross_traffic):
        xp = f"{trp}.cross_traffic[{j}]"
        if x.kind == "udp_onoff" and x.rate_mbps * 1e6 / cfg.rate_scale < 1.0:
            raise field_error(
                f"{xp}.rate_mbps",
                f"must be >= 1 bit/s after rate_scale ({cfg.rate_scale:g})",
                x.rate_mbps,
            )
        if x.path >= n_paths:
            raise field_error(f"{xp}.path", f"must be a path index in [0, {n_paths})", x.path)
        if x.start_s > duration:
            raise field_error(f"{xp}.start_s", f"must be <= duration_s ({duration:g})", x.start_s)
        if x.stop_s is not None and x.stop_s <= x.start_s:
            raise field_error(f"{xp}.stop_s", f"must be > start_s ({x.start_s:g})", x.stop_s)
        if x.ecn and x.kind != "tcp_bulk":
            raise field_error(f"{xp}.ecn", "only a 'tcp_bulk' flow negotiates ECN", x.ecn)

    _flows(cfg, controlled)
    check_udp_load(cfg, trp)
    _memory(cfg)

    for j, f in enumerate(cfg.sampling.trace_choices):
        mahimahi_trace(f, f"{ROOT}.sampling.trace_choices[{j}]")


def _memory(cfg: ScenarioConfig) -> None:
    """The timeline's estimated memory (its grid's samples x its paths and controlled links)
    stays within ``max_timeline_gib``, checked before any array is made. A geometry-derived
    hop network's links are known only once built (``MAX_LINK_SAMPLES`` guards them)."""
    samples = int(cfg.duration_s / cfg.timeline_dt_s) + 1
    controlled = cfg.topology == "hops" and bool(cfg.hops.nodes)
    paths = len(cfg.hops.paths) if controlled else len(cfg.paths)
    links = len(cfg.hops.links) if controlled else 0
    need = timeline_bytes(samples, paths, links) / 2**30
    if need > cfg.max_timeline_gib:
        raise field_error(
            f"{ROOT}.max_timeline_gib",
            f"the timeline needs about {need:.3g} GiB ({samples} samples x {paths} paths and "
            f"{links} links); shorten duration_s, coarsen timeline_dt_s or raise "
            "max_timeline_gib",
            cfg.max_timeline_gib,
        )


def _same_discipline(cfg: ScenarioConfig) -> None:
    """A hop network built from the geometry shares links between paths: one discipline."""
    if cfg.topology != "hops" or cfg.hops.nodes or len(cfg.paths) < 2:
        return
    first = cfg.paths[0].queue.native()
    for i, path in enumerate(cfg.paths[1:], start=1):
        if path.queue.native() != first:
            raise field_error(
                f"{ROOT}.paths[{i}].queue.discipline",
                "in a hop topology built from the geometry the paths share links, so every "
                "path's queue takes the discipline and parameters of paths[0]",
                path.queue.discipline,
            )


def _flows(cfg: ScenarioConfig, controlled: bool) -> None:
    """``traffic.flows``: routes by name, their number per transport, and the timing."""
    tr = cfg.traffic
    fp = f"{ROOT}.traffic.flows"
    if not tr.flows:
        return
    total = sum(fl.count for fl in tr.flows)
    if total > MAX_FLOWS:
        raise field_error(fp, f"at most {MAX_FLOWS} flows in all (count summed)", total)
    check_flow_names(cfg, fp)
    if controlled:
        names, what = {rc.name for rc in cfg.hops.routes}, "route"
    else:
        names = set(path_names(cfg))
        what = "route (a path's name)" if cfg.topology == "hops" else "path"
    duration = cfg.duration_s
    for j, fl in enumerate(tr.flows):
        p = f"{fp}[{j}]"
        for k, name in enumerate(fl.routes):
            if name not in names:
                raise field_error(f"{p}.routes[{k}]", f"unknown {what}", name)
        if fl.transport == "leotp" and fl.workload == "file" and fl.file_bytes > LEOTP_MAX_BYTES:
            raise field_error(
                f"{p}.file_bytes",
                f"a leotp flow carries at most {LEOTP_MAX_BYTES} bytes (32-bit ranges)",
                fl.file_bytes,
            )
        if fl.transport == "leotp" and cfg.traffic.packet_bytes <= LEOTP_DATA_HEADER_BYTES:
            raise field_error(
                f"{ROOT}.traffic.packet_bytes",
                f"a leotp flow needs more than its {LEOTP_DATA_HEADER_BYTES}-byte header",
                cfg.traffic.packet_bytes,
            )
        for name in TCP_TIMER_FIELDS:
            value = getattr(fl, name)
            if value is not None and fl.transport != "tcp":
                raise field_error(
                    f"{p}.{name}", f"only a tcp flow takes it (this one is {fl.transport})", value
                )
        if fl.ecn and fl.transport not in ("tcp", "mpquic"):
            raise field_error(
                f"{p}.ecn", f"only a tcp or mpquic flow takes it (this one is {fl.transport})", True
            )
        if fl.transport == "mpquic":
            if not fl.routes:
                raise field_error(f"{p}.routes", "an mpquic flow needs at least one route", [])
        elif len(fl.routes) != 1:
            raise field_error(
                f"{p}.routes", f"a {fl.transport} flow uses exactly one route", list(fl.routes)
            )
        if fl.start_s >= duration:
            raise field_error(f"{p}.start_s", f"must be < duration_s ({duration:g})", fl.start_s)
        if fl.stop_s is not None and fl.stop_s <= fl.start_s:
            raise field_error(f"{p}.stop_s", f"must be > start_s ({fl.start_s:g})", fl.stop_s)
        if fl.transport == "udp_onoff" and fl.rate_mbps * 1e6 / cfg.rate_scale < 1.0:
            raise field_error(
                f"{p}.rate_mbps",
                f"must be >= 1 bit/s after rate_scale ({cfg.rate_scale:g})",
                fl.rate_mbps,
            )
    check_flow_settings(cfg, fp)


def _constellation(cfg: ScenarioConfig) -> None:
    """A satellite path needs a resolvable constellation of reasonable size."""
    c = cfg.constellation
    p = f"{ROOT}.constellation"
    isl = c.isl
    kind = c.kind or (PRESETS[c.preset]["kind"] if c.preset else ("tle" if c.tle_file else None))
    if kind is None:
        raise ScenarioConfigError(f"{p}.kind", "set a preset, a kind, or a tle_file")
    if kind == "tle":
        if not c.tle_file:
            raise ScenarioConfigError(f"{p}.tle_file", "required when kind is 'tle'")
        tle_records(c.tle_file, f"{p}.tle_file")
        if isl.topology != "none":
            raise field_error(f"{p}.isl.topology", "ISLs need a Walker constellation", isl.topology)
        return
    for name in ("altitude_km", "inclination_deg", "num_planes", "sats_per_plane"):
        if getattr(c, name) is None and not (c.preset and name in PRESETS[c.preset]):
            raise ScenarioConfigError(f"{p}.{name}", "required (no preset gives it)")
    r = resolve_constellation(c)
    if r.num_planes * r.sats_per_plane > 100_000:
        raise field_error(
            f"{p}.num_planes",
            "constellation too large (> 100000 satellites)",
            r.num_planes * r.sats_per_plane,
        )
    if r.phasing >= max(r.num_planes, 1) and r.num_planes > 1:
        raise field_error(f"{p}.phasing", f"must be < num_planes ({r.num_planes})", r.phasing)
    steps = cfg.duration_s / cfg.geometry_dt_s + 2
    if steps * r.num_planes * r.sats_per_plane > MAX_GEOMETRY_POINTS:
        raise field_error(
            f"{ROOT}.geometry_dt_s",
            "too many geometry points for this constellation and duration; increase it",
            cfg.geometry_dt_s,
        )


def _dynamics(cfg: ScenarioConfig, s: SatellitePathConfig, sp: str) -> None:
    """A satellite path with per-slot dynamics: Starlink's slot schedule, path topology, and no
    geometric boundary effect that the layer already models (unless ``allow_stacking``)."""
    dp = f"{sp}.dynamics"
    h = cfg.handover
    if h.mode != "schedule":
        raise field_error(f"{ROOT}.handover.mode", f"must be 'schedule' with {dp} on", h.mode)
    if cfg.topology != "path":
        raise field_error(f"{ROOT}.topology", f"must be 'path' with {dp} on", cfg.topology)
    if s.dynamics.allow_stacking:
        return
    why = f"must be 0 with {dp} on (it models the boundary; set {dp}.allow_stacking to keep both)"
    for name, value in (
        (f"{ROOT}.handover.outage_s", h.outage_s),
        (f"{ROOT}.handover.delay_spike_ms", h.delay_spike_ms),
        (f"{ROOT}.handover.loss_prob", h.loss_prob),
        (f"{sp}.v_curve_depth", s.v_curve_depth),
        (f"{sp}.rate_noise_mbps", s.rate_noise_mbps),
    ):
        if value > 0:
            raise field_error(name, why, value)


def _replay(cfg: ScenarioConfig, s: SatellitePathConfig, sp: str) -> None:
    """A satellite path that replays a measured trace (:mod:`leogym.scenario.links.replay`): path
    topology, not stacked on the dynamics layer, and no geometric boundary effect that the trace
    already holds (unless ``allow_stacking``)."""
    rp = f"{sp}.replay"
    if cfg.topology != "path":
        raise field_error(f"{ROOT}.topology", f"must be 'path' with {rp} on", cfg.topology)
    if s.dynamics.enabled and s.replay.format != "lens_irtt":
        # a LENS trace carries no capacity: the layer supplies it (its delay and loss are replaced)
        raise field_error(
            f"{sp}.dynamics.preset",
            f"must be 'off' with {rp}.format '{s.replay.format}' (only lens_irtt leaves the rate)",
            s.dynamics.preset,
        )
    if s.replay.trace_boundary_s is not None and cfg.handover.mode != "schedule":
        raise field_error(
            f"{rp}.trace_boundary_s", "needs handover.mode 'schedule'", s.replay.trace_boundary_s
        )
    check_replay_span(s.replay, cfg.duration_s, cfg.handover.period_s, rp)
    if s.replay.allow_stacking:
        return
    why = f"must be 0 with {rp} on (the trace holds the boundary; set {rp}.allow_stacking)"
    for name, value in (
        (f"{ROOT}.handover.outage_s", cfg.handover.outage_s),
        (f"{ROOT}.handover.loss_prob", cfg.handover.loss_prob),
    ):
        if value > 0:
            raise field_error(name, why, value)


def _path(cfg: ScenarioConfig, i: int, path: PathConfig, gs_names: set[str]) -> None:
    p = f"{ROOT}.paths[{i}]"
    check_queue(f"{p}.queue", path.queue)
    if path.kind == "satellite":
        s = path.satellite
        sp = f"{p}.satellite"
        for j, name in enumerate(s.gateways):
            if name not in gs_names:
                raise field_error(f"{sp}.gateways[{j}]", "names no ground station", name)
        if not gs_names:
            raise ScenarioConfigError(
                f"{ROOT}.ground_stations", f"satellite path {i} needs at least one ground station"
            )
        if s.disjoint_from is not None:
            d = s.disjoint_from
            if s.routing != "isl":
                raise field_error(f"{sp}.disjoint_from", "needs routing 'isl'", d)
            if not 0 <= d < i:
                raise field_error(f"{sp}.disjoint_from", f"must name an earlier path (< {i})", d)
            other = cfg.paths[d]
            if other.kind != "satellite" or other.satellite.routing != "isl":
                raise field_error(f"{sp}.disjoint_from", "must name an ISL satellite path", d)
        if s.routing == "isl" and cfg.constellation.isl.topology == "none":
            raise field_error(
                f"{sp}.routing", "needs constellation.isl.topology plus_grid", s.routing
            )
        if s.capacity == "fixed" and s.rate_down_mbps is None:
            raise ScenarioConfigError(f"{sp}.rate_down_mbps", "required when capacity is 'fixed'")
        if s.delay_model == "envelope":
            if s.routing != "bent_pipe":
                raise field_error(
                    f"{sp}.delay_model", "envelope needs bent_pipe routing", s.delay_model
                )
            if s.rtt_min_ms is None or s.rtt_max_ms is None:
                raise ScenarioConfigError(f"{sp}.rtt_min_ms", "envelope needs rtt_min/max_ms")
            if s.rtt_max_ms < s.rtt_min_ms:
                raise field_error(
                    f"{sp}.rtt_max_ms", f"must be >= rtt_min_ms ({s.rtt_min_ms:g})", s.rtt_max_ms
                )
        for j, value in enumerate(s.scripted_handovers_s):
            if not 0.0 <= value <= cfg.duration_s:
                raise field_error(
                    f"{sp}.scripted_handovers_s[{j}]", f"must be in [0, {cfg.duration_s:g}]", value
                )
        if s.dynamics.enabled:
            _dynamics(cfg, s, sp)
        if s.replay.enabled:
            _replay(cfg, s, sp)
        if cfg.handover.mode != "scripted" and s.scripted_handovers_s:
            raise field_error(
                f"{sp}.scripted_handovers_s",
                "needs handover.mode 'scripted'",
                list(s.scripted_handovers_s),
            )
    else:
        t = path.terrestrial
        tp = f"{p}.terrestrial"
        if t.capacity == "trace":
            if not t.trace_down:
                raise ScenarioConfigError(f"{tp}.trace_down", "required when capacity is 'trace'")
            mahimahi_trace(t.trace_down, f"{tp}.trace_down")
        if t.trace_up:
            mahimahi_trace(t.trace_up, f"{tp}.trace_up")
        if t.capacity == "markov" and not t.markov_states_mbps:
            raise ScenarioConfigError(f"{tp}.markov_states_mbps", "needs at least one state")
