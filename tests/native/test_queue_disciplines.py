"""Queue disciplines on the link (ns-3's traffic-control AQMs driven by LeoNetDevice).

References from outside the code: CoDel's TARGET of 5 ms (RFC 8289 section 4.4), PIE's
QDELAY_REF of 15 ms (RFC 8033 section 5.1), FQ-CoDel's flow isolation (RFC 8290 section 1.3:
a sparse flow's packets go ahead of a bulk flow's queue), RED's marking probability
(Floyd & Jacobson 1993, Figure 2: p_b = max_p (avg - min_th) / (max_th - min_th) and
p_a = p_b / (1 - count p_b), count incremented before p_a is computed and reset to 0 by a
drop; the gap between drops is then uniform on {1, ..., 1/p_b - 1}, mean 1 / (2 p_b), so a
held average drops a fraction 2 p_b of the arrivals), and the link's arithmetic (a drop-tail
queue of 4 BDP holds up to 4 RTTs of delay).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

RATE_BPS = 10e6
ONE_WAY_S = 0.02  # 40 ms base RTT
STEP_S = 0.5
BDP_PACKETS = int(round(RATE_BPS * 2 * ONE_WAY_S / 8 / 1500))  # 33
LIMIT = 4 * BDP_PACKETS  # up to 160 ms of queue: what an AQM must keep empty


def run(
    core: Any,
    queue: dict[str, Any] | None,
    flows: list[dict[str, Any]],
    duration_s: float = 8.0,
) -> list[dict[str, Any]]:
    """ns-3 flows (traffic.flows) over one constant 10 Mbit/s, 40 ms link with the queue."""
    path = synthetic_path(
        duration_s + 1.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT
    )
    if queue is not None:
        path["queue"] = queue
    cfg = {"cc": "cubic", "packet_bytes": 1400, "start_s": 1e6, "flows": flows}
    with core.Simulation(cfg, [path], None) as sim:
        return [sim.step(STEP_S) for _ in range(int(round(duration_s / STEP_S)))]


def bulk() -> dict[str, Any]:
    return {"transport": "tcp", "routes": [0], "cc": "TcpNewReno"}


def sparse() -> dict[str, Any]:
    # 100 kbit/s of 1400-byte datagrams: one packet every 112 ms, far below its fair share.
    return {"transport": "udp_onoff", "routes": [0], "rate_bps": 1e5, "on_s": 1e6, "off_s": 0.0}


def queue_delay(out: list[dict[str, Any]], flow: int, after_s: float = 3.0) -> float:
    """Mean per-step queueing delay of ``flow`` (index 1 = first of traffic.flows)."""
    rows = out[int(round(after_s / STEP_S)) :]
    return float(np.mean([m["flow_queue_delay_s"][flow] for m in rows]))


def utilisation(out: list[dict[str, Any]], after_s: float = 3.0) -> float:
    rows = out[int(round(after_s / STEP_S)) :]
    return float(np.mean([m["link_utilization"][0, 0] for m in rows]))


@pytest.fixture(scope="module")
def droptail(core: Any) -> list[dict[str, Any]]:
    return run(core, None, [bulk()])


def test_droptail_builds_a_standing_queue(droptail: list[dict[str, Any]]) -> None:
    # NewReno fills the 4-BDP buffer: its queueing delay is tens of ms (a full queue is
    # LIMIT x 1.2 ms = 160 ms), far above the AQM targets.
    assert queue_delay(droptail, 1) > 0.05


def test_codel_keeps_sojourn_near_its_target(core: Any, droptail: list[dict[str, Any]]) -> None:
    out = run(core, {"discipline": "codel"}, [bulk()])
    delay = queue_delay(out, 1)
    assert 0.2 * 0.005 <= delay <= 2 * 0.005, delay
    assert delay < queue_delay(droptail, 1) / 5
    assert utilisation(out) > 0.8  # the link stays busy
    c = sum(int(m["link_drops_overflow"][0, 0]) for m in out)
    assert c == 0  # CoDel's own drops, never its limit


def test_codel_target_is_a_parameter(core: Any) -> None:
    tight = queue_delay(run(core, {"discipline": "codel", "target_ms": 2.0}, [bulk()]), 1)
    loose = queue_delay(run(core, {"discipline": "codel", "target_ms": 20.0}, [bulk()]), 1)
    assert tight < loose


def test_pie_keeps_queue_delay_near_its_reference(
    core: Any, droptail: list[dict[str, Any]]
) -> None:
    out = run(core, {"discipline": "pie"}, [bulk()], duration_s=10.0)
    delay = queue_delay(out, 1, after_s=4.0)
    assert 0.3 * 0.015 <= delay <= 2 * 0.015, delay
    assert delay < queue_delay(droptail, 1) / 2
    assert utilisation(out, after_s=4.0) > 0.8


@pytest.mark.parametrize(("discipline", "bound_s"), [("fq_codel", 1500 * 8 / RATE_BPS)])
def test_fq_codel_isolates_a_sparse_flow(core: Any, discipline: str, bound_s: float) -> None:
    flows = [bulk(), sparse()]
    fq = run(core, {"discipline": discipline}, flows)
    fifo = run(core, None, flows)
    codel = run(core, {"discipline": "codel"}, flows)
    # The sparse flow's packets wait at most for the packet in serialization (1.2 ms at
    # 10 Mbit/s); behind a FIFO they wait for the bulk flow's whole queue.
    assert queue_delay(fq, 2) <= bound_s
    assert queue_delay(fifo, 2) > 20 * bound_s
    assert queue_delay(codel, 2) > queue_delay(fq, 2)
    assert utilisation(fq) > 0.8


def red(**kw: Any) -> dict[str, Any]:
    return {"discipline": "red", "weight": 1.0, "gentle": False, **kw}


@pytest.mark.parametrize("standing", [20, 30, 35, 40, 50, 60, 69, 70])
def test_red_drop_probability_follows_floyd_jacobson(testing: Any, standing: int) -> None:
    # weight 1: the average is the queue each arrival sees, held at `standing`.
    limit, min_th, max_th, max_p = 100, 0.3, 0.7, 0.1
    n = 200_000
    r = testing.drive_queue_disc(red(min_th=min_th, max_th=max_th, max_p=max_p), limit, standing, n)
    assert r["drops_overflow"] == 0
    p_b = max_p * (standing - min_th * limit) / ((max_th - min_th) * limit)
    frac = r["drops_aqm"] / n
    if standing < min_th * limit:
        assert frac == 0
    elif standing >= max_th * limit:
        assert frac == 1.0  # non-gentle RED drops every arrival above max_th
    elif p_b == 0:
        assert frac < 1e-3
    else:
        # 200k arrivals, about 2 p_b n drops spaced almost regularly: well within 4 %.
        assert frac == pytest.approx(2 * p_b, rel=0.04), (frac, p_b)


def test_red_drop_fraction_rises_between_thresholds(testing: Any) -> None:
    fracs = [
        testing.drive_queue_disc(red(), 100, s, 50_000)["drops_aqm"] / 50_000
        for s in (10, 25, 35, 45, 55)
    ]
    assert fracs[0] == 0  # below min_th (20 packets)
    assert all(a < b for a, b in zip(fracs[1:], fracs[2:], strict=False))


@pytest.mark.parametrize("discipline", ["droptail", "red", "codel", "fq_codel", "pie"])
def test_drops_are_counted_by_cause(testing: Any, discipline: str) -> None:
    # ns-3 TCP bulk into a 4-BDP queue: drop-tail only overflows; the AQMs drop by their own
    # rule first (CoDel, FQ-CoDel and PIE never overflow under a single TCP flow).
    path = synthetic_path(6.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT)
    path["queue"] = {"discipline": discipline}
    r = testing.run_reference_flow("tcp_bulk", [path], 5.0, tcp_variant="ns3::TcpNewReno")
    c = r["paths"][0]["down"]
    if discipline == "droptail":
        assert c["drops_aqm"] == 0 and c["drops_overflow"] > 0
    elif discipline == "red":
        # w_q = 0.002 averages over ~500 arrivals, so slow start can still fill the queue
        # before the average crosses min_th (Floyd & Jacobson section 6): both causes occur.
        assert c["drops_aqm"] > 0
    else:
        assert c["drops_aqm"] > 0 and c["drops_overflow"] == 0
    assert c["mark_packets"] == 0  # no ECN
    # What started serialization was delivered (a lossless link) or is still in flight.
    assert 0 <= c["tx_packets"] - c["rx_packets"] <= BDP_PACKETS


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        ({"discipline": "blue"}, r"paths\[0\]\.queue\.discipline"),
        ({"discipline": "codel", "target_ms": -1.0}, r"paths\[0\]\.queue\.target_ms"),
        ({"discipline": "codel", "target_ms": 200.0}, r"paths\[0\]\.queue\.target_ms"),
        ({"discipline": "pie", "alpha": 0.0}, r"paths\[0\]\.queue\.alpha"),
        ({"discipline": "red", "min_th": 0.5, "max_th": 0.4}, r"paths\[0\]\.queue\.max_th"),
        ({"discipline": "fq_codel", "flows": 0}, r"paths\[0\]\.queue\.flows"),
        ({"discipline": "droptail", "ecn": True}, r"paths\[0\]\.queue\.ecn"),
        ({"discipline": "codel", "target": 5}, r"paths\[0\]\.queue\.target"),
    ],
)
def test_bad_queue_dicts_name_the_field(core: Any, queue: dict[str, Any], field: str) -> None:
    path = synthetic_path(2.0)
    path["queue"] = queue
    with pytest.raises(ValueError, match=field):
        core.Simulation({"cc": "cubic"}, [path], None)
    # The process is still usable.
    path["queue"] = {"discipline": "codel"}
    with core.Simulation({"cc": "cubic"}, [path], None) as sim:
        sim.step(0.1)


@pytest.mark.parametrize("discipline", ["codel", "fq_codel"])
def test_ecn_marks_replace_drops_for_ect_packets(testing: Any, discipline: str) -> None:
    # ns-3 TCP with ECN (RFC 3168: data segments ECT(0)) under CoDel with queue.ecn: CoDel
    # marks where it would drop (RFC 8289 section 5.4), so the flow loses nothing; the same
    # flow without ECN is dropped, and ECN on the queue leaves Not-ECT packets to drops.
    def flow(ecn_queue: bool, ecn_tcp: str) -> tuple[dict[str, Any], dict[str, Any]]:
        path = synthetic_path(9.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT)
        path["queue"] = {"discipline": discipline, "ecn": ecn_queue}
        r = testing.run_reference_flow(
            "tcp_bulk",
            [path],
            8.0,
            tcp_variant="ns3::TcpNewReno",
            tcp_attributes={"ns3::TcpSocketBase::UseEcn": ecn_tcp},
        )
        return r, r["paths"][0]["down"]

    r_ecn, c_ecn = flow(True, "On")
    assert c_ecn["mark_packets"] > 0
    assert c_ecn["drops_aqm"] == 0 and c_ecn["drops_overflow"] == 0
    assert r_ecn["retransmissions"] == 0
    r_drop, c_drop = flow(False, "On")
    assert c_drop["mark_packets"] == 0 and c_drop["drops_aqm"] > 0
    assert r_ecn["goodput_bps"] == pytest.approx(r_drop["goodput_bps"], rel=0.05)
    _, c_not_ect = flow(True, "Off")
    assert c_not_ect["mark_packets"] == 0 and c_not_ect["drops_aqm"] > 0
