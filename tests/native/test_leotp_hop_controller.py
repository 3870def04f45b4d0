"""LEOTP's hop-by-hop congestion control: eqs. (6)-(8) and the backpressure rate of
eqs. (9)-(10) with the corrected sign of eq. (9) (section III.C; cpp/doc/leotp.md).

Reference values are arithmetic on the equations: with throughput 20 Mbit/s and hopRTT_min
10 ms, BDP = 20e6 / 8 x 0.010 = 25 000 B and QueueLen = 2.5e6 B/s x (hopRTT - 10 ms); M =
3000 B, k = 0.8.
"""

from __future__ import annotations

from types import ModuleType

import pytest

THR = 20e6
RMIN = 0.010


@pytest.fixture()
def ca(testing: ModuleType):
    """A controller in CongAvoid with cwnd 10 packets of 1453 B (window-limited at 20 Mbit/s)."""
    c = testing.LeotpHopControllerProbe({"packet_bytes": 1453.0})
    c.set_state(10.0, "cong_avoid")
    return c


def test_eq6_7_additive_increase_below_m(ca) -> None:
    u = ca.update_window(1.0, THR, 0.011, RMIN)
    assert u["bdp_bytes"] == pytest.approx(25_000.0)
    assert u["queue_len_bytes"] == pytest.approx(2500.0)
    assert u["grew"] and not u["cut"]
    assert ca.cwnd == 11.0


def test_queue_at_m_is_still_increase(ca) -> None:
    u = ca.update_window(1.0, THR, 0.0112, RMIN)
    assert u["queue_len_bytes"] == pytest.approx(3000.0)  # = M: not above it
    assert not u["cut"]
    assert ca.cwnd == 11.0


def test_queue_above_m_cuts_to_k_bdp(ca) -> None:
    u = ca.update_window(1.0, THR, 0.012, RMIN)
    assert u["queue_len_bytes"] == pytest.approx(5000.0)
    assert u["cut"]
    # cwnd = 0.8 x 25 000 B = 20 000 B = 13.76 packets of 1453 B
    assert ca.cwnd * 1453 == pytest.approx(20_000.0)
    assert ca.cwnd == pytest.approx(13.764625, abs=1e-6)


def test_second_cut_refused_within_two_hop_rtts(ca) -> None:
    ca.update_window(1.0, THR, 0.012, RMIN)  # cut at t = 1.0
    cwnd = ca.cwnd
    u = ca.update_window(1.0 + 0.012, THR, 0.012, RMIN)  # one hopRTT later, still queued
    assert not u["cut"] and ca.cwnd == cwnd  # held, not grown
    u = ca.update_window(1.0 + 2 * 0.012, THR, 0.012, RMIN)  # two hopRTTs later
    assert u["cut"]


def test_slow_start_doubles_while_window_limited_and_exits_on_queue(testing: ModuleType) -> None:
    c = testing.LeotpHopControllerProbe({"packet_bytes": 1500.0})
    assert c.phase == "slow_start" and c.cwnd == 2.0  # initial cwnd [REC]
    t, cwnd = 0.0, 2.0
    for _ in range(4):
        t += 0.010
        # window-limited: the measured throughput is what the window allows
        thr = cwnd * 1500 * 8 / 0.010
        u = c.update_window(t, thr, 0.010, 0.010)
        assert u["limited"] and u["grew"]
        cwnd *= 2
        assert c.cwnd == cwnd and c.phase == "slow_start"
    # not window-limited (throughput < 0.5 cwnd / hopRTT): hold
    u = c.update_window(t + 0.01, 0.4 * cwnd * 1500 * 8 / 0.010, 0.010, 0.010)
    assert not u["limited"] and c.cwnd == cwnd
    # the first QueueLen > M cuts to k BDP and leaves slow start
    u = c.update_window(t + 0.02, THR, 0.012, RMIN)
    assert u["cut"] and c.phase == "cong_avoid"
    assert c.cwnd * 1500 == pytest.approx(20_000.0)


def test_measured_window_update_once_per_hop_rtt(testing: ModuleType) -> None:
    c = testing.LeotpHopControllerProbe({"packet_bytes": 1500.0})
    c.on_sample(0.0, 0.010)
    assert c.hop_rtt_s == pytest.approx(0.010)
    c.on_sample(0.001, 0.018)  # EWMA, gain 1/8: 7/8 x 10 + 1/8 x 18 = 11 ms
    assert c.hop_rtt_s == pytest.approx(0.011)
    assert c.hop_rtt_min_s(0.001) == pytest.approx(0.010)
    assert not c.on_receive(0.002, 1500.0)  # the period starts
    assert not c.on_receive(0.012, 1500.0)  # 10 ms < hopRTT
    assert c.on_receive(0.0135, 1500.0)  # 11.5 ms >= hopRTT: 4500 B / 11.5 ms
    assert c.throughput_bps == pytest.approx(4500 * 8 / 0.0115)


def test_eq9_corrected_sign(testing: ModuleType) -> None:
    # Rate_nextHop = 10 Mbit/s, BL = 15 000 B, BL_tar = 7500 B, hopRTT = 20 ms:
    # Rate_bp = 10 - 7500 x 8 / 0.02 x 1e-6 = 7 Mbit/s (the printed sign would give 13).
    bp = testing.LeotpHopControllerProbe.backpressure_rate(10e6, 15_000.0, 7500.0, 0.020)
    assert bp == pytest.approx(7e6)
    # BL = BL_tar: Rate_bp = Rate_nextHop
    assert testing.LeotpHopControllerProbe.backpressure_rate(
        10e6, 7500.0, 7500.0, 0.020
    ) == pytest.approx(10e6)


def test_eq10_takes_the_smaller_rate(testing: ModuleType) -> None:
    c = testing.LeotpHopControllerProbe({"packet_bytes": 1500.0})
    assert c.rate(True, 15_000.0, 7500.0, 10e6) == pytest.approx(1e5)  # R_init, no sample
    c.on_sample(0.0, 0.020)
    c.set_state(20.0, "cong_avoid")  # cwnd / hopRTT = 20 x 1500 x 8 / 0.02 = 12 Mbit/s
    assert c.rate(False, 0.0, 0.0, 0.0) == pytest.approx(12e6)  # Consumer: no buffer
    assert c.rate(True, 15_000.0, 7500.0, 10e6) == pytest.approx(7e6)  # min(12, 7)
    assert c.rate(True, 0.0, 7500.0, 10e6) == pytest.approx(12e6)  # min(12, 13)
    # clamped to [0.1, 300] Mbit/s
    assert c.rate(True, 1e9, 7500.0, 10e6) == pytest.approx(1e5)


def test_bad_parameters_name_the_field(testing: ModuleType) -> None:
    with pytest.raises(ValueError, match="params.k"):
        testing.LeotpHopControllerProbe({"k": 1.5})
    with pytest.raises(ValueError, match="unknown"):
        testing.LeotpHopControllerProbe({"kk": 0.5})


def test_zero_hop_rtt_is_one_timestamp_step(testing: ModuleType) -> None:
    # A zero-delay link measures 0 us: the sample counts as the timestamp's resolution (1 us),
    # so the window stays finite and the rate hits its ceiling (300 Mbit/s).
    c = testing.LeotpHopControllerProbe({"packet_bytes": 1500.0})
    c.on_sample(0.0, 0.0)
    assert c.hop_rtt_s == pytest.approx(1e-6)
    for k in range(1, 200):
        c.on_receive(k * 1e-3, 1500.0)
    assert c.cwnd <= 1e7
    assert c.rate(False, 0.0, 0.0, 0.0) == pytest.approx(3e8)
