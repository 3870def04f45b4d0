"""DualPI2, the DualQ Coupled AQM of RFC 9332, and ns-3 TCP flows with ECN.

References from outside the code:

* RFC 9332 Appendix A.1: the PI2 update p' += alpha (q - target) + beta (q - q_prev) every
  Tupdate from the classic head's sojourn time, p' clamped at 0 (and, Appendix A.2, at
  p_Cmax = 1/k^2 for p_C = p'^2); defaults target 15 ms, Tupdate 16 ms, alpha 0.16 Hz,
  beta 3.2 Hz (Linux sch_dualpi2), k = 2.
* RFC 9331 section 5.1 / RFC 9332 section 2.3: ECT(1) and CE go to the L queue, Not-ECT and
  ECT(0) to the classic queue.
* RFC 9332's aim (section 1, Appendix A.1): an L4S (scalable, ECT(1)) flow sees queueing of
  about a millisecond (the native AQM marks from 0.8 ms) while the classic flow's queueing is
  controlled towards the 15 ms target.
* The coupling law (RFC 9332 section 2.1 and Appendix C): a Reno flow's window is
  W_C = 1.22 / sqrt(p_C), a DCTCP (scalable) flow's W_L = 2 / p_L; with p_C = (p_L / k)^2,
  W_L / W_C = 2 / (1.22 k) = 0.82 for k = 2, so the rates stand in the ratio
  r_L / r_C = 0.82 RTT_C / RTT_L (each RTT the base RTT plus the flow's queueing delay).
* RFC 3168: an ECN-capable TCP flow behind an ECN-marking AQM is marked, not dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

STEP_S = 0.5
# RFC 9332 Appendix A.1 defaults.
TARGET_S, TUPDATE_S, ALPHA, BETA, K = 0.015, 0.016, 0.16, 3.2, 2.0


def dualpi2(**kw: Any) -> dict[str, Any]:
    return {"discipline": "dualpi2", "ecn": True, **kw}


def tcp(cc: str, ecn: bool) -> dict[str, Any]:
    # Linux's 200 ms RTO floor and 40 ms delayed-ACK timer, as the L4S testbeds run.
    return {
        "transport": "tcp",
        "routes": [0],
        "cc": cc,
        "ecn": ecn,
        "min_rto_s": 0.2,
        "delayed_ack_s": 0.04,
    }


def run(
    core: Any,
    queue: dict[str, Any],
    flows: list[dict[str, Any]],
    rate_bps: float,
    one_way_s: float,
    duration_s: float,
) -> list[dict[str, Any]]:
    path = synthetic_path(duration_s + 1.0, rate_bps=rate_bps, delay_s=one_way_s, queue_packets=500)
    path["queue"] = queue
    cfg = {"cc": "cubic", "packet_bytes": 1400, "start_s": 1e6, "flows": flows}
    with core.Simulation(cfg, [path], None) as sim:
        return [sim.step(STEP_S) for _ in range(int(round(duration_s / STEP_S)))]


def tail(out: list[dict[str, Any]], after_s: float) -> list[dict[str, Any]]:
    return out[int(round(after_s / STEP_S)) :]


def mean_queue_delay_s(rows: list[dict[str, Any]]) -> np.ndarray:
    """Per flow (index 0 = first of traffic.flows), the mean per-step queueing delay."""
    return np.mean([m["flow_queue_delay_s"][1:] for m in rows], axis=0)


def goodput_bps(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.sum([m["flow_goodput_bytes"][1:] for m in rows], axis=0) * 8 / (len(rows) * STEP_S)


# ---- (c) the controller's arithmetic ---------------------------------------------------------


def expected_base_probability(
    updates: int, arrival_s: float, target_s: float, tupdate_s: float, alpha: float, beta: float
) -> list[float]:
    """RFC 9332 A.1 for one classic packet that arrives at ``arrival_s`` and stays: at update
    n (t = n Tupdate) the head's sojourn is max(0, t - arrival_s)."""
    p, prev, out = 0.0, 0.0, []
    for n in range(1, updates + 1):
        q = max(0.0, n * tupdate_s - arrival_s)
        p = min(max(p + alpha * (q - target_s) + beta * (q - prev), 0.0), 1.0 / K)
        prev = q
        out.append(p)
    return out


@pytest.mark.parametrize(
    "params",
    [
        {},  # the defaults
        {"target_ms": 5.0, "t_update_ms": 10.0, "alpha": 0.3, "beta": 1.0},
    ],
)
def test_pi2_update_follows_alpha_and_beta(testing: Any, params: dict[str, Any]) -> None:
    target = params.get("target_ms", TARGET_S * 1e3) / 1e3
    tupdate = params.get("t_update_ms", TUPDATE_S * 1e3) / 1e3
    alpha, beta = params.get("alpha", ALPHA), params.get("beta", BETA)
    n, arrival = 12, 0.024
    # Read p' 1 us after each update.
    samples = [i * tupdate + 1e-6 for i in range(1, n + 1)]
    r = testing.drive_dualpi2(
        dualpi2(**params), 100, [arrival], [0], [], samples, n * tupdate + 0.002
    )
    want = expected_base_probability(n, arrival, target, tupdate, alpha, beta)
    assert r["base_probability"] == pytest.approx(want, abs=1e-9)
    assert max(want) > 0.0  # the ramp does drive p' up
    assert r["c_packets"] == 1 and r["l_packets"] == 0


def test_base_probability_stops_at_one_over_k(testing: Any) -> None:
    # A packet that waits 2 s drives p' to its overload cap 1/k (p_C = 1/k^2, p_CL = 1).
    for k in (2.0, 4.0):
        r = testing.drive_dualpi2(dualpi2(k=k), 10, [0.0], [0], [], [1.9, 2.0], 2.01)
        assert r["base_probability"] == pytest.approx([1.0 / k, 1.0 / k], abs=1e-12)


# ---- (d) classification ----------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["ipv4", "shim"])
def test_ect1_and_ce_go_to_the_l_queue(testing: Any, protocol: str) -> None:
    # Not-ECT, ECT(1), ECT(0), CE: two of each queue.
    r = testing.drive_dualpi2(
        dualpi2(), 100, [0.001] * 4, [0, 1, 2, 3], [], [], 0.002, protocol=protocol
    )
    assert (r["l_packets"], r["c_packets"]) == (2, 2)
    for cps, l_q in (([1, 1, 3], 3), ([0, 2, 2, 0, 2], 0)):
        r = testing.drive_dualpi2(
            dualpi2(), 100, [0.001] * len(cps), cps, [], [], 0.002, protocol=protocol
        )
        assert (r["l_packets"], r["c_packets"]) == (l_q, len(cps) - l_q)


def test_the_l_queue_goes_first_until_the_time_shift(testing: Any) -> None:
    # C packets at t = 0, L packets at t = 10 ms, a dequeue at 20 ms: the C head has waited
    # 10 ms longer than the L head, within the default 40 ms shift, so L goes first; with a
    # 5 ms shift the C head goes first (RFC 9332 section 4.2.2's time-shifted FIFO).
    arrivals = [0.0, 0.0, 0.01, 0.01]
    cps = [0, 0, 1, 1]
    r = testing.drive_dualpi2(dualpi2(), 100, arrivals, cps, [0.02, 0.021], [], 0.03)
    assert r["dequeued_codepoints"][0] in (1, 3)  # L (ECT(1), or CE if marked)
    r = testing.drive_dualpi2(
        dualpi2(time_shift_ms=5.0), 100, arrivals, cps, [0.02, 0.021], [], 0.03
    )
    assert r["dequeued_codepoints"][0] in (0,)  # the C head waited 10 ms > 5 ms longer


def test_limit_is_shared_and_counted_as_overflow(testing: Any) -> None:
    r = testing.drive_dualpi2(dualpi2(), 5, [0.001] * 8, [0, 1] * 4, [], [], 0.002)
    assert r["l_packets"] + r["c_packets"] == 5
    assert r["drops_overflow"] == 3 and r["drops_aqm"] == 0


# ---- (a), (b): L4S beside classic TCP ----------------------------------------------------------

RATE_BPS = 20e6
ONE_WAY_S = 0.02  # 40 ms base RTT


@pytest.fixture(scope="module")
def l4s_beside_reno(core: Any) -> list[dict[str, Any]]:
    flows = [tcp("TcpDctcp", True), tcp("TcpNewReno", False)]
    return run(core, dualpi2(), flows, RATE_BPS, ONE_WAY_S, 60.0)


def test_l4s_flow_sees_sub_millisecond_queueing(l4s_beside_reno: list[dict[str, Any]]) -> None:
    rows = tail(l4s_beside_reno, 10.0)
    delay_l, delay_c = mean_queue_delay_s(rows)
    # The L4S flow waits about a millisecond at most (the native ramp marks from 0.8 ms; a
    # full-size classic packet in serialization takes 0.6 ms at 20 Mbit/s).
    assert delay_l < 1e-3, delay_l
    # The classic flow's queueing sits near the PI2 target (15 ms): below it on average (p'
    # rests at 0 while Reno's sawtooth drains the queue), and far from a FIFO's.
    assert 0.3 * TARGET_S <= delay_c <= 1.5 * TARGET_S, delay_c
    assert delay_c > 5 * delay_l
    # L4S packets are marked, never dropped (no overload here); classic ones are dropped.
    assert sum(m["link_mark_packets"][0, 0] for m in rows) > 0
    assert sum(m["link_drops_overflow"][0, 0] for m in rows) == 0
    utilisation = float(np.mean([m["link_utilization"][0, 0] for m in rows]))
    assert utilisation > 0.85


def test_coupling_balances_the_rates(core: Any, l4s_beside_reno: list[dict[str, Any]]) -> None:
    rows = tail(l4s_beside_reno, 10.0)
    r_l, r_c = goodput_bps(rows)
    rtt_l, rtt_c = 2 * ONE_WAY_S + mean_queue_delay_s(rows)
    predicted = 2.0 / (1.22 * K) * rtt_c / rtt_l
    # Measured 1.49 against 1.00 (seed 1). The RFC's formulas are steady-state fluid models:
    # p' swings with Reno's sawtooth (E[p'^2] > E[p']^2, so Reno sees more than (p_CL/k)^2),
    # the native ramp adds marks the coupling does not count, and ns-3's DCTCP halves its
    # alpha-weighted reduction per window. A factor 2 either way still fails an uncoupled
    # queue: a single PIE queue gives DCTCP W = 2/p against Reno's 1.22/sqrt(p).
    assert predicted / 2 <= r_l / r_c <= predicted * 2, (r_l / r_c, predicted)
    # A larger k signals the L4S flow harder: its share falls.
    flows = [tcp("TcpDctcp", True), tcp("TcpNewReno", False)]
    strong = tail(run(core, dualpi2(k=8.0), flows, RATE_BPS, ONE_WAY_S, 60.0), 10.0)
    r_l8, r_c8 = goodput_bps(strong)
    assert r_l8 / r_c8 < r_l / r_c


def test_classic_ecn_flow_is_marked_not_dropped(core: Any) -> None:
    # queue.ecn on: a classic ECN flow (NewReno, ECT(0)) is marked with p_C; L4S beside it.
    flows = [tcp("TcpDctcp", True), tcp("TcpNewReno", True)]
    rows = tail(run(core, dualpi2(), flows, RATE_BPS, ONE_WAY_S, 20.0), 5.0)
    assert sum(m["link_drops_aqm"][0, 0] for m in rows) == 0
    assert sum(m["link_drops_overflow"][0, 0] for m in rows) == 0
    assert sum(m["link_mark_packets"][0, 0] for m in rows) > 0
    delay_l, delay_c = mean_queue_delay_s(rows)
    assert delay_l < 1e-3 < delay_c


# ---- ns-3 TCP flows with ECN -------------------------------------------------------------------


def test_tcp_flow_ecn_negotiates_ecn(core: Any) -> None:
    # RFC 3168 behind CoDel with ECN (RFC 8289 section 5.4): an ECN flow is marked where a
    # flow without ECN is dropped.
    def one(ecn: bool) -> list[dict[str, Any]]:
        q = {"discipline": "codel", "ecn": True}
        return run(core, q, [tcp("TcpNewReno", ecn)], 10e6, 0.02, 6.0)

    with_ecn, without = one(True), one(False)
    assert sum(m["link_mark_packets"][0, 0] for m in with_ecn) > 0
    assert sum(m["link_drops_aqm"][0, 0] for m in with_ecn) == 0
    assert sum(m["link_mark_packets"][0, 0] for m in without) == 0
    assert sum(m["link_drops_aqm"][0, 0] for m in without) > 0


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        (dualpi2(k=0.5), r"paths\[0\]\.queue\.k"),
        (dualpi2(alpha=-1.0), r"paths\[0\]\.queue\.alpha"),
        (dualpi2(beta=0.0), r"paths\[0\]\.queue\.beta"),
        (dualpi2(t_update_ms=0.0), r"paths\[0\]\.queue\.t_update_ms"),
        (dualpi2(target_ms=-1.0), r"paths\[0\]\.queue\.target_ms"),
        (dualpi2(l4s_min_th_ms=11.0), r"paths\[0\]\.queue\.l4s_min_th_ms"),
        (dualpi2(l4s_range_ms=-0.1), r"paths\[0\]\.queue\.l4s_range_ms"),
        (dualpi2(time_shift_ms=-1.0), r"paths\[0\]\.queue\.time_shift_ms"),
    ],
)
def test_bad_dualpi2_dicts_name_the_field(core: Any, queue: dict[str, Any], field: str) -> None:
    path = synthetic_path(2.0)
    path["queue"] = queue
    with pytest.raises(ValueError, match=field):
        core.Simulation({"cc": "cubic"}, [path], None)


@pytest.mark.parametrize("transport", ["udp_onoff"])
def test_flow_ecn_is_refused_where_it_cannot_apply(core: Any, transport: str) -> None:
    flow = {"transport": transport, "routes": [0], "rate_bps": 1e5, "ecn": True}
    with pytest.raises(ValueError, match=r"flows\[0\]\.ecn"):
        core.Simulation({"cc": "cubic", "flows": [flow]}, [synthetic_path(2.0)], None)


# ---- the scenario section ----------------------------------------------------------------------


def _tiny() -> dict[str, Any]:
    import importlib.resources as res

    from omegaconf import OmegaConf

    path = res.files("leogym.conf").joinpath("scenario", "tiny.yaml")
    return OmegaConf.to_container(OmegaConf.load(str(path)))  # type: ignore[return-value]


def test_scenario_defaults_are_rfc_9332s() -> None:
    from leogym.scenario import QueueConfig

    d = QueueConfig(discipline="dualpi2").native()
    assert (d["target_ms"], d["t_update_ms"], d["alpha"], d["beta"]) == (15.0, 16.0, 0.16, 3.2)
    assert (d["k"], d["l4s_min_th_ms"], d["l4s_range_ms"]) == (2.0, 0.8, 0.4)
    # PIE keeps RFC 8033's.
    pie = QueueConfig(discipline="pie").native()
    assert (pie["t_update_ms"], pie["alpha"], pie["beta"]) == (15.0, 0.125, 1.25)


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        ({"discipline": "dualpi2", "k": 0.5}, r"paths\[0\]\.queue\.k"),
        ({"discipline": "dualpi2", "l4s_range_ms": 20.0}, r"paths\[0\]\.queue\.l4s_range_ms"),
        ({"discipline": "dualpi2", "alpha": 0.0}, r"paths\[0\]\.queue\.alpha"),
    ],
)
def test_scenario_errors_name_the_field(queue: dict[str, Any], field: str) -> None:
    from leogym.scenario import load_scenario

    d = _tiny()
    d["paths"][0].setdefault("queue", {}).update(queue)
    with pytest.raises(ValueError, match=field):
        load_scenario(d)


def test_scenario_flow_ecn() -> None:
    from leogym.scenario import load_scenario
    from leogym.simulation.native_config import native_flows

    d = _tiny()
    name = d["paths"][0].get("name") or "path0"
    d.setdefault("traffic", {})["flows"] = [
        {"transport": "tcp", "cc": "TcpDctcp", "routes": [name], "ecn": True}
    ]
    assert native_flows(load_scenario(d))[0]["ecn"] is True
    d["traffic"]["flows"][0] = {"transport": "udp_onoff", "routes": [name], "ecn": True}
    with pytest.raises(ValueError, match=r"traffic\.flows\[0\]\.ecn"):
        load_scenario(d)
