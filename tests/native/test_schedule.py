"""LeoPathSchedule: interpolation, held values, outage and handover look-ups, validation.

Expected values come from NumPy (np.interp, index arithmetic) applied to the input arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
from leo_paths import grid

from leogym.simulation.native_config import synthetic_path


def _ramp_path() -> dict:
    rng = np.random.default_rng(7)
    n = 501
    p = synthetic_path(5.0, 0.01)
    p["delay_down_s"] = 0.02 + 0.01 * np.sin(np.arange(n) / 40.0)
    p["delay_up_s"] = np.linspace(0.03, 0.05, n)
    p["rate_down_bps"] = rng.uniform(5e6, 50e6, n)
    p["rate_up_bps"] = np.linspace(1e6, 2e6, n)
    p["loss_down"] = rng.uniform(0.0, 0.1, n)
    p["loss_up"] = rng.uniform(0.0, 0.1, n)
    p["snr_db"] = rng.normal(10.0, 3.0, n)
    p["serving_sat"] = np.repeat(np.arange(5), 101)[:n].astype(np.int32)
    p["outages"] = np.array([[1.0, 1.5], [3.0, 3.25]])
    p["handovers"] = np.array([1.0, 3.0, 4.5])
    return p


def test_linear_interpolation_matches_numpy(testing):
    p = _ramp_path()
    tg = grid(p)
    t = np.random.default_rng(1).uniform(-0.5, 5.5, 2000)
    s = testing.sample_path(p, t)
    for key in ("delay_down_s", "delay_up_s", "rate_down_bps", "rate_up_bps", "elevation_deg"):
        np.testing.assert_allclose(s[key], np.interp(t, tg, p[key]), rtol=1e-12, atol=1e-15)


def test_held_values_use_the_sample_at_or_before_t(testing):
    p = _ramp_path()
    t = np.random.default_rng(2).uniform(0.0, 5.0, 2000)
    # on-grid instants must hold their own sample despite rounding
    t = np.concatenate([t, grid(p)[::7]])
    idx = np.clip(np.floor(np.round(t / p["dt_s"], 9)).astype(int), 0, len(grid(p)) - 1)
    s = testing.sample_path(p, t)
    np.testing.assert_array_equal(s["loss_down"], p["loss_down"][idx])
    np.testing.assert_array_equal(s["loss_up"], p["loss_up"][idx])
    np.testing.assert_array_equal(s["snr_db"], p["snr_db"][idx])
    np.testing.assert_array_equal(s["serving_sat"], p["serving_sat"][idx])


def test_outage_and_handover_lookups(testing):
    p = _ramp_path()
    t = np.array([0.99, 1.0, 1.2, 1.4999, 1.5, 2.9, 3.0, 3.2499, 3.25, 4.6])
    s = testing.sample_path(p, t)
    inside = ((t >= 1.0) & (t < 1.5)) | ((t >= 3.0) & (t < 3.25))
    np.testing.assert_array_equal(s["in_outage"], inside)
    expect_next = [1.0, 3.0, 3.0, 3.0, 3.0, 3.0, 4.5, 4.5, 4.5, np.inf]
    np.testing.assert_array_equal(s["next_handover_s"], expect_next)


def test_zero_rate_allowed_only_inside_outages(core, testing):
    p = synthetic_path(2.0, outages=[(0.5, 0.8)])
    tg = grid(p)
    inside = (tg >= 0.5) & (tg < 0.8)
    p["rate_down_bps"][inside] = 0.0
    core.validate_path(p)
    s = testing.sample_path(p, np.array([0.6]))
    assert s["rate_down_bps"][0] > 0.0
    p["rate_down_bps"][np.argmax(tg >= 1.0)] = 0.0
    with pytest.raises(ValueError, match=r"rate_down_bps\[100\].*outside outages"):
        core.validate_path(p)


def _bad(mutate):
    p = synthetic_path(1.0)
    mutate(p)
    return p


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p.update(delay_up_s=p["delay_up_s"][:-1]), "delay_up_s"),
        (lambda p: p.update(rate_down_bps=-p["rate_down_bps"]), r"rate_down_bps\[0\]"),
        (lambda p: p["delay_down_s"].__setitem__(3, np.nan), r"delay_down_s\[3\]"),
        (lambda p: p["delay_up_s"].__setitem__(4, -0.001), r"delay_up_s\[4\]"),
        (lambda p: p["loss_up"].__setitem__(5, 1.5), r"loss_up\[5\]"),
        (lambda p: p["rate_up_bps"].__setitem__(6, np.inf), r"rate_up_bps\[6\]"),
        (lambda p: p.update(outages=np.array([[0.5, 0.6], [0.2, 0.3]])), r"outages\[1\]"),
        (lambda p: p.update(outages=np.array([[0.2, 0.5], [0.4, 0.6]])), r"outages\[1\]"),
        (lambda p: p.update(outages=np.array([[0.5, 0.5]])), r"outages\[0\]"),
        (lambda p: p.update(outages=np.array([0.1, 0.2, 0.3])), "outages"),
        (lambda p: p.update(handovers=np.array([0.5, 0.2])), r"handovers\[1\]"),
        (lambda p: p.update(dt_s=0.0), "dt_s"),
        (lambda p: p.update(queue_packets=0), "queue_packets"),
        (lambda p: p.pop("loss_down"), "loss_down: missing"),
        (lambda p: p.update(rate_up_bps="fast"), "rate_up_bps"),
        (lambda p: p.update(delay_down_s=np.zeros((3, 3))), "delay_down_s"),
        (lambda p: p.update(snr_db=np.zeros(5)), "snr_db"),
        (lambda p: p.update(serving_sat=np.full(101, -2)), r"serving_sat\[0\]"),
        # values that would overflow ns-3's nanosecond clock
        (lambda p: p["rate_down_bps"].__setitem__(7, 1e-9), r"rate_down_bps\[7\]"),
        (lambda p: p["delay_down_s"].__setitem__(8, 1e300), r"delay_down_s\[8\]"),
        (lambda p: p.update(outages=np.array([[0.5, 1e300]])), r"outages\[0\]"),
    ],
)
def test_bad_arrays_raise_value_error_naming_the_field(core, mutate, field):
    with pytest.raises(ValueError, match=field):
        core.validate_path(_bad(mutate))


def test_errors_name_the_path_in_a_list(testing):
    good = synthetic_path(1.0)
    bad = synthetic_path(1.0, name="terr")
    bad["loss_down"][2] = -0.1
    with pytest.raises(ValueError, match=r"paths\[1\] \('terr'\)\.loss_down\[2\]"):
        testing.run_reference_flow("udp", [good, bad], 0.1)
