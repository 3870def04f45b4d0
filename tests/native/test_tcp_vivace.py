"""PCC Vivace as an ns-3 TCP congestion control (``ns3::TcpPccVivace``, cpp/doc/vivace.md).

The pure parts (the utility u = x^t - b x dRTT/dT - c x L of the paper, M. Dong et al., "PCC
Vivace: Online-Learning Congestion Control", NSDI 2018; the RTT gradient; the gradient-ascent
steps; the attribute defaults) are tested in C++ beside them, cpp/model/tcp/test/. Here: the
attribute checks before a run, and end-to-end runs with reference values from arithmetic (the
link's capacity and propagation delay, Jain's index) that check the properties the paper claims
for the latency-aware utility: near-full links with almost no standing queue, tolerance of
random loss well below t x^(t-1) / c, and a fair share between competing Vivace senders.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

ONE_WAY_S = 0.02  # 40 ms base RTT in the end-to-end runs
STEP_S = 0.5


def bdp_packets(rate_bps: float) -> int:
    return int(round(rate_bps * 2 * ONE_WAY_S / 8 / 1500))


def run_flows(
    core: Any,
    rate_bps: float,
    duration_s: float,
    flows: list[dict[str, Any]],
    loss: float = 0.0,
    seed: int = 1,
    network: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """ns-3 TCP flows (traffic.flows) on one constant link with a BDP drop-tail queue; the
    connection under study never starts."""
    path = synthetic_path(
        duration_s + 1.0,
        rate_bps=rate_bps,
        delay_s=ONE_WAY_S,
        loss=loss,
        loss_up=0.0,
        queue_packets=bdp_packets(rate_bps),
    )
    cfg = {"cc": "cubic", "packet_bytes": 1400, "seed": seed, "start_s": 1e6, "flows": flows}
    with core.Simulation(cfg, [path], network) as sim:
        return [sim.step(STEP_S) for _ in range(int(round(duration_s / STEP_S)))]


def tcp(cc: str = "TcpPccVivace", **kw: Any) -> dict[str, Any]:
    return {"transport": "tcp", "routes": [0], "cc": cc, **kw}


# --- attributes, checked before the run --------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Exponent", 1.5),
        ("Exponent", 0.0),
        ("LatencyCoefficient", -1.0),
        ("LossCoefficient", -0.5),
        ("ProbeEpsilon", 0.9),
        ("MinIntervalPackets", 0),
        ("ProbePairs", 17),
        ("MonitorIntervalRtts", 0.0),
    ],
)
def test_bad_attributes_are_refused_before_the_run(
    testing: ModuleType, key: str, value: float
) -> None:
    full = f"ns3::TcpPccVivace::{key}"
    with pytest.raises(ValueError, match=rf"tcp_attributes\['{full}'\].*out of range"):
        testing.run_reference_flow(
            "tcp_bulk",
            [synthetic_path(2.0)],
            1.0,
            tcp_variant="TcpPccVivace",
            tcp_attributes={full: value},
        )
    # The process is still usable.
    r = testing.run_reference_flow(
        "tcp_bulk", [synthetic_path(2.0)], 1.0, tcp_variant="TcpPccVivace"
    )
    assert r["goodput_bps"] > 0


# --- as an ns-3 TCP in the core ------------------------------------------------------------


@pytest.mark.parametrize("name", ["TcpPccVivace", "PccVivace", "ns3::TcpPccVivace"])
def test_flows_name_it_like_any_ns3_tcp(core: Any, name: str) -> None:
    out = run_flows(core, 10e6, 2.0, [tcp(name)])
    assert sum(int(m["flow_goodput_bytes"][1]) for m in out) > 0.5 * 10e6 * 1.0 / 8


def test_unknown_names_list_it(core: Any) -> None:
    with pytest.raises(ValueError, match=r"flows\[0\]\.cc: .*TcpPccVivace"):
        run_flows(core, 10e6, 1.0, [tcp("TcpPccVivaceX")])


def test_it_runs_over_a_hop_network(core: Any) -> None:
    # server -> router -> client, two 10 Mbit/s hops of 10 ms, each with its own queue.
    hop = synthetic_path(9.0, rate_bps=10e6, delay_s=0.01, queue_packets=30)
    network = {
        "nodes": ["server", "r", "client"],
        "links": [{**hop, "a": 0, "b": 1}, {**hop, "a": 1, "b": 2}],
        "routes": [
            {
                "times_s": np.array([0.0]),
                "nodes": np.array([0, 1, 2], dtype=np.int64),
                "offsets": np.array([0, 3], dtype=np.int64),
            }
        ],
        "path_routes": [0],
    }
    out = run_flows(core, 10e6, 8.0, [tcp()], network=network)[10:]  # 5..8 s
    util = np.mean([m["link_utilization"][:, 0] for m in out], axis=0)
    assert np.all(util >= 0.85)
    # Store and forward: two propagation delays and two serialisations of a 1500-byte packet.
    owd_min = 2 * (0.01 + 1500 * 8 / 10e6)
    assert all(m["flow_owd_mean_s"][1] >= owd_min - 1e-9 for m in out)
    assert np.mean([m["flow_queue_delay_s"][1] for m in out]) <= 0.002


@pytest.mark.parametrize("rate_bps", [10e6, 50e6])
def test_fills_the_link_with_almost_no_standing_queue(core: Any, rate_bps: float) -> None:
    """The latency term keeps the queue near empty while the rate sits at the capacity: the
    pair at r(1 +- eps) straddles it, and any queue growth (dRTT/dT > 0) costs 900 x dRTT/dT.
    """
    out = run_flows(core, rate_bps, 15.0, [tcp()])[10:]  # after the start-up: 5..15 s
    util = float(np.mean([m["link_utilization"][0, 0] for m in out]))
    queue_s = float(np.mean([m["flow_queue_delay_s"][1] for m in out]))
    owd_s = float(np.mean([m["flow_owd_mean_s"][1] for m in out]))
    serialisation_s = 1500 * 8 / rate_bps
    assert util >= 0.90
    assert queue_s <= 0.05 * 2 * ONE_WAY_S  # <= 2 ms of the 40 ms base RTT
    assert owd_s <= ONE_WAY_S + serialisation_s + 0.002


def test_queue_is_far_below_a_loss_based_senders(core: Any) -> None:
    vivace = run_flows(core, 20e6, 10.0, [tcp()])[10:]
    cubic = run_flows(core, 20e6, 10.0, [tcp("TcpCubic")])[10:]
    q_vivace = np.mean([m["flow_queue_delay_s"][1] for m in vivace])
    q_cubic = np.mean([m["flow_queue_delay_s"][1] for m in cubic])
    assert q_vivace < 0.1 * q_cubic


def test_keeps_most_of_its_throughput_under_one_percent_random_loss(testing: ModuleType) -> None:
    """c = 11.35 tolerates random loss up to t x^(t-1) / c = 5.9 % at 20 Mbit/s, so 1 % leaves
    the utility gradient positive up to the capacity: Vivace keeps at least 3/4 of its
    lossless goodput (the rest: the loss itself and the noise of ~1 lost packet per monitor
    interval), where loss-based CUBIC collapses. MinRto 200 ms as in Linux: ns-3's default
    1 s floor, with no RACK to recover lost retransmissions, would measure the TCP stack.
    """
    rate = 20e6

    def goodput(variant: str, loss: float) -> float:
        path = synthetic_path(
            21.0, rate_bps=rate, delay_s=ONE_WAY_S, loss=loss, loss_up=0.0, queue_packets=67
        )
        r = testing.run_reference_flow(
            "tcp_bulk",
            [path],
            20.0,
            tcp_variant=variant,
            tcp_attributes={"ns3::TcpSocketBase::MinRto": 0.2},
        )
        return float(r["goodput_bps"])

    lossless = goodput("TcpPccVivace", 0.0)
    lossy = goodput("TcpPccVivace", 0.01)
    assert lossless > 0.85 * rate
    assert lossy >= 0.75 * lossless
    assert lossy >= 3.0 * goodput("TcpCubic", 0.01)


def test_two_flows_converge_to_a_fair_share(core: Any) -> None:
    rate = 20e6
    out = run_flows(core, rate, 20.0, [tcp(), tcp(start_s=2.0)])[16:]  # 8..20 s
    a = sum(int(m["flow_goodput_bytes"][1]) for m in out)
    b = sum(int(m["flow_goodput_bytes"][2]) for m in out)
    jain = (a + b) ** 2 / (2 * (a * a + b * b))
    assert jain >= 0.9
    assert (a + b) * 8 / (len(out) * STEP_S) >= 0.7 * rate


def test_same_seed_same_result(core: Any) -> None:
    def once() -> list[dict[str, Any]]:
        return run_flows(core, 20e6, 4.0, [tcp(), tcp(start_s=0.5)], loss=0.01, seed=7)

    first, second = once(), once()
    for m1, m2 in zip(first, second, strict=True):
        for key in ("flow_goodput_bytes", "flow_owd_mean_s", "flow_cwnd_bytes", "link_tx_bytes"):
            np.testing.assert_array_equal(m1[key], m2[key])
