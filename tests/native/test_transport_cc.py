"""Congestion controllers of the multipath transport, driven by hand.

Expected values come from the algorithms' defining documents: RFC 9002 section 7 and
Appendix B (NewReno for QUIC), RFC 5681 eq. 3, RFC 9438 (CUBIC, eqs. 1-2, sections 4.6-4.7),
RFC 6356 section 3 (LIA), Khalili et al. 2013 (OLIA, as docs/specs/maco.md#appendix-olia
restates it) and Peng et al. 2016 (BALIA).
"""

from __future__ import annotations

import math
from types import ModuleType

import pytest

MSS = 1200
IW = min(10 * MSS, max(14720, 2 * MSS))  # RFC 9002 section 7.2: 12000 bytes for 1200


def pkts(first_pn: int, n: int, t: float, size: int = MSS) -> list[tuple[int, float, int]]:
    """n packets (pn, sent time, bytes)."""
    return [(first_pn + i, t, size) for i in range(n)]


def ack_bytes(probe, path: int, nbytes: int, sent_t: float, now: float, pn0: int = 0) -> None:
    """Acknowledge nbytes (whole packets) sent at sent_t."""
    probe.on_ack(path, pkts(pn0, nbytes // MSS, sent_t), now)


# ---- NewReno (RFC 9002) ------------------------------------------------------------------


def test_newreno_initial_window_and_slow_start(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno")
    assert p.cwnd(0) == IW
    assert p.in_slow_start(0)
    ack_bytes(p, 0, 3 * MSS, 0.0, 0.1)
    assert p.cwnd(0) == IW + 3 * MSS  # slow start: + bytes acknowledged


def test_newreno_reduction_recovery_and_avoidance(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno")
    ack_bytes(p, 0, IW, 0.0, 0.1)  # 24000
    p.on_loss(0, pkts(100, 1, 0.05), now_s=0.2)
    assert p.cwnd(0) == 12000 and p.ssthresh(0) == 12000  # x kLossReductionFactor 0.5
    # Losses of packets sent before the recovery period began do not reduce again.
    p.on_loss(0, pkts(101, 1, 0.15), now_s=0.25)
    assert p.cwnd(0) == 12000
    # Packets sent before recovery began do not grow the window when acknowledged.
    ack_bytes(p, 0, 6000, 0.19, 0.3)
    assert p.cwnd(0) == 12000
    # Congestion avoidance: + max_datagram_size * acked / cwnd.
    ack_bytes(p, 0, 6000, 0.21, 0.4)
    assert p.cwnd(0) == 12000 + MSS * 6000 // 12000
    # A loss of a packet sent after recovery began starts a new period.
    p.on_loss(0, pkts(200, 1, 0.3), now_s=0.5)
    assert p.cwnd(0) == int(12600 * 0.5)


def test_newreno_persistent_congestion_collapses_to_minimum_window(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno")
    ack_bytes(p, 0, IW, 0.0, 0.1)
    p.on_loss(0, pkts(50, 3, 0.05), now_s=0.5, persistent=True)
    assert p.cwnd(0) == 2 * MSS  # kMinimumWindow


def test_newreno_does_not_grow_an_app_limited_window(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno")
    p.set_app_limited(0, True)
    ack_bytes(p, 0, 5 * MSS, 0.0, 0.1)
    assert p.cwnd(0) == IW


def test_newreno_without_byte_counting_is_rfc5681_per_ack(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno", params={"ByteCounting": 0})
    ack_bytes(p, 0, 4 * MSS, 0.0, 0.1)  # one ACK frame of 4 packets: + 1 mss in slow start
    assert p.cwnd(0) == IW + MSS
    p.on_loss(0, pkts(9, 1, 0.05), now_s=0.2)
    w = (IW + MSS) // 2
    ack_bytes(p, 0, 4 * MSS, 0.3, 0.4)  # congestion avoidance: + mss * mss / cwnd per frame
    assert p.cwnd(0) == int(w + MSS * MSS / w)


def test_newreno_loss_reduction_factor_parameter(testing: ModuleType) -> None:
    p = testing.CongestionProbe("newreno", params={"LossReductionFactor": 0.7})
    p.on_loss(0, pkts(0, 1, 0.0), now_s=0.1)
    assert p.cwnd(0) == int(IW * 0.7)


# ---- CUBIC (RFC 9438) ------------------------------------------------------------------


def cubic_after_loss(testing: ModuleType, w_max_pkts: int, **params: float):
    """A CUBIC path grown to w_max_pkts in slow start, then one loss at t = 10 s."""
    p = testing.CongestionProbe("cubic", params=params)
    p.rtt_sample(0, 0.1, now_s=0.1)
    ack_bytes(p, 0, w_max_pkts * MSS - IW, 0.0, 1.0)
    assert p.cwnd(0) == w_max_pkts * MSS
    p.on_loss(0, pkts(10_000, 1, 9.9), now_s=10.0)
    return p


def test_cubic_multiplicative_decrease_and_k(testing: ModuleType) -> None:
    p = cubic_after_loss(testing, 100)
    # RFC 9438 4.6: ssthresh = cwnd = beta * cwnd (beta = 0.7); W_max = cwnd before the loss.
    assert p.cwnd(0) == 70 * MSS and p.ssthresh(0) == 70 * MSS
    assert p.cubic_state(0)["w_max"] == pytest.approx(100 * MSS)
    # The epoch starts at the first ACK in congestion avoidance: K = cbrt((W_max - cwnd) / C).
    ack_bytes(p, 0, MSS, 10.01, 10.1, pn0=20_000)
    assert p.cubic_state(0)["k"] == pytest.approx(math.cbrt(30 / 0.4), rel=1e-9)


def test_cubic_fast_convergence(testing: ModuleType) -> None:
    p = cubic_after_loss(testing, 100)
    p.on_loss(0, pkts(30_000, 1, 10.5), now_s=11.0)  # cwnd 70 < W_max 100
    # RFC 9438 4.7: W_max = cwnd * (1 + beta) / 2.
    assert p.cubic_state(0)["w_max"] == pytest.approx(70 * MSS * 1.7 / 2)
    assert p.cwnd(0) == int(70 * MSS * 0.7)


def test_cubic_without_fast_convergence(testing: ModuleType) -> None:
    p = cubic_after_loss(testing, 100, FastConvergence=0)
    p.on_loss(0, pkts(30_000, 1, 10.5), now_s=11.0)
    assert p.cubic_state(0)["w_max"] == pytest.approx(70 * MSS)


def test_cubic_window_follows_the_cubic_function(testing: ModuleType) -> None:
    """Acknowledge one window per RTT (0.1 s) and compare with W_cubic(t) of RFC 9438 eq. 1."""
    p = cubic_after_loss(testing, 100)
    c, w_max, rtt = 0.4, 100.0, 0.1
    k = math.cbrt(w_max * (1 - 0.7) / c)
    t0, dt, credit, pn = 10.0, 0.001, 0.0, 20_000
    checks = {round(t0 + k / 2, 3): None, round(t0 + k, 3): None, round(t0 + k + 1, 3): None}
    t = t0
    while t < t0 + k + 1.0005:
        t = round(t + dt, 6)
        credit += p.cwnd(0) * dt / rtt
        n = int(credit // MSS)
        if n:
            credit -= n * MSS
            p.on_ack(0, pkts(pn, n, t - rtt), t)
            pn += n
        if round(t, 3) in checks and checks[round(t, 3)] is None:
            checks[round(t, 3)] = p.cwnd(0) / MSS
    for tc, w in checks.items():
        expected = c * (tc - t0 - k) ** 3 + w_max
        assert w == pytest.approx(expected, rel=0.03), (tc - t0, w, expected)


def test_cubic_persistent_congestion(testing: ModuleType) -> None:
    p = cubic_after_loss(testing, 50)
    p.on_loss(0, pkts(40_000, 5, 10.5), now_s=12.0, persistent=True)
    assert p.cwnd(0) == 2 * MSS


# ---- coupled: LIA (RFC 6356), OLIA, BALIA --------------------------------------------------


def two_paths(testing: ModuleType, name: str, ss_acked: tuple[int, int], rtts: tuple[float, float]):
    """Two paths each grown in slow start by ss_acked bytes, then halved by one loss at t = 1."""
    p = testing.CongestionProbe(name, n_paths=2)
    for i in range(2):
        p.rtt_sample(i, rtts[i], now_s=0.0)
    for i in range(2):
        if ss_acked[i]:
            ack_bytes(p, i, ss_acked[i], 0.0, 0.5)
        p.on_loss(i, pkts(1000, 1, 0.9), now_s=1.0)
    return p


def test_lia_increase_is_rfc6356(testing: ModuleType) -> None:
    p = two_paths(testing, "lia", (IW, 0), (0.1, 0.05))
    w = [p.cwnd(0), p.cwnd(1)]
    assert w == [12000, 6000]
    r = [0.1, 0.05]
    total = sum(w)
    best = max(w[i] / r[i] ** 2 for i in range(2))
    alpha = total * best / sum(w[i] / r[i] for i in range(2)) ** 2
    ack_bytes(p, 0, MSS, 1.1, 1.2, pn0=5000)
    inc = min(alpha * MSS * MSS / total, MSS * MSS / w[0])
    assert p.cwnd(0) == int(w[0] + inc)
    assert alpha == pytest.approx(0.75)


def test_lia_with_one_path_is_newreno(testing: ModuleType) -> None:
    lia = testing.CongestionProbe("lia")
    reno = testing.CongestionProbe("newreno")
    for p in (lia, reno):
        p.rtt_sample(0, 0.05)
        ack_bytes(p, 0, IW, 0.0, 0.1)
        p.on_loss(0, pkts(100, 1, 0.05), now_s=0.2)
        for k in range(20):
            ack_bytes(p, 0, 3 * MSS, 0.3 + 0.01 * k, 0.4 + 0.01 * k, pn0=200 + 3 * k)
    assert lia.cwnd(0) == pytest.approx(reno.cwnd(0), abs=1)
    assert lia.cwnd(0) > 12000 + 4 * MSS  # it grew in congestion avoidance


def test_olia_increase_with_alpha(testing: ModuleType) -> None:
    # Path 0: 24000 bytes delivered then a loss (l = 24000), w = 18000 B = 15 pkts, tau 0.2.
    # Path 1: 12000 bytes delivered then a loss (l = 12000), w = 12000 B = 10 pkts, tau 0.05.
    p = two_paths(testing, "olia", (2 * IW, IW), (0.2, 0.05))
    assert [p.cwnd(0), p.cwnd(1)] == [18000, 12000]
    w = [15.0, 10.0]
    tau = [0.2, 0.05]
    l_ = [24000.0, 12000.0]
    best = max(range(2), key=lambda i: l_[i] / tau[i] ** 2)  # path 1
    largest = max(range(2), key=lambda i: w[i])  # path 0
    assert (best, largest) == (1, 0)
    n = 2
    alpha1 = 1 / (n * 1)  # path 1 is in B \ M
    ack_bytes(p, 1, MSS, 1.1, 1.2, pn0=5000)
    per_packet = (w[1] / tau[1] ** 2) / sum(w[i] / tau[i] for i in range(2)) ** 2 + alpha1 / w[1]
    assert p.cwnd(1) == int(12000 + per_packet * MSS)
    # Path 0 (in M) gets alpha = -1 / (n |M|).
    ack_bytes(p, 0, MSS, 1.1, 1.2, pn0=6000)
    w1 = p.cwnd(1) / MSS
    per_packet0 = (w[0] / tau[0] ** 2) / (w[0] / tau[0] + w1 / tau[1]) ** 2 - 0.5 / w[0]
    assert p.cwnd(0) == pytest.approx(18000 + per_packet0 * MSS, abs=1.0)


def test_balia_increase_and_decrease(testing: ModuleType) -> None:
    # Path 0: w = 48000 B (40 pkts), path 1: w = 24000 B (20 pkts), both tau = 0.1 s.
    p = two_paths(testing, "balia", (7 * IW, 3 * IW), (0.1, 0.1))
    assert [p.cwnd(0), p.cwnd(1)] == [48000, 24000]
    x = [400.0, 200.0]
    alpha = max(x) / x[1]
    ack_bytes(p, 1, MSS, 1.1, 1.2, pn0=5000)
    per_packet = (x[1] / 0.1) / sum(x) ** 2 * (1 + alpha) / 2 * (4 + alpha) / 5
    w1 = 24000 + per_packet * MSS
    assert p.cwnd(1) == int(w1)
    p.on_loss(1, pkts(7000, 1, 1.15), now_s=1.3)
    alpha = x[0] / (w1 / MSS / 0.1)
    assert p.cwnd(1) == int(w1 - w1 / 2 * min(alpha, 1.5))


# ---- external, BBR ---------------------------------------------------------------------------


def test_external_holds_what_it_is_given(testing: ModuleType) -> None:
    p = testing.CongestionProbe("external")
    assert p.cwnd(0) == IW
    p.set_external_cwnd(0, 50_000)
    ack_bytes(p, 0, 10 * MSS, 0.0, 0.1)
    p.on_loss(0, pkts(50, 2, 0.05), now_s=0.2, persistent=True)
    assert p.cwnd(0) == 50_000
    p.set_external_cwnd(0, 10)  # below kMinimumWindow
    assert p.cwnd(0) == 2 * MSS


def test_bbr_starts_with_high_gain_pacing(testing: ModuleType) -> None:
    p = testing.CongestionProbe("bbr")
    # draft-cardwell-iccrg-bbr-congestion-control-00 BBRInitPacingRate: no RTT sample yet,
    # nominal bandwidth = InitialCwnd / 1 ms, pacing_rate = 2/ln2 * nominal.
    assert p.pacing_rate(0) == pytest.approx(2 / math.log(2) * IW * 8 / 0.001)
    assert p.in_slow_start(0)


def test_unknown_algorithm_and_parameter_errors(testing: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown congestion control 'vegas'"):
        testing.CongestionProbe("vegas")
    with pytest.raises(ValueError, match="params.Gamma: unknown parameter"):
        testing.CongestionProbe("cubic", params={"Gamma": 1.0})
    with pytest.raises(ValueError, match="params.Beta.*out of the allowed range"):
        testing.CongestionProbe("cubic", params={"Beta": 1.5})
    with pytest.raises(ValueError, match="params.FastConvergence: must be 0 or 1"):
        testing.CongestionProbe("cubic", params={"FastConvergence": 0.5})
    with pytest.raises(ValueError, match="params.InitialWindow: must be a non-negative integer"):
        testing.CongestionProbe("newreno", params={"InitialWindow": 2.5})


@pytest.mark.parametrize("probe", ["CongestionProbe", "CcProbe"])
def test_both_cc_probes_drive_their_controllers_alike(testing: ModuleType, probe: str) -> None:
    """The transport's and the baselines' probes share one driver (ProbeCcDriver): the same
    input checks, each naming its field, and the same bookkeeping."""
    p = getattr(testing, probe)("newreno", mss=MSS)
    with pytest.raises(ValueError, match=r"^time_s: must be finite and >= 0"):
        p.on_sent(0, 0, -1.0, MSS)
    with pytest.raises(ValueError, match=r"^now_s: must be finite and >= 0"):
        p.on_ack(0, pkts(0, 1, 0.0), math.nan)
    with pytest.raises(ValueError, match=r"^sent_time_s: must be finite and >= 0"):
        p.on_ack(0, [(0, -0.5, MSS)], 0.1)
    with pytest.raises(ValueError, match=r"^packets: at least one lost packet"):
        p.on_loss(0, [], 0.1)
    with pytest.raises(ValueError, match="path 3 out of range"):
        p.on_sent(3, 0, 0.0, MSS)
    for pn in range(4):
        p.on_sent(0, pn, 0.0, MSS)
    p.on_ack(0, pkts(0, 1, 0.0), 0.1)
    assert p.cwnd(0) == IW + MSS  # slow start
    p.on_loss(0, [(3, 0.0, MSS), (1, 0.0, MSS)], 0.2)
    assert p.cwnd(0) == (IW + MSS) // 2  # RFC 9002 7.3.2: halved once
