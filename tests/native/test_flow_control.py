"""External (agent) control of the flows beside the connection (``config["flows"]``).

An ``mpquic`` flow with ``cc: external`` takes its windows from ``set_flow_cwnd(flow, ...)``
(and pacing rates from ``set_flow_pacing_rate``); the core reports every mpquic flow's subflows
like the connection's paths (``subflow_*``) and each flow's sent and lost packets. Checked
against arithmetic: a window-limited flow delivers one window per round trip, so its rate is
``W / RTT`` with RTT = two propagation delays plus the serialisation of a data packet. Bad
actions raise ``ValueError`` naming the call, the flow and the value; none may abort.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

DELAY_S = 0.025
RATE_BPS = 20e6
PACKET = 1400
#: IPv4 (20 B) + UDP (8 B) around each datagram.
IP_PACKET_BITS = (PACKET + 28) * 8


def sim(core: Any, flows: list[dict[str, Any]], **config: Any) -> Any:
    path = synthetic_path(6.0, rate_bps=RATE_BPS, delay_s=DELAY_S, queue_packets=1000)
    cfg = {"cc": "cubic", "packet_bytes": PACKET, "flows": flows, **config}
    return core.Simulation(cfg, [path])


def external(routes: int = 1) -> dict[str, Any]:
    return {"transport": "mpquic", "routes": [0] * routes, "cc": "external"}


def test_an_external_flow_sends_one_window_per_round_trip(core: Any) -> None:
    # The connection never starts; flows 1 and 2 hold 10 and 20 packets, 120 kB/s x 8 = far
    # below the 20 Mbit/s link, so neither queues: rate = W / RTT.
    w = 10 * PACKET
    with sim(core, [external(), external()], start_s=100.0) as s:
        assert s.n_flows == 3 and [s.flow_n_paths(f) for f in range(3)] == [1, 1, 1]
        s.set_flow_cwnd(1, [w])
        s.set_flow_cwnd(2, np.array([2.0 * w]))
        steps = [s.step(1.0) for _ in range(5)]
    rtt = 2 * DELAY_S + IP_PACKET_BITS / RATE_BPS
    delivered = np.mean([m["subflow_delivered_bytes"] for m in steps[2:]], axis=0)
    assert delivered[0] == 0  # the connection
    assert delivered[1] == pytest.approx(w / rtt, rel=0.03)
    assert delivered[2] == pytest.approx(2 * w / rtt, rel=0.03)
    last = steps[-1]
    np.testing.assert_array_equal(last["flow_cwnd_bytes"][1:], [w, 2 * w])
    np.testing.assert_array_equal(last["subflow_cwnd_bytes"][1:], [w, 2 * w])
    np.testing.assert_array_equal(last["subflow_flow"], [0, 1, 2])


def test_subflows_of_the_connection_repeat_its_paths(core: Any) -> None:
    flows = [
        {"transport": "mpquic", "routes": [0, 0], "cc": "cubic"},
        {"transport": "tcp", "routes": [0]},
    ]
    with sim(core, flows) as s:
        assert [s.flow_n_paths(f) for f in range(3)] == [1, 2, 0]
        for _ in range(3):
            m = s.step(0.5)
            np.testing.assert_array_equal(m["subflow_flow"], [0, 1, 1])
            for key in ("cwnd_bytes", "srtt_s", "delivered_bytes", "sent_packets", "lost_packets"):
                np.testing.assert_array_equal(m[f"subflow_{key}"][:1], m[key])
            # every transmission of an mpquic flow is counted where its source sends it
            assert m["flow_sent_packets"][0] == m["sent_packets"].sum()
            assert m["flow_sent_packets"][1] == m["subflow_sent_packets"][1:].sum()
            assert m["flow_lost_packets"][1] == m["subflow_lost_packets"][1:].sum()
            assert np.isnan(m["flow_lost_packets"][2])  # ns-3 TCP: not reported
            assert m["flow_sent_packets"][2] > 0


def test_a_flow_window_sets_every_subflow(core: Any) -> None:
    with sim(core, [external(routes=2)], start_s=100.0) as s:
        s.set_flow_cwnd(1, [4 * PACKET, 8 * PACKET])
        s.set_flow_pacing_rate(1, [0.0, 2e6])
        m = s.step(0.5)
    np.testing.assert_array_equal(m["subflow_cwnd_bytes"][1:], [4 * PACKET, 8 * PACKET])
    assert m["subflow_pacing_rate_bps"][1] == 0.0 and m["subflow_pacing_rate_bps"][2] == 2e6


@pytest.mark.parametrize(
    ("call", "flow", "values", "message"),
    [
        (
            "set_flow_cwnd",
            2,
            [PACKET],
            r"set_flow_cwnd: flow 2 \(flows\[1\]\) needs cc='external' \(it runs 'cubic'\)",
        ),
        ("set_flow_cwnd", 3, [PACKET], r"flow 3 \(flows\[2\]\) is not an mpquic flow"),
        ("set_flow_cwnd", 1, [PACKET, PACKET], r"flow 1 \(flows\[0\]\): expected 1 values"),
        ("set_flow_cwnd", 1, [np.nan], r"flow 1: cwnd\[0\] must be finite"),
        ("set_flow_cwnd", 1, [-1.0], r"flow 1: cwnd\[0\]"),
        ("set_flow_cwnd", 1, [2e15], r"flow 1: cwnd\[0\]"),
        ("set_flow_cwnd", 1, "wide", r"flow 1: must be a 1-D numeric array"),
        ("set_flow_cwnd", 4, [PACKET], r"set_flow_cwnd: flow: must be"),
        ("set_flow_cwnd", -1, [PACKET], r"set_flow_cwnd: flow: must be"),
        ("set_flow_cwnd", 0, [PACKET], r"flow 0 \(the connection\) needs cc='external'"),
        ("set_flow_pacing_rate", 1, [10.0], r"set_flow_pacing_rate: flow 1: rate\[0\]"),
        ("set_flow_pacing_rate", 2, [0.0], r"flow 2 \(flows\[1\]\) needs cc='external'"),
    ],
)
def test_bad_flow_actions_name_the_flow(
    core: Any, call: str, flow: int, values: Any, message: str
) -> None:
    flows = [
        external(),
        {"transport": "mpquic", "routes": [0], "cc": "cubic"},
        {"transport": "tcp", "routes": [0]},
    ]
    with sim(core, flows) as s:
        with pytest.raises(ValueError, match=message):
            getattr(s, call)(flow, values)
        assert s.step(0.1)["time_s"] == pytest.approx(0.1)  # still usable


def test_an_external_scheduler_stays_the_connections(core: Any) -> None:
    flow = {"transport": "mpquic", "routes": [0], "scheduler": "external"}
    with pytest.raises(ValueError, match=re.escape("flows[0].scheduler: 'external' is only for")):
        sim(core, [flow])
    with sim(core, [external()]) as s:  # the simulator is free again, and cc external is taken
        assert s.n_flows == 2


def test_a_closed_simulation_refuses_flow_actions(core: Any) -> None:
    s = sim(core, [external()])
    s.close()
    with pytest.raises(RuntimeError, match="closed"):
        s.set_flow_cwnd(1, [PACKET])
