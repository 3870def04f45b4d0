"""The fast timeline API: build a :class:`~leogym.scenario.timeline.Timeline` without
simulating packets.

:func:`build_timeline` turns a :class:`~leogym.scenario.config.ScenarioConfig` and a seed into a
:class:`~leogym.scenario.timeline.Timeline` (the data model and the contract with the core live
in :mod:`leogym.scenario.timeline`).

Speed: geometry is computed on the coarse ``geometry_dt_s`` grid and interpolated; everything on
the fine grid is vectorised NumPy. Determinism: every random draw comes from a NumPy
``Generator`` seeded with ``SeedSequence(seed, spawn_key=(purpose, path))``, so the same seed
gives bit-identical arrays and each purpose has its own stream.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from leogym.scenario.config import PathConfig, ScenarioConfig
from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.files import mahimahi_trace
from leogym.scenario.hops.controlled import build_controlled_network
from leogym.scenario.hops.geometry import build_geometry_network
from leogym.scenario.hops.geometry_grid import GeometrySources
from leogym.scenario.hops.graph import HopNetwork
from leogym.scenario.links.arrays import LINK_ARRAYS
from leogym.scenario.links.dynamics import apply_dynamics, diurnal_gain, dynamics_streams
from leogym.scenario.links.handover import (
    HandoverEvent,
    ServingPlan,
    plan_maco_alternate,
    plan_rank,
    slot_instants,
)
from leogym.scenario.links.queues import resolve_queue_packets
from leogym.scenario.links.replay import replay_path, scenario_boundary_phase_s
from leogym.scenario.links.satpath import SatelliteArrays, assemble_satellite_path
from leogym.scenario.links.terrestrial import markov_capacity_bps, trace_capacity_bps
from leogym.scenario.orbital.frames import parse_utc
from leogym.scenario.orbital.isl import ShortestPaths, plus_grid
from leogym.scenario.orbital.look import slant_range_at_elevation_km
from leogym.scenario.orbital.presets import resolve_constellation
from leogym.scenario.orbital.scene import (
    GroundSide,
    SceneGeometry,
    make_constellation,
    max_pass_s,
    terminal_mask_deg,
)
from leogym.scenario.orbital.visibility import PathSky
from leogym.scenario.timeline import PathTimeline, Timeline
from leogym.scenario.validation import ensure_validated

__all__ = ["build_timeline"]

# spawn keys of the random streams
_S_SELECT, _S_RAIN, _S_NOISE, _S_MARKOV = 1, 2, 3, 4
#: The per-slot dynamics (:mod:`leogym.scenario.links.dynamics`): keys ``(5, group, c[, path])``.
_S_DYN = 5
#: Slot boundaries are drawn this far past the end, so that a boundary just after the end whose
#: stall starts before it is the same as in a longer episode (prefix stability).
_DYN_MARGIN_S = 1.0


_QUEUE_KEYS = ("rate_down_bps", "delay_down_s", "delay_up_s", "outages")
#: The arrays whose geometric values the "realistic" handover forecast reports.
_FORECAST_KEYS = ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps")


def _stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=key))


def _slant_range_m(cfg: ScenarioConfig, elevation_deg: np.ndarray) -> np.ndarray | None:
    """Terminal-to-satellite range (m) at each sample from the serving satellite's elevation and
    the shell's altitude (spherical Earth); NaN where no satellite serves; ``None`` for TLE sets."""
    altitude_km = resolve_constellation(cfg.constellation).altitude_km
    if altitude_km <= 0:
        return None
    elev = np.asarray(elevation_deg, dtype=np.float64)
    km = slant_range_at_elevation_km(altitude_km, np.clip(elev, 0.0, 90.0))
    km = np.where(np.isfinite(elev), km, np.nan)
    return np.ascontiguousarray(km * 1e3, dtype=np.float64)


def resolved_epoch_utc_s(cfg: ScenarioConfig) -> float:
    """UTC second-of-day at ``t = 0``: ``epoch_utc_s``, else from ``start_utc``, else 0."""
    if cfg.epoch_utc_s is not None:
        return float(cfg.epoch_utc_s)
    if cfg.start_utc:
        start = parse_utc(cfg.start_utc)
        return float(
            start.hour * 3600 + start.minute * 60 + start.second + start.microsecond * 1e-6
        )
    return 0.0


def _rain_process(cfg: ScenarioConfig, times: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    rain = cfg.rain
    if rain.mode == "off":
        return np.zeros(len(times))
    if rain.mode == "constant":
        return np.ones(len(times))
    p_rain = rain.mean_rain_s / (rain.mean_rain_s + rain.mean_clear_s)
    state = bool(rng.random() < p_rain)
    starts, states = [0.0], [state]
    t = 0.0
    end = float(times[-1])
    while True:
        t += float(rng.exponential(rain.mean_rain_s if state else rain.mean_clear_s))
        if t > end:
            break
        state = not state
        starts.append(t)
        states.append(state)
    idx = np.searchsorted(np.asarray(starts), times, side="right") - 1
    return np.asarray(states, dtype=float)[idx]


def _terrestrial(
    path: PathConfig, times: np.ndarray, rng: np.random.Generator, field: str
) -> dict[str, np.ndarray]:
    t = path.terrestrial
    n = len(times)
    floor = t.min_rate_mbps * 1e6
    if t.capacity == "constant":
        down = np.full(n, t.rate_down_mbps * 1e6)
    elif t.capacity == "trace":
        assert t.trace_down is not None
        trace = mahimahi_trace(t.trace_down, f"{field}.trace_down")
        down = trace_capacity_bps(trace, times, t.trace_bin_s, t.trace_offset_s, floor)
    else:
        down = markov_capacity_bps(t.markov_states_mbps, t.markov_mean_dwell_s, times, rng)
    if t.trace_up:
        trace = mahimahi_trace(t.trace_up, f"{field}.trace_up")
        up = trace_capacity_bps(trace, times, t.trace_bin_s, t.trace_offset_s, floor)
    elif t.rate_up_mbps is not None:
        up = np.full(n, t.rate_up_mbps * 1e6)
    else:
        up = down.copy()
    delay = np.full(n, t.one_way_delay_ms * 1e-3)
    return {
        "delay_down_s": delay,
        "delay_up_s": delay.copy(),
        "rate_down_bps": np.maximum(down, floor),
        "rate_up_bps": np.maximum(up, floor),
        "loss_down": np.full(n, float(path.loss_down)),
        "loss_up": np.full(n, float(path.loss_up)),
        "snr_db": np.full(n, np.nan),
        "elevation_deg": np.full(n, np.nan),
        "serving_sat": np.full(n, -1, dtype=np.int32),
        "outages": np.zeros((0, 2)),
        "handovers": np.zeros(0),
    }


def _decision_instants(
    cfg: ScenarioConfig, epoch: float, sky: PathSky, path: PathConfig
) -> tuple[np.ndarray, str, bool]:
    h = cfg.handover
    if h.mode == "schedule":
        return (
            slot_instants(cfg.duration_s, epoch, h.period_s, h.offset_s),
            "scheduled",
            h.count_unchanged,
        )
    if h.mode == "every_step":
        steps = np.arange(1, sky.num_steps) * sky.dt_s
        return steps[steps <= cfg.duration_s], "step", False
    if h.mode == "scripted":
        scripted = np.sort(np.asarray(path.satellite.scripted_handovers_s, dtype=float))
        return scripted[scripted > 0.0], "scripted", h.count_unchanged
    return np.zeros(0), "visibility", False


def build_timeline(cfg: ScenarioConfig, seed: int, *, keep_geometry: bool = False) -> Timeline:
    """Build the timeline of a scenario (validated first, unless it passed
    :func:`~leogym.scenario.validate_scenario` and is unchanged since).

    :param cfg: the scenario (e.g. from :func:`~leogym.scenario.load_scenario`, after
        :func:`~leogym.scenario.sample_scenario`).
    :param seed: non-negative integer; drives the random policy, rain, rate noise and Markov
        capacities. Same config and seed give bit-identical arrays.
    :param keep_geometry: also keep the satellite positions on the geometry grid (notebooks).
    :return: the timeline.
    :raises ScenarioConfigError: invalid config or seed.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ScenarioConfigError("seed", f"must be a non-negative integer (got {seed!r})")
    seed = int(seed)
    ensure_validated(cfg)
    dt = float(cfg.timeline_dt_s)
    n = int(math.floor(cfg.duration_s / dt + 1e-9)) + 1
    times = np.arange(n) * dt
    duration = float(times[-1])
    epoch = resolved_epoch_utc_s(cfg)
    h = cfg.handover

    sat_idx = [i for i, p in enumerate(cfg.paths) if p.kind == "satellite"]
    arrays: dict[int, dict[str, Any]] = {}
    events: dict[int, list[HandoverEvent]] = {}
    scene: SceneGeometry | None = None
    router: ShortestPaths | None = None
    sides: dict[int, GroundSide] = {}
    preds: dict[int, list[np.ndarray]] = {}
    plans: dict[int, ServingPlan] = {}
    assembled: dict[int, SatelliteArrays] = {}
    #: Geometric arrays of the paths with dynamics (queue sizes must not depend on its draws).
    geometric: dict[int, dict[str, np.ndarray]] = {}
    #: The geometric delays and rates of the paths with dynamics or a replay (the forecasts'
    #: "realistic" values, :class:`~leogym.scenario.timeline.PathTimeline`).
    predictable: dict[int, dict[str, np.ndarray]] = {}
    if sat_idx:
        horizon = duration + cfg.geometry_dt_s
        if h.policy == "longest_visibility":
            alt = resolve_constellation(cfg.constellation).altitude_km
            if alt <= 0:  # TLE: estimate from the elements
                alt = float(make_constellation(cfg).altitude_km)
            horizon += min(max_pass_s(max(alt, 100.0), terminal_mask_deg(cfg)), 7200.0)
        scene = SceneGeometry(cfg, horizon)
        rain_on = _rain_process(cfg, times, _stream(seed, _S_RAIN))
        route_steps = min(scene.num_steps, int(math.floor(duration / scene.dt_s + 1e-9)) + 2)
        if any(cfg.paths[i].satellite.routing == "isl" for i in sat_idx):
            params = resolve_constellation(cfg.constellation)
            topo = plus_grid(
                params.num_planes,
                params.sats_per_plane,
                params.kind == "walker_star",
                cfg.constellation.isl.cross_seam,
            )
            router = ShortestPaths(
                topo, scene.positions[:route_steps], cfg.constellation.isl.interplane_max_lat_deg
            )
        skies: dict[int, PathSky] = {}

        def prepare(i: int) -> None:
            sp = cfg.paths[i].satellite
            side = scene.ground_side(list(sp.gateways))
            sides[i] = side
            if sp.routing == "isl":
                assert router is not None
                avoid_of = sp.disjoint_from
                dist = np.full((route_steps, scene.num_sats), np.inf)
                plist = []
                for k in range(route_steps):
                    avoid = None
                    if avoid_of is not None:
                        other = plans[avoid_of]
                        first = int(other.serving_at(np.array([k * scene.dt_s]))[0])
                        if first >= 0:
                            avoid = router.edge_ids(router.route(preds[avoid_of][k], first))
                    d, pr = router.solve(k, side.cost_km[k], avoid)
                    dist[k] = d
                    plist.append(pr)
                preds[i] = plist
                ground_ok = np.ones_like(scene.ut_range_km, dtype=bool)
                skies[i] = PathSky(
                    scene.dt_s,
                    scene.ut_elevation_deg,
                    scene.ut_range_km,
                    scene.ut_mask_deg,
                    ground_ok,
                    dist,
                    ground_interpolate=False,
                )
            else:
                skies[i] = PathSky(
                    scene.dt_s,
                    scene.ut_elevation_deg,
                    scene.ut_range_km,
                    scene.ut_mask_deg,
                    np.isfinite(side.cost_km),
                    side.cost_km,
                )

        if h.assignment == "maco_alternate":
            for i in sat_idx:
                prepare(i)
            ia, ib = sat_idx
            inst, _, _ = _decision_instants(cfg, epoch, skies[ia], cfg.paths[ia])
            pa, pb = plan_maco_alternate(
                (skies[ia], skies[ib]), h, inst, _stream(seed, _S_SELECT, 0), duration
            )
            plans[ia], plans[ib] = pa, pb
        else:
            for i in sat_idx:
                prepare(i)
                inst, cause, count = _decision_instants(cfg, epoch, skies[i], cfg.paths[i])
                plans[i] = plan_rank(
                    skies[i],
                    h,
                    inst,
                    cfg.paths[i].satellite.sat_rank,
                    _stream(seed, _S_SELECT, i),
                    duration,
                    cause,
                    count,
                )
        isl = cfg.constellation.isl
        for i in sat_idx:
            res = assemble_satellite_path(
                cfg.paths[i],
                plans[i],
                scene,
                sides[i],
                router,
                preds.get(i),
                times,
                dt,
                duration,
                h,
                cfg.link_budget,
                cfg.rain,
                rain_on,
                isl.loss_per_hop,
                isl.rate_mbps,
                _stream(seed, _S_NOISE, i),
            )
            arrays[i] = dict(res.__dict__)
            assembled[i] = res
            dyn = cfg.paths[i].satellite.dynamics
            replay = cfg.paths[i].satellite.replay
            if dyn.enabled or replay.enabled:
                predictable[i] = {k: arrays[i][k] for k in _FORECAST_KEYS}
            if dyn.enabled:
                geometric[i] = {k: arrays[i][k] for k in _QUEUE_KEYS}
                arrays[i].update(
                    apply_dynamics(
                        dyn,
                        arrays[i],
                        times,
                        dt,
                        slot_instants(duration + _DYN_MARGIN_S, epoch, h.period_s, h.offset_s),
                        dynamics_streams(seed, _S_DYN, dyn.group, i),
                        update_s=cfg.paths[i].satellite.capacity_update_s,
                        min_rate_bps=cfg.paths[i].satellite.min_rate_mbps * 1e6,
                        gain=diurnal_gain(epoch, cfg.terminal.lon_deg, dyn.diurnal_scale)
                        if dyn.diurnal
                        else 1.0,
                        duration_s=duration,
                    ).arrays()
                )
            if replay.enabled:
                arrays[i].update(
                    replay_path(
                        replay,
                        times,
                        dt,
                        scenario_boundary_s=scenario_boundary_phase_s(epoch, h.period_s, h.offset_s)
                        if h.mode == "schedule"
                        else None,
                        period_s=h.period_s,
                        min_rate_bps=cfg.paths[i].satellite.min_rate_mbps * 1e6,
                        field=f"scenario.paths[{i}].satellite.replay",
                    )
                )
            events[i] = [e for e in plans[i].events if e.t_s <= duration]

    paths: list[PathTimeline] = []
    for i, pc in enumerate(cfg.paths):
        if pc.kind == "terrestrial":
            arrays[i] = _terrestrial(
                pc, times, _stream(seed, _S_MARKOV, i), f"scenario.paths[{i}].terrestrial"
            )
        a = arrays[i]
        if cfg.rate_scale != 1.0:
            a["rate_down_bps"] = a["rate_down_bps"] / cfg.rate_scale
            a["rate_up_bps"] = a["rate_up_bps"] / cfg.rate_scale
            if i in predictable:
                for key in ("rate_down_bps", "rate_up_bps"):
                    predictable[i][key] = predictable[i][key] / cfg.rate_scale
        g = geometric.get(i, a)
        queue = resolve_queue_packets(
            pc.queue,
            cfg.traffic.packet_bytes,
            g["rate_down_bps"] / cfg.rate_scale if i in geometric else g["rate_down_bps"],
            g["delay_down_s"] + g["delay_up_s"],
            g["outages"],
            times,
            field=f"scenario.paths[{i}].queue.size",
        )
        if cfg.rate_scale != 1.0 and pc.queue.unit != "bdp":
            # The same queueing delay at 1/k of the rate (a BDP queue follows the rates).
            queue = max(int(round(queue / cfg.rate_scale)), int(pc.queue.min_packets))
        paths.append(
            PathTimeline(
                name=pc.name or f"{pc.kind}{i}",
                slant_range_m=_slant_range_m(cfg, a["elevation_deg"])
                if pc.kind == "satellite"
                else None,
                kind=pc.kind,
                **{name: a[name] for name in LINK_ARRAYS},
                snr_db=a["snr_db"],
                elevation_deg=a["elevation_deg"],
                serving_sat=a["serving_sat"],
                outages=a["outages"],
                handovers=a["handovers"],
                queue_packets=queue,
                events=events.get(i, []),
                isl_hops=a.get("isl_hops"),
                geometric=predictable.get(i),
            )
        )
    network: HopNetwork | None = None
    if cfg.topology == "hops":
        if cfg.hops.nodes:  # a controlled network: its routes are the paths
            network, paths = build_controlled_network(cfg, times)
        else:
            sources = GeometrySources(cfg, times, dt, scene, router, sides, preds, plans, assembled)
            network = build_geometry_network(sources, paths)
    settle = max(h.outage_s, h.delay_spike_s if h.delay_spike_ms > 0 else 0.0)
    for pc in cfg.paths:
        if pc.kind == "satellite":
            settle = max(settle, pc.satellite.dynamics.transient_s())
    return Timeline(
        t0_s=0.0,
        dt_s=dt,
        n=n,
        epoch_utc_s=epoch,
        paths=paths,
        sat_positions=scene.positions if (keep_geometry and scene is not None) else None,
        geometry_times_s=scene.times_s if (keep_geometry and scene is not None) else None,
        settle_s=settle,
        rate_scale=float(cfg.rate_scale),
        network=network,
    )
