"""Per-slot Starlink dynamics (leogym.scenario.links.dynamics): the acceptance tests T1-T17.

The bands are those of the measurement compilation behind the layer (docs/scenario.md,
"Per-slot dynamics"): each contains the published or trace-derived figure (StarNet/Victoria
windows, LeoReplayer and LENS traces, HitchHiking, Michel et al., WetLinks) and the model's
seed-to-seed spread. Every statistic is taken on 3600 s timelines of ``starlink_geometric``'s
geometry, seeds 0-4, each preset, on the layer's own contribution (the geometric arrays divided
out or subtracted). The geometry is built once (the default path draws no random number), the
layer is applied per preset and seed (about 0.03 s per timeline).
"""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config.dynamics import DynamicsConfig
from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.links.dynamics import (
    DIURNAL_PROFILE,
    apply_dynamics,
    diurnal_gain,
    dynamics_streams,
)
from leogym.scenario.links.handover import slot_instants
from leogym.scenario.timeline_builder import _S_DYN, resolved_epoch_utc_s
from leogym.scenario.validation import validate_scenario

DURATION_S = 3600.0
SEEDS = range(5)
PRESETS = ("default", "lossy", "variable", "isl")
KEYS = ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps", "loss_down", "loss_up")


def _scenario(duration: float = DURATION_S, preset: str = "off"):
    cfg = copy.deepcopy(load_scenario("starlink_geometric"))
    cfg.duration_s = duration
    cfg.handover.outage_s = 0.0  # the layer models the boundary itself
    cfg.paths[0].satellite.dynamics = DynamicsConfig(preset=preset)
    return cfg


@pytest.fixture(scope="module")
def geometric():
    """The satellite path of ``starlink_geometric`` (the geometric model alone), 3600 s."""
    cfg = _scenario()
    tl = build_timeline(cfg, 0)
    return cfg, tl


def _apply(cfg, tl, preset: str, seed: int, **over):
    p = tl.paths[0]
    arrays = {k: getattr(p, k) for k in (*KEYS, "outages")}
    dyn = DynamicsConfig(preset=preset, **over)
    epoch = resolved_epoch_utc_s(cfg)
    bounds = slot_instants(tl.duration_s + 1.0, epoch, 15.0, 12.0)
    return apply_dynamics(
        dyn,
        arrays,
        tl.times,
        tl.dt_s,
        bounds,
        dynamics_streams(seed, _S_DYN, dyn.group, 0),
        update_s=0.1,
        min_rate_bps=0.1e6,
        gain=diurnal_gain(epoch, cfg.terminal.lon_deg, 1.0),
        duration_s=tl.duration_s,
    )


# ----------------------------------------------------------------------------- statistics
def _stats(tl, res) -> dict[str, float]:
    """The statistics of the acceptance tests, on the layer's contribution."""
    p = tl.paths[0]
    t, dt = tl.times, tl.dt_s
    end = tl.duration_s
    b = res.boundaries[res.boundaries <= end]
    edges = np.concatenate([[0.0], b, [end]])
    rtt_add = 1e3 * (res.delay_down_s + res.delay_up_s - p.delay_down_s - p.delay_up_s)
    rtt = 1e3 * (res.delay_down_s + res.delay_up_s)
    ratio = res.rate_down_bps / p.rate_down_bps
    out: dict[str, float] = {}
    # T2-T4: per-slot RTT offset steps (complete slots of the episode)
    o = res.slot_offset_ms[: len(b) + 1]
    step = np.abs(np.diff(o))
    out["p_small"] = float(np.mean(step <= 3.0))
    out["p_large"] = float(np.mean(step > 10.0))
    out["max_step"] = float(step.max())
    # T5, T6, T7-T10 per full slot
    slopes, spread, means, cv1, cv01 = [], [], [], [], []
    for k in range(1, len(edges) - 2):  # full slots between two boundaries
        a, z = edges[k], edges[k + 1]
        # 1 s minima away from both boundaries
        lo = [a + 1.0 + j for j in range(int(z - a - 2.0))]
        mins = [rtt[int(round(x / dt)) : int(round((x + 1.0) / dt))].min() for x in lo]
        slopes.append(abs(np.polyfit(np.asarray(lo), np.asarray(mins), 1)[0]))
        seg = rtt_add[int(round((a + 0.5) / dt)) : int(round((z - 0.2) / dt))]
        spread.append(np.percentile(seg, 90) - seg.min())
        means.append(ratio[int(round((a + 0.5) / dt)) : int(round(z / dt))].mean())
        inner = ratio[int(round((a + 1.0) / dt)) : int(round((a + 14.0) / dt))]
        m1 = inner.reshape(-1, 100).mean(axis=1)
        m01 = inner.reshape(-1, 10).mean(axis=1)
        cv1.append(m1.std() / m1.mean())
        cv01.append(m01.std() / m01.mean())
    out["flat_share"] = float(np.mean(np.asarray(slopes) <= 0.3))
    out["spread_ms"] = float(np.median(spread))
    lm = np.log(np.asarray(means))
    out["sd_log_ratio"] = float(np.std(np.diff(lm), ddof=1))
    out["lag1"] = float(np.corrcoef(lm[:-1], lm[1:])[0, 1])
    rel = np.asarray(means) / np.median(means)
    out["p5"], out["p95"] = (float(x) for x in np.percentile(rel, [5, 95]))
    out["cv1"], out["cv01"] = float(np.median(cv1)), float(np.median(cv01))
    # T11: first second after each boundary against the slot's median
    first = []
    for k in range(1, len(edges) - 2):
        a, z = edges[k], edges[k + 1]
        i0 = int(round(a / dt))
        first.append(ratio[i0 : i0 + 100].mean() / np.median(ratio[i0 : int(round(z / dt))]))
    out["first_s"] = float(np.median(first))
    inside = b <= end
    out["d_med_ms"] = float(np.median(res.stall_len_s[inside])) * 1e3
    out["a_med_ms"] = float(np.median(res.spike_peak_ms[inside]))
    # T13, T14: loss above the geometric one, and outage time
    excess_dn = 1.0 - (1.0 - res.loss_down) / (1.0 - p.loss_down)
    excess_up = 1.0 - (1.0 - res.loss_up) / (1.0 - p.loss_up)
    out["loss_down"], out["loss_up"] = float(excess_dn.mean()), float(excess_up.mean())
    pp = DynamicsConfig(preset="isl").resolve()
    above = 1.0 - (1.0 - excess_dn) / (1.0 - pp.p_bg_down)
    win = np.zeros(len(t), dtype=bool)
    for x in b:
        win[int(math.ceil((x - 0.2) / dt)) : int(math.floor((x + 1.0) / dt)) + 1] = True
    out["loss_share"] = float(above[win].sum() / above.sum()) if above.sum() > 1e-12 else 1.0
    extra = res.outages
    length = float(np.sum(extra[:, 1] - extra[:, 0])) if len(extra) else 0.0
    out["outage_frac"] = length / end
    if len(extra):
        near = [((extra[:, 0] >= x - 0.2) & (extra[:, 1] <= x + 1.0)) for x in b]
        covered = np.any(np.asarray(near), axis=0)
        out["outage_share"] = float(np.sum((extra[:, 1] - extra[:, 0])[covered]) / length)
    return out


BANDS: dict[str, dict[str, tuple[float, float]]] = {
    "default": {
        "p_small": (0.65, 0.85),
        "p_large": (0.04, 0.15),
        "spread_ms": (4.0, 10.0),
        "sd_log_ratio": (0.20, 0.34),
        "lag1": (0.05, 0.45),
        "p5": (0.60, 0.78),
        "p95": (1.25, 1.50),
        "cv1": (0.07, 0.12),
        "cv01": (0.07, 0.17),
        "first_s": (0.65, 0.82),
        "d_med_ms": (45.0, 80.0),
        "a_med_ms": (45.0, 80.0),
        "loss_down": (0.0, 0.0005),
        "loss_up": (0.0015, 0.0030),
    },
    "variable": {
        "p_small": (0.45, 0.70),
        "p_large": (0.12, 0.30),
        "spread_ms": (4.0, 10.0),
        "sd_log_ratio": (0.42, 0.68),
        "lag1": (-0.2, 0.15),
        "p5": (0.30, 0.55),
        "p95": (1.35, 1.70),
        "cv1": (0.11, 0.18),
        "cv01": (0.14, 0.24),
        "first_s": (0.65, 0.82),
        "d_med_ms": (45.0, 80.0),
        "a_med_ms": (45.0, 80.0),
        "loss_down": (0.001, 0.004),
        "loss_share": (0.9, 1.0),
    },
    "isl": {
        "p_small": (0.08, 0.30),
        "p_large": (0.35, 0.65),
        "spread_ms": (12.0, 22.0),
        "sd_log_ratio": (0.20, 0.34),
        "lag1": (0.05, 0.45),
        "p5": (0.60, 0.78),
        "p95": (1.25, 1.50),
        "cv1": (0.07, 0.12),
        "cv01": (0.07, 0.17),
        "outage_frac": (0.025, 0.045),
        "outage_share": (0.9, 1.0),
    },
}
# lossy = default with a loss burst at every boundary: same RTT and capacity bands
BANDS["lossy"] = {
    **{k: v for k, v in BANDS["default"].items() if not k.startswith("loss")},
    "loss_down": (0.002, 0.006),
    "loss_up": (0.0035, 0.008),
    "loss_share": (0.9, 1.0),
}
for _b in BANDS.values():
    _b["flat_share"] = (0.9, 1.0)


@pytest.mark.parametrize("preset", PRESETS)
def test_acceptance_bands_every_seed(geometric, preset):
    """T2, T3, T5-T14: every statistic inside its band for every seed 0-4."""
    cfg, tl = geometric
    bad = []
    for seed in SEEDS:
        st = _stats(tl, _apply(cfg, tl, preset, seed))
        for name, (lo, hi) in BANDS[preset].items():
            if not lo <= st[name] <= hi:
                bad.append(f"seed {seed}: {name} = {st[name]:.4g} not in [{lo}, {hi}]")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("preset", PRESETS)
def test_events_start_at_the_boundary_and_steps_are_bounded(geometric, preset):
    """T1 (stalls, spikes, bursts, outages start in [b_k - 0.2 s, b_k]) and T4."""
    cfg, tl = geometric
    p = tl.paths[0]
    for seed in SEEDS[:2]:
        res = _apply(cfg, tl, preset, seed)
        b = res.boundaries
        assert np.all((res.stall_start_s >= b - 0.2) & (res.stall_start_s <= b))
        o = res.outage_s[np.isfinite(res.outage_s[:, 0])]
        ob = b[np.isfinite(res.outage_s[:, 0])]
        assert np.all((o[:, 0] >= ob - 0.2) & (o[:, 0] <= ob))
        # bursts, read from the arrays: every run of extra loss starts in a boundary window
        extra = (1.0 - (1.0 - res.loss_down) / (1.0 - p.loss_down)) > 2e-4
        starts = tl.times[np.flatnonzero(np.diff(np.concatenate([[0], extra.astype(int)])) == 1)]
        if len(starts):
            gap = b[np.searchsorted(b, starts - 1e-9)] - starts
            assert np.all((gap >= -1e-9) & (gap <= 0.2 + 1e-9))
        # rate dips below 30 % of the slot level start at a stall
        dip = res.rate_down_bps / p.rate_down_bps < 0.05
        starts = tl.times[np.flatnonzero(np.diff(np.concatenate([[0], dip.astype(int)])) == 1)]
        gap = b[np.searchsorted(b, starts - 1e-9)] - starts
        assert np.all((gap >= -1e-9) & (gap <= 0.2 + 1e-9))
        par = DynamicsConfig(preset=preset).resolve()
        step = np.abs(np.diff(res.slot_offset_ms))
        assert step.max() <= par.x_max_ms + 4 * par.sigma_u_ms  # T4


@pytest.mark.parametrize("preset", PRESETS)
def test_invariants(geometric, preset):
    """T16: delays finite and >= geometric, rates > 0, FIFO, outages sorted and disjoint."""
    cfg, tl = geometric
    p = tl.paths[0]
    res = _apply(cfg, tl, preset, 3)
    for key in ("delay_down_s", "delay_up_s"):
        d = getattr(res, key)
        assert np.all(np.isfinite(d)) and np.all(d >= getattr(p, key))
        assert np.all(np.diff(d) >= -tl.dt_s)
        assert np.all(np.diff(d) >= -0.8 * tl.dt_s - 1e-9)
    assert np.all(res.rate_down_bps > 0) and np.all(res.rate_up_bps > 0)
    assert np.all((res.loss_down >= 0) & (res.loss_down < 1))
    o = res.outages
    assert np.all(o[:, 1] > o[:, 0]) and np.all(o[1:, 0] > o[:-1, 1])


# ----------------------------------------------------------------------- seeding (T15, T17)
def test_off_reproduces_todays_arrays_exactly():
    """T17: ``preset: off`` (and the field left out) gives bit-identical arrays."""
    base = load_scenario("starlink_geometric")  # the geometric model alone: no dynamics key
    explicit = copy.deepcopy(base)
    explicit.paths[0].satellite.dynamics = DynamicsConfig(preset="off", sigma_s=0.9)
    a, b = build_timeline(base, 7), build_timeline(explicit, 7)
    for pa, pb in zip(a.paths, b.paths, strict=True):
        for key in (*KEYS, "outages", "handovers", "snr_db", "serving_sat"):
            np.testing.assert_array_equal(getattr(pa, key), getattr(pb, key))
        assert pa.queue_packets == pb.queue_packets


def test_default_is_the_geometric_scenario_plus_the_default_layer():
    """The bundled ``default`` is ``starlink_geometric`` with the ``default`` preset, the
    geometric outage and the path's own loss moved into the layer (no double counting)."""
    geo, new = load_scenario("starlink_geometric"), load_scenario("default")
    assert new.paths[0].satellite.dynamics.preset == "default"
    assert (new.handover.outage_s, new.paths[0].loss_down, new.paths[0].loss_up) == (0, 0, 0)
    undo = copy.deepcopy(new)
    undo.name = geo.name
    undo.handover.outage_s = geo.handover.outage_s
    undo.paths[0].loss_down, undo.paths[0].loss_up = geo.paths[0].loss_down, geo.paths[0].loss_up
    undo.paths[0].satellite.dynamics = DynamicsConfig()
    assert undo == geo


def test_off_returns_the_inputs(geometric):
    cfg, tl = geometric
    res = _apply(cfg, tl, "off", 0)
    for key in KEYS:
        assert getattr(res, key) is getattr(tl.paths[0], key)


@pytest.mark.parametrize("preset", PRESETS)
def test_same_seed_same_arrays_and_prefix_stable(preset):
    """T15: same seed -> bit-identical; a 60 s timeline is the first 60 s of a 120 s one."""
    short = build_timeline(_scenario(60.0, preset), 4)
    again = build_timeline(_scenario(60.0, preset), 4)
    long = build_timeline(_scenario(120.0, preset), 4)
    n = short.n
    for key in KEYS:
        s, a, g = (getattr(x.paths[0], key) for x in (short, again, long))
        np.testing.assert_array_equal(s, a)
        np.testing.assert_array_equal(s, g[:n])
    lo = long.paths[0].outages
    np.testing.assert_array_equal(short.paths[0].outages, lo[lo[:, 0] < 60.0].clip(max=60.0))
    other = build_timeline(_scenario(60.0, preset), 5)
    assert not np.array_equal(short.paths[0].rate_down_bps, other.paths[0].rate_down_bps)


def test_switching_dynamics_leaves_other_streams_unchanged():
    """T15: the random policy, rain, rate noise and Markov streams do not move."""
    cfg = copy.deepcopy(load_scenario("starlink_geometric"))
    cfg.duration_s = 60.0
    cfg.handover.outage_s = 0.0
    cfg.handover.policy = "random"
    cfg.rain.mode = "markov"
    cfg.rain.mean_clear_s = cfg.rain.mean_rain_s = 10.0
    second = copy.deepcopy(cfg.paths[0])
    second.name = "sat2"
    second.satellite.rate_noise_mbps = 5.0
    cfg.paths.append(second)
    on = copy.deepcopy(cfg)
    on.paths[0].satellite.dynamics = DynamicsConfig(preset="variable")
    a, b = build_timeline(cfg, 11), build_timeline(on, 11)
    for key in ("serving_sat", "snr_db", "handovers"):
        np.testing.assert_array_equal(a.paths[0].__dict__[key], b.paths[0].__dict__[key])
    for i in (1, 2):  # the terrestrial (Markov) path and the noisy satellite path
        for key in (*KEYS, "outages", "serving_sat", "snr_db"):
            np.testing.assert_array_equal(getattr(a.paths[i], key), getattr(b.paths[i], key))
    assert not np.array_equal(a.paths[0].rate_down_bps, b.paths[0].rate_down_bps)
    assert a.paths[0].queue_packets == b.paths[0].queue_packets  # from the geometric means


def test_builder_applies_the_layer_to_the_geometric_arrays(geometric):
    cfg, tl = geometric
    on = _scenario(DURATION_S, "lossy")
    got = build_timeline(on, 2).paths[0]
    res = _apply(cfg, tl, "lossy", 2)
    for key in KEYS:
        np.testing.assert_array_equal(getattr(got, key), getattr(res, key))


def test_group_shares_rtt_and_boundary_events(geometric):
    cfg, tl = geometric
    a = _apply(cfg, tl, "default", 1)
    p = tl.paths[0]
    arrays = {k: getattr(p, k) for k in (*KEYS, "outages")}
    dyn = DynamicsConfig(preset="default")
    bounds = slot_instants(tl.duration_s + 1.0, resolved_epoch_utc_s(cfg), 15.0, 12.0)
    other = apply_dynamics(
        dyn, arrays, tl.times, tl.dt_s, bounds, dynamics_streams(1, _S_DYN, 0, 1),
        update_s=0.1, min_rate_bps=1e5,
    )  # fmt: skip
    np.testing.assert_array_equal(a.slot_offset_ms, other.slot_offset_ms)
    np.testing.assert_array_equal(a.stall_len_s, other.stall_len_s)
    assert not np.array_equal(a.slot_mult_down, other.slot_mult_down)


# ------------------------------------------------------------------------ config and checks
def test_presets_fill_and_explicit_values_override():
    assert DynamicsConfig(preset="variable").resolve().p_bad == 0.15
    assert DynamicsConfig(preset="isl", sigma_s=0.5).resolve().sigma_s == 0.5
    assert DynamicsConfig(preset="isl").resolve().p_out == 1.0
    assert not DynamicsConfig().enabled


def test_diurnal_gain_follows_the_local_hour():
    # 19:xx local time: the evening minimum, 0.85 of the median
    assert diurnal_gain(19.5 * 3600.0, 0.0, 1.0) == pytest.approx(DIURNAL_PROFILE[19])
    assert diurnal_gain(0.0, -120.0, 1.0) == pytest.approx(DIURNAL_PROFILE[16])  # UTC-8
    assert diurnal_gain(19.5 * 3600.0, 0.0, 0.0) == 1.0
    assert diurnal_gain(5.5 * 3600.0, 0.0, 2.0) == pytest.approx(1.0 + 2 * 0.13)


@pytest.mark.parametrize(
    ("change", "field", "text"),
    [
        ({"preset": "starlink"}, "satellite.dynamics.preset", "must be one of"),
        ({"sigma_s": -0.1}, "satellite.dynamics.sigma_s", "must be in [0, 2]"),
        ({"p_bad": 1.5}, "satellite.dynamics.p_bad", "must be in [0, 1]"),
        ({"p_bad": -0.01}, "satellite.dynamics.p_bad", "must be in [0, 1]"),
        ({"bad_lo": 0.7, "bad_hi": 0.5}, "satellite.dynamics.bad_hi", "must be >= bad_lo"),
        ({"phi": 1.0}, "satellite.dynamics.phi", "must be in [0, 1)"),
        ({"up_share": 2.0}, "satellite.dynamics.up_share", "must be in [0, 1]"),
    ],
)
def test_bad_dynamics_values_name_the_field(change, field, text):
    cfg = _scenario(30.0, "default")
    for key, value in change.items():
        setattr(cfg.paths[0].satellite.dynamics, key, value)
    with pytest.raises(ScenarioConfigError) as err:
        validate_scenario(cfg)
    assert str(err.value).startswith(f"scenario.paths[0].{field}:")
    assert text in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("where", "name", "value"),
    [
        ("handover", "outage_s", 0.1),
        ("handover", "delay_spike_ms", 20.0),
        ("handover", "loss_prob", 0.01),
        ("satellite", "v_curve_depth", 0.3),
        ("satellite", "rate_noise_mbps", 1.0),
    ],
)
def test_double_counting_is_rejected_unless_stacking(where, name, value):
    cfg = _scenario(30.0, "default")
    obj = cfg.handover if where == "handover" else cfg.paths[0].satellite
    setattr(obj, name, value)
    with pytest.raises(ScenarioConfigError, match="allow_stacking") as err:
        validate_scenario(cfg)
    prefix = "scenario.handover" if where == "handover" else "scenario.paths[0].satellite"
    assert err.value.field == f"{prefix}.{name}"
    cfg.paths[0].satellite.dynamics.allow_stacking = True
    build_timeline(cfg, 0)


def test_dynamics_needs_the_slot_schedule():
    cfg = _scenario(30.0, "default")
    cfg.handover.mode = "visibility"
    with pytest.raises(ScenarioConfigError, match=r"^scenario\.handover\.mode:"):
        validate_scenario(cfg)


def test_config_round_trips_through_dataclasses():
    dyn = DynamicsConfig(preset="lossy", p_ho=0.3)
    assert dataclasses.replace(dyn).resolve() == dyn.resolve()


# ---------------------------------------------------------------------------------- sampling
def test_sampling_picks_a_preset_and_a_scale_after_every_other_draw():
    """``sampling.dynamics_presets`` / ``dynamics_scale``: one preset for every satellite path,
    then a factor on sigma_s, sigma_w, q, m_e_ms and d_med_s; drawn after everything else, so a
    scenario without them draws exactly as before."""
    from leogym.scenario import sample_scenario
    from leogym.scenario.config.dynamics import DYNAMICS_PRESETS, SCALED_PARAMS

    base = load_scenario("default")
    plain = sample_scenario(base, np.random.default_rng(5))
    cfg = copy.deepcopy(base)
    cfg.sampling.dynamics_presets = ["variable", "lossy"]
    cfg.sampling.dynamics_scale = [0.5, 1.5]
    seen = set()
    for seed in range(12):
        out = sample_scenario(cfg, np.random.default_rng(seed))
        ref = sample_scenario(base, np.random.default_rng(seed))
        assert (out.epoch_utc_s, out.orbit_offset_s) == (ref.epoch_utc_s, ref.orbit_offset_s)
        dyn = out.paths[0].satellite.dynamics
        seen.add(dyn.preset)
        preset = DYNAMICS_PRESETS[dyn.preset]
        factors = [getattr(dyn, k) / getattr(preset, k) for k in SCALED_PARAMS]
        assert 0.5 <= factors[0] <= 1.5
        np.testing.assert_allclose(factors, factors[0], rtol=1e-12)
    assert seen == {"variable", "lossy"}
    assert plain.paths[0].satellite.dynamics == base.paths[0].satellite.dynamics


def test_scaling_caps_the_excursion_probability_and_the_median_stall():
    dyn = DynamicsConfig(preset="variable").scaled(10.0)
    assert dyn.q == 1.0 and dyn.d_med_s == dyn.resolve().d_hi_s
    assert DynamicsConfig().scaled(3.0) == DynamicsConfig()


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("dynamics_presets", ["default", "stormy"], "scenario.sampling.dynamics_presets[1]"),
        ("dynamics_scale", [1.5, 0.5], "scenario.sampling.dynamics_scale"),
        ("dynamics_scale", [-1.0, 1.0], "scenario.sampling.dynamics_scale"),
    ],
)
def test_bad_sampling_values_name_the_field(key, value, field):
    cfg = load_scenario("default")
    setattr(cfg.sampling, key, value)
    with pytest.raises(ScenarioConfigError) as err:
        validate_scenario(cfg)
    assert err.value.field == field


@pytest.mark.parametrize("shape", [(1,), (3001,), (301, 2)])
@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9999])
def test_ar1_is_scipys_first_order_filter_bit_for_bit(shape, rho):
    from scipy.signal import lfilter

    from leogym.scenario.links.dynamics import _ar1

    noise = np.random.default_rng(7).standard_normal(shape)
    x = math.sqrt(1.0 - rho * rho) * noise
    x[0] = noise[0]
    want = lfilter([1.0], [1.0, -rho], x, axis=0)
    assert np.array_equal(_ar1(noise, rho), want)


@pytest.mark.native
def test_an_env_does_not_import_scipy_signal():
    # scipy.signal adds about 40 MiB to every env process (docs/benchmarks.md, section memory)
    import subprocess
    import sys

    code = (
        "import sys, gymnasium as gym, leogym\n"
        "env = gym.make('leogym/LeoCC-v0', scenario='default', cc='cubic')\n"
        "env.reset(seed=0)\n"
        "print('scipy.signal' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
