"""Validation of :class:`~leogym.scenario.config.ScenarioConfig` (everything ns-3 will consume).

Each check raises :class:`~leogym.scenario.errors.ScenarioConfigError` whose message starts with
the field path (``scenario.paths[1].queue.size: must be > 0 (got 0)``). Files named by the
config (TLE, traces) are opened and parsed here, so a corrupt file is reported with its line
number before any simulation starts.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any

from leogym.scenario.config import (
    ConstellationConfig,
    HandoverConfig,
    PathConfig,
    ScenarioConfig,
)
from leogym.scenario.errors import ScenarioConfigError, field_error
from leogym.scenario.frames import parse_utc
from leogym.scenario.presets import PRESETS, resolve_constellation
from leogym.scenario.queues import MAX_QUEUE_PACKETS
from leogym.scenario.terrestrial import read_mahimahi_trace
from leogym.scenario.tle import read_tle_file
from leogym.scenario.visibility import POLICIES

__all__ = ["validate_scenario", "MAX_TIMELINE_SAMPLES", "MAX_GEOMETRY_POINTS"]

ROOT = "scenario"
#: Upper bound on timeline samples per path (memory guard: 10 arrays x 8 B x 2e7 = 1.6 GB).
MAX_TIMELINE_SAMPLES = 20_000_000
#: Upper bound on coarse geometry points (steps x satellites).
MAX_GEOMETRY_POINTS = 60_000_000


def _num(path: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise field_error(path, "must be a number", value)
    if not math.isfinite(value):
        raise field_error(path, "must be finite", value)
    return float(value)


def _int(path: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise field_error(path, "must be an integer", value)
    return value


def _positive(path: str, value: Any) -> float:
    v = _num(path, value)
    if v <= 0:
        raise field_error(path, "must be > 0", value)
    return v


def _nonneg(path: str, value: Any) -> float:
    v = _num(path, value)
    if v < 0:
        raise field_error(path, "must be >= 0", value)
    return v


def _range(path: str, value: Any, lo: float, hi: float, hi_open: bool = False) -> float:
    v = _num(path, value)
    if v < lo or v > hi or (hi_open and v >= hi):
        bracket = ")" if hi_open else "]"
        raise field_error(path, f"must be in [{lo:g}, {hi:g}{bracket}", value)
    return v


def _prob(path: str, value: Any, open_one: bool = True) -> float:
    return _range(path, value, 0.0, 1.0, hi_open=open_one)


def _choice(path: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise field_error(path, f"must be one of {', '.join(choices)}", value)
    return str(value)


def _mask(path: str, value: Any) -> None:
    if value is not None:
        _range(path, value, 0.0, 90.0, hi_open=True)


def _lat_lon(path: str, lat: Any, lon: Any) -> None:
    _range(f"{path}.lat_deg", lat, -90.0, 90.0)
    _range(f"{path}.lon_deg", lon, -180.0, 360.0)


def _interval(path: str, values: list[float], lo: float = -math.inf, hi: float = math.inf) -> None:
    if len(values) == 0:
        return
    if len(values) != 2:
        raise field_error(path, "must be [] or [low, high]", list(values))
    a = _num(f"{path}[0]", values[0])
    b = _num(f"{path}[1]", values[1])
    if a > b:
        raise field_error(path, "needs low <= high", list(values))
    if a < lo or b > hi:
        raise field_error(path, f"must lie within [{lo:g}, {hi:g}]", list(values))


def _validate_constellation(c: ConstellationConfig, needed: bool) -> None:
    p = f"{ROOT}.constellation"
    if c.preset is not None and (not isinstance(c.preset, str) or c.preset not in PRESETS):
        raise field_error(f"{p}.preset", f"unknown preset; known: {', '.join(PRESETS)}", c.preset)
    if c.kind is not None:
        _choice(f"{p}.kind", c.kind, ("walker_delta", "walker_star", "tle"))
    for name in ("altitude_km",):
        value = getattr(c, name)
        if value is not None:
            v = _positive(f"{p}.{name}", value)
            if v > 50_000:
                raise field_error(f"{p}.{name}", "must be <= 50000 km", value)
    if c.inclination_deg is not None:
        _range(f"{p}.inclination_deg", c.inclination_deg, 0.0, 180.0)
    for name in ("num_planes", "sats_per_plane"):
        value = getattr(c, name)
        if value is not None and _int(f"{p}.{name}", value) < 1:
            raise field_error(f"{p}.{name}", "must be >= 1", value)
    if c.phasing is not None and _int(f"{p}.phasing", c.phasing) < 0:
        raise field_error(f"{p}.phasing", "must be >= 0", c.phasing)
    for name in ("raan_spacing_deg", "raan0_deg", "odd_plane_phase_deg"):
        value = getattr(c, name)
        if value is not None:
            _num(f"{p}.{name}", value)
    _mask(f"{p}.min_elevation_deg", c.min_elevation_deg)
    _num(f"{p}.earth_angle0_deg", c.earth_angle0_deg)
    if not isinstance(c.earth_rotation, bool):
        raise field_error(f"{p}.earth_rotation", "must be true or false", c.earth_rotation)
    isl = c.isl
    _choice(f"{p}.isl.topology", isl.topology, ("none", "plus_grid"))
    if isl.interplane_max_lat_deg is not None:
        _range(f"{p}.isl.interplane_max_lat_deg", isl.interplane_max_lat_deg, 0.0, 90.0)
    if isl.rate_mbps is not None:
        _positive(f"{p}.isl.rate_mbps", isl.rate_mbps)
    _prob(f"{p}.isl.loss_per_hop", isl.loss_per_hop)
    if not needed:
        return
    kind = c.kind or (PRESETS[c.preset]["kind"] if c.preset else ("tle" if c.tle_file else None))
    if kind is None:
        raise ScenarioConfigError(f"{p}.kind", "set a preset, a kind, or a tle_file")
    if kind == "tle":
        if not c.tle_file:
            raise ScenarioConfigError(f"{p}.tle_file", "required when kind is 'tle'")
        read_tle_file(c.tle_file, f"{p}.tle_file")
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


def _validate_handover(h: HandoverConfig, duration: float) -> None:
    p = f"{ROOT}.handover"
    _choice(f"{p}.mode", h.mode, ("schedule", "visibility", "every_step", "scripted"))
    _choice(f"{p}.policy", h.policy, POLICIES)
    _choice(f"{p}.assignment", h.assignment, ("rank", "maco_alternate"))
    _positive(f"{p}.period_s", h.period_s)
    _range(f"{p}.offset_s", h.offset_s, 0.0, h.period_s, hi_open=True)
    _nonneg(f"{p}.check_interval_s", h.check_interval_s)
    for name in ("count_unchanged", "enforce_mask", "prefer_new_satellite"):
        if not isinstance(getattr(h, name), bool):
            raise field_error(f"{p}.{name}", "must be true or false", getattr(h, name))
    _nonneg(f"{p}.outage_s", h.outage_s)
    if h.mode == "schedule" and h.outage_s >= h.period_s:
        raise field_error(f"{p}.outage_s", f"must be < period_s ({h.period_s:g})", h.outage_s)
    if h.outage_s > duration:
        raise field_error(f"{p}.outage_s", f"must be <= duration_s ({duration:g})", h.outage_s)
    _prob(f"{p}.loss_prob", h.loss_prob, open_one=False)
    _nonneg(f"{p}.loss_before_s", h.loss_before_s)
    _nonneg(f"{p}.loss_after_s", h.loss_after_s)
    _nonneg(f"{p}.delay_spike_ms", h.delay_spike_ms)
    if h.delay_spike_ms > 10_000:
        raise field_error(f"{p}.delay_spike_ms", "must be <= 10000", h.delay_spike_ms)
    _positive(f"{p}.delay_spike_s", h.delay_spike_s)


def _validate_path(cfg: ScenarioConfig, i: int, path: PathConfig, gs_names: set[str]) -> None:
    p = f"{ROOT}.paths[{i}]"
    if not isinstance(path.name, str):
        raise field_error(f"{p}.name", "must be a string", path.name)
    _choice(f"{p}.kind", path.kind, ("satellite", "terrestrial"))
    _prob(f"{p}.loss_down", path.loss_down)
    _prob(f"{p}.loss_up", path.loss_up)
    q = path.queue
    _choice(f"{p}.queue.unit", q.unit, ("packets", "bytes", "bdp"))
    _positive(f"{p}.queue.size", q.size)
    if q.unit == "packets" and float(q.size) != int(q.size):
        raise field_error(f"{p}.queue.size", "must be a whole number of packets", q.size)
    if not 1 <= _int(f"{p}.queue.min_packets", q.min_packets) <= MAX_QUEUE_PACKETS:
        raise field_error(
            f"{p}.queue.min_packets", f"must be in [1, {MAX_QUEUE_PACKETS}]", q.min_packets
        )
    if q.unit == "packets" and q.size > MAX_QUEUE_PACKETS:
        raise field_error(f"{p}.queue.size", f"must be <= {MAX_QUEUE_PACKETS} packets", q.size)
    if path.kind == "satellite":
        s = path.satellite
        sp = f"{p}.satellite"
        _choice(f"{sp}.routing", s.routing, ("bent_pipe", "isl"))
        for j, name in enumerate(s.gateways):
            if name not in gs_names:
                raise field_error(f"{sp}.gateways[{j}]", "names no ground station", name)
        if not gs_names:
            raise ScenarioConfigError(
                f"{ROOT}.ground_stations", f"satellite path {i} needs at least one ground station"
            )
        if _int(f"{sp}.sat_rank", s.sat_rank) < 0:
            raise field_error(f"{sp}.sat_rank", "must be >= 0", s.sat_rank)
        if s.disjoint_from is not None:
            d = _int(f"{sp}.disjoint_from", s.disjoint_from)
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
        _choice(f"{sp}.capacity", s.capacity, ("link_budget", "fixed"))
        if s.capacity == "fixed" and s.rate_down_mbps is None:
            raise ScenarioConfigError(f"{sp}.rate_down_mbps", "required when capacity is 'fixed'")
        for name in ("rate_down_mbps", "rate_up_mbps", "backhaul_rate_mbps"):
            if getattr(s, name) is not None:
                _positive(f"{sp}.{name}", getattr(s, name))
        _positive(f"{sp}.capacity_scale", s.capacity_scale)
        _nonneg(f"{sp}.capacity_update_s", s.capacity_update_s)
        _range(f"{sp}.v_curve_depth", s.v_curve_depth, 0.0, 1.0, hi_open=True)
        _positive(f"{sp}.v_curve_half_width_s", s.v_curve_half_width_s)
        _nonneg(f"{sp}.rate_noise_mbps", s.rate_noise_mbps)
        _positive(f"{sp}.min_rate_mbps", s.min_rate_mbps)
        _choice(f"{sp}.delay_model", s.delay_model, ("geometry", "envelope"))
        if s.delay_model == "envelope":
            if s.routing != "bent_pipe":
                raise field_error(
                    f"{sp}.delay_model", "envelope needs bent_pipe routing", s.delay_model
                )
            if s.rtt_min_ms is None or s.rtt_max_ms is None:
                raise ScenarioConfigError(f"{sp}.rtt_min_ms", "envelope needs rtt_min/max_ms")
            lo = _positive(f"{sp}.rtt_min_ms", s.rtt_min_ms)
            hi = _positive(f"{sp}.rtt_max_ms", s.rtt_max_ms)
            if hi < lo:
                raise field_error(f"{sp}.rtt_max_ms", f"must be >= rtt_min_ms ({lo:g})", hi)
        _nonneg(f"{sp}.backhaul_delay_ms", s.backhaul_delay_ms)
        for j, value in enumerate(s.scripted_handovers_s):
            _range(f"{sp}.scripted_handovers_s[{j}]", value, 0.0, cfg.duration_s)
        if cfg.handover.mode != "scripted" and s.scripted_handovers_s:
            raise field_error(
                f"{sp}.scripted_handovers_s",
                "needs handover.mode 'scripted'",
                list(s.scripted_handovers_s),
            )
    else:
        t = path.terrestrial
        tp = f"{p}.terrestrial"
        _nonneg(f"{tp}.one_way_delay_ms", t.one_way_delay_ms)
        if t.one_way_delay_ms > 10_000:
            raise field_error(f"{tp}.one_way_delay_ms", "must be <= 10000", t.one_way_delay_ms)
        _choice(f"{tp}.capacity", t.capacity, ("constant", "trace", "markov"))
        _positive(f"{tp}.rate_down_mbps", t.rate_down_mbps)
        if t.rate_up_mbps is not None:
            _positive(f"{tp}.rate_up_mbps", t.rate_up_mbps)
        _positive(f"{tp}.trace_bin_s", t.trace_bin_s)
        _nonneg(f"{tp}.trace_offset_s", t.trace_offset_s)
        _positive(f"{tp}.min_rate_mbps", t.min_rate_mbps)
        if t.capacity == "trace":
            if not t.trace_down:
                raise ScenarioConfigError(f"{tp}.trace_down", "required when capacity is 'trace'")
            read_mahimahi_trace(t.trace_down, f"{tp}.trace_down")
        if t.trace_up:
            read_mahimahi_trace(t.trace_up, f"{tp}.trace_up")
        if t.capacity == "markov":
            if not t.markov_states_mbps:
                raise ScenarioConfigError(f"{tp}.markov_states_mbps", "needs at least one state")
            for j, value in enumerate(t.markov_states_mbps):
                _positive(f"{tp}.markov_states_mbps[{j}]", value)
            _positive(f"{tp}.markov_mean_dwell_s", t.markov_mean_dwell_s)


def _check_structure(obj: Any, path: str) -> None:
    """Sections and lists have the right container types (configs built by hand in Python
    skip the loader's conversion, so ``cfg.handover = {...}`` must be caught here)."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        tp = hints[f.name]
        where = f"{path}.{f.name}"
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            if not isinstance(value, tp):
                raise field_error(where, f"must be a {tp.__name__}", type(value).__name__)
            _check_structure(value, where)
        elif typing.get_origin(tp) is list:
            if not isinstance(value, list):
                raise field_error(where, "must be a list", type(value).__name__)
            (elem,) = typing.get_args(tp)
            for i, item in enumerate(value):
                if isinstance(elem, type) and dataclasses.is_dataclass(elem):
                    if not isinstance(item, elem):
                        raise field_error(
                            f"{where}[{i}]", f"must be a {elem.__name__}", type(item).__name__
                        )
                    _check_structure(item, f"{where}[{i}]")
                elif elem is float and (
                    isinstance(item, bool) or not isinstance(item, (int, float))
                ):
                    raise field_error(f"{where}[{i}]", "must be a number", item)
                elif elem is str and not isinstance(item, str):
                    raise field_error(f"{where}[{i}]", "must be a string", item)


def validate_scenario(cfg: ScenarioConfig) -> None:
    """Validate a whole scenario; see the module docstring.

    :param cfg: the config.
    :raises ScenarioConfigError: on the first invalid field.
    """
    if not isinstance(cfg, ScenarioConfig):
        raise ScenarioConfigError(ROOT, f"expected a ScenarioConfig, got {type(cfg).__name__}")
    _check_structure(cfg, ROOT)
    if not isinstance(cfg.name, str) or not cfg.name:
        raise field_error(f"{ROOT}.name", "must be a non-empty string", cfg.name)
    duration = _positive(f"{ROOT}.duration_s", cfg.duration_s)
    dt = _positive(f"{ROOT}.timeline_dt_s", cfg.timeline_dt_s)
    if dt > duration:
        raise field_error(f"{ROOT}.timeline_dt_s", f"must be <= duration_s ({duration:g})", dt)
    if duration / dt + 1 > MAX_TIMELINE_SAMPLES:
        raise field_error(
            f"{ROOT}.timeline_dt_s",
            f"gives more than {MAX_TIMELINE_SAMPLES} samples; increase it",
            dt,
        )
    _range(f"{ROOT}.rate_scale", cfg.rate_scale, 1.0, 1000.0)
    gdt = _positive(f"{ROOT}.geometry_dt_s", cfg.geometry_dt_s)
    if gdt < dt:
        raise field_error(f"{ROOT}.geometry_dt_s", f"must be >= timeline_dt_s ({dt:g})", gdt)
    if gdt > 60.0:
        raise field_error(f"{ROOT}.geometry_dt_s", "must be <= 60 s", gdt)
    if cfg.epoch_utc_s is not None:
        _range(f"{ROOT}.epoch_utc_s", cfg.epoch_utc_s, 0.0, 86400.0, hi_open=True)
    if cfg.start_utc is not None:
        try:
            parse_utc(str(cfg.start_utc))
        except ValueError as exc:
            raise field_error(
                f"{ROOT}.start_utc", "must be an ISO-8601 time", cfg.start_utc
            ) from exc
    _num(f"{ROOT}.orbit_offset_s", cfg.orbit_offset_s)

    paths = cfg.paths
    if not paths:
        raise ScenarioConfigError(f"{ROOT}.paths", "at least one path is required")
    has_sat = any(getattr(p, "kind", None) == "satellite" for p in paths)
    _validate_constellation(cfg.constellation, needed=has_sat)
    if (
        has_sat
        and cfg.constellation.kind != "tle"
        and (cfg.constellation.preset is not None or cfg.constellation.num_planes is not None)
    ):
        r = resolve_constellation(cfg.constellation)
        steps = duration / gdt + 2
        if r.kind != "tle" and steps * r.num_planes * r.sats_per_plane > MAX_GEOMETRY_POINTS:
            raise field_error(
                f"{ROOT}.geometry_dt_s",
                "too many geometry points for this constellation and duration; increase it",
                gdt,
            )

    tp = f"{ROOT}.terminal"
    _lat_lon(tp, cfg.terminal.lat_deg, cfg.terminal.lon_deg)
    _mask(f"{tp}.elevation_mask_deg", cfg.terminal.elevation_mask_deg)
    names: set[str] = set()
    for j, gs in enumerate(cfg.ground_stations):
        gp = f"{ROOT}.ground_stations[{j}]"
        if not isinstance(gs.name, str) or not gs.name:
            raise field_error(f"{gp}.name", "must be a non-empty string", gs.name)
        if gs.name in names:
            raise field_error(f"{gp}.name", "duplicate ground-station name", gs.name)
        names.add(gs.name)
        _lat_lon(gp, gs.lat_deg, gs.lon_deg)
        _mask(f"{gp}.elevation_mask_deg", gs.elevation_mask_deg)

    _validate_handover(cfg.handover, duration)
    lb = cfg.link_budget
    lp = f"{ROOT}.link_budget"
    # Physical ranges, wide enough for any radio link and narrow enough that eqs. (2)-(3)
    # cannot overflow to an infinite SNR or capacity.
    _range(f"{lp}.tx_power_dbm", lb.tx_power_dbm, -100.0, 100.0)
    _range(f"{lp}.tx_gain_dbi", lb.tx_gain_dbi, -50.0, 100.0)
    _range(f"{lp}.rx_gain_dbi", lb.rx_gain_dbi, -50.0, 100.0)
    _range(f"{lp}.wavelength_m", lb.wavelength_m, 1e-4, 100.0)
    _range(f"{lp}.noise_psd_w_hz", lb.noise_psd_w_hz, 1e-30, 1e-10)
    _range(f"{lp}.bandwidth_hz", lb.bandwidth_hz, 1.0, 1e12)
    e = _num(f"{lp}.efficiency", lb.efficiency)
    if not 0 < e <= 1:
        raise field_error(f"{lp}.efficiency", "must be in (0, 1]", lb.efficiency)

    rain = cfg.rain
    rp = f"{ROOT}.rain"
    _choice(f"{rp}.mode", rain.mode, ("off", "constant", "markov"))
    _range(f"{rp}.specific_attenuation_db_km", rain.specific_attenuation_db_km, 0.0, 1000.0)
    _range(f"{rp}.rain_height_km", rain.rain_height_km, 0.0, 100.0)
    if rain.rain_height_km <= 0:
        raise field_error(f"{rp}.rain_height_km", "must be > 0", rain.rain_height_km)
    _range(f"{rp}.station_height_km", rain.station_height_km, 0.0, 100.0)
    _positive(f"{rp}.mean_clear_s", rain.mean_clear_s)
    _positive(f"{rp}.mean_rain_s", rain.mean_rain_s)
    _prob(f"{rp}.extra_loss", rain.extra_loss)

    seen: set[str] = set()
    for i, path in enumerate(paths):
        if not isinstance(path, PathConfig):
            raise field_error(f"{ROOT}.paths[{i}]", "must be a PathConfig", type(path).__name__)
        _validate_path(cfg, i, path, names)
        if path.name:
            if path.name in seen:
                raise field_error(f"{ROOT}.paths[{i}].name", "duplicate path name", path.name)
            seen.add(path.name)
    sat_idx = [i for i, p in enumerate(paths) if p.kind == "satellite"]
    if cfg.handover.assignment == "maco_alternate":
        if len(sat_idx) != 2:
            raise field_error(
                f"{ROOT}.handover.assignment",
                "maco_alternate needs exactly two satellite paths",
                len(sat_idx),
            )
        for i in sat_idx:
            if paths[i].satellite.disjoint_from is not None:
                raise field_error(
                    f"{ROOT}.paths[{i}].satellite.disjoint_from",
                    "cannot be combined with handover.assignment maco_alternate",
                    paths[i].satellite.disjoint_from,
                )
        if cfg.handover.mode != "schedule":
            raise field_error(
                f"{ROOT}.handover.mode", "maco_alternate needs mode 'schedule'", cfg.handover.mode
            )

    tr = cfg.traffic
    trp = f"{ROOT}.traffic"
    _choice(f"{trp}.workload", tr.workload, ("bulk", "file"))
    if not 0 < _int(f"{trp}.file_bytes", tr.file_bytes) <= 2**50:
        raise field_error(f"{trp}.file_bytes", "must be in [1, 2**50] (1 PiB)", tr.file_bytes)
    pb = _int(f"{trp}.packet_bytes", tr.packet_bytes)
    if not 64 <= pb <= 9000:
        raise field_error(f"{trp}.packet_bytes", "must be in [64, 9000]", pb)
    _range(f"{trp}.start_s", tr.start_s, 0.0, duration, hi_open=True)
    for j, x in enumerate(tr.cross_traffic):
        xp = f"{trp}.cross_traffic[{j}]"
        if not 0 <= _int(f"{xp}.path", x.path) < len(paths):
            raise field_error(f"{xp}.path", f"must be a path index in [0, {len(paths)})", x.path)
        _choice(f"{xp}.kind", x.kind, ("tcp_bulk", "udp_onoff"))
        _choice(f"{xp}.direction", x.direction, ("down", "up"))
        if not 1 <= _int(f"{xp}.count", x.count) <= 1000:
            raise field_error(f"{xp}.count", "must be in [1, 1000]", x.count)
        _positive(f"{xp}.rate_mbps", x.rate_mbps)
        _positive(f"{xp}.on_s", x.on_s)
        _nonneg(f"{xp}.off_s", x.off_s)
        _range(f"{xp}.start_s", x.start_s, 0.0, duration)
        if x.stop_s is not None:
            stop = _num(f"{xp}.stop_s", x.stop_s)
            if stop <= x.start_s:
                raise field_error(f"{xp}.stop_s", f"must be > start_s ({x.start_s:g})", stop)

    sm = cfg.sampling
    sp = f"{ROOT}.sampling"
    _interval(f"{sp}.orbit_offset_s", sm.orbit_offset_s)
    _interval(f"{sp}.epoch_utc_s", sm.epoch_utc_s, 0.0, 86400.0)
    _interval(f"{sp}.terminal_lat_deg", sm.terminal_lat_deg, -90.0, 90.0)
    _interval(f"{sp}.terminal_lon_deg", sm.terminal_lon_deg, -180.0, 360.0)
    _interval(f"{sp}.trace_offset_s", sm.trace_offset_s, 0.0)
    _interval(f"{sp}.rain_attenuation_db_km", sm.rain_attenuation_db_km, 0.0, 1000.0)
    for j, f in enumerate(sm.trace_choices):
        read_mahimahi_trace(f, f"{sp}.trace_choices[{j}]")
    for name in ("satellite_loss_choices", "terrestrial_loss_choices"):
        for j, value in enumerate(getattr(sm, name)):
            _prob(f"{sp}.{name}[{j}]", value)
    _prob(f"{sp}.rain_probability", sm.rain_probability, open_one=False)
