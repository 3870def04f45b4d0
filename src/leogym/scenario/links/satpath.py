"""Fine-grid arrays of one satellite path: delay, capacity, loss, SNR, outages.

Given the path's serving plan (:mod:`leogym.scenario.links.handover`) and the coarse geometry
(:mod:`leogym.scenario.orbital.scene`), every timeline sample gets:

* **delay**: ``(d_UT-sat + d_sat-ground) / c + backhaul`` one way. ``d_UT-sat`` is interpolated
  linearly between coarse samples *of the serving satellite* (never across a handover). The
  ground leg is the gateway slant range (bent pipe) or the ISL chords of the route plus the
  egress gateway's slant range; routes and gateway choices are held over each coarse step (a
  time-stepped forwarding state, as in Hypatia) with their lengths interpolated inside it.
  Handover latency spikes are added on top. The ``envelope`` model maps the geometric RTT
  affinely from its closed-form bounds onto ``[rtt_min_ms, rtt_max_ms]`` (ALCS).
* **capacity**: the MACO link budget of the slant range (or a fixed rate), re-evaluated every
  ``capacity_update_s`` and at every satellite change, times ``capacity_scale``, with the
  optional LEOTP V-curve and uniform noise, limited by ISL and backhaul rates.
* **loss**: path loss, ISL per-hop loss, rain loss and the handover-window loss, combined as
  independent Bernoulli events.
* **outages**: ``[t_ho, t_ho + outage_s)`` after each handover with effects, plus every interval
  without a usable satellite or route.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leogym.scenario.config import HandoverConfig, LinkBudgetConfig, PathConfig, RainConfig
from leogym.scenario.constants import SPEED_OF_LIGHT_KM_S
from leogym.scenario.links.arrays import LinkArrays
from leogym.scenario.links.handover import ServingPlan
from leogym.scenario.links.intervals import false_runs, merge_intervals
from leogym.scenario.links.linkbudget import capacity_bps, rain_attenuation_db, snr_db
from leogym.scenario.orbital.isl import ShortestPaths
from leogym.scenario.orbital.look import slant_range_at_elevation_km
from leogym.scenario.orbital.scene import GroundSide, SceneGeometry

__all__ = ["SatelliteArrays", "assemble_satellite_path"]


@dataclass
class SatelliteArrays(LinkArrays):
    """The arrays of one satellite path (see
    :class:`~leogym.scenario.links.arrays.PathTimeline`)."""

    snr_db: np.ndarray
    elevation_deg: np.ndarray
    serving_sat: np.ndarray
    outages: np.ndarray
    handovers: np.ndarray
    isl_hops: np.ndarray
    #: Parts of the arrays above kept for the hop network (:mod:`leogym.scenario.hops.geometry`;
    #: not sent to C++). The access link's (GSL's) downlink rate before the ISL and backhaul
    #: caps and before the floor (bit/s, V-curve and noise included):
    access_rate_down_bps: np.ndarray | None = None
    #: The configured uplink rate before the caps (bit/s); ``None`` = as the downlink.
    access_rate_up_bps: float | None = None
    #: ``envelope`` delay model: modelled over geometric propagation delay at each sample (NaN
    #: where no satellite serves), the factor on every propagation leg; ``None``: ``geometry``.
    delay_scale: np.ndarray | None = None


def _fill_invalid(values: np.ndarray, ok: np.ndarray, default: float) -> np.ndarray:
    if ok.all():
        return values
    if not ok.any():
        return np.full_like(values, default)
    idx = np.arange(len(values))
    return np.interp(idx, idx[ok], values[ok])


def _lerp(a: np.ndarray, b: np.ndarray, f: np.ndarray) -> np.ndarray:
    return a + (b - a) * f


@dataclass
class _Where:
    """Coarse-grid location of fine samples for one satellite each."""

    k: np.ndarray
    f: np.ndarray
    sat: np.ndarray

    def pick(self, table: np.ndarray) -> np.ndarray:
        return _lerp(table[self.k, self.sat], table[self.k + 1, self.sat], self.f)


def _locate(times: np.ndarray, dt_g: float, steps: int, sat: np.ndarray) -> _Where:
    k = np.clip(np.floor(times / dt_g + 1e-9).astype(np.int64), 0, steps - 2)
    f = np.clip(times / dt_g - k, 0.0, 1.0)
    return _Where(k, f, np.where(sat >= 0, sat, 0).astype(np.int64))


def assemble_satellite_path(
    path: PathConfig,
    plan: ServingPlan,
    scene: SceneGeometry,
    side: GroundSide,
    router: ShortestPaths | None,
    preds: list[np.ndarray] | None,
    times: np.ndarray,
    dt: float,
    duration: float,
    handover: HandoverConfig,
    budget: LinkBudgetConfig,
    rain: RainConfig,
    rain_on: np.ndarray,
    isl_loss_per_hop: float,
    isl_rate_mbps: float | None,
    noise_rng: np.random.Generator,
) -> SatelliteArrays:
    """Build the fine-grid arrays of one satellite path (see the module docstring)."""
    s = path.satellite
    n = len(times)
    sat = plan.serving_at(times)
    valid = sat >= 0
    where = _locate(times, scene.dt_s, scene.num_steps, sat)
    r_ut = where.pick(scene.ut_range_km)
    elev = where.pick(scene.ut_elevation_deg)

    hops = np.zeros(n, dtype=np.int32)
    if s.routing == "bent_pipe":
        g = side.choice[where.k, where.sat]
        g = np.where(g >= 0, g, side.fallback[where.k, where.sat])
        far = _lerp(
            scene.gs_range_km[g, where.k, where.sat],
            scene.gs_range_km[g, where.k + 1, where.sat],
            where.f,
        )
    else:
        assert router is not None and preds is not None
        far = np.zeros(n)
        keys = where.k * scene.num_sats + where.sat
        uniq, inv = np.unique(keys[valid], return_inverse=True)
        len0 = np.full(len(uniq), np.nan)
        len1 = np.full(len(uniq), np.nan)
        nh = np.zeros(len(uniq), dtype=np.int32)
        for u, key in enumerate(uniq):
            k, first = divmod(int(key), scene.num_sats)
            route = router.route(preds[k], first)
            if not route:
                continue
            egress = route[-1]
            gs = int(side.choice[k, egress])
            if gs < 0:
                continue
            len0[u] = router.chord_sum(k, route) + scene.gs_range_km[gs, k, egress]
            len1[u] = router.chord_sum(k + 1, route) + scene.gs_range_km[gs, k + 1, egress]
            nh[u] = len(route) - 1
        far[valid] = _lerp(len0[inv], len1[inv], where.f[valid])
        hops[valid] = nh[inv]
    valid &= np.isfinite(r_ut) & np.isfinite(far) & np.isfinite(elev)

    events = [e for e in plan.events if e.t_s <= duration]
    effect_times = np.array([e.t_s for e in events if e.effects])
    all_times = np.array([e.t_s for e in events])

    # delay
    prop = (r_ut + far) / SPEED_OF_LIGHT_KM_S
    delay_scale: np.ndarray | None = None
    if s.delay_model == "envelope":
        geometric = prop
        assert s.rtt_min_ms is not None and s.rtt_max_ms is not None
        h = scene.altitude_km
        ut_max = float(slant_range_at_elevation_km(h, scene.ut_mask_deg))
        gs_max = float(slant_range_at_elevation_km(h, float(np.min(scene.station_masks))))
        lo, hi = 2.0 * h / SPEED_OF_LIGHT_KM_S, (ut_max + gs_max) / SPEED_OF_LIGHT_KM_S
        frac = np.clip((prop - lo) / max(hi - lo, 1e-12), 0.0, 1.0)
        prop = 0.5e-3 * (s.rtt_min_ms + frac * (s.rtt_max_ms - s.rtt_min_ms))
        with np.errstate(divide="ignore", invalid="ignore"):
            delay_scale = prop / geometric
    spike = np.zeros(n)
    if handover.delay_spike_ms > 0:
        for te in effect_times:
            m = (times >= te) & (times < te + handover.delay_spike_s)
            spike[m] += (
                0.5e-3 * handover.delay_spike_ms * (1.0 - (times[m] - te) / handover.delay_spike_s)
            )
    base_delay = _fill_invalid(
        np.where(valid, prop, np.nan), valid, 2.0 * scene.altitude_km / SPEED_OF_LIGHT_KM_S
    )
    delay = base_delay + s.backhaul_delay_ms * 1e-3 + spike

    # rain and SNR
    elev_f = _fill_invalid(np.where(valid, elev, np.nan), valid, 0.0)
    r_f = _fill_invalid(np.where(valid, r_ut, np.nan), valid, scene.altitude_km)
    atten = np.zeros(n)
    if rain.mode != "off":
        atten = rain_on * rain_attenuation_db(
            elev_f, rain.specific_attenuation_db_km, rain.rain_height_km, rain.station_height_km
        )
    snr = snr_db(r_f, budget, atten)

    # capacity, evaluated at update instants (and at satellite changes)
    if s.capacity_update_s > 0:
        t_upd = np.floor(times / s.capacity_update_s + 1e-9) * s.capacity_update_s
        starts = np.asarray(plan.starts)
        seg = np.clip(np.searchsorted(starts, times, side="right") - 1, 0, None)
        t_upd = np.maximum(t_upd, starts[seg])
        at = _locate(t_upd, scene.dt_s, scene.num_steps, sat)
        d_upd = at.pick(scene.ut_range_km)
        idx_upd = np.clip(np.round(t_upd / dt).astype(np.int64), 0, n - 1)
        d_upd = np.where(np.isfinite(d_upd), d_upd, r_f)
        atten_upd = atten[idx_upd]
        noise_idx = np.floor(times / s.capacity_update_s + 1e-9).astype(np.int64)
    else:
        d_upd, atten_upd = r_f, atten
        noise_idx = np.arange(n)
    if s.capacity == "link_budget":
        rate = capacity_bps(d_upd, budget, atten_upd) * s.capacity_scale
        if s.rate_down_mbps is not None:
            rate = np.minimum(rate, s.rate_down_mbps * 1e6)
    else:
        assert s.rate_down_mbps is not None
        rate = np.full(n, s.rate_down_mbps * 1e6 * s.capacity_scale)
    if s.v_curve_depth > 0 and len(all_times):
        pos = np.searchsorted(all_times, times)
        left = np.abs(times - all_times[np.clip(pos - 1, 0, len(all_times) - 1)])
        right = np.abs(all_times[np.clip(pos, 0, len(all_times) - 1)] - times)
        dist = np.minimum(left, right)
        rate = rate * (1.0 - s.v_curve_depth * np.maximum(0.0, 1.0 - dist / s.v_curve_half_width_s))
    if s.rate_noise_mbps > 0:
        draws = noise_rng.uniform(-1.0, 1.0, size=int(noise_idx.max()) + 1)
        rate = rate + s.rate_noise_mbps * 1e6 * draws[noise_idx]
    caps: list[np.ndarray] = []
    if isl_rate_mbps is not None:
        caps.append(np.where(hops > 0, isl_rate_mbps * 1e6, np.inf))
    if s.backhaul_rate_mbps is not None:
        caps.append(np.full(n, s.backhaul_rate_mbps * 1e6))
    floor = s.min_rate_mbps * 1e6
    rate_down = rate
    for cap in caps:
        rate_down = np.minimum(rate_down, cap)
    rate_down = np.maximum(_fill_invalid(np.where(valid, rate_down, np.nan), valid, floor), floor)
    if s.rate_up_mbps is not None:
        rate_up = np.full(n, s.rate_up_mbps * 1e6)
        for cap in caps:
            rate_up = np.minimum(rate_up, cap)
        rate_up = np.maximum(rate_up, floor)
    else:
        rate_up = rate_down.copy()

    # loss
    keep = (1.0 - isl_loss_per_hop) ** hops
    if rain.mode != "off" and rain.extra_loss > 0:
        keep = keep * (1.0 - rain.extra_loss * rain_on)
    if handover.loss_prob > 0:
        window = np.zeros(n, dtype=bool)
        for te in effect_times:
            window |= (times >= te - handover.loss_before_s) & (times <= te + handover.loss_after_s)
        keep = keep * np.where(window, 1.0 - handover.loss_prob, 1.0)
    loss_down = 1.0 - (1.0 - path.loss_down) * keep
    loss_up = 1.0 - (1.0 - path.loss_up) * keep

    # outages
    intervals: list[tuple[float, float]] = []
    if handover.outage_s > 0:
        intervals += [(float(te), float(te) + handover.outage_s) for te in effect_times]
    intervals += _dark_intervals(plan, duration)
    intervals += false_runs(valid | (sat < 0), times, dt)  # unreachable route / unknown position
    outages = merge_intervals(intervals, duration)

    return SatelliteArrays(
        delay_down_s=np.ascontiguousarray(delay, dtype=np.float64),
        delay_up_s=np.ascontiguousarray(delay.copy(), dtype=np.float64),
        rate_down_bps=np.ascontiguousarray(rate_down, dtype=np.float64),
        rate_up_bps=np.ascontiguousarray(rate_up, dtype=np.float64),
        loss_down=np.ascontiguousarray(np.clip(loss_down, 0.0, 1.0), dtype=np.float64),
        loss_up=np.ascontiguousarray(np.clip(loss_up, 0.0, 1.0), dtype=np.float64),
        snr_db=np.ascontiguousarray(snr, dtype=np.float64),
        elevation_deg=np.ascontiguousarray(elev_f, dtype=np.float64),
        serving_sat=np.ascontiguousarray(np.where(valid, sat, -1), dtype=np.int32),
        outages=outages,
        handovers=np.ascontiguousarray(all_times, dtype=np.float64),
        isl_hops=hops,
        access_rate_down_bps=rate,
        access_rate_up_bps=None if s.rate_up_mbps is None else s.rate_up_mbps * 1e6,
        delay_scale=delay_scale,
    )


def _dark_intervals(plan: ServingPlan, duration: float) -> list[tuple[float, float]]:
    out = []
    for i, sat in enumerate(plan.sats):
        if sat < 0:
            stop = plan.starts[i + 1] if i + 1 < len(plan.starts) else duration
            out.append((plan.starts[i], stop))
    return out
