"""The handover forecast's two modes: ``realistic`` (geometric values) and ``oracle`` (the drawn
ones), on paths with the per-slot dynamics layer (leogym.scenario.forecast).

What a real sender can know of the next slot is the public 15 s schedule and the geometry that
published ephemerides and the link budget give; the slot's drawn capacity multiplier, route
change, stall and spike are not known in advance (docs/specs/starlink-dynamics.md, 5.5).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config.dynamics import DynamicsConfig
from leogym.scenario.forecast import HandoverOracle, settled_sample

SEEDS = range(5)


def _off(cfg):
    """The same scenario with the layer switched off: the geometric model's arrays."""
    out = copy.deepcopy(cfg)
    for p in out.paths:
        if p.kind == "satellite":
            p.satellite.dynamics = DynamicsConfig()
    return out


@pytest.fixture(scope="module")
def pairs():
    """``default`` (dynamics on) and the same scenario with the layer off, 60 s, seeds 0-4."""
    cfg = load_scenario("default")
    cfg.duration_s = 60.0
    return [(build_timeline(cfg, s), build_timeline(_off(cfg), s)) for s in SEEDS]


def test_settle_covers_the_longest_stall_and_its_recovery(pairs):
    """The forecasts read the arrays after the boundary's drawn transients: the longest stall
    (150 ms), five recovery time constants (0.25 s each) and 0.2 s of spike decay."""
    tl, geo = pairs[0]
    assert tl.settle_s == pytest.approx(0.15 + 5 * 0.25 + 0.2)
    assert geo.settle_s == 0.0  # no geometric outage or spike in `default`


def test_realistic_reports_the_geometric_values(pairs):
    for tl, geo in pairs:
        realistic = tl.oracle("realistic")
        p, g = tl.paths[0], geo.paths[0]
        assert len(p.handovers) >= 3
        for th in p.handovers:
            t = float(th) - 1.0
            _, after = settled_sample(tl, p, float(th))
            rtt, cap = realistic.after_handover(t)
            assert rtt[0] == g.delay_down_s[after] + g.delay_up_s[after]
            assert cap[0] == g.rate_down_bps[after]
            (fc, *_) = tl.next_handover(t, "realistic")
            assert fc.rate_down_after_bps == g.rate_down_bps[after]
            assert fc.delay_down_after_s == g.delay_down_s[after]
            assert fc.rate_down_before_bps == g.rate_down_bps[tl.index_at(float(th) - tl.dt_s)]


def test_oracle_reveals_the_drawn_slot_once_the_transients_are_over(pairs):
    """The oracle's "after" capacity is the drawn one: the geometric value times the slot's
    multiplier, diurnal factor and within-slot variation (never inside the stall: at least
    10 % of the geometric value, the recovery's start f0)."""
    ratios = []
    for tl, geo in pairs:
        oracle = tl.oracle("oracle")
        p, g = tl.paths[0], geo.paths[0]
        for th in p.handovers:
            _, after = settled_sample(tl, p, float(th))
            assert tl.times[after] >= float(th) + 0.15 + 5 * 0.25
            _, cap = oracle.after_handover(float(th) - 1.0)
            assert cap[0] == p.rate_down_bps[after]
            ratios.append(cap[0] / g.rate_down_bps[after])
    ratios = np.asarray(ratios)
    assert np.all(ratios > 0.10)
    # sd of the per-slot log multiplier is 0.21 (plus within-slot 0.13): the draws show
    assert np.std(np.log(ratios)) > 0.1


def test_modes_agree_without_dynamics():
    tl = build_timeline(load_scenario("starlink_geometric"), 2)
    assert all(p.geometric is None for p in tl.paths)
    a, b = tl.oracle("oracle"), tl.oracle("realistic")
    for t in (0.0, 5.0, 11.9, 12.5, 20.0, 29.0):
        for x, y in zip(a.after_handover(t), b.after_handover(t), strict=True):
            np.testing.assert_array_equal(x, y)
        assert a.next_handover(t) == b.next_handover(t)


def test_geometric_arrays_follow_rate_scale():
    cfg = load_scenario("default")
    scaled = copy.deepcopy(cfg)
    scaled.rate_scale = 4.0
    a, b = build_timeline(cfg, 1), build_timeline(scaled, 1)
    ga, gb = a.paths[0].geometric, b.paths[0].geometric
    assert ga is not None and gb is not None
    np.testing.assert_allclose(gb["rate_down_bps"] * 4.0, ga["rate_down_bps"], rtol=1e-12)
    np.testing.assert_array_equal(gb["delay_down_s"], ga["delay_down_s"])


def test_unknown_mode_is_refused():
    tl = build_timeline(load_scenario("tiny"), 0)
    with pytest.raises(ValueError, match="forecast mode"):
        HandoverOracle(tl, "psychic")
