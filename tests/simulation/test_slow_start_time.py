"""Slow start on a clean link against MACO's slow-start time (docs/specs/maco.md, check 7).

MACO's motivation (Yang et al., IEEE TMC 2024, §3.2) gives the time slow start takes to fill a
link of capacity ``C`` and round-trip time ``tau`` from an initial window of ``Omega`` packets of
``l`` bits:

    t_SS = tau (1 + log2(C tau / (l Omega)))

The paper's example is 200 Mbit/s, 100 ms and ``l`` = 1 KB. Here the connection runs NewReno
(and CUBIC, whose slow start is the same) on one such link, with 1 KB packets and RFC 9002's
initial window (section 7.2: min(10 max_datagram_size, max(14,720 B, 2 max_datagram_size)),
10 packets of 1,024 B). The window doubles once per round trip, and the first 100 ms step at whose
end it covers the bandwidth-delay product is the first at or after ``t_SS``.

Runtime: about 1 s on the 2-core development machine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import ScenarioConfig, load_scenario
from leogym.simulation import Simulation

pytestmark = pytest.mark.native

CAPACITY_BPS = 200e6
RTT_S = 0.1
PACKET_BYTES = 1024  # the paper's l = 1 KB
#: RFC 9002, section 7.2: kInitialWindow in bytes, here in packets.
OMEGA = min(10 * PACKET_BYTES, max(14720, 2 * PACKET_BYTES)) // PACKET_BYTES
BDP_BYTES = CAPACITY_BPS * RTT_S / 8
#: MACO §3.2: 0.893 s for 10 packets (1.225 s for one).
T_SS = RTT_S * (1 + math.log2(CAPACITY_BPS * RTT_S / (8 * PACKET_BYTES * OMEGA)))


def _scenario() -> ScenarioConfig:
    return load_scenario(
        {
            "name": "slow_start_time",
            "duration_s": 2.0,
            "topology": "hops",
            "paths": [],
            "traffic": {"workload": "bulk", "packet_bytes": PACKET_BYTES, "flows": []},
            "hops": {
                "nodes": [{"name": "p", "kind": "server"}, {"name": "c", "kind": "terminal"}],
                "links": [
                    {
                        "a": "p",
                        "b": "c",
                        "rate_mbps": CAPACITY_BPS / 1e6,
                        "delay_ms": RTT_S / 2 * 1e3,
                    }
                ],
                "routes": [{"name": "r", "nodes": ["p", "c"]}],
                "paths": ["r"],
            },
        }
    )


@pytest.mark.parametrize("cc", ["newreno", "cubic"])
def test_the_window_doubles_per_round_trip_and_covers_the_bdp_at_t_ss(cc: str) -> None:
    assert T_SS == pytest.approx(0.893, abs=1e-3)
    with Simulation.open(EnvConfig(cc=cc), _scenario(), seed=1) as sim:
        cwnd = np.array([float(np.sum(sim.step(RTT_S).cwnd_bytes)) for _ in range(12)])
    assert cwnd[0] == OMEGA * PACKET_BYTES  # the initial window, before its ACKs return
    first = int(np.argmax(cwnd >= BDP_BYTES))  # the first step ending with the BDP covered
    # slow start: the window doubles every round trip until it covers the BDP
    np.testing.assert_allclose(cwnd[1 : first + 1] / cwnd[:first], 2.0, rtol=1e-9)
    filled = RTT_S * (first + 1)
    assert T_SS <= filled < T_SS + RTT_S, (filled, T_SS)
