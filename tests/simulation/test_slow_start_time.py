"""Slow start on a clean link against MACO's slow-start time (docs/specs/maco.md, check 7).

MACO's motivation (Yang et al., IEEE TMC 2024, §3.2) gives the time slow start takes to fill a
link of capacity ``C`` and round-trip time ``tau`` from an initial window of ``Omega`` packets of
``l`` bits:

    t_SS = tau (1 + log2(C tau / (l Omega)))

The paper's example is 200 Mbit/s, 100 ms, ``l`` = 1 KB and ``Omega`` = 1: 1.225 s by the
formula. Here the connection runs NewReno (and CUBIC, whose slow start is the same) on one such
link, with 1 KB packets, from the paper's initial window of one packet and from RFC 9002's
(section 7.2: min(10 max_datagram_size, max(14,720 B, 2 max_datagram_size)), 10 packets of
1,024 B), set through the controller's ``InitialWindow`` parameter. The window doubles once per
round trip, and the first 100 ms step at whose end it covers the bandwidth-delay product is the
first at or after ``t_SS``. In the covering step the window grows by less than twice when the
last round's ACKs span the step's end (2,048 packets take 84 ms to serialise).

Runtime: about 2 s on the 2-core development machine.
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
RFC9002_IW = min(10 * PACKET_BYTES, max(14720, 2 * PACKET_BYTES)) // PACKET_BYTES
BDP_BYTES = CAPACITY_BPS * RTT_S / 8


def t_ss(omega: int) -> float:
    """MACO §3.2's slow-start time from an initial window of ``omega`` packets."""
    return RTT_S * (1 + math.log2(CAPACITY_BPS * RTT_S / (8 * PACKET_BYTES * omega)))


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


@pytest.mark.parametrize("omega", [1, RFC9002_IW], ids=["paper-1", "rfc9002-10"])
@pytest.mark.parametrize("cc", ["newreno", "cubic"])
def test_the_window_doubles_per_round_trip_and_covers_the_bdp_at_t_ss(cc: str, omega: int) -> None:
    assert RFC9002_IW == 10
    assert t_ss(1) == pytest.approx(1.225, abs=1e-3) and t_ss(10) == pytest.approx(0.893, abs=1e-3)
    settings = EnvConfig(cc=cc, cc_params={"InitialWindow": omega})
    with Simulation.open(settings, _scenario(), seed=1) as sim:
        cwnd = np.array([float(np.sum(sim.step(RTT_S).cwnd_bytes)) for _ in range(14)])
    assert cwnd[0] == omega * PACKET_BYTES  # the initial window, before its ACKs return
    first = int(np.argmax(cwnd >= BDP_BYTES))  # the first step ending with the BDP covered
    assert cwnd[first] >= BDP_BYTES
    # slow start: the window doubles every round trip until it covers the BDP
    np.testing.assert_allclose(cwnd[1:first] / cwnd[: first - 1], 2.0, rtol=1e-9)
    assert cwnd[first] <= 2 * cwnd[first - 1]
    filled = RTT_S * (first + 1)
    assert t_ss(omega) <= filled < t_ss(omega) + RTT_S, (filled, t_ss(omega))
