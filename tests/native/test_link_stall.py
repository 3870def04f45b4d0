"""Boundary semantics in the link: the per-slot dynamics' stall holds packets, the geometric
outage drops them (docs/scenario.md, "Per-slot dynamics"; docs/architecture.md, the Timeline
contract).

Measured Starlink keeps its queue across a reconfiguration: the capacity falls to near zero for
50-120 ms and the packets queued meanwhile arrive late, not lost (docs/specs/starlink-dynamics.md).
The layer therefore lowers the rate to a floor (``f_stall`` = 1 % of the slot's rate) instead of
declaring an outage. A light probe (1400 B every 2 ms, 5.6 Mbit/s) crosses each slot boundary of
the ``default`` scenario (dynamics on) and of ``starlink_geometric`` (its 100 ms outage).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from leogym.scenario import build_timeline, load_scenario
from leogym.simulation.native_config import native_paths

DELIVERED, OUTAGE, RANDOM, OVERFLOW = -1, 0, 1, 2
SIZE = 1400
GAP_S = 0.002


def _probe(testing, name: str, seed: int):
    cfg = copy.deepcopy(load_scenario(name))
    cfg.duration_s = 20.0
    tl = build_timeline(cfg, seed)
    path = native_paths(tl)[0]
    send = np.arange(10.0, 19.0, GAP_S)  # across the boundary at t = 12 s
    return tl, send, testing.probe_link(path, send, SIZE, seed=seed + 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_stall_holds_the_queue_and_drops_nothing(testing, seed):
    tl, send, r = _probe(testing, "default", seed)
    p = tl.paths[0]
    cause = r["drop_cause"]
    assert not np.any(cause == OUTAGE) and not np.any(cause == OVERFLOW)
    # background loss only: 1e-4 down (at most a few of 4500 packets)
    assert np.sum(cause == RANDOM) <= 5
    # the stall: the rate floor of 1 % of the slot's rate, within 40 ms before the boundary
    rate = p.rate_down_bps
    i0, i1 = tl.index_at(11.9), tl.index_at(12.2)
    stalled = np.flatnonzero(rate[i0:i1] < 0.02 * np.median(rate[tl.index_at(10.0) : i0]))
    assert len(stalled) >= 2  # at least 20 ms (d_lo_s)
    s0, s1 = tl.times[i0 + stalled[0]], tl.times[i0 + stalled[-1]] + tl.dt_s
    assert 12.0 - 0.04 - 1e-9 <= s0 <= 12.0
    inside = (send >= s0) & (send < s1) & (cause == DELIVERED)
    assert inside.sum() >= 0.9 * ((send >= s0) & (send < s1)).sum()
    # held, not lost: the packets sent in the stall arrive after it ends (the queue drains at
    # the recovering rate), later than their propagation delay alone
    late = r["recv_time_s"][inside] - send[inside]
    prop = p.delay_down_s[[tl.index_at(x) for x in send[inside]]]
    assert np.max(r["recv_time_s"][inside]) >= s1
    assert np.median(late - prop) > 0.5 * (s1 - s0)


def test_the_geometric_outage_drops_what_is_sent_into_it(testing):
    tl, send, r = _probe(testing, "starlink_geometric", 0)
    (o0, o1), *_ = tl.paths[0].outages
    assert 10.0 < o0 < o1 < 19.0
    sent_in = (send >= o0) & (send < o1)
    assert np.all(r["drop_cause"][sent_in] == OUTAGE)
    assert sent_in.sum() == pytest.approx((o1 - o0) / GAP_S, abs=1)
