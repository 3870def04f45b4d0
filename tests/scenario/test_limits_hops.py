"""Limits of hop networks, dynamics and the timeline (issue 33): a break-before-make timetable
builds in time linear in its steps, a scenario whose timeline would not fit in memory is
refused before any array is made, hop link rates and dynamics scales have finite ranges that
name the field, and a controlled network is not checked against ``handover.outage_s``, which it
does not use (docs/scenario.md, docs/reliability.md)."""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config import MAX_LINK_RATE_MBPS
from leogym.scenario.config.dynamics import DynamicsConfig
from leogym.scenario.hops.controlled import build_controlled_network
from leogym.scenario.hops.graph import TIMELINE_BYTES_PER_SAMPLE, outage_mask, timeline_bytes
from leogym.scenario.validation import validate_scenario
from leogym.schema import FieldError


def _switching(duration_s: float = 10.0) -> dict[str, Any]:
    """s -> a -> c and s -> b -> c, a route switching branches every 0.1 s (LEOTP's Fig. 13
    pattern, ten times faster), break-before-make."""
    return {
        "name": "switching",
        "duration_s": duration_s,
        "topology": "hops",
        "paths": [],
        "hops": {
            "nodes": [{"name": "s", "kind": "server"}, {"name": "a"}, {"name": "b"},
                      {"name": "c", "kind": "terminal"}],
            "links": [
                {"a": "s", "b": "a", "rate_mbps": 10.0, "delay_ms": 10.0},
                {"a": "a", "b": "c", "rate_mbps": 20.0, "delay_ms": 10.0},
                {"a": "s", "b": "b", "rate_mbps": 20.0, "delay_ms": 15.0},
                {"a": "b", "b": "c", "rate_mbps": 20.0, "delay_ms": 15.0},
            ],
            "routes": [{"name": "alt", "repeat_s": 0.2, "switch_mode": "break_before_make",
                        "steps": [{"t_s": 0.0, "nodes": ["s", "a", "c"]},
                                  {"t_s": 0.1, "nodes": ["s", "b", "c"]}]}],
            "paths": ["alt"],
        },
    }  # fmt: skip


def _build_cpu_s(duration_s: float) -> float:
    """Least CPU time of three builds of the switching network over ``duration_s``."""
    cfg = load_scenario(_switching(duration_s))
    times = np.arange(int(round(duration_s / cfg.timeline_dt_s)) + 1) * cfg.timeline_dt_s
    best = np.inf
    for _ in range(3):
        t0 = time.process_time()
        build_controlled_network(cfg, times)
        best = min(best, time.process_time() - t0)
    return best


def test_break_before_make_timetable_builds_in_linear_time():
    # 100 vs 400 route steps (1,000 vs 4,000 samples): linear is 4x, quadratic 16x (measured
    # 3.8x now, 19x before, when each step scanned the whole grid and every outage of a link).
    small, large = _build_cpu_s(10.0), _build_cpu_s(40.0)
    assert large / small < 8.0, (small, large)


def test_outage_mask_matches_the_interval_test():
    rng = np.random.default_rng(1)
    times = np.arange(2001) * 0.01
    starts = np.sort(rng.uniform(0.0, 20.0, 40))
    outages = np.column_stack([starts, starts + rng.uniform(0.0, 0.3, 40)])
    outages[3] = (5.0, 5.0)  # empty: nothing
    brute = np.zeros(len(times), dtype=bool)
    for s0, s1 in outages:
        brute |= (times >= s0) & (times < s1)
    np.testing.assert_array_equal(outage_mask(outages, times), brute)


def test_break_before_make_outages_are_unchanged():
    # the linear build gives the switching's exact intervals: the branch left behind is out
    tl = build_timeline(load_scenario(_switching(1.0)), 0)
    down = tl.network.links[2].arrays.outages  # s-b: out while branch a is in force
    np.testing.assert_allclose(down[:, 0], np.arange(5) * 0.2)
    np.testing.assert_allclose(down[:, 1], np.arange(5) * 0.2 + 0.1)
    assert tl.paths[0].outages.size == 0  # the route in force is always up
    assert len(tl.paths[0].handovers) == 9


# ---------------------------------------------------------------------------- memory
def test_a_timeline_beyond_the_memory_limit_is_refused_before_it_is_built():
    # the 2-link network of the issue at 1e5 s: 1e7 samples x 3 timelines x 216 B = 6 GiB
    data = _switching(1e5)
    data["hops"]["routes"][0].update(repeat_s=0.0)
    data["hops"]["links"] = data["hops"]["links"][:2]
    data["hops"]["routes"][0]["steps"] = data["hops"]["routes"][0]["steps"][:1]
    with pytest.raises(FieldError, match=r"^scenario\.max_timeline_gib: .*about 6\.0\d GiB"):
        load_scenario(data)
    data["max_timeline_gib"] = 8.0  # the user's machine has the memory: accepted
    assert load_scenario(data).max_timeline_gib == 8.0


def test_the_memory_estimate_counts_paths_and_links():
    assert timeline_bytes(1000, 1, 2) == 3000 * TIMELINE_BYTES_PER_SAMPLE
    # path mode: 1e7 samples x 2 terrestrial paths x 216 B = 4.02 GiB
    data = {
        "name": "long",
        "duration_s": 1e5,
        "paths": [{"name": "p0", "kind": "terrestrial"}, {"name": "p1", "kind": "terrestrial"}],
    }
    with pytest.raises(FieldError, match=r"^scenario\.max_timeline_gib: .*about 4\.02 GiB"):
        load_scenario(data)
    data["paths"] = data["paths"][:1]
    data["duration_s"] = 2e4  # 0.4 GiB
    assert load_scenario(data).duration_s == 2e4


@pytest.mark.parametrize("value", [0.0, -1.0, 1e9])
def test_the_memory_limit_has_a_range(value):
    data = _switching()
    data["max_timeline_gib"] = value
    with pytest.raises(FieldError, match=r"^scenario\.max_timeline_gib: must be in \(0, 1024\]"):
        load_scenario(data)


# ---------------------------------------------------------------------------- link rates
@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("rate_mbps", 1e303, r"must be in \(0, 10000\]"),
        ("rate_up_mbps", 1e303, r"must be in \(0, 10000\]"),
        ("rate_mbps", 1e-9, r"must be >= 1 bit/s after rate_scale"),
        ("rate_up_mbps", 5e-7, r"must be >= 1 bit/s after rate_scale"),
    ],
)
def test_hop_link_rates_are_bounded_at_config_time(key, value, match):
    data = _switching()
    data["hops"]["links"][1][key] = value
    with pytest.raises(FieldError, match=rf"^scenario\.hops\.links\[1\]\.{key}: {match}"):
        load_scenario(data)


@pytest.mark.parametrize("key", ["period_s", "phase_s"])
def test_the_square_wave_times_are_bounded(key):
    data = _switching()
    data["hops"]["links"][0]["rate_square_wave"] = {"amplitude_mbps": 1.0, key: 1e300}
    with pytest.raises(
        FieldError, match=rf"^scenario\.hops\.links\[0\]\.rate_square_wave\.{key}: must be in"
    ):
        load_scenario(data)


def test_the_lowest_link_rate_counts_rate_scale_and_the_square_wave():
    data = _switching()
    data["rate_scale"] = 4.0
    data["hops"]["links"][1]["rate_mbps"] = 3e-6  # 0.75 bit/s after rate_scale
    with pytest.raises(FieldError, match=r"^scenario\.hops\.links\[1\]\.rate_mbps: "):
        load_scenario(data)
    data["rate_scale"] = 1.0
    data["hops"]["links"][1]["rate_square_wave"] = {"amplitude_mbps": 2.5e-6}  # low: 0.5 bit/s
    with pytest.raises(FieldError, match=r"less rate_square_wave\.amplitude_mbps"):
        load_scenario(data)
    data["hops"]["links"][1]["rate_mbps"] = MAX_LINK_RATE_MBPS  # the top of the range is valid
    assert load_scenario(data).hops.links[1].rate_mbps == MAX_LINK_RATE_MBPS


# ---------------------------------------------------------------------------- dynamics
@pytest.mark.parametrize(
    ("key", "value"),
    [("sigma_s", 1e300), ("sigma_w", 1e300), ("m_e_ms", 1e300), ("s_e", 1e300),
     ("x_max_ms", 1e300), ("sigma_u_ms", 1e300), ("sigma_j_ms", 1e300), ("tau_j_s", 1e300),
     ("d_med_s", 1e300), ("s_d", 1e300), ("d_lo_s", 1e300), ("tau_r_s", 1e300),
     ("c_a", 1e300), ("s_a", 1e300), ("s_l", 1e300)],
)  # fmt: skip
def test_every_dynamics_scale_has_an_upper_bound(key, value):
    cfg = copy.deepcopy(load_scenario("default"))
    setattr(cfg.paths[0].satellite.dynamics, key, value)
    with pytest.raises(FieldError, match=rf"^scenario\.paths\[0\]\.satellite\.dynamics\.{key}: "):
        validate_scenario(cfg)


def test_dynamics_scaling_stays_within_the_bounds():
    # sampling.dynamics_scale multiplies sigma_s etc.: the product is capped at the field's
    # bound, so a sampled scenario stays valid
    scaled = DynamicsConfig(preset="default", sigma_s=1.5, m_e_ms=9000.0).scaled(5.0)
    assert scaled.sigma_s == 2.0 and scaled.m_e_ms == 10_000.0
    assert scaled.q == pytest.approx(0.25)
    assert DynamicsConfig(preset="default").scaled(5.0).sigma_s == pytest.approx(1.05)


# ---------------------------------------------------------------------------- handover
def test_a_controlled_network_is_not_checked_against_handover_outage_s():
    data = _switching(1.0)
    data["handover"] = {"outage_s": 20.0, "offset_s": 16.0}  # > duration_s and period_s (15)
    tl = build_timeline(load_scenario(data), 0)
    assert tl.paths[0].outages.size == 0  # not used: no outage from it
    # a path scenario still is
    path = copy.deepcopy(load_scenario("default"))
    path.handover.outage_s = path.duration_s + 1.0
    with pytest.raises(FieldError, match=r"^scenario\.handover\.outage_s: "):
        validate_scenario(path)
