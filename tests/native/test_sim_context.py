"""Process-global ns-3 lifecycle: many build/destroy cycles, determinism, one simulation."""

from __future__ import annotations

import psutil
import pytest

from leogym.simulation.native_config import synthetic_path


def _paths():
    return [
        synthetic_path(1.0, rate_bps=20e6, loss=0.05),
        synthetic_path(1.0, rate_bps=10e6, outages=[(0.1, 0.15)], name="p1"),
    ]


def test_two_hundred_cycles_in_one_process(core, testing):
    paths = _paths()
    cross = [{"kind": "udp_onoff", "path": 1, "rate_bps": 2e6, "packet_bytes": 500}]
    proc = psutil.Process()
    first = None
    rss = []
    for i in range(200):
        r = testing.run_reference_flow("tcp_bulk", paths, 0.2, seed=5, cross_traffic=cross)
        assert core.live_node_count() == 0  # Simulator::Destroy emptied NodeList
        key = (r["rx_bytes"], r["events"], r["drops_random"], r["cross_rx_bytes"][0])
        if first is None:
            first = key
        # the 200th build behaves exactly like the first (streams, addresses, node ids reset)
        assert key == first
        if i in (20, 199):
            rss.append(proc.memory_info().rss)
    assert r["drops_random"] > 0 and r["paths"][1]["down"]["drops_outage"] > 0
    # a leak of even 25 kB per cycle would show; allocator noise stays far below this
    assert rss[1] - rss[0] < 180 * 25_000


def test_one_simulation_per_process(core, testing):
    lease = core.hold_simulator(seed=3)
    try:
        assert core.simulation_busy()
        with pytest.raises(RuntimeError, match="one simulation per process"):
            testing.run_reference_flow("udp", [synthetic_path(1.0)], 0.1)
        with pytest.raises(RuntimeError, match="one simulation per process"):
            testing.probe_link(synthetic_path(1.0), [0.1])
        with pytest.raises(RuntimeError):
            core.hold_simulator()
        with pytest.raises(RuntimeError, match="still open"):
            core.reset_simulator(1, 1)
    finally:
        lease.release()
    lease.release()  # idempotent
    assert not lease.active and not core.simulation_busy()
    with core.hold_simulator() as held:
        assert held.active
    assert not core.simulation_busy()
    testing.run_reference_flow("udp", [synthetic_path(1.0)], 0.1)


def test_bad_input_leaves_the_process_usable(core, testing):
    bad = synthetic_path(1.0)
    bad["rate_up_bps"][0] = -5.0
    for _ in range(3):
        with pytest.raises(ValueError):
            testing.run_reference_flow("udp", [bad], 0.1)
        with pytest.raises(ValueError):
            testing.run_reference_flow(
                "udp", [synthetic_path(1.0)], 0.1, cross_traffic=[{"kind": "x"}]
            )
    assert not core.simulation_busy()
    r = testing.run_reference_flow("udp", [synthetic_path(1.0)], 0.1)
    assert r["rx_bytes"] > 0


def test_reset_rejects_seed_zero(core):
    with pytest.raises(ValueError, match="seed"):
        core.reset_simulator(0, 1)
    core.reset_simulator(7, 2)
