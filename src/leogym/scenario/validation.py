"""Validation of :class:`~leogym.scenario.config.ScenarioConfig` (everything ns-3 will consume).

Types, ranges and choices of single fields are the fields' own (:mod:`leogym.schema` metadata in
:mod:`leogym.scenario.config`), checked by :func:`leogym.schema.check`. This module holds the
rest: rules that relate several fields (``timeline_dt_s <= duration_s``, a satellite path needs a
ground station, ...) and the files the config names (TLE, traces), which are opened and parsed
here (once per process, :mod:`leogym.scenario.files`) so that a corrupt file is reported with
its line number before any simulation starts.

Every error is a :class:`~leogym.scenario.errors.ScenarioConfigError` whose message starts with
the field path (``scenario.paths[1].queue.size: must be > 0 (got 0)``).

A config is validated once per process: :func:`validate_scenario` remembers the configs it
passed (by their ``repr``, which holds every value, the working directory that relative file
names depend on, and the version of each file they name), so the env's reset loop does not
check the same scenario again.
"""

from __future__ import annotations

import os
from collections import OrderedDict

from leogym import schema
from leogym.scenario.config import (
    MAX_CROSS_FLOWS,
    MAX_PATHS,
    MAX_QUEUE_PACKETS,
    PathConfig,
    ScenarioConfig,
)
from leogym.scenario.errors import ScenarioConfigError, field_error
from leogym.scenario.files import file_stamp, mahimahi_trace, tle_records
from leogym.scenario.frames import parse_utc
from leogym.scenario.presets import PRESETS, resolve_constellation

__all__ = [
    "validate_scenario",
    "check_relations",
    "validation_count",
    "MAX_TIMELINE_SAMPLES",
    "MAX_GEOMETRY_POINTS",
]

ROOT = "scenario"
#: Upper bound on timeline samples per path (memory guard: 10 arrays x 8 B x 2e7 = 1.6 GB).
MAX_TIMELINE_SAMPLES = 20_000_000
#: Upper bound on coarse geometry points (steps x satellites).
MAX_GEOMETRY_POINTS = 60_000_000
#: Configs remembered as valid (least recently used ones are forgotten first).
_MEMO_SIZE = 256
_VALID: OrderedDict[tuple, None] = OrderedDict()
_CHECKS = [0]


def validation_count() -> int:
    """How many full validations this process has run (for tests and benchmarks)."""
    return _CHECKS[0]


def validate_scenario(cfg: ScenarioConfig) -> None:
    """Validate a whole scenario; see the module docstring.

    :param cfg: the config.
    :raises ScenarioConfigError: on the first invalid field.
    """
    if not isinstance(cfg, ScenarioConfig):
        raise ScenarioConfigError(ROOT, f"expected a ScenarioConfig, got {type(cfg).__name__}")
    try:
        key: tuple | None = (os.getcwd(), repr(cfg), _file_stamps(cfg))
    except Exception:  # noqa: BLE001 - a value whose repr fails: validate without the memo
        key = None
    if key is not None and key in _VALID:
        _VALID.move_to_end(key)
        return
    _CHECKS[0] += 1
    schema.check(cfg, ROOT, ScenarioConfigError)  # fields, then ScenarioConfig._check_relations
    if key is not None:
        _VALID[key] = None
        if len(_VALID) > _MEMO_SIZE:
            _VALID.popitem(last=False)


def _file_stamps(cfg: ScenarioConfig) -> tuple:
    """The version (``os.stat`` stamp, ``None`` if missing) of every file the config names, so
    that an edited or deleted file is checked again."""
    names = [cfg.constellation.tle_file, *cfg.sampling.trace_choices]
    for p in cfg.paths:
        names += [p.terrestrial.trace_down, p.terrestrial.trace_up]
    return tuple(file_stamp(n) for n in names if n)


def check_relations(cfg: ScenarioConfig) -> None:
    """The rules of a scenario that relate several fields, and its files.

    Called by :func:`leogym.schema.check` once every field is well-typed and in range.

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
    if not paths:
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
    if h.offset_s >= h.period_s:
        raise field_error(f"{hp}.offset_s", f"must be < period_s ({h.period_s:g})", h.offset_s)
    if h.mode == "schedule" and h.outage_s >= h.period_s:
        raise field_error(f"{hp}.outage_s", f"must be < period_s ({h.period_s:g})", h.outage_s)
    if h.outage_s > duration:
        raise field_error(f"{hp}.outage_s", f"must be <= duration_s ({duration:g})", h.outage_s)

    seen: set[str] = set()
    for i, path in enumerate(paths):
        _path(cfg, i, path, names)
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
        if x.path >= len(paths):
            raise field_error(f"{xp}.path", f"must be a path index in [0, {len(paths)})", x.path)
        if x.start_s > duration:
            raise field_error(f"{xp}.start_s", f"must be <= duration_s ({duration:g})", x.start_s)
        if x.stop_s is not None and x.stop_s <= x.start_s:
            raise field_error(f"{xp}.stop_s", f"must be > start_s ({x.start_s:g})", x.stop_s)

    for j, f in enumerate(cfg.sampling.trace_choices):
        mahimahi_trace(f, f"{ROOT}.sampling.trace_choices[{j}]")


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


def _path(cfg: ScenarioConfig, i: int, path: PathConfig, gs_names: set[str]) -> None:
    p = f"{ROOT}.paths[{i}]"
    q = path.queue
    if q.unit == "packets" and float(q.size) != int(q.size):
        raise field_error(f"{p}.queue.size", "must be a whole number of packets", q.size)
    if q.unit == "packets" and q.size > MAX_QUEUE_PACKETS:
        raise field_error(f"{p}.queue.size", f"must be <= {MAX_QUEUE_PACKETS} packets", q.size)
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
