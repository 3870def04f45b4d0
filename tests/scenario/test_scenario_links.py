"""Terrestrial capacity (mahimahi, Markov), queue sizes and rain on the access link."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.scenario.config import QueueConfig
from leogym.scenario.links.queues import resolve_queue_packets
from leogym.scenario.links.terrestrial import (
    markov_capacity_bps,
    read_mahimahi_trace,
    trace_capacity_bps,
)
from leogym.scenario.validation import validate_scenario

DATA = Path(__file__).parent / "data"
MTU_BITS = 1500 * 8


def test_mahimahi_step_trace_capacity():
    # the fixture: an opportunity every ms for 500 ms, then every 2 ms until 1000 ms
    trace = read_mahimahi_trace(DATA / "step.mahi", "f")
    assert len(trace) == 750 and trace[-1] == 1000
    t = np.arange(0.0, 3.0, 0.01)
    rate = trace_capacity_bps(trace, t, bin_s=0.1, offset_s=0.0, min_rate_bps=1.0)
    phase = np.mod(t, 1.0)
    full = 100 * MTU_BITS / 0.1  # 100 opportunities per 100 ms = 12 Mbit/s
    later = t >= 0.1  # [0, 100 ms) holds only the opportunities at 1..99 ms
    assert rate[0] == pytest.approx(99 * MTU_BITS / 0.1)
    np.testing.assert_allclose(rate[later & (phase < 0.5 - 1e-9)], full)
    np.testing.assert_allclose(rate[phase >= 0.5 + 1e-9], full / 2)
    # the trace loops (shifted by its last timestamp): 750 MTUs per second in the long run
    assert rate.mean() == pytest.approx(750 * MTU_BITS, rel=1e-3)


def test_mahimahi_offset_shifts_the_trace():
    trace = read_mahimahi_trace(DATA / "step.mahi", "f")
    t = np.arange(0.0, 1.0, 0.1)
    a = trace_capacity_bps(trace, t, 0.1, 0.5, 1.0)
    b = trace_capacity_bps(trace, t + 0.5, 0.1, 0.0, 1.0)
    np.testing.assert_allclose(a, b)


def test_empty_trace_bins_get_the_floor(tmp_path):
    f = tmp_path / "gap.mahi"
    f.write_text("1\n2\n1000\n")
    trace = read_mahimahi_trace(f, "f")
    rate = trace_capacity_bps(trace, np.array([0.0, 0.5]), 0.1, 0.0, 123.0)
    assert rate[0] == pytest.approx(2 * MTU_BITS / 0.1)
    assert rate[1] == 123.0


def test_trace_path_in_a_timeline():
    cfg = load_scenario("tiny")
    cfg.paths[1].terrestrial.capacity = "trace"
    cfg.paths[1].terrestrial.trace_down = str(DATA / "step.mahi")
    tl = build_timeline(validate_scenario(cfg), 0)
    p = tl.paths[1]
    assert set(np.unique(p.rate_down_bps[tl.times >= 0.1])) == {6e6, 12e6}
    np.testing.assert_array_equal(p.rate_up_bps, p.rate_down_bps)


def test_markov_capacity_dwell_and_states():
    t = np.arange(0.0, 4000.0, 0.1)
    rate = markov_capacity_bps([10.0, 20.0, 40.0], 5.0, t, np.random.default_rng(3))
    assert set(np.unique(rate)) == {10e6, 20e6, 40e6}
    changes = np.count_nonzero(np.diff(rate))
    # exponential dwell with mean 5 s, and every jump goes to another state
    assert changes / t[-1] == pytest.approx(1 / 5.0, rel=0.1)
    same = markov_capacity_bps([10.0, 20.0, 40.0], 5.0, t, np.random.default_rng(3))
    np.testing.assert_array_equal(rate, same)


def test_queue_units():
    t = np.arange(0.0, 10.0, 0.01)
    rate = np.full(len(t), 100e6)
    rtt = np.full(len(t), 0.108)
    none = np.zeros((0, 2))
    # ALCS terrestrial link: 100 Mbit/s x 108 ms = 1.35 MB
    # (docs/specs/scenarios.md#alcs-testbed-defaults)
    bdp = resolve_queue_packets(QueueConfig(1.0, "bdp"), 1448, rate, rtt, none, t)
    assert bdp == math.ceil(1.35e6 / 1448)
    assert resolve_queue_packets(QueueConfig(0.5, "bdp"), 1448, rate, rtt, none, t) == math.ceil(
        0.675e6 / 1448
    )
    assert resolve_queue_packets(QueueConfig(50, "packets"), 1000, rate, rtt, none, t) == 50
    assert resolve_queue_packets(QueueConfig(1.25e6, "bytes"), 1400, rate, rtt, none, t) == 893
    assert (
        resolve_queue_packets(QueueConfig(1, "packets", min_packets=4), 1000, rate, rtt, none, t)
        == 4
    )
    # outages are left out of the means
    rate2 = rate.copy()
    rate2[t >= 5.0] = 1.0
    assert (
        resolve_queue_packets(QueueConfig(1.0, "bdp"), 1448, rate2, rtt, np.array([[5.0, 10.0]]), t)
        == bdp
    )


def test_alcs_queues_are_one_bdp():
    tl = build_timeline(load_scenario("alcs_stin"), 0)
    sat, terr = tl.paths
    assert terr.queue_packets == math.ceil(1.35e6 / 1448)
    # 50 Mbit/s x RTT in [52, 68] ms (docs/specs/scenarios.md#alcs-testbed-defaults: 425 kB)
    assert math.ceil(50e6 * 0.052 / 8 / 1448) <= sat.queue_packets <= math.ceil(425e3 / 1448)
    rtt = sat.delay_down_s + sat.delay_up_s
    assert 0.052 - 1e-9 <= rtt.min() and rtt.max() <= 0.068 + 1e-9


def test_rain_lowers_snr_and_capacity_by_the_slant_attenuation():
    dry = load_scenario("tiny")
    wet = load_scenario("tiny")
    wet.rain.mode = "constant"
    wet.rain.specific_attenuation_db_km = 2.0
    wet.rain.rain_height_km = 5.0
    wet.rain.extra_loss = 0.01
    a = build_timeline(dry, 0).paths[0]
    b = build_timeline(validate_scenario(wet), 0).paths[0]
    atten = 2.0 * 5.0 / np.sin(np.radians(a.elevation_deg))  # ITU-R P.618, elevation >= 5 deg
    np.testing.assert_allclose(a.snr_db - b.snr_db, atten, rtol=1e-9)
    assert (b.rate_down_bps < a.rate_down_bps).all()
    np.testing.assert_allclose(b.loss_down, 1 - (1 - 1e-4) * (1 - 0.01))
