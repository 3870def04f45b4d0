"""Property tests of the link on random timelines and traffic (hypothesis).

Invariants from the model's definition: every packet ends exactly once; nothing is delivered
inside an outage; no packet arrives sooner than its serialization plus the smallest
propagation delay on the timeline; delivered flights never overlap an outage.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from leogym.simulation.native_config import synthetic_path


@st.composite
def scenarios(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n = 301  # 3 s at 10 ms
    p = synthetic_path(3.0, queue_packets=int(rng.integers(1, 60)))
    p["delay_down_s"] = rng.uniform(0.0, 0.08, n)
    p["rate_down_bps"] = rng.uniform(1e5, 5e7, n)
    p["loss_down"] = rng.choice([0.0, 0.0, 0.1, 0.5], n)
    k = int(rng.integers(0, 4))
    edges = np.sort(rng.uniform(0.0, 3.5, 2 * k))
    p["outages"] = edges.reshape(k, 2) if k else np.zeros((0, 2))
    m = int(rng.integers(1, 400))
    t = np.sort(rng.uniform(0.0, 3.2, m))
    sizes = rng.integers(1, 1501, m)
    return p, t, sizes, int(rng.integers(1, 1000))


def _in_outage(x, outages):
    return np.array([np.any((outages[:, 0] <= v) & (v < outages[:, 1])) for v in x], bool)


@settings(max_examples=40, deadline=None)
@given(scenarios())
def test_link_invariants(testing, case):
    p, t, sizes, seed = case
    r = testing.probe_link(p, t, sizes, seed=seed)
    cause = r["drop_cause"]
    delivered = cause == -1
    assert np.all(np.isin(cause, [-1, 0, 1, 2]))
    assert np.array_equal(np.isnan(r["recv_time_s"]), ~delivered)
    assert np.array_equal(np.isnan(r["drop_time_s"]), delivered)
    c = r["counters"]
    assert c["rx_packets"] == delivered.sum()
    assert c["drops_outage"] + c["drops_random"] + c["drops_overflow"] == (~delivered).sum()
    out = p["outages"]
    rt = r["recv_time_s"][delivered]
    if len(out):
        assert not np.any(_in_outage(rt, out))
        assert not np.any(_in_outage(t[delivered], out))  # sent in an outage: dropped
        # a delivered packet's flight [send, arrival) never meets an outage
        for s, e in out:
            assert not np.any((t[delivered] < e) & (rt > s))
    assert np.all(
        rt
        >= t[delivered]
        + sizes[delivered] * 8 / p["rate_down_bps"].max()
        + p["delay_down_s"].min()
        - 1e-9
    )
    assert np.all(np.diff(rt) >= 0)  # FIFO
    if np.all(p["loss_down"] == 0):
        assert c["drops_random"] == 0
