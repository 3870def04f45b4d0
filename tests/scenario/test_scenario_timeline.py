"""build_timeline: schedule, delay bounds, determinism, the native contract and the oracle."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from leogym.scenario import build_timeline, draw_scenario, load_scenario, sample_scenario
from leogym.scenario.links.handover import slot_instants
from leogym.scenario.validation import validate_scenario
from leogym.simulation import native_paths

DATA = Path(__file__).parent / "data"
C_KM_S = 299792.458
R = 6378.137


def _edge_range_km(h: float, eps_deg: float) -> float:
    """Mask-edge slant range from the law of cosines (d^2 + 2 R d sin e + R^2 - (R+h)^2 = 0)."""
    s = math.sin(math.radians(eps_deg))
    return -R * s + math.sqrt((R * s) ** 2 + (R + h) ** 2 - R**2)


# ---------------------------------------------------------------- Starlink schedule


@pytest.mark.parametrize("epoch", [0.0, 5.0, 11.999, 12.0, 50.0, 43_205.25])
def test_slots_fall_on_seconds_12_27_42_57(epoch):
    slots = slot_instants(200.0, epoch, 15.0, 12.0)
    utc_second = np.mod(epoch + slots, 60.0)
    nearest = np.array([12.0, 27.0, 42.0, 57.0])
    assert np.abs(utc_second[:, None] - nearest[None, :]).min(axis=1).max() < 1e-9
    assert np.all(np.diff(slots) == pytest.approx(15.0))
    assert 0.0 < slots[0] <= 15.0
    # brute force: every UTC second m*60 + {12, 27, 42, 57} inside (epoch, epoch + 200]
    expected = [
        m * 60 + o - epoch
        for m in range(int(epoch // 60) - 1, int((epoch + 200) // 60) + 2)
        for o in (12, 27, 42, 57)
        if epoch < m * 60 + o <= epoch + 200
    ]
    np.testing.assert_allclose(slots, sorted(expected), atol=1e-9)


def test_tiny_handovers_and_outages_follow_the_schedule():
    cfg = load_scenario("tiny")  # epoch 5 s: UTC second 12 is t = 7 s
    tl = build_timeline(cfg, 0)
    sat = tl.paths[0]
    np.testing.assert_allclose(sat.handovers, [7.0])
    np.testing.assert_allclose(sat.outages, [[7.0, 7.1]])
    assert sat.in_outage(7.05) and not sat.in_outage(7.1) and not sat.in_outage(6.99)
    assert len(tl.paths[1].handovers) == 0


# ---------------------------------------------------------------- geometry of a bent pipe


def _single_gs(cfg):
    cfg.ground_stations = cfg.ground_stations[:1]
    return cfg


def test_bent_pipe_delay_between_zenith_and_mask_edge():
    cfg = _single_gs(load_scenario("starlink_geometric"))
    cfg.duration_s = 120.0
    for seed, offset in enumerate([0.0, 1000.0, 2500.0]):
        cfg.orbit_offset_s = offset
        tl = build_timeline(cfg, seed)
        p = tl.paths[0]
        prop = p.delay_down_s - 0.015  # minus the 15 ms backhaul
        zenith = 2 * 550.0 / C_KM_S
        edge = 2 * _edge_range_km(550.0, 25.0) / C_KM_S
        assert prop.min() >= zenith - 1e-12
        assert prop.max() <= edge + 1e-9
        ok = p.serving_sat >= 0
        assert ok.all()
        assert p.elevation_deg.min() >= 25.0 - 1e-6


def test_delay_is_smooth_between_handovers():
    cfg = _single_gs(load_scenario("starlink_geometric"))
    tl = build_timeline(cfg, 0)
    p = tl.paths[0]
    jumps = np.abs(np.diff(p.delay_down_s))
    change = np.flatnonzero(np.diff(p.serving_sat) != 0)
    smooth = np.ones(len(jumps), dtype=bool)
    smooth[change] = False
    # both legs shrink or grow at most at the orbital speed (7.6 km/s) per 10 ms step
    assert jumps[smooth].max() <= 2 * 7.6 * tl.dt_s / C_KM_S
    assert len(change) >= 1  # prefer_new_satellite: the slots change the satellite


def test_second_satellite_path_uses_another_satellite():
    tl = build_timeline(load_scenario("highrate"), 0)
    a, b = tl.paths[0].serving_sat, tl.paths[1].serving_sat
    assert np.all(a >= 0) and np.all(b >= 0)
    assert np.all(a != b)
    # at each decision (t = 0 and the slots) rank 0 has the higher elevation
    for t in [0.0, *tl.paths[0].handovers]:
        i = tl.index_at(t + 1e-6)
        assert tl.paths[0].elevation_deg[i] >= tl.paths[1].elevation_deg[i]


# ---------------------------------------------------------------- determinism


def _random_everything():
    cfg = load_scenario("starlink_geometric")
    cfg.handover.policy = "random"
    cfg.rain.mode = "markov"
    cfg.rain.mean_clear_s = 5.0
    cfg.rain.mean_rain_s = 5.0
    cfg.paths[0].satellite.rate_noise_mbps = 1.0
    return cfg


def test_same_seed_same_arrays_different_seed_different_arrays():
    cfg = _random_everything()
    a = native_paths(build_timeline(cfg, 11))
    b = native_paths(build_timeline(cfg, 11))
    c = native_paths(build_timeline(cfg, 12))
    for pa, pb in zip(a, b, strict=True):
        for key, value in pa.items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(value, pb[key], equal_nan=True), key
    differs = any(
        not np.array_equal(pa[k], pc[k], equal_nan=True)
        for pa, pc in zip(a, c, strict=True)
        for k in ("rate_down_bps", "serving_sat")
    )
    assert differs


def test_sample_scenario_is_a_pure_function_of_the_generator():
    cfg = load_scenario("starlink_geometric")
    before = load_scenario("starlink_geometric")
    s1 = sample_scenario(cfg, np.random.default_rng(5))
    s2 = sample_scenario(cfg, np.random.default_rng(5))
    s3 = sample_scenario(cfg, np.random.default_rng(6))
    assert s1 == s2
    assert s1 != s3
    assert cfg == before  # input untouched
    lo, hi = cfg.sampling.terminal_lat_deg
    assert lo <= s1.terminal.lat_deg <= hi
    assert 0.0 <= s1.epoch_utc_s < 86400.0
    assert build_timeline(s1, 0).paths[0].delay_down_s.tolist() == (
        build_timeline(s2, 0).paths[0].delay_down_s.tolist()
    )


def test_sampling_choices_cover_traces_losses_and_rain(tmp_path):
    other = tmp_path / "other.mahi"
    other.write_text("\n".join(str(i) for i in range(1, 101)) + "\n")
    cfg = load_scenario("tiny")
    cfg.paths[1].terrestrial.capacity = "trace"
    cfg.paths[1].terrestrial.trace_down = str(DATA / "step.mahi")
    cfg.sampling.trace_choices = [str(DATA / "step.mahi"), str(other)]
    cfg.sampling.satellite_loss_choices = [1e-4, 5e-3]
    cfg.sampling.rain_probability = 0.5
    cfg.sampling.rain_attenuation_db_km = [0.1, 1.0]
    rng = np.random.default_rng(0)
    draws = [sample_scenario(validate_scenario(cfg), rng) for _ in range(40)]
    assert {d.paths[1].terrestrial.trace_down for d in draws} == set(cfg.sampling.trace_choices)
    assert {d.paths[0].loss_down for d in draws} == {1e-4, 5e-3}
    assert {d.rain.mode for d in draws} == {"off", "markov"}
    rainy = [d.rain.specific_attenuation_db_km for d in draws if d.rain.mode == "markov"]
    assert all(0.1 <= a <= 1.0 for a in rainy)
    # the trace-driven path's draws are named after it
    cfg.sampling.trace_offset_s = [0.0, 0.05]
    draw = draw_scenario(validate_scenario(cfg), np.random.default_rng(3))
    terrestrial = draw.scenario.paths[1]
    assert draw.values[f"trace.{terrestrial.name}"] == terrestrial.terrestrial.trace_down
    offset = draw.values[f"trace_offset_s.{terrestrial.name}"]
    assert offset == terrestrial.terrestrial.trace_offset_s and 0.0 <= float(offset) <= 0.05


def test_drawn_values_are_the_ones_the_scenario_got():
    """draw_scenario names each drawn value, and each is what the drawn config holds (the
    dynamics scale: the preset's capacity spread multiplied by it, as DynamicsConfig.scaled
    does); the draws are sample_scenario's, from the same generator state."""
    from leogym.scenario.config.dynamics import DynamicsConfig

    cfg = load_scenario("train_randomised")
    rng = np.random.default_rng(11)
    for _ in range(12):
        state = rng.bit_generator.state
        draw = draw_scenario(cfg, rng)
        again = np.random.default_rng()
        again.bit_generator.state = state
        assert sample_scenario(cfg, again) == draw.scenario
        v, sc = draw.values, draw.scenario
        sat, ter = sc.paths
        assert set(v) == {
            "orbit_offset_s",
            "epoch_utc_s",
            "terminal_lat_deg",
            "terminal_lon_deg",
            "loss.sat",
            "loss.terrestrial",
            "rain_db_km",
            "dynamics_preset",
            "dynamics_scale",
        }
        assert (v["terminal_lat_deg"], v["terminal_lon_deg"]) == (
            sc.terminal.lat_deg,
            sc.terminal.lon_deg,
        )
        assert (v["epoch_utc_s"], v["orbit_offset_s"]) == (sc.epoch_utc_s, sc.orbit_offset_s)
        assert (v["loss.sat"], v["loss.terrestrial"]) == (sat.loss_down, ter.loss_down)
        raining = sc.rain.mode == "markov"
        assert v["rain_db_km"] == (sc.rain.specific_attenuation_db_km if raining else 0.0)
        assert v["dynamics_preset"] == sat.satellite.dynamics.preset
        lo, hi = cfg.sampling.dynamics_scale
        assert lo <= float(v["dynamics_scale"]) <= hi
        base = DynamicsConfig(preset=str(v["dynamics_preset"])).resolve()
        assert sat.satellite.dynamics.resolve().sigma_s == pytest.approx(
            min(base.sigma_s * float(v["dynamics_scale"]), 2.0)
        )
    assert draw_scenario(load_scenario("tiny"), rng).values == {}  # tiny samples nothing


# ---------------------------------------------------------------- the native contract


def test_to_native_matches_the_contract():
    tl = build_timeline(load_scenario("tiny"), 3)
    native = native_paths(tl)
    assert len(native) == 2
    for d, p in zip(native, tl.paths, strict=True):
        assert d["name"] == p.name and d["kind"] == p.kind
        assert d["t0_s"] == 0.0 and d["dt_s"] == pytest.approx(0.01)
        assert isinstance(d["queue_packets"], int) and d["queue_packets"] >= 1
        for key in (
            "delay_down_s",
            "delay_up_s",
            "rate_down_bps",
            "rate_up_bps",
            "loss_down",
            "loss_up",
            "snr_db",
            "elevation_deg",
        ):
            arr = d[key]
            assert arr.dtype == np.float64 and arr.shape == (tl.n,) and arr.flags.c_contiguous
        assert d["serving_sat"].dtype == np.int32 and d["serving_sat"].shape == (tl.n,)
        assert d["outages"].dtype == np.float64 and d["outages"].ndim == 2
        assert d["outages"].shape[1] == 2 and d["outages"].flags.c_contiguous
        assert d["handovers"].dtype == np.float64 and d["handovers"].ndim == 1
        for key in ("delay_down_s", "rate_down_bps", "rate_up_bps", "loss_down", "loss_up"):
            assert np.isfinite(d[key]).all()
        assert (d["rate_down_bps"] > 0).all() and (d["rate_up_bps"] > 0).all()
    assert tl.n == 1501 and tl.times[-1] == pytest.approx(15.0)
    assert np.isfinite(native[0]["snr_db"]).all() and np.isnan(native[1]["snr_db"]).all()
    assert (native[1]["serving_sat"] == -1).all()


@pytest.mark.parametrize("name", ["maco", "alcs_stin", "freeze", "iridium_omsr", "leotp_starlink"])
def test_every_bundled_timeline_is_finite_and_positive(name):
    tl = build_timeline(load_scenario(name), 1)
    for p in tl.paths:
        for key in (
            "delay_down_s",
            "delay_up_s",
            "rate_down_bps",
            "rate_up_bps",
            "loss_down",
            "loss_up",
        ):
            arr = getattr(p, key)
            assert np.isfinite(arr).all(), (name, p.name, key)
        assert (p.rate_down_bps > 0).all() and (p.loss_down < 1).all()
        assert np.all(np.diff(p.handovers) >= 0)
        assert np.all(p.outages[:, 1] > p.outages[:, 0]) if len(p.outages) else True


# ---------------------------------------------------------------- oracle


def test_time_to_next_handover_and_forecast():
    # epoch None -> 0: slots at 12 and 27 s
    tl = build_timeline(load_scenario("starlink_geometric"), 0)
    np.testing.assert_allclose(tl.paths[0].handovers, [12.0, 27.0])
    assert tl.time_to_next_handover(3.0, 0) == pytest.approx(9.0)
    assert tl.time_to_next_handover(12.0, 0) == pytest.approx(15.0)
    assert tl.time_to_next_handover(28.0, 0) == math.inf
    per_path = tl.time_to_next_handover(3.0)
    assert per_path[0] == pytest.approx(9.0) and per_path[1] == math.inf
    fc = tl.next_handover(3.0)
    assert fc[1] is None
    f = fc[0]
    assert f.time_s == pytest.approx(12.0) and f.outage_end_s == pytest.approx(12.1)
    p = tl.paths[0]
    after = tl.index_at(12.2)
    assert f.sat_to == p.serving_sat[after] and f.sat_from == p.serving_sat[tl.index_at(11.9)]
    assert f.delay_down_after_s == pytest.approx(p.delay_down_s[after], abs=1e-6)
    assert f.rate_down_after_bps == pytest.approx(p.rate_down_bps[after], rel=1e-3)


# ---------------------------------------------------------------- handover effects


def test_loss_window_and_delay_spike():
    cfg = load_scenario("tiny")
    cfg.handover.loss_prob = 0.3
    cfg.handover.loss_before_s = 0.1
    cfg.handover.loss_after_s = 0.2
    cfg.handover.delay_spike_ms = 100.0
    cfg.handover.delay_spike_s = 0.5
    tl = build_timeline(cfg, 0)
    p, t = tl.paths[0], tl.times
    inside = (t >= 6.9 - 1e-9) & (t <= 7.2 + 1e-9)
    expected = 1 - (1 - 1e-4) * (1 - 0.3)
    np.testing.assert_allclose(p.loss_down[inside], expected)
    np.testing.assert_allclose(p.loss_down[~inside], 1e-4)
    base = build_timeline(load_scenario("tiny"), 0).paths[0].delay_down_s
    extra = p.delay_down_s - base
    i7 = tl.index_at(7.0)
    assert extra[i7] == pytest.approx(0.05)  # half of the 100 ms RTT spike, per direction
    assert extra[tl.index_at(7.25)] == pytest.approx(0.025)
    assert extra[tl.index_at(7.5)] == pytest.approx(0.0, abs=1e-12)
    assert extra[:i7].max() == 0.0


def test_maco_alternates_shared_and_disjoint_with_alternating_outages():
    tl = build_timeline(load_scenario("maco"), 0)
    f0, f1 = tl.paths
    t = tl.times
    slots = [12.0, 27.0, 42.0, 57.0]
    same = f0.serving_sat == f1.serving_sat
    # shared before the first slot, disjoint after it, shared after the second, ...
    assert same[t < 12.0].all()
    for k, (a, b) in enumerate(zip([12.0, 27.0, 42.0], [27.0, 42.0, 57.0], strict=True)):
        window = (t > a + 0.2) & (t < b - 0.2) & (t < 53.0)
        assert (same[window] == (k % 2 == 1)).all(), (a, b)
    merges = sorted(
        (e.t_s, i) for i, p in enumerate(tl.paths) for e in p.events if e.cause == "maco_merge"
    )
    assert [m[0] for m in merges] == [27.0, 57.0]
    assert merges[0][1] != merges[1][1]  # outages alternate between the subflows
    for ts, i in merges:
        assert tl.paths[i].in_outage(ts + 0.05)
    splits = [e for p in tl.paths for e in p.events if e.cause == "maco_split"]
    assert all(not tl.paths[0].in_outage(e.t_s + 0.05) or e.t_s in slots for e in splits)
    # RTT of about 100 ms (docs/specs/maco.md#propagation-delay): 2 * (legs + 46 ms backhaul)
    assert 0.099 <= 2 * f0.delay_down_s.min() and 2 * f0.delay_down_s.max() <= 0.1005


# ---------------------------------------------------------------- ISL paths


def test_iridium_isl_paths():
    tl = build_timeline(load_scenario("iridium_omsr"), 0)
    p1, p2 = tl.paths
    assert (p1.isl_hops > 0).all()
    # one-way delay is at least the straight chord between the two ground points
    s, d = _unit(15.51, -1.0), _unit(17.4, 127.55)
    chord = R * np.linalg.norm(s - d)
    assert p1.delay_down_s.min() >= chord / C_KM_S
    # a link-disjoint route from the same entry satellite is never shorter than the shortest
    same = (p1.serving_sat == p2.serving_sat) & (p1.serving_sat >= 0)
    assert same.any()
    assert np.all(p2.delay_down_s[same] >= p1.delay_down_s[same] - 1e-9)
    np.testing.assert_allclose(p1.handovers, [66.0, 96.0])
    np.testing.assert_allclose(p2.handovers, [30.0, 81.0])
    assert p1.queue_packets == 50
    assert (p1.rate_down_bps == 2e6).all()


def test_leotp_loss_compounds_per_hop():
    tl = build_timeline(load_scenario("leotp_starlink"), 0)
    p = tl.paths[0]
    expected = 1 - (1 - 0.0199) * (1 - 0.001) ** p.isl_hops
    np.testing.assert_allclose(p.loss_down, expected)
    assert p.isl_hops.min() >= 5
    assert p.rate_down_bps.max() <= 10.5e6 + 1e-6 and p.rate_down_bps.min() >= 0.1e6
    if len(p.handovers):
        h = p.handovers[0]  # the V-curve bottoms out at the handover: 10 * (1 - 0.5) +- 0.5
        assert p.rate_down_bps[tl.index_at(h)] <= 5.5e6 + 1e-6


# ---------------------------------------------------------------- Iridium passes


def test_iridium_pass_durations_in_visibility_mode():
    """Visibility-driven handovers: each serving interval is one pass of at most ~11.1 min
    (overhead pass at an 8.2 deg mask); passes are typically 8-10 min (seed 004)."""
    cfg = load_scenario("iridium_omsr")
    cfg.paths = cfg.paths[:1]
    cfg.paths[0].satellite.scripted_handovers_s = []
    cfg.paths[0].satellite.routing = "isl"
    cfg.handover.mode = "visibility"
    cfg.handover.enforce_mask = True
    cfg.handover.policy = "longest_visibility"
    cfg.duration_s = 3 * 3600.0
    cfg.timeline_dt_s = 1.0
    cfg.geometry_dt_s = 5.0
    cfg.traffic.cross_traffic = []
    tl = build_timeline(cfg, 0)
    p = tl.paths[0]
    assert p.elevation_deg[p.serving_sat >= 0].min() >= 8.2 - 1e-6
    h = p.handovers
    intervals = np.diff(h) / 60.0
    assert len(intervals) >= 10
    assert intervals.max() <= 11.1 * 1.02
    # longest-visibility hands over to a satellite that is just rising: full passes
    assert 8.0 <= np.median(intervals) <= 11.1


def _unit(lat: float, lon: float) -> np.ndarray:
    la, lo = math.radians(lat), math.radians(lon)
    return np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])
