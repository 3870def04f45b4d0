"""LEOTP's timers and rates: the Consumer's RFC 6298 retransmission timeout with the paper's
x1.5 backoff (section III.B), its Interest pacing (C1) and the Responder's token bucket
(cpp/doc/leotp.md, "Consumer").

RFC 6298 section 2 with G = 1 ms: first sample R: SRTT = R, RTTVAR = R / 2; later: RTTVAR =
3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + max(G, 4 RTTVAR).
"""

from __future__ import annotations

from types import ModuleType

import pytest


def test_rfc6298_sequence(testing: ModuleType) -> None:
    rto = testing.LeotpRtoProbe(granularity_s=0.001)
    assert rto.rto_s == pytest.approx(1.0)  # RFC 6298 section 2.1: 1 s before a sample
    expected = [
        (100.0, 50.0, 300.0),
        (102.5, 42.5, 272.5),
        (102.1875, 32.5, 232.1875),
        (114.4140625, 48.828125, 309.7265625),
    ]
    for sample_ms, (srtt, rttvar, rto_ms) in zip([100, 120, 100, 200], expected, strict=True):
        rto.on_sample(sample_ms / 1000.0)
        assert rto.srtt_s * 1000 == pytest.approx(srtt, abs=1e-5)
        assert rto.rttvar_s * 1000 == pytest.approx(rttvar, abs=1e-5)
        assert rto.rto_s * 1000 == pytest.approx(rto_ms, abs=1e-5)


def test_backoff_times_of_an_unanswered_interest(testing: ModuleType) -> None:
    rto = testing.LeotpRtoProbe()
    rto.on_sample(0.100)
    rto.on_sample(0.120)  # RTO = 272.5 ms
    t, times = 0.0, []
    for n in range(1, 5):
        t += rto.backoff_interval_s(n)  # RTO x 1.5^(n - 1) after the previous send
        times.append(t * 1000)
    assert times == pytest.approx([272.5, 681.25, 1294.375, 2214.0625], abs=1e-5)


def test_backoff_is_kept_for_new_interests_until_a_valid_sample(testing: ModuleType) -> None:
    # RFC 6298 rule 5.5 and Karn's algorithm (section 3), with the paper's x1.5: a timeout
    # backs the timer off and new Interests keep the backed-off value until an RTT sample.
    rto = testing.LeotpRtoProbe()
    rto.on_sample(0.100)
    rto.on_sample(0.120)  # RTO = 272.5 ms
    rto.on_timeout(sent_s=1.0, now_s=1.2725)
    assert rto.backoff_rounds == 1
    assert rto.base_rto_s * 1000 == pytest.approx(272.5)
    assert rto.rto_s * 1000 == pytest.approx(272.5 * 1.5)  # a new Interest's first timer
    assert rto.backoff_interval_s(1) * 1000 == pytest.approx(272.5 * 1.5)
    # Interests sent before that round had the shorter timer: their timeouts add no round
    rto.on_timeout(sent_s=1.1, now_s=1.5)
    assert rto.backoff_rounds == 1
    # one sent after it that still times out: the backed-off timer is too short as well
    rto.on_timeout(sent_s=1.3, now_s=1.8)
    assert rto.backoff_rounds == 2
    assert rto.rto_s * 1000 == pytest.approx(272.5 * 1.5**2)
    # a valid sample (an Interest sent once) recomputes RFC 6298's RTO: the backoff collapses
    rto.on_sample(0.100)
    assert rto.backoff_rounds == 0
    assert rto.rto_s == pytest.approx(rto.base_rto_s)


def test_kept_backoff_leaves_a_lone_interest_schedule_unchanged(testing: ModuleType) -> None:
    # One Interest never answered: each of its timeouts is a round, and its n-th re-send is
    # due RTO x 1.5^(n - 1) after the previous one, as without the kept backoff (RFC 6298
    # section 5.5).
    rto = testing.LeotpRtoProbe()
    rto.on_sample(0.100)
    rto.on_sample(0.120)
    t, times = 0.0, []
    for n in range(1, 5):
        sent = t
        t += rto.backoff_interval_s(n)
        times.append(t * 1000)
        rto.on_timeout(sent_s=sent, now_s=t)
    assert times == pytest.approx([272.5, 681.25, 1294.375, 2214.0625], abs=1e-5)
    # without the kept backoff a timeout changes nothing for new Interests
    plain = testing.LeotpRtoProbe(keep_backoff=False)
    plain.on_sample(0.100)
    plain.on_sample(0.120)
    plain.on_timeout(sent_s=0.0, now_s=0.2725)
    assert plain.backoff_rounds == 0 and plain.rto_s * 1000 == pytest.approx(272.5)


def test_rto_is_clamped(testing: ModuleType) -> None:
    rto = testing.LeotpRtoProbe(min_rto_s=0.2, max_rto_s=60.0)
    rto.on_sample(0.010)  # 10 + 4 x 5 = 30 ms, below the 200 ms floor
    assert rto.rto_s == pytest.approx(0.2)
    assert rto.backoff_interval_s(40) == pytest.approx(60.0)  # 0.2 x 1.5^39 > 60 s


def test_bad_timer_parameters_name_the_field(testing: ModuleType) -> None:
    with pytest.raises(ValueError, match="min_rto_s"):
        testing.LeotpRtoProbe(min_rto_s=-1.0)
    with pytest.raises(ValueError, match="backoff"):
        testing.LeotpRtoProbe(backoff=0.5)


def test_interest_rate_c1(testing: ModuleType) -> None:
    # Spec 4.2 item 7: throughput_c = 8 Mbit/s, BL_tar - BL_P = 2906 B, SRTT = 0.2 s:
    # R_int = 8e6 + 8 x 2906 / 0.2 = 8.11624 Mbit/s.
    r = testing.LeotpInterestPacerProbe.rate(8e6, 2906.0, 0.2)
    assert r == pytest.approx(8.11624e6, rel=1e-12)
    # floor R_min = 0.1 Mbit/s
    assert testing.LeotpInterestPacerProbe.rate(0.0, -50_000.0, 0.2) == pytest.approx(1e5)


def test_interest_budget(testing: ModuleType) -> None:
    p = testing.LeotpInterestPacerProbe(cost_bytes=1500.0, initial_budget_bytes=7500.0)
    # Before the first rate: BL_tar = 5 packets' worth of Interests, and nothing more.
    assert sum(p.try_consume(0.0) for _ in range(6)) == 5
    assert p.wait_s(0.0) == float("inf")
    p.set_rate(1.0, 12e6)  # 1500 B every 1 ms
    assert p.wait_s(1.0) == pytest.approx(0.001)
    assert p.try_consume(1.001)
    # An idle consumer banks at most max(one Interest, 1 ms of rate): one Interest here.
    assert p.budget(5.0) == pytest.approx(1500.0)
    assert p.try_consume(5.0) and not p.try_consume(5.0)


def test_token_bucket(testing: ModuleType) -> None:
    tb = testing.LeotpTokenBucketProbe(rate_bps=1e5, mtu_bytes=1500.0)
    # Depth max(1 MTU, rate x 1 ms); it starts with one MTU of tokens.
    assert tb.depth_bytes == 1500.0
    assert tb.try_consume(0.0, 1500.0)
    assert not tb.try_consume(0.0, 1500.0)
    assert tb.wait_s(0.0, 1500.0) == pytest.approx(1500 * 8 / 1e5)  # 120 ms at 0.1 Mbit/s
    tb.set_rate(0.06, 1e8)  # 750 B earned at the old rate; now 100 Mbit/s, depth 12500 B
    assert tb.tokens(0.06) == pytest.approx(750.0)
    assert tb.depth_bytes == pytest.approx(12_500.0)
    assert tb.wait_s(0.06, 1500.0) == pytest.approx(750 * 8 / 1e8)
    assert tb.tokens(10.0) == pytest.approx(12_500.0)  # full, never more than the depth
