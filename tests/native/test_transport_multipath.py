"""Multipath behaviour of the transport over LeoTopology paths.

* Two disjoint equal paths carry about twice what one carries (each path is its own
  bottleneck).
* RFC 6356 (Raiciu et al., 2011), section 2, goals 1-2: a coupled multipath flow sharing a
  bottleneck with a single-path flow should take about that flow's share, an uncoupled one
  about two shares. Setup: one 20 Mbit/s, 40 ms RTT path with a BDP drop-tail queue; our
  connection runs two subflows over it (config ``subflow_paths = [0, 0]``: two UDP port pairs
  on the same LeoTopology path, so both subflows and the TCP flow share the server device's
  queue); the competitor is ns-3's TcpLinuxReno bulk flow from the same server (a Reno that
  grows by one segment per window of acknowledged segments, as our NewReno does per RFC 9002).
* The external scheduler splits packets by its weights, or sends on one chosen path.
* Outages: the path's PTO fires, its data is reinjected on the other path, and the transfer
  resumes after the outage.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

PACKET = 1472  # UDP payload of a full-size packet on a 1500-byte MTU


def run(
    core: ModuleType,
    config: dict[str, Any],
    paths: list[dict[str, Any]],
    seconds: int,
    warm_s: int = 5,
    setup=None,
) -> dict[str, Any]:
    """Run whole seconds; sum goodput, delivered bytes and cross traffic after warm_s."""
    sim = core.Simulation({"packet_bytes": PACKET, **config}, paths)
    try:
        if setup is not None:
            setup(sim)
        out = {"goodput": 0, "cross": 0.0, "delivered": np.zeros(sim.n_paths), "steps": []}
        for k in range(seconds):
            m = sim.step(1.0)
            out["steps"].append(m)
            if k >= warm_s:
                out["goodput"] += int(m["goodput_bytes"])
                out["cross"] += float(m["cross_traffic_rx_bytes"].sum())
                out["delivered"] += m["delivered_bytes"]
        out["mbps"] = out["goodput"] * 8 / (seconds - warm_s) / 1e6
        return out
    finally:
        sim.close()


@pytest.mark.parametrize("cc", ["cubic", "newreno", "lia"])
def test_two_disjoint_equal_paths_double_the_goodput(core: ModuleType, cc: str) -> None:
    a = synthetic_path(21.0, rate_bps=20e6, delay_s=0.02, queue_packets=66, name="a")
    b = synthetic_path(21.0, rate_bps=20e6, delay_s=0.02, queue_packets=66, name="b")
    one = run(core, {"cc": cc}, [a], 20)["mbps"]
    two = run(core, {"cc": cc}, [a, b], 20)
    assert one > 0.9 * 20 * (PACKET - 17) / 1500  # one path is nearly full
    assert two["mbps"] / one == pytest.approx(2.0, rel=0.08)
    share = two["delivered"] / two["delivered"].sum()
    assert share == pytest.approx([0.5, 0.5], abs=0.05)


def shared_bottleneck(core: ModuleType, cc: str) -> float:
    """Goodput ratio (ours / TCP) with two subflows and one TcpLinuxReno on one path."""
    p = synthetic_path(91.0, rate_bps=20e6, delay_s=0.02, queue_packets=66)
    cfg = {
        "cc": cc,
        "subflow_paths": [0, 0],
        "cross_traffic": [{"kind": "tcp_bulk", "path": 0, "tcp_variant": "ns3::TcpLinuxReno"}],
    }
    out = run(core, cfg, [p], 90, warm_s=10)
    total = out["goodput"] + out["cross"]
    assert total * 8 / 80 > 0.85 * 20e6  # the bottleneck is used
    return out["goodput"] / out["cross"]


@pytest.mark.parametrize("cc", ["lia", "olia"])
def test_coupled_cc_takes_about_one_share_of_a_shared_bottleneck(core: ModuleType, cc: str) -> None:
    ratio = shared_bottleneck(core, cc)
    assert 0.6 < ratio < 1.5, ratio


def test_uncoupled_cc_takes_about_two_shares_of_a_shared_bottleneck(core: ModuleType) -> None:
    ratio = shared_bottleneck(core, "newreno")
    assert 1.6 < ratio < 2.6, ratio


def test_external_scheduler_weights_split_the_packets(core: ModuleType) -> None:
    # Flow control (150 kB window) keeps both 50 Mbit/s paths below their windows, so the
    # split is the scheduler's: packets in proportion 3 : 1.
    a = synthetic_path(16.0, rate_bps=50e6, delay_s=0.02, queue_packets=200, name="a")
    b = synthetic_path(16.0, rate_bps=50e6, delay_s=0.02, queue_packets=200, name="b")
    cfg = {"cc": "cubic", "scheduler": "external", "receive_window_bytes": 150_000}
    out = run(core, cfg, [a, b], 15, setup=lambda s: s.set_weights(np.array([3.0, 1.0])))
    assert out["delivered"][0] / out["delivered"][1] == pytest.approx(3.0, rel=0.05)


def test_external_scheduler_path_choice(core: ModuleType) -> None:
    a = synthetic_path(6.0, rate_bps=20e6, delay_s=0.02, name="a")
    b = synthetic_path(6.0, rate_bps=20e6, delay_s=0.02, name="b")
    out = run(
        core,
        {"cc": "cubic", "scheduler": "external"},
        [a, b],
        5,
        warm_s=0,
        setup=lambda s: s.set_path_choice(1),
    )
    assert out["delivered"][0] == 0 and out["delivered"][1] > 0


def test_deactivated_and_standby_paths(core: ModuleType) -> None:
    a = synthetic_path(9.0, rate_bps=20e6, delay_s=0.02, name="a")
    b = synthetic_path(9.0, rate_bps=20e6, delay_s=0.02, name="b")
    sim = core.Simulation(
        {"packet_bytes": PACKET, "initial_path_states": ["active", "standby"]}, [a, b]
    )
    try:
        m = sim.step(2.0)
        assert list(m["path_state"]) == [0, 1]
        assert m["sent_bytes"][0] > 0 and m["sent_bytes"][1] == 0  # standby is not used
        sim.set_path_state(0, "deactivated")
        sim.step(0.5)  # the outstanding data of path 0 drains
        m = sim.step(2.0)
        assert list(m["path_state"]) == [2, 1]
        assert m["sent_bytes"][0] == 0  # no new data on a deactivated path
        assert m["delivered_bytes"][1] > 0.8 * 2.0 * 20e6 / 8  # standby took over
    finally:
        sim.close()


def test_outage_on_one_path_is_bridged_by_the_other(core: ModuleType) -> None:
    outage = (4.0, 6.0)
    a = synthetic_path(
        11.0,
        rate_bps=20e6,
        delay_s=0.02,
        queue_packets=66,
        outages=[outage],
        handovers=[4.0, 6.0],
        name="a",
    )
    b = synthetic_path(11.0, rate_bps=10e6, delay_s=0.03, queue_packets=66, name="b")
    sim = core.Simulation({"packet_bytes": PACKET, "cc": "cubic"}, [a, b])
    try:
        steps = [sim.step(0.5) for _ in range(20)]
    finally:
        sim.close()
    t = np.arange(1, 21) * 0.5
    # 4 intervals
    during = [m for ti, m in zip(t, steps, strict=True) if outage[0] < ti <= outage[1]]
    inside = [m for ti, m in zip(t, steps, strict=True) if outage[0] <= ti < outage[1]]
    assert all(bool(m["in_outage"][0]) and not bool(m["in_outage"][1]) for m in inside)
    assert sum(int(m["drops_outage"][0]) for m in steps) > 0
    assert sum(int(m["pto_count"][0]) for m in steps) > 0
    assert sum(int(m["reinjected_packets"][0]) for m in steps) > 0
    assert sum(int(m["handovers"][0]) for m in steps) == 2
    # During the outage the second path keeps the application fed (HoL blocking is broken
    # by reinjecting path a's outstanding data on path b).
    good_during = sum(int(m["goodput_bytes"]) for m in during) * 8 / 2.0
    assert good_during > 0.7 * 10e6
    # After the outage path a carries data again.
    after = [m for ti, m in zip(t, steps, strict=True) if ti > 8.0]
    assert sum(int(m["delivered_bytes"][0]) for m in after) > 0


def test_single_path_outage_recovers(core: ModuleType) -> None:
    p = synthetic_path(11.0, rate_bps=20e6, delay_s=0.02, queue_packets=66, outages=[(3.0, 4.0)])
    sim = core.Simulation({"packet_bytes": PACKET, "cc": "newreno"}, [p])
    try:
        steps = [sim.step(1.0) for _ in range(10)]
    finally:
        sim.close()
    assert int(steps[3]["goodput_bytes"]) == 0  # (3, 4]: nothing arrives
    assert sum(int(m["pto_count"][0]) for m in steps) >= 2  # backed-off probes
    assert sum(int(m["goodput_bytes"]) for m in steps[7:]) * 8 / 3 > 0.8 * 20e6


def test_blocking_aware_schedulers_avoid_head_of_line_blocking(core: ModuleType) -> None:
    """Ferlin et al. (BLEST, IFIP Networking 2016) and Lim et al. (ECF, CoNEXT 2017): with
    heterogeneous paths and a small receive window, minRTT fills the slow path and the
    receiver's window blocks on its late packets; BLEST and ECF wait for the fast path and
    keep its rate. Round-robin splits the packets evenly among the paths that can send."""
    fast = synthetic_path(21.0, rate_bps=20e6, delay_s=0.02, queue_packets=66, name="fast")
    slow = synthetic_path(21.0, rate_bps=10e6, delay_s=0.10, queue_packets=166, name="slow")
    base = {"cc": "cubic", "receive_window_bytes": 200_000, "send_buffer_bytes": 60_000}
    res = {
        s: run(core, {**base, "scheduler": s}, [fast, slow], 20)
        for s in ["minrtt", "roundrobin", "ecf", "blest"]
    }
    mbps = {s: r["mbps"] for s, r in res.items()}
    assert mbps["minrtt"] < 0.7 * 20  # HoL-blocked below the fast path alone
    for s in ["ecf", "blest"]:
        assert mbps[s] > 1.5 * mbps["minrtt"], mbps
        assert mbps[s] > 0.9 * 20 * (PACKET - 17) / 1500, mbps
    rr = res["roundrobin"]["delivered"]
    assert rr[1] / rr.sum() == pytest.approx(0.5, abs=0.1)
    reorder = {
        s: np.mean([int(m["reorder_buffer_bytes"]) for m in r["steps"]]) for s, r in res.items()
    }
    assert reorder["blest"] < 0.2 * reorder["minrtt"]
