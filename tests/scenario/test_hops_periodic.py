"""Time patterns of controlled hop networks: a square wave on a link's rate
(``hops.links[].rate_square_wave``) and a repeated route timetable with break-before-make
switching (``hops.routes[].repeat_s``, ``switch_mode``); docs/scenario.md, "Controlled
networks". Reference values are arithmetic on the configured numbers."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config import HopRouteConfig, HopRouteStepConfig, HopSquareWaveConfig
from leogym.scenario.hops.controlled import expand_steps, square_wave
from leogym.scenario.hops.graph import MAX_ROUTE_STEPS
from leogym.schema import FieldError


def _net() -> dict[str, Any]:
    """s -> a -> c (10 ms per link) and s -> b -> c (15 ms), a route alternating between them
    every second, and a square wave on s -> a."""
    return {
        "name": "periodic",
        "duration_s": 10.0,
        "topology": "hops",
        "paths": [],
        "hops": {
            "nodes": [{"name": "s", "kind": "server"}, {"name": "a"}, {"name": "b"},
                      {"name": "c", "kind": "terminal"}],
            "links": [
                {"a": "s", "b": "a", "rate_mbps": 10.0, "rate_up_mbps": 4.0, "delay_ms": 10.0,
                 "rate_square_wave": {"amplitude_mbps": 1.0, "period_s": 2.0}},
                {"a": "a", "b": "c", "rate_mbps": 20.0, "delay_ms": 10.0},
                {"a": "s", "b": "b", "rate_mbps": 20.0, "delay_ms": 15.0},
                {"a": "b", "b": "c", "rate_mbps": 20.0, "delay_ms": 15.0},
            ],
            "routes": [{"name": "alt", "repeat_s": 2.0, "switch_mode": "break_before_make",
                        "steps": [{"t_s": 0.0, "nodes": ["s", "a", "c"]},
                                  {"t_s": 1.0, "nodes": ["s", "b", "c"]}]}],
            "paths": ["alt"],
        },
    }  # fmt: skip


def test_square_wave_levels_and_edges():
    wave = HopSquareWaveConfig(amplitude_mbps=1.0, period_s=2.0)
    # grid points computed as i * dt land on the edge's new level (100 * 0.01 = 1.0)
    t = np.arange(401) * 0.01
    w = square_wave(t, wave)
    assert np.all(w[(t < 0.995)] == 1e6)
    assert np.all(w[(t > 0.995) & (t < 1.995)] == -1e6)
    assert np.all(w[(t > 1.995) & (t < 2.995)] == 1e6)
    assert w[100] == -1e6 and w[200] == 1e6 and w[300] == -1e6
    # over whole periods the wave averages to zero: the link keeps its mean rate
    assert w[:400].mean() == 0.0
    # a phase of half a period starts low
    shifted = square_wave(t, HopSquareWaveConfig(amplitude_mbps=1.0, period_s=2.0, phase_s=1.0))
    np.testing.assert_array_equal(shifted[:400], -w[:400])
    assert not square_wave(t, HopSquareWaveConfig()).any()


def test_square_wave_on_both_directions_of_the_link():
    tl = build_timeline(load_scenario(_net()), 0)
    link = tl.network.links[0]
    t = tl.times
    high = (np.floor(t / 1.0 + 1e-9).astype(int) % 2) == 0
    np.testing.assert_array_equal(link.arrays.rate_down_bps, np.where(high, 11e6, 9e6))
    np.testing.assert_array_equal(link.arrays.rate_up_bps, np.where(high, 5e6, 3e6))
    # the other links stay constant
    assert np.all(tl.network.links[1].arrays.rate_down_bps == 20e6)


def test_rate_scale_divides_the_wave_too():
    data = _net()
    data["rate_scale"] = 2.0
    link = build_timeline(load_scenario(data), 0).network.links[0]
    assert set(np.unique(link.arrays.rate_down_bps)) == {4.5e6, 5.5e6}


def test_repeated_timetable_alternates_to_the_end():
    tl = build_timeline(load_scenario(_net()), 0)
    route = tl.network.routes[0]
    np.testing.assert_array_equal(route.step_times_s, np.arange(10.0))
    names = [[tl.network.nodes[i].name for i in nodes] for nodes in route.nodes]
    assert names == [["s", "a", "c"], ["s", "b", "c"]] * 5
    path = tl.paths[0]
    # 20 ms on branch a, 30 ms on branch b, switching every second (no step starts at the
    # episode's end, 10 s: the last sample stays on b)
    t = tl.times[:-1]
    on_a = (np.floor(t + 1e-9).astype(int) % 2) == 0
    np.testing.assert_allclose(path.delay_down_s[:-1], np.where(on_a, 0.020, 0.030), atol=1e-15)
    assert path.delay_down_s[-1] == pytest.approx(0.030)
    np.testing.assert_array_equal(path.handovers, np.arange(1.0, 10.0))


def test_break_before_make_puts_the_branch_left_behind_in_an_outage():
    tl = build_timeline(load_scenario(_net()), 0)
    links = {ln.name: ln.arrays.outages.tolist() for ln in tl.network.links}
    assert links["s-a"] == links["a-c"] == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
                                            [9.0, 10.0]]  # fmt: skip
    assert links["s-b"] == links["b-c"] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0],
                                            [8.0, 9.0]]  # fmt: skip
    # the route itself is never cut: the step in force uses only links that are up
    assert tl.paths[0].outages.size == 0


def test_make_before_break_leaves_the_links_up():
    data = _net()
    data["hops"]["routes"][0]["switch_mode"] = "make_before_break"
    tl = build_timeline(load_scenario(data), 0)
    assert all(ln.arrays.outages.size == 0 for ln in tl.network.links)


def test_break_before_make_keeps_a_links_own_outages():
    data = _net()
    data["hops"]["links"][0]["outages"] = [[0.25, 0.5]]
    out = build_timeline(load_scenario(data), 0).network.links[0].arrays.outages.tolist()
    assert out[:2] == [[0.25, 0.5], [1.0, 2.0]]


def test_expand_steps_stops_at_the_episode_end():
    route = HopRouteConfig(
        name="r",
        steps=[HopRouteStepConfig(0.0, ["x", "y"]), HopRouteStepConfig(3.0, ["x", "z", "y"])],
        repeat_s=5.0,
    )
    assert [t for t, _ in expand_steps(route, 12.0)] == [0.0, 3.0, 5.0, 8.0, 10.0]
    route.repeat_s = 0.0
    assert [t for t, _ in expand_steps(route, 12.0)] == [0.0, 3.0]
    assert expand_steps(HopRouteConfig(name="f", nodes=["x", "y"]), 12.0) == [(0.0, ["x", "y"])]


BAD = [
    (("links", 0, "rate_square_wave", "amplitude_mbps"), 4.0,
     r"scenario\.hops\.links\[0\]\.rate_square_wave\.amplitude_mbps: must be below the link's "
     r"rate in both directions \(4 Mbit/s\)"),
    (("links", 0, "rate_square_wave", "period_s"), 0.0,
     r"scenario\.hops\.links\[0\]\.rate_square_wave\.period_s: must be in \(0, 1e7\]"),
    (("routes", 0, "repeat_s"), 1.0,
     r"scenario\.hops\.routes\[0\]\.repeat_s: must be > the last step's t_s \(1\)"),
    (("routes", 0, "repeat_s"), 1e-4,
     r"scenario\.hops\.routes\[0\]\.repeat_s: repeats the timetable into more than "
     + str(MAX_ROUTE_STEPS)),
    (("links", 0, "rate_square_wave", "period_s"), 0.015,
     r"scenario\.hops\.links\[0\]\.rate_square_wave\.period_s: must be at least two "
     r"timeline steps \(2 x timeline_dt_s = 0\.02 s\)"),
    (("routes", 0, "switch_mode"), "sometimes",
     r"scenario\.hops\.routes\[0\]\.switch_mode: must be one of make_before_break, "
     r"break_before_make"),
]  # fmt: skip


@pytest.mark.parametrize(("where", "value", "match"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_periodic_fields_name_the_field(where, value, match):
    data = copy.deepcopy(_net())
    node: Any = data["hops"]
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    if where[-1] == "repeat_s" and value < 1.0:
        node["steps"][1]["t_s"] = 5e-5
    with pytest.raises(FieldError, match=match):
        load_scenario(data)


def test_repeat_needs_a_timetable():
    data = _net()
    data["hops"]["routes"] = [{"name": "alt", "nodes": ["s", "a", "c"], "repeat_s": 2.0}]
    with pytest.raises(FieldError, match=r"scenario\.hops\.routes\[0\]\.repeat_s: repeats a"):
        load_scenario(data)
