"""PCC Vivace as an ns-3 TCP congestion control (``ns3::TcpPccVivace``, cpp/doc/vivace.md).

Reference values come from the paper (M. Dong et al., "PCC Vivace: Online-Learning Congestion
Control", NSDI 2018): the utility u = x^t - b x dRTT/dT - c x L with t = 0.9, b = 900,
c = 11.35 (x in Mbit/s), probing at r(1 +- 0.05), a change boundary starting at 5 % of the
rate; and from arithmetic: the gradient-ascent steps worked by hand, the link's capacity and
propagation delay, Jain's index. The end-to-end runs check the properties the paper claims for
the latency-aware utility: near-full links with almost no standing queue, tolerance of random
loss well below t x^(t-1) / c, and a fair share between competing Vivace senders.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from leo_paths import make_path

pytestmark = pytest.mark.native

T, B, C = 0.9, 900.0, 11.35  # the paper's utility constants
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
    path = make_path(
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


# --- the pure parts ----------------------------------------------------------------------


def test_defaults_are_the_papers_constants(testing: ModuleType) -> None:
    d = testing.vivace_defaults()
    assert d["name"] == "TcpPccVivace" and d["has_cong_control"]
    assert d["Exponent"] == T and d["LatencyCoefficient"] == B and d["LossCoefficient"] == C
    assert d["ProbeEpsilon"] == 0.05  # probing at r(1 + eps), r(1 - eps)
    assert d["InitialChangeBound"] == 0.05  # omega0
    assert d["StepScale"] == 1.0  # theta0: 1 Mbit/s per unit of utility gradient


@pytest.mark.parametrize(
    ("x", "g", "loss"),
    [(10.0, 0.0, 0.0), (20.0, 0.01, 0.0), (20.0, 0.0, 0.02), (50.0, 0.02, 0.01), (5.0, -0.03, 0.0)],
)
def test_utility_is_the_papers_formula(
    testing: ModuleType, x: float, g: float, loss: float
) -> None:
    want = x**T - B * x * g - C * x * loss
    got = testing.vivace_utility(x, g, loss, rtt_gradient_tolerance=0.0)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_utility_hand_values(testing: ModuleType) -> None:
    # 10^0.9 = 7.9432823; 100^0.9 - 11.35 * 100 * 0.05 = 63.0957344 - 56.75
    assert testing.vivace_utility(10.0, 0.0, 0.0) == pytest.approx(7.9432823, abs=1e-7)
    assert testing.vivace_utility(100.0, 0.0, 0.05) == pytest.approx(6.3457344, abs=1e-7)
    # A queue growing 1 ms per second at 10 Mbit/s costs 900 * 10 * 0.001 = 9.
    assert testing.vivace_utility(10.0, 0.001, 0.0) == pytest.approx(7.9432823 - 9.0, abs=1e-7)
    # A draining queue raises the utility; the noise filter zeroes small gradients.
    assert testing.vivace_utility(10.0, -0.02, 0.0) == pytest.approx(7.9432823 + 180.0, abs=1e-7)
    assert testing.vivace_utility(10.0, 0.005, 0.0, rtt_gradient_tolerance=0.01) == pytest.approx(
        7.9432823, abs=1e-7
    )


def test_loss_tolerance_is_five_percent_at_100_mbit(testing: ModuleType) -> None:
    # du/dx = t x^(t-1) - c L = 0: c = 11.35 puts the tolerance at 5 % for 100 Mbit/s.
    assert testing.vivace_loss_tolerance(100.0) == pytest.approx(0.0500, abs=2e-4)
    for x in (10.0, 20.0, 50.0):
        assert testing.vivace_loss_tolerance(x) == pytest.approx(T * x ** (T - 1) / C, rel=1e-12)
    assert testing.vivace_loss_tolerance(20.0) == pytest.approx(0.0588, abs=1e-4)


def test_rtt_gradient_is_the_least_squares_slope(testing: ModuleType) -> None:
    t = [0.0, 0.01, 0.02, 0.03, 0.04]
    assert testing.vivace_rtt_gradient(t, [0.040 + 0.25 * s for s in t]) == pytest.approx(0.25)
    # Symmetric noise around a line leaves its slope: points (0,0) (1,2) (2,1) (3,3).
    assert testing.vivace_rtt_gradient([0, 1, 2, 3], [0, 2, 1, 3]) == pytest.approx(0.8)
    assert testing.vivace_rtt_gradient([0.5], [0.04]) == 0.0
    assert testing.vivace_rtt_gradient([0.5, 0.5], [0.04, 0.05]) == 0.0
    with pytest.raises(ValueError, match="same length"):
        testing.vivace_rtt_gradient([0.0, 1.0], [0.04])


def test_gradient_steps_with_amplifier_and_change_boundary(testing: ModuleType) -> None:
    # theta0 = 1 Mbit/s, omega0 = 0.05, delta = 0.06, m(tau) = 1 + 0.5 (tau - 1); from 10 Mbit/s.
    steps = testing.vivace_rate_steps(10e6, [3, 3, 3, -3, 0.1, 0.5, 0.5, 0.0])
    want = [
        # rate (Mbit/s),  tau, m,  bounded, k, next omega
        (10.5, 1, 1.0, True, 1, 0.11),  # 3 Mbit/s cut to 5 % of 10
        (11.655, 2, 1.5, True, 2, 0.17),  # 4.5 cut to 11 % of 10.5
        (13.63635, 3, 2.0, True, 3, 0.23),  # 6 cut to 17 % of 11.655
        (12.9545325, 1, 1.0, True, 1, 0.11),  # new direction: -3 cut to 5 % of 13.63635
        (13.0545325, 1, 1.0, False, 0, 0.05),  # new direction: 0.1 fits in 5 %
        (13.707259125, 2, 1.5, True, 1, 0.11),  # 0.75 cut to 5 % of 13.0545325
        (14.707259125, 3, 2.0, False, 1, 0.11),  # 1.0 = 7.3 %: within 11 %, k = ceil(0.38) = 1
        (14.707259125, 3, 2.0, False, 1, 0.11),  # a zero gradient changes nothing
    ]
    assert len(steps) == len(want)
    for s, (rate, tau, m, bounded, k, omega) in zip(steps, want, strict=True):
        assert s["rate_bps"] == pytest.approx(rate * 1e6, rel=1e-12)
        assert (s["consecutive"], s["bounded"], s["boundary_steps"]) == (tau, bounded, k)
        assert s["amplifier"] == pytest.approx(m)
        assert s["next_change_bound"] == pytest.approx(omega)
    # Down by 5 %, 11 %, then 17 % would fall below the floor.
    low = testing.vivace_rate_steps(2e5, [-1e9, -1e9, -1e9], min_rate_bps=1.5e5)
    assert [s["rate_bps"] for s in low] == pytest.approx([1.9e5, 1.691e5, 1.5e5])
    high = testing.vivace_rate_steps(9.9e6, [1e9], max_rate_bps=1e7)
    assert high[0]["rate_bps"] == pytest.approx(1e7)


def test_bad_values_are_value_errors(testing: ModuleType) -> None:
    with pytest.raises(ValueError, match="exponent"):
        testing.vivace_utility(10.0, 0.0, 0.0, exponent=1.0)
    with pytest.raises(ValueError, match="loss_rate"):
        testing.vivace_utility(10.0, 0.0, 1.5)
    with pytest.raises(ValueError, match="rate_mbps"):
        testing.vivace_utility(-1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="omega0"):
        testing.vivace_rate_steps(1e7, [1.0], omega0=0.0)
    with pytest.raises(ValueError, match="amplifier_step"):
        testing.vivace_rate_steps(1e7, [1.0], amplifier_step=-1.0)
    with pytest.raises(ValueError, match="max_rate_bps"):
        testing.vivace_rate_steps(1e7, [1.0], min_rate_bps=2e7, max_rate_bps=1e7)
    with pytest.raises(ValueError, match="gradient"):
        testing.vivace_rate_steps(1e7, [math.nan])


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
            [make_path(2.0)],
            1.0,
            tcp_variant="TcpPccVivace",
            tcp_attributes={full: value},
        )
    # The process is still usable.
    r = testing.run_reference_flow("tcp_bulk", [make_path(2.0)], 1.0, tcp_variant="TcpPccVivace")
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
    hop = make_path(9.0, rate_bps=10e6, delay_s=0.01, queue_packets=30)
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
        path = make_path(
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
