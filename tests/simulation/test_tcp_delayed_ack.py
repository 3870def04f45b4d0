"""ns-3 TCP flows: the receiver's delayed-ACK timeout (``traffic.flows[].delayed_ack_s``, ns-3's
``TcpSocket::DelAckTimeout``) beside the retransmission timer's floor (``min_rto_s``).

ns-3 clamps the whole retransmission timer to ``MinRto`` (``max(MinRto, SRTT + 4 RTTVAR)``) and
delays the ACK of a lone segment by 200 ms. With Linux's 0.2 s floor and ns-3's 200 ms delayed
ACK, a loss-based TCP whose window fell to one segment sends it again just before its delayed
ACK returns, keeps a window of one and repeats: one 1448-byte segment per 200 ms and an RTT
(0.053 Mbit/s here).
Linux does not: its timer is SRTT + max(4 RTTVAR, 200 ms) and its receiver's delayed-ACK timer
starts at 40 ms (``TCP_DELACK_MIN`` = HZ/25, include/net/tcp.h). With ``delayed_ack_s`` 0.04
the loop does not form (docs/reproduction.md, "LEOTP", the setting of the paper's TCPs).

One link of 20 Mbit/s and 10 ms one way, TCP Cubic, 20 s; the references are arithmetic: the
link's goodput (1448 of every 1500 bytes: 20 B IPv4, 20 B TCP, 12 B timestamps) and, under
random loss, Mathis et al.'s square-root law (CCR 1997) against the collapsed one segment per
200 ms.

Runtime: about 3 s on the 2-core development machine.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from leogym.envs.config import EnvConfig
from leogym.scenario import load_scenario
from leogym.simulation import Simulation
from leogym.simulation.native_config import native_config

pytestmark = pytest.mark.native

RATE_BPS = 20e6
DELAY_S = 0.010
MSS = 1448
WIRE_BYTES = 1500
DURATION_S = 20
#: A full link's goodput.
LINK_GOODPUT_MBPS = RATE_BPS * MSS / WIRE_BYTES / 1e6
#: The loop: one segment per ns-3 delayed-ACK timeout (0.2 s) and one RTT.
COLLAPSED_MBPS = MSS * 8 / (0.2 + 2 * DELAY_S) / 1e6
LOSS = 0.01
#: Mathis: MSS / RTT x sqrt(3/2) / sqrt(p), with the 20 ms base RTT.
MATHIS_MBPS = MSS * 8 / (2 * DELAY_S) * math.sqrt(1.5 / LOSS) / 1e6


def _scenario(flow_extra: dict[str, Any], loss: float = 0.0, transport: str = "tcp") -> Any:
    flow: dict[str, Any] = {"transport": transport, "routes": ["r"], **flow_extra}
    if transport == "tcp":
        flow["cc"] = "TcpCubic"
    link: dict[str, Any] = {
        "a": "p",
        "b": "c",
        "rate_mbps": RATE_BPS / 1e6,
        "delay_ms": DELAY_S * 1e3,
        "loss": loss,
    }
    return load_scenario(
        {
            "name": "tcp_delayed_ack",
            "duration_s": float(DURATION_S),
            "topology": "hops",
            "paths": [],
            # the connection under study stays idle (one byte at the very end)
            "traffic": {
                "workload": "file",
                "file_bytes": 1,
                "start_s": DURATION_S - 0.01,
                "flows": [flow],
            },
            "hops": {
                "nodes": [{"name": "p", "kind": "server"}, {"name": "c", "kind": "terminal"}],
                "links": [link],
                "routes": [{"name": "r", "nodes": ["p", "c"]}],
                "paths": ["r"],
            },
        }
    )


def _goodput_mbps(flow_extra: dict[str, Any], loss: float = 0.0) -> np.ndarray:
    """The TCP flow's goodput per second (Mbit/s)."""
    with Simulation.open(EnvConfig(cc="cubic"), _scenario(flow_extra, loss), seed=1) as sim:
        return np.array([sim.step(1.0).flow_goodput_bytes[1] * 8e-6 for _ in range(DURATION_S)])


LINUX = {"min_rto_s": 0.2, "delayed_ack_s": 0.04}


def test_clean_link_goodput_is_the_link_rate_with_linux_timers() -> None:
    """Without loss the timers do not matter: Linux's 0.2 s floor and 40 ms delayed ACK, and
    ns-3's defaults (1 s, 200 ms), both fill the link after slow start."""
    linux = _goodput_mbps(LINUX)[2:]
    default = _goodput_mbps({})[2:]
    assert np.mean(linux) == pytest.approx(LINK_GOODPUT_MBPS, rel=0.02)
    assert np.mean(default) == pytest.approx(LINK_GOODPUT_MBPS, rel=0.02)
    assert np.mean(linux) == pytest.approx(np.mean(default), rel=0.03)


def test_floor_with_ns3_delayed_ack_collapses_to_one_segment_per_200_ms() -> None:
    """1 % random loss: with the 0.2 s floor and ns-3's 200 ms delayed ACK, the flow locks
    into one segment per 200 ms (the artefact); with Linux's 40 ms delayed ACK it runs at
    the order of Mathis's rate, as with ns-3's defaults."""
    collapsed = _goodput_mbps({"min_rto_s": 0.2}, LOSS)
    linux = _goodput_mbps(LINUX, LOSS)
    default = _goodput_mbps({}, LOSS)
    assert np.mean(collapsed[-10:]) == pytest.approx(COLLAPSED_MBPS, rel=0.1)
    assert np.max(collapsed[-10:]) <= 1.2 * MSS * 8 / 0.2 / 1e6  # never above one per 0.2 s
    for series in (linux, default):
        mean = float(np.mean(series[2:]))
        assert 0.5 * MATHIS_MBPS < mean < 1.2 * MATHIS_MBPS, (mean, MATHIS_MBPS)
        assert np.min(series[-5:]) > 20 * COLLAPSED_MBPS


@pytest.mark.parametrize("value", [0.0, 0.0005, 0.5, 1.0, -0.04, math.nan])
def test_out_of_range_is_a_value_error_naming_the_field(value: float) -> None:
    """[0.001, 0.5) s: RFC 1122 (section 4.2.3.2) asks for a delay of less than 0.5 s."""
    with pytest.raises(ValueError, match=r"flows\[0\]\.delayed_ack_s"):
        _scenario({"delayed_ack_s": value})


def test_only_a_tcp_flow_takes_it() -> None:
    with pytest.raises(ValueError, match=r"flows\[0\]\.delayed_ack_s"):
        _scenario({"delayed_ack_s": 0.04}, transport="udp_onoff")


@pytest.mark.parametrize(
    ("transport", "value"), [("tcp", 0.5), ("tcp", 1e-4), ("tcp", math.inf), ("udp_onoff", 0.04)]
)
def test_the_core_checks_it_again(transport: str, value: float) -> None:
    """A config built by hand reaches the core: it refuses with a ValueError naming the flow's
    field, nothing aborts."""
    from leogym._core import Simulation as CoreSimulation
    from leogym.scenario import build_timeline
    from leogym.simulation.native_config import native_network, native_paths

    sc = _scenario({}, transport=transport)
    cfg = native_config(EnvConfig(cc="cubic"), sc, 1)
    cfg["flows"][0]["delayed_ack_s"] = value
    tl = build_timeline(sc, seed=1)
    with pytest.raises(ValueError, match=r"flows\[0\]\.delayed_ack_s"):
        CoreSimulation(cfg, native_paths(tl), native_network(tl))
