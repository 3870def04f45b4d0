"""ECN in leogym's transport (issue 21): ECT codepoints, ACK_ECN counts, validation, reaction.

References from outside the code: RFC 9000 §13.4.1 (the receiver counts ECT(0), ECT(1) and
CE per packet-number space), §13.4.2 and Appendix A.4 (validation: a testing period of 10
packets or 3 PTOs; validation fails on counts that decrease, on an increase of ECT(0) + CE below
the newly acknowledged ECT(0) packets, on counts of a codepoint never sent, on ECT packets
acknowledged without counts, and when every testing packet is lost), RFC 9002 §7.1 (a CE
increase is a congestion event, at most one reduction per round trip), RFC 9438 §4.6
(CUBIC's multiplicative decrease beta_cubic = 0.7), RFC 9002 §7.3.2 (NewReno's
kLossReductionFactor 0.5) and RFC 3168 (an AQM marks ECN-capable packets instead of dropping
them): the CE marks a CoDel queue counts must come back to the sender one for one, and
replace its drops.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native

RATE_BPS = 10e6
ONE_WAY_S = 0.02  # 40 ms base RTT
LIMIT = 132  # 4 BDP of 1500-byte packets
STEP_S = 0.5
CODEL_ECN = {"discipline": "codel", "ecn": True}

OFF, TESTING, UNKNOWN, CAPABLE, FAILED = range(5)  # ecn_state


def run(
    core: Any,
    *,
    ecn: bool,
    queue: dict[str, Any] | None,
    duration_s: float = 8.0,
    file_bytes: int = 0,
    cc: str = "cubic",
) -> list[dict[str, Any]]:
    """The connection (one path, 10 Mbit/s, 40 ms, 4-BDP queue) for ``duration_s``."""
    path = synthetic_path(
        duration_s + 1.0, rate_bps=RATE_BPS, delay_s=ONE_WAY_S, queue_packets=LIMIT
    )
    if queue is not None:
        path["queue"] = queue
    cfg: dict[str, Any] = {"cc": cc, "packet_bytes": 1400, "seed": 1}
    if ecn:
        cfg["ecn"] = True
    if file_bytes:
        cfg.update(workload="file", file_bytes=file_bytes)
    with core.Simulation(cfg, [path], None) as sim:
        return [sim.step(STEP_S) for _ in range(int(round(duration_s / STEP_S)))]


def total(out: list[dict[str, Any]], key: str) -> int:
    return int(sum(np.sum(m[key]) for m in out))


def goodput_mbps(out: list[dict[str, Any]], after_s: float = 2.0) -> float:
    rows = out[int(round(after_s / STEP_S)) :]
    return sum(float(m["goodput_bytes"]) for m in rows) * 8 / (STEP_S * len(rows)) / 1e6


# ---- (a) CE feedback equals the queue's marks, packet for packet -------------------------------


def test_ce_counts_fed_back_equal_the_marks_at_the_queue(core: Any) -> None:
    # A 4 MB file: the transfer completes and every ACK is in before the run ends.
    out = run(core, ecn=True, queue=CODEL_ECN, duration_s=6.0, file_bytes=4_000_000)
    assert bool(out[-1]["completed"])
    marks = int(sum(m["link_mark_packets"][0, 0] for m in out))  # the data (down) direction
    assert marks > 5  # CoDel had a standing queue to mark
    # RFC 9000 13.4.1: the receiver counts every CE packet once; the sender accepts the counts.
    assert total(out, "ce_packets") == marks
    assert int(out[-1]["ecn_state"][0]) == CAPABLE
    # Every data packet went ECN-capable once the path was capable (from the first ACK on).
    assert total(out, "ect_sent_packets") == total(out, "sent_packets")


# ---- (b) ECN end to end: marks replace drops, goodput unchanged --------------------------------


def test_ecn_replaces_codel_drops_at_the_same_goodput(core: Any) -> None:
    with_ecn = run(core, ecn=True, queue=CODEL_ECN)
    without = run(core, ecn=False, queue=CODEL_ECN)  # Not-ECT packets: CoDel drops them
    assert total(without, "drops_aqm") > 5 and total(without, "lost_packets") > 5
    # With ECN CoDel never drops (RFC 3168: it marks), so the only losses left are queue-limit
    # overflows, all in the first step: the initial slow start doubles its window per round
    # trip and fills the 132-packet queue before CoDel's first 100 ms interval has passed.
    assert total(with_ecn, "drops_aqm") == 0
    assert total(with_ecn, "lost_packets") == total(with_ecn, "drops_overflow")
    assert total(with_ecn[2:], "lost_packets") == 0
    assert total(with_ecn, "ce_packets") > 5
    a, b = goodput_mbps(with_ecn), goodput_mbps(without)
    assert abs(a - b) <= 0.05 * b, (a, b)


def test_ecn_off_sends_nothing_ecn_capable(core: Any) -> None:
    out = run(core, ecn=False, queue=CODEL_ECN, duration_s=2.0)
    assert total(out, "ect_sent_packets") == 0 and total(out, "ce_packets") == 0
    assert all(int(m["ecn_state"][0]) == OFF for m in out)


# ---- (c) RFC 9002 section 7.1: one reduction per round trip -----------------------------------


def _grown(testing: Any, cc: str) -> Any:
    """A controller past its first round trip: packets 0..19 sent at t = 0, acked at 0.1 s."""
    p = testing.CongestionProbe(cc, 1, {}, 1200)
    for pn in range(20):
        p.on_sent(0, pn, 0.0, 1200)
    p.rtt_sample(0, 0.1, 0.0, 0.1)
    p.on_ack(0, [(pn, 0.0, 1200) for pn in range(20)], 0.1, 0.1)
    return p


# One path: LIA and OLIA halve as NewReno (RFC 6356 keeps TCP's decrease), BALIA's decrease
# w (1 - min(alpha, 1.5) / 2) has alpha = 1 (Peng et al.), a halving too.
@pytest.mark.parametrize(
    ("cc", "beta"),
    [
        ("cubic", 0.7),
        ("newreno", 0.5),
        ("freeze+cubic", 0.7),
        ("lia", 0.5),
        ("olia", 0.5),
        ("balia", 0.5),
    ],
)
def test_a_ce_increase_reduces_the_window_once_per_round_trip(
    testing: Any, cc: str, beta: float
) -> None:
    p = _grown(testing, cc)
    cwnd = p.cwnd(0)
    p.on_sent(0, 20, 0.1, 1200)
    # ECT(0) increases alone are no congestion signal.
    p.on_ecn_feedback(0, ect0=5, newly_acked_ect=5, largest_acked_sent_s=0.1, now_s=0.2)
    assert p.cwnd(0) == cwnd
    # A CE increase: the RFC's multiplicative decrease, ssthresh = the reduced window.
    p.on_ecn_feedback(0, ce=1, newly_acked_ect=1, largest_acked_sent_s=0.1, now_s=0.2)
    reduced = p.cwnd(0)
    assert reduced == pytest.approx(beta * cwnd, abs=2) and p.ssthresh(0) == reduced
    # More marks on packets sent before the reduction: the same congestion event.
    p.on_ecn_feedback(0, ce=3, newly_acked_ect=3, largest_acked_sent_s=0.15, now_s=0.25)
    assert p.cwnd(0) == reduced
    # A mark on a packet sent after the reduction began: the next round trip, a new reduction.
    p.on_ecn_feedback(0, ce=1, newly_acked_ect=1, largest_acked_sent_s=0.21, now_s=0.3)
    assert p.cwnd(0) == pytest.approx(beta * reduced, abs=2)


def test_every_controller_takes_a_ce_signal_without_lost_packets(core: Any, testing: Any) -> None:
    # RFC 9002 7.1's default reaction calls OnPacketsLost with no packets (nLost 0): every
    # controller must take it. Those without an ECN response send Not-ECT (RFC 3168: an AQM
    # must not mark a flow that will not slow down).
    no_ecn = {"bbr", "maco", "freeze+bbr", "freeze+maco"}
    classic = {"newreno", "cubic", "lia", "olia", "balia", "external", "freeze+cubic"}
    for cc in core.cc_algorithms():
        p = _grown(testing, cc)
        p.on_ecn_feedback(0, ce=2, newly_acked_ect=2, largest_acked_sent_s=0.1, now_s=0.2)
        assert p.cwnd(0) > 0
        assert p.ecn_codepoint(0) in (0, 1, 2), cc
        if cc in no_ecn:
            assert p.ecn_codepoint(0) == 0, cc
        if cc in classic:
            assert p.ecn_codepoint(0) == 2, cc  # ECT(0): RFC 3168 classic ECN


def test_bbr_paths_stay_off_with_ecn_on(core: Any) -> None:
    out = run(core, ecn=True, queue=CODEL_ECN, duration_s=1.0, cc="bbr")
    assert total(out, "ect_sent_packets") == 0 and int(out[-1]["ecn_state"][0]) == OFF


# ---- (d) validation (RFC 9000 section 13.4.2, Appendix A.4) -----------------------------------


def test_testing_marks_ten_packets_then_waits_for_a_verdict(testing: Any) -> None:
    v = testing.EcnValidatorProbe()
    assert v.state == "testing"
    assert [v.send(2) for _ in range(12)] == [2] * 10 + [0, 0]
    assert v.state == "unknown"
    fb = v.ack(acked_ect0=10, counts=(9, 0, 1))
    assert fb == {"accepted": True, "ect0_increase": 9, "ect1_increase": 0, "ce_increase": 1}
    assert v.state == "capable" and v.send(2) == 2


def test_three_ptos_end_testing(testing: Any) -> None:
    v = testing.EcnValidatorProbe()
    v.send(2)
    v.pto()
    v.pto()
    assert v.state == "testing"
    v.pto()
    assert v.state == "unknown" and v.send(2) == 0


@pytest.mark.parametrize(
    ("acks", "why"),
    [
        ([(2, 0, (2, 0, 0)), (2, 0, (1, 0, 1))], "a count decreased"),
        ([(2, 0, (0, 2, 0))], "ECT(1) counted for ECT(0) packets"),
        ([(2, 0, (1, 0, 0))], "a packet's ECT(0) mark was lost on the way"),
        ([(2, 0, None)], "ECT packets acknowledged without counts: a bleached field"),
        ([(2, 0, (3, 0, 0))], "more ECT(0) counted than sent"),
    ],
)
def test_bad_counts_fail_validation_for_good(testing: Any, acks: list, why: str) -> None:
    v = testing.EcnValidatorProbe()
    for _ in range(2):
        v.send(2)
    for ect0, ect1, counts in acks:
        fb = v.ack(acked_ect0=ect0, acked_ect1=ect1, counts=counts)
    assert not fb["accepted"] and v.state == "failed", why
    assert v.send(2) == 0  # Not-ECT from now on
    assert not v.ack(acked_ect0=0, counts=(2, 0, 5))["accepted"]


def test_a_reordered_ack_does_not_fail_validation(testing: Any) -> None:
    v = testing.EcnValidatorProbe()
    v.send(2)
    v.send(2)
    assert v.ack(acked_ect0=2, counts=(2, 0, 0))["accepted"]
    # An older frame (largest acknowledged not increased) with smaller counts: ignored.
    assert not v.ack(acked_ect0=0, counts=(1, 0, 0), largest_increased=False)["accepted"]
    assert v.state == "capable"


def test_losing_every_testing_packet_fails(testing: Any) -> None:
    v = testing.EcnValidatorProbe()
    for _ in range(10):
        v.send(2)
    v.lost(9)
    assert v.state == "unknown"
    v.lost(1)
    assert v.state == "failed"


def _path_run(core: Any, handling: str | None, ecn: bool) -> list[dict[str, Any]]:
    queue = None if handling is None else {"ecn_handling": handling}
    return run(core, ecn=ecn, queue=queue, duration_s=4.0, file_bytes=2_000_000)


def test_a_bleaching_link_fails_validation_and_costs_nothing(core: Any) -> None:
    bleach = _path_run(core, "bleach", ecn=True)
    plain = _path_run(core, None, ecn=False)
    # Testing sends RFC 9000 A.4's 10 ECT packets (the initial window); the first ACK
    # acknowledges them without counts (the link cleared the field): failed, for good.
    assert total(bleach, "ect_sent_packets") == 10
    assert total(bleach[1:], "ect_sent_packets") == 0
    assert all(int(m["ecn_state"][0]) == FAILED for m in bleach)
    # The packets were the same size and the ACKs plain: the same transfer, byte for byte.
    assert [int(m["goodput_bytes"]) for m in bleach] == [int(m["goodput_bytes"]) for m in plain]


def test_a_link_dropping_ect_packets_falls_back_to_not_ect(core: Any) -> None:
    out = _path_run(core, "drop", ecn=True)
    # The 10 testing packets are dropped; the unmarked probes get through, loss detection
    # declares the testing packets lost, validation fails and the file completes.
    assert total(out, "ect_sent_packets") == 10
    assert total(out, "lost_packets") >= 10
    assert int(out[-1]["ecn_state"][0]) == FAILED
    assert bool(out[-1]["completed"])
    # the link counts them, as ECN drops of its data direction and of no other cause
    assert int(out[0]["link_drops_ecn"][0, 0]) == 10
    assert total(out, "link_drops_ecn") == 10
    assert total(out, "link_drops_aqm") == 0
    bleach = _path_run(core, "bleach", ecn=True)
    assert total(bleach, "link_drops_ecn") == 0


# ---- (e) bad input names the field -------------------------------------------------------------


@pytest.mark.parametrize(
    ("queue", "message"),
    [
        ({"ecn_handling": "scrub"}, r"paths\[0\]\.queue\.ecn_handling: must be 'pass'"),
        (
            {"discipline": "codel", "ecn": True, "ecn_handling": "bleach"},
            r"paths\[0\]\.queue\.ecn_handling: a link that cannot carry ECN cannot mark",
        ),
    ],
)
def test_bad_ecn_handling_names_the_field(core: Any, queue: dict[str, Any], message: str) -> None:
    path = synthetic_path(1.0, queue_packets=10)
    path["queue"] = queue
    with pytest.raises(ValueError, match=message):
        core.Simulation({"cc": "cubic"}, [path], None)


def test_bad_ecn_config_names_the_field(core: Any) -> None:
    with pytest.raises(ValueError, match=r"config\.ecn"):
        core.validate_simulation_config({"ecn": "yes"})
    with pytest.raises(ValueError, match=r"config\.ecn: applies to the mpquic connection"):
        core.validate_simulation_config({"ecn": True, "connection": "leotp"})
