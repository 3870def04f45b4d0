"""LeoChannel / LeoNetDevice physics through the link probe (raw packets, no IP stack).

Expected values are computed here from the timeline arrays: serialization = size * 8 / rate
(rate at the start of serialization), propagation = the timeline's delay at the end of
serialization (np.interp), outages as [start, end) intervals, Bernoulli loss with the
binomial confidence interval from SciPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from leo_paths import grid
from scipy import stats

from leogym.simulation.native_config import synthetic_path

DELIVERED, OUTAGE, RANDOM, OVERFLOW = -1, 0, 1, 2
US = 1e-6


def test_idle_link_delay_is_serialization_plus_propagation(testing):
    p = synthetic_path(5.0, rate_bps=20e6, delay_s=0.025)
    sizes = np.array([40, 100, 576, 1000, 1500] * 20)
    t = 0.1 + 0.02 * np.arange(sizes.size)  # 20 ms apart: the link is idle for each packet
    r = testing.probe_link(p, t, sizes)
    assert np.all(r["drop_cause"] == DELIVERED)
    expected = sizes * 8 / 20e6 + 0.025
    np.testing.assert_allclose(r["recv_time_s"] - t, expected, rtol=0, atol=1 * US)


@pytest.mark.parametrize("direction", ["down", "up"])
def test_idle_link_follows_delay_and_rate_ramps(testing, direction):
    p = synthetic_path(10.0)
    tg = grid(p)
    # a delay ramp 20 -> 45 ms (geometry), a rate ramp, and a handover-like delay spike
    delay = 0.020 + 0.0025 * tg
    delay[(tg >= 6.0) & (tg < 6.1)] += 0.030
    rate = 5e6 + 4e6 * tg
    key = "down" if direction == "down" else "up"
    p[f"delay_{key}_s"] = delay
    p[f"rate_{key}_bps"] = rate
    t = np.concatenate([np.arange(0.05, 9.9, 0.137), [5.995, 6.0, 6.05, 6.095, 6.1]])
    t.sort()
    size = 1200
    r = testing.probe_link(p, t, size, direction=direction)
    assert np.all(r["drop_cause"] == DELIVERED)
    tx_end = t + size * 8 / np.interp(t, tg, rate)
    expected = tx_end + np.interp(tx_end, tg, delay)
    # the link is FIFO: where the spike's falling edge (-3 s/s) would let a packet overtake the
    # one before it, it arrives right behind it instead
    expected = np.maximum.accumulate(expected)
    np.testing.assert_allclose(r["recv_time_s"], expected, rtol=0, atol=1 * US)


def test_back_to_back_packets_are_spaced_by_serialization(testing):
    p = synthetic_path(2.0, rate_bps=10e6, delay_s=0.01, queue_packets=1000)
    n = 200
    r = testing.probe_link(p, np.full(n, 0.5), 1000)
    assert np.all(r["drop_cause"] == DELIVERED)
    ser = 1000 * 8 / 10e6
    np.testing.assert_allclose(
        r["recv_time_s"], 0.5 + ser * (1 + np.arange(n)) + 0.01, rtol=0, atol=1 * US
    )


def _arrival_rate(r, t1, t2):
    """Received bits per second over arrivals in [t1, t2)."""
    rt = r["recv_time_s"]
    sel = (rt >= t1) & (rt < t2)
    return r["size_bytes"][sel].sum() * 8 / (t2 - t1)


def test_saturated_link_delivers_at_the_rate_and_a_step_shows_up(testing):
    p = synthetic_path(10.0)
    tg = grid(p)
    p["rate_down_bps"] = np.where(tg < 5.0, 10e6, 30e6)  # step between 4.99 and 5.00 s
    # offered 40 Mbit/s of 1000-byte packets, queue 50: the link is always busy
    t = np.arange(0.0, 10.0, 1000 * 8 / 40e6)
    r = testing.probe_link(p, t, 1000)
    np.testing.assert_allclose(_arrival_rate(r, 1.0, 4.5), 10e6, rtol=0.005)
    np.testing.assert_allclose(_arrival_rate(r, 5.5, 9.5), 30e6, rtol=0.005)


def test_outage_drops_arrivals_and_flights_that_overlap_it(testing):
    s, e, d = 2.0, 2.5, 0.030
    p = synthetic_path(5.0, rate_bps=10e6, delay_s=d, outages=[(s, e)])
    t = np.arange(1.5, 3.0, 0.002)  # 4 Mbit/s of 1000-byte packets: the link stays idle
    r = testing.probe_link(p, t, 1000)
    ser = 1000 * 8 / 10e6
    flight_overlaps = (t < e) & (t + ser + d > s)
    np.testing.assert_array_equal(r["drop_cause"] == OUTAGE, flight_overlaps)
    np.testing.assert_array_equal(r["drop_cause"] == DELIVERED, ~flight_overlaps)
    # zero deliveries inside the outage, and drops happen at the first instant of overlap
    rt = r["recv_time_s"]
    assert not np.any((rt >= s) & (rt < e))
    np.testing.assert_allclose(
        r["drop_time_s"][flight_overlaps], np.maximum(t[flight_overlaps], s), atol=1e-9
    )
    assert r["counters"]["drops_outage"] == flight_overlaps.sum()
    # packets in flight at the outage start are among the drops
    assert np.any(flight_overlaps & (t < s))


def test_outage_flushes_the_queue(testing):
    s, d, q = 2.0, 0.001, 50
    p = synthetic_path(5.0, rate_bps=10e6, delay_s=d, outages=[(s, 2.3)], queue_packets=q)
    ser = 1000 * 8 / 10e6  # 0.8 ms
    n = 200
    t0 = s - 0.010
    r = testing.probe_link(p, np.full(n, t0), 1000)
    k = np.arange(n)
    # packet 0 is serialized at once, 1..q queue, the rest overflow
    overflow = k > q
    # packet k (k <= q) ends serialization at t0 + (k+1) ser, arrives d later: it survives
    # only if it arrives before the outage starts
    survives = ~overflow & (t0 + (k + 1) * ser + d <= s)
    np.testing.assert_array_equal(r["drop_cause"][overflow], OVERFLOW)
    np.testing.assert_array_equal(r["drop_cause"][survives], DELIVERED)
    lost = ~overflow & ~survives
    np.testing.assert_array_equal(r["drop_cause"][lost], OUTAGE)
    np.testing.assert_allclose(r["drop_time_s"][lost], s, atol=1e-9)
    assert survives.sum() == 11 and lost.sum() == 40  # hand count: (s - t0 - d) / ser = 11.25
    c = r["counters"]
    assert (c["drops_overflow"], c["drops_outage"], c["rx_packets"]) == (149, 40, 11)


def test_link_recovers_after_an_outage(testing):
    p = synthetic_path(3.0, rate_bps=10e6, delay_s=0.02, outages=[(1.0, 1.2)])
    t = np.array([1.0, 1.1, 1.19999, 1.2, 1.3])
    r = testing.probe_link(p, t, 500)
    np.testing.assert_array_equal(r["drop_cause"], [OUTAGE, OUTAGE, OUTAGE, DELIVERED, DELIVERED])


@pytest.mark.parametrize("p_loss", [0.01, 0.2])
def test_random_loss_fraction_is_binomial(testing, p_loss):
    n = 20000
    p = synthetic_path(25.0, rate_bps=50e6, delay_s=0.005, loss=p_loss)
    t = np.arange(n) * 0.001
    r = testing.probe_link(p, t, 1000, seed=3)
    drops = int(np.sum(r["drop_cause"] == RANDOM))
    lo, hi = stats.binom.interval(0.999, n, p_loss)
    assert lo <= drops <= hi
    assert np.all(np.isin(r["drop_cause"], [DELIVERED, RANDOM]))
    assert r["counters"]["drops_random"] == drops


def test_random_loss_is_held_per_sample_and_seeded(testing):
    p = synthetic_path(20.0, rate_bps=50e6, delay_s=0.005)
    tg = grid(p)
    p["loss_down"] = np.where(tg < 10.0, 0.0, 0.5)
    t = np.arange(0.0, 19.9, 0.001)
    a = testing.probe_link(p, t, 800, seed=1)
    b = testing.probe_link(p, t, 800, seed=1)
    c = testing.probe_link(p, t, 800, seed=2)
    d = testing.probe_link(p, t, 800, seed=1, run=2)
    early = t + 800 * 8 / 50e6 < 10.0
    assert not np.any(a["drop_cause"][early] == RANDOM)
    frac = np.mean(a["drop_cause"][~early] == RANDOM)
    lo, hi = stats.binom.interval(0.999, (~early).sum(), 0.5)
    assert lo / (~early).sum() <= frac <= hi / (~early).sum()
    np.testing.assert_array_equal(a["drop_cause"], b["drop_cause"])
    assert not np.array_equal(a["drop_cause"], c["drop_cause"])
    assert not np.array_equal(a["drop_cause"], d["drop_cause"])


def test_overflow_only_when_offered_load_exceeds_capacity(testing):
    q = 30
    p = synthetic_path(12.0, rate_bps=10e6, delay_s=0.02, queue_packets=q)
    ser = 1000 * 8 / 10e6
    under = testing.probe_link(p, np.arange(0.0, 10.0, ser / 0.95), 1000)
    assert under["counters"]["drops_overflow"] == 0
    assert np.all(under["drop_cause"] == DELIVERED)
    over = testing.probe_link(p, np.arange(0.0, 10.0, ser / 1.2), 1000)
    assert over["counters"]["drops_overflow"] > 0
    # the queue holds exactly q packets: the worst queueing delay is q serializations
    wait = over["recv_time_s"] - over["send_time_s"] - ser - 0.02
    assert np.nanmax(wait) == pytest.approx(q * ser, abs=ser * 1.01)
    assert np.nanmax(wait) > (q - 1) * ser


def test_burst_fills_exactly_queue_packets(testing):
    q = 25
    p = synthetic_path(2.0, rate_bps=5e6, delay_s=0.01, queue_packets=q)
    r = testing.probe_link(p, np.full(100, 0.1), 1500)
    # one packet in serialization plus q in the queue
    assert r["counters"]["rx_packets"] == q + 1
    assert r["counters"]["drops_overflow"] == 100 - q - 1
    np.testing.assert_array_equal(r["drop_cause"][: q + 1], DELIVERED)


def test_counters_account_for_every_packet(testing):
    p = synthetic_path(
        6.0, rate_bps=8e6, delay_s=0.03, loss=0.05, outages=[(2.0, 2.4)], queue_packets=20
    )
    rng = np.random.default_rng(5)
    t = np.sort(rng.uniform(0.0, 5.0, 6000))
    sizes = rng.integers(40, 1501, t.size)
    r = testing.probe_link(p, t, sizes)
    c = r["counters"]
    assert np.all(r["drop_cause"] >= DELIVERED)  # every packet resolved
    assert c["rx_packets"] == np.sum(r["drop_cause"] == DELIVERED)
    assert c["rx_bytes"] == sizes[r["drop_cause"] == DELIVERED].sum()
    for cause, key in [(OUTAGE, "outage"), (RANDOM, "random"), (OVERFLOW, "overflow")]:
        assert c[f"drops_{key}"] == np.sum(r["drop_cause"] == cause)
        assert c[f"drop_bytes_{key}"] == sizes[r["drop_cause"] == cause].sum()
    # each packet ends exactly once: delivered or dropped for one cause
    drops = c["drops_outage"] + c["drops_random"] + c["drops_overflow"]
    assert c["rx_packets"] + drops == t.size
    # serialized packets were accepted first, and end delivered, lost at random or in an outage
    assert c["rx_packets"] + c["drops_random"] <= c["tx_packets"] <= c["enqueued_packets"]
    assert c["enqueued_packets"] + c["drops_overflow"] <= t.size


def test_falling_delay_never_reorders(testing):
    p = synthetic_path(2.0, rate_bps=50e6)
    tg = grid(p)
    p["delay_down_s"] = np.where(tg < 1.0, 0.080, 0.020)  # 60 ms drop within one 10 ms step
    t = np.arange(0.9, 1.1, 0.0005)
    r = testing.probe_link(p, t, 1000)
    assert np.all(np.diff(r["recv_time_s"]) >= 0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"send_times_s": [0.2, 0.1]}, r"send_times_s\[1\]"),
        ({"send_times_s": [np.nan]}, r"send_times_s\[0\]"),
        ({"send_times_s": [-1.0]}, r"send_times_s\[0\]"),
        ({"sizes_bytes": 0}, "sizes_bytes"),
        ({"sizes_bytes": 2000}, "sizes_bytes"),
        ({"sizes_bytes": [100, 200, 300]}, "sizes_bytes"),
        ({"direction": "sideways"}, "direction"),
        ({"seed": 0}, "seed"),
    ],
)
def test_probe_rejects_bad_input(testing, kwargs, match):
    args = {"send_times_s": [0.1, 0.2], "sizes_bytes": 100} | kwargs
    with pytest.raises(ValueError, match=match):
        testing.probe_link(synthetic_path(1.0), **args)
