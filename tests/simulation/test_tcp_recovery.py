"""ns-3 TCP flows: the recovery time of retransmitted data (``Simulation.recovery_stats``) and
the retransmission timer's floor (``traffic.flows[].min_rto_s``).

One 1448-byte segment crosses one 100 Mbit/s link of 10 ms; an outage of 1 ms drops it in
flight. Nothing else is in flight, so no duplicate ACK comes back and the retransmission timer
fires: the RTT sample of the handshake (20 ms) makes RFC 6298's RTO = SRTT + 4 RTTVAR = 3 x 20
ms = 60 ms, below the floor, so the timer fires ``min_rto_s`` after the first transmission and
the copy arrives one link delay and one 1500-byte serialisation later.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.simulation import Simulation

pytestmark = pytest.mark.native

DELAY_S = 0.010
RATE_BPS = 100e6
WIRE_BYTES = 1500  # 1448 B of data, 20 B TCP, 12 B timestamp option, 20 B IPv4
START_S = 1.0
# The handshake: SYN at 1.0 s, SYN-ACK back at 1.020 s, the segment leaves then and is on the
# link until 1.030 s; the outage falls inside.
OUTAGE = [1.025, 1.026]


def _scenario(min_rto_s: float | None, outage: bool, transport: str = "tcp", **extra: Any) -> Any:
    flow: dict[str, Any] = {
        "transport": transport,
        "cc": "TcpNewReno",
        "routes": ["r"],
        "workload": "file",
        "file_bytes": 1448,
        "start_s": START_S,
    }
    if min_rto_s is not None:
        flow["min_rto_s"] = min_rto_s
    flow.update(extra)
    link = {"a": "p", "b": "c", "rate_mbps": RATE_BPS / 1e6, "delay_ms": DELAY_S * 1e3}
    if outage:
        link["outages"] = [OUTAGE]
    return load_scenario(
        {
            "name": "tcp_recovery",
            "duration_s": 3.0,
            "topology": "hops",
            "paths": [],
            # the connection under study stays idle (one byte at the very end)
            "traffic": {"workload": "file", "file_bytes": 1, "start_s": 2.99, "flows": [flow]},
            "hops": {
                "nodes": [{"name": "p", "kind": "server"}, {"name": "c", "kind": "terminal"}],
                "links": [link],
                "routes": [{"name": "r", "nodes": ["p", "c"]}],
                "paths": ["r"],
            },
        }
    )


def _recovery(min_rto_s: float | None, outage: bool, **extra: Any) -> dict:
    sc = _scenario(min_rto_s, outage, **extra)
    with Simulation.open(EnvConfig(cc="cubic"), sc, seed=1) as sim:
        sim.step(2.5)
        return sim.recovery_stats(1, samples=True)


SERIALISATION_S = WIRE_BYTES * 8 / RATE_BPS


@pytest.mark.parametrize(("min_rto_s", "floor_s"), [(0.2, 0.2), (None, 1.0), (0.5, 0.5)])
def test_a_lost_segment_recovers_after_the_timer_floor(min_rto_s, floor_s):
    r = _recovery(min_rto_s, outage=True)
    assert (r["clean"], r["retransmitted"]) == (0, 1)
    expected = floor_s + DELAY_S + SERIALISATION_S  # None: ns-3's default, RFC 6298's 1 s
    np.testing.assert_allclose(r["retransmitted_owd_s"], [expected], atol=1e-6)


def test_linux_timer_floors_the_variance_term_not_the_rto():
    # RFC 6298 section 2.2 after the first sample R = 20 ms: SRTT = R, RTTVAR = R / 2, and
    # RTO = SRTT + max(G, 4 RTTVAR). Linux keeps RTTVAR at least rto_min (tcp_rtt_estimator's
    # mdev_max), i.e. G = 0.2 s: RTO = 20 ms + 200 ms, where ns-3's whole-RTO floor gives 200.
    r = _recovery(0.2, outage=True, rto_granularity_s=0.2)
    assert (r["clean"], r["retransmitted"]) == (0, 1)
    expected = 0.020 + 0.2 + DELAY_S + SERIALISATION_S
    np.testing.assert_allclose(r["retransmitted_owd_s"], [expected], atol=1e-6)


def test_rto_granularity_only_for_tcp_flows():
    with pytest.raises(
        ValueError, match=r"scenario\.traffic\.flows\[0\]\.rto_granularity_s: only a tcp"
    ):
        _scenario(None, False, transport="udp_onoff", rto_granularity_s=0.2)


def test_a_segment_never_lost_is_clean():
    r = _recovery(0.2, outage=False)
    assert (r["clean"], r["retransmitted"]) == (1, 0)
    # one link delay and one serialisation (plus the handshake ACK's 52 bytes ahead of it)
    assert DELAY_S + SERIALISATION_S <= r["owd_s"][0] <= DELAY_S + SERIALISATION_S + 1e-5
    assert np.isnan(r["recovery_time_median_s"])


def test_recovery_time_on_a_lossy_chain():
    """Bulk TCP over a 2-hop chain with 1 % loss per hop: the recovery time is the
    retransmitted segments' median delay less the clean ones' median; retransmissions wait
    at least one RTT (40 ms of propagation) beyond the clean delay."""
    sc = load_scenario(
        {
            "name": "tcp_lossy",
            "duration_s": 6.0,
            "topology": "hops",
            "paths": [],
            "traffic": {
                "workload": "file",
                "file_bytes": 1,
                "start_s": 5.99,
                "flows": [{"transport": "tcp", "cc": "TcpBbr", "routes": ["r"], "min_rto_s": 0.2}],
            },
            "hops": {
                "nodes": [{"name": "p", "kind": "server"}, {"name": "m"}, {"name": "c"}],
                "links": [
                    {"a": "p", "b": "m", "rate_mbps": 20.0, "delay_ms": 10.0, "loss": 0.01},
                    {"a": "m", "b": "c", "rate_mbps": 20.0, "delay_ms": 10.0, "loss": 0.01},
                ],
                "routes": [{"name": "r", "nodes": ["p", "m", "c"]}],
                "paths": ["r"],
            },
        }
    )
    with Simulation.open(EnvConfig(cc="cubic"), sc, seed=3) as sim:
        sim.step(5.0)
        r = sim.recovery_stats(1, samples=True)
    assert r["retransmitted"] > 10 and r["clean"] > 100 * r["retransmitted"] / 5

    def lower_median(x: np.ndarray) -> float:  # the nearest-rank median the core reports
        return float(np.sort(x)[(len(x) - 1) // 2])

    assert r["recovery_time_median_s"] == pytest.approx(
        lower_median(r["retransmitted_owd_s"]) - lower_median(r["owd_s"])
    )
    assert r["recovery_time_median_s"] >= 0.040


def test_mpquic_flows_have_no_tcp_segments():
    with Simulation.open(EnvConfig(cc="cubic"), _scenario(None, False), seed=1) as sim:
        sim.step(0.5)
        r = sim.recovery_stats(0)
    assert (r["clean"], r["retransmitted"]) == (0, 0) and np.isnan(r["owd_mean_s"])


@pytest.mark.parametrize("value", [0.0, 1e-4, 61.0])
def test_min_rto_out_of_range_names_the_field(value):
    with pytest.raises(ValueError, match=r"scenario\.traffic\.flows\[0\]\.min_rto_s"):
        _scenario(value, False)


def test_min_rto_only_for_tcp_flows():
    with pytest.raises(ValueError, match=r"scenario\.traffic\.flows\[0\]\.min_rto_s: only a tcp"):
        _scenario(0.2, False, transport="udp_onoff")


def test_core_checks_min_rto_again():
    from leogym.native import core
    from leogym.scenario import build_timeline
    from leogym.simulation import native_config, native_network, native_paths

    sc = _scenario(0.2, False)
    config = native_config(EnvConfig(cc="cubic"), sc, 1)
    tl = build_timeline(sc, 1)
    bad = {**config, "flows": [{**config["flows"][0], "min_rto_s": 100.0}]}
    with pytest.raises(ValueError, match=r"flows\[0\]\.min_rto_s"):
        core().Simulation(bad, native_paths(tl), native_network(tl))
