"""RFC 9002 loss detection of one path, driven with constructed ACK sequences.

Every expected number below is computed from RFC 9002 (Iyengar and Swett, 2021): section 5.3
(RTT estimator), 6.1.1 (packet threshold, kPacketThreshold = 3), 6.1.2 (time threshold,
kTimeThreshold = 9/8, kGranularity = 1 ms), 6.2 (probe timeout and its backoff, kInitialRtt =
333 ms) and 7.6 (persistent congestion, kPersistentCongestionThreshold = 3), including the
section 7.6.3 example.
"""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture()
def probe(testing: ModuleType):
    """A loss detector with RFC 9002's constants and max_ack_delay = 25 ms."""
    return testing.LossDetectorProbe(max_ack_delay_s=0.025)


def test_first_rtt_sample_initialises_the_estimator(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    out = probe.on_ack([(0, 0)], ack_delay_s=0.010, now_s=0.100)
    assert out["rtt_sampled"]
    # Section 5.3: first sample, ack_delay ignored.
    assert probe.latest_rtt == pytest.approx(0.100)
    assert probe.min_rtt == pytest.approx(0.100)
    assert probe.smoothed_rtt == pytest.approx(0.100)
    assert probe.rttvar == pytest.approx(0.050)


def test_later_samples_subtract_the_ack_delay(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.100)
    probe.on_packet_sent(1, 0.100)
    probe.on_ack([(1, 1)], ack_delay_s=0.020, now_s=0.250)
    # latest 0.150 >= min_rtt 0.100 + ack_delay 0.020, so adjusted_rtt = 0.130.
    adjusted = 0.130
    assert probe.latest_rtt == pytest.approx(0.150)
    assert probe.min_rtt == pytest.approx(0.100)
    assert probe.rttvar == pytest.approx(0.75 * 0.050 + 0.25 * abs(0.100 - adjusted))
    assert probe.smoothed_rtt == pytest.approx(7 / 8 * 0.100 + 1 / 8 * adjusted)


def test_ack_delay_is_clamped_to_max_ack_delay(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.100)
    probe.on_packet_sent(1, 0.100)
    probe.on_ack([(1, 1)], ack_delay_s=0.200, now_s=0.300)
    # ack_delay = min(0.200, 0.025); latest 0.200 >= 0.100 + 0.025: adjusted = 0.175.
    assert probe.smoothed_rtt == pytest.approx(7 / 8 * 0.100 + 1 / 8 * 0.175)
    assert probe.rttvar == pytest.approx(0.75 * 0.050 + 0.25 * 0.075)


def test_ack_delay_is_not_subtracted_below_min_rtt(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.100)
    probe.on_packet_sent(1, 0.100)
    probe.on_ack([(1, 1)], ack_delay_s=0.020, now_s=0.210)
    # latest 0.110 < min_rtt 0.100 + 0.020: the sample is used as it is.
    assert probe.smoothed_rtt == pytest.approx(7 / 8 * 0.100 + 1 / 8 * 0.110)
    assert probe.min_rtt == pytest.approx(0.100)


def test_min_rtt_ignores_ack_delay(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.100)
    probe.on_packet_sent(1, 0.100)
    probe.on_ack([(1, 1)], ack_delay_s=0.020, now_s=0.190)
    assert probe.min_rtt == pytest.approx(0.090)


def test_no_rtt_sample_when_the_largest_is_not_newly_acked(probe) -> None:
    for pn in range(3):
        probe.on_packet_sent(pn, 0.001 * pn)
    probe.on_ack([(2, 2)], 0.0, 0.1)
    before = probe.smoothed_rtt
    out = probe.on_ack([(2, 2), (0, 0)], 0.0, 0.5)
    assert out["newly_acked"] == [0]
    assert not out["rtt_sampled"]
    assert probe.smoothed_rtt == before


def test_packet_threshold(probe) -> None:
    for pn in range(6):
        probe.on_packet_sent(pn, 0.001 * pn)
    # largest_acked = 3: packet 0 is 3 below it (lost); 1 and 2 are not, and were sent too
    # recently for the time threshold (9/8 * 0.1 s).
    out = probe.on_ack([(3, 3)], 0.0, 0.100)
    assert out["lost"] == [0]
    assert out["loss_kinds"] == ["packet_threshold"]
    out = probe.on_ack([(3, 4)], 0.0, 0.101)
    assert out["lost"] == [1]
    out = probe.on_ack([(3, 5)], 0.0, 0.102)
    assert out["lost"] == [2]


def test_time_threshold_and_loss_timer(probe) -> None:
    probe.on_packet_sent(0, 0.000)
    probe.on_packet_sent(1, 0.010)
    out = probe.on_ack([(1, 1)], 0.0, 0.110)
    # RTT 0.1 s: loss_delay = 9/8 * 0.1 = 0.1125 s; packet 0 (sent at 0) is not lost yet.
    assert out["lost"] == []
    kind, deadline = probe.timer()
    assert kind == "loss_time"
    assert deadline == pytest.approx(0.1125)
    assert probe.on_timeout(0.1124)["kind"] == "none"
    out = probe.on_timeout(0.1125)
    assert out["kind"] == "loss_time"
    assert out["lost"] == [0]
    assert out["loss_kinds"] == ["loss_timer"]


def test_time_threshold_on_ack(probe) -> None:
    probe.on_packet_sent(0, 0.000)
    probe.on_packet_sent(1, 0.200)
    # RTT sample 0.1 s from packet 1; packet 0 was sent 0.3 s ago > 9/8 * 0.1 s.
    out = probe.on_ack([(1, 1)], 0.0, 0.300)
    assert out["lost"] == [0]
    assert out["loss_kinds"] == ["time_threshold"]


def test_time_threshold_uses_max_of_latest_and_smoothed(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.200)  # smoothed 0.2
    probe.on_packet_sent(1, 0.200)
    probe.on_packet_sent(2, 0.210)
    probe.on_ack([(2, 2)], 0.0, 0.260)  # latest 0.05, smoothed 0.18125
    smoothed = 7 / 8 * 0.200 + 1 / 8 * 0.050
    kind, deadline = probe.timer()
    assert kind == "loss_time"
    assert deadline == pytest.approx(0.200 + 9 / 8 * smoothed)


def test_granularity_floors_the_loss_delay(testing: ModuleType) -> None:
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0, granularity_s=0.001)
    p.on_packet_sent(0, 0.0)
    p.on_packet_sent(1, 0.0001)
    p.on_ack([(1, 1)], 0.0, 0.0003)  # RTT 0.2 ms: 9/8 RTT < kGranularity
    kind, deadline = p.timer()
    assert kind == "loss_time"
    assert deadline == pytest.approx(0.001)


def test_pto_before_any_rtt_sample_uses_initial_rtt(probe) -> None:
    probe.on_packet_sent(0, 1.0)
    kind, deadline = probe.timer()
    # kInitialRtt 0.333 s, rttvar 0.1665 s: 0.333 + 4 * 0.1665 + 0.025.
    assert kind == "pto"
    assert deadline == pytest.approx(1.0 + 0.333 + 4 * 0.1665 + 0.025)


def test_pto_and_exponential_backoff(probe) -> None:
    probe.on_packet_sent(0, 0.0)
    probe.on_ack([(0, 0)], 0.0, 0.100)  # smoothed 0.1, rttvar 0.05
    probe.on_packet_sent(1, 1.000)
    pto = 0.100 + 4 * 0.050 + 0.025
    kind, deadline = probe.timer()
    assert (kind, deadline) == ("pto", pytest.approx(1.0 + pto))
    assert probe.on_timeout(1.0 + pto)["kind"] == "pto"
    assert probe.pto_count == 1
    assert probe.timer()[1] == pytest.approx(1.0 + 2 * pto)
    assert probe.on_timeout(1.0 + 2 * pto)["kind"] == "pto"
    assert probe.pto_count == 2
    assert probe.timer()[1] == pytest.approx(1.0 + 4 * pto)
    # A probe sent now restarts from its own send time, still backed off.
    probe.on_packet_sent(2, 1.8)
    assert probe.timer()[1] == pytest.approx(1.8 + 4 * pto)
    # An ACK resets pto_count.
    probe.on_ack([(2, 2)], 0.0, 1.9)
    assert probe.pto_count == 0


def test_pto_granularity_floor(testing: ModuleType) -> None:
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0)
    p.on_packet_sent(0, 0.0)
    p.on_ack([(0, 0)], 0.0, 0.0001)  # rttvar = 50 us: 4 * rttvar < kGranularity
    p.on_packet_sent(1, 1.0)
    assert p.timer()[1] == pytest.approx(1.0 + 0.0001 + 0.001)


def test_no_timer_without_ack_eliciting_packets_in_flight(probe) -> None:
    assert probe.timer() == ("none", None)
    probe.on_packet_sent(0, 0.0, ack_eliciting=False)
    assert probe.timer() == ("none", None)


def test_persistent_congestion_rfc9002_example(testing: ModuleType) -> None:
    """RFC 9002 section 7.6.3 with max_ack_delay = 0.

    The example assumes smoothed_rtt + max(4 rttvar, kGranularity) + max_ack_delay = 2. A first
    RTT sample r gives r + 4 r / 2 = 3 r, so the acknowledgment of packet #1 arrives at
    t = 2/3 (the example's t = 1.2 would give 3.6); the rest of the timeline is the
    example's. Packet #k is packet number k - 1 here.
    """
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0)
    p.on_packet_sent(0, 0.0)  # #1
    p.on_ack([(0, 0)], 0.0, 2 / 3)
    assert p.pto_duration == pytest.approx(2.0)
    assert p.persistent_congestion_duration == pytest.approx(6.0)
    for pn, t in [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]:  # #2 .. #7
        p.on_packet_sent(pn, float(t))
    # PTO 1 at t = 6 + 2 = 8, PTO 2 (backed off) at 8 + 4 = 12, as in the example.
    assert p.timer() == ("pto", pytest.approx(8.0))
    assert p.on_timeout(8.0)["kind"] == "pto"
    p.on_packet_sent(7, 8.0)  # #8
    assert p.timer() == ("pto", pytest.approx(12.0))
    assert p.on_timeout(12.0)["kind"] == "pto"
    p.on_packet_sent(8, 12.0)  # #9
    out = p.on_ack([(8, 8)], 0.0, 12.2)
    assert out["lost"] == [1, 2, 3, 4, 5, 6, 7]  # packets #2 .. #8
    # Lost span 8 - 1 = 7 s exceeds the duration (3 x the PTO period after the new sample).
    assert p.persistent_congestion_duration < 7.0
    assert out["persistent_congestion"]


def test_no_persistent_congestion_when_a_packet_between_was_acked(testing: ModuleType) -> None:
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0)
    p.on_packet_sent(0, 0.0)
    p.on_ack([(0, 0)], 0.0, 2 / 3)
    for pn in range(1, 8):
        p.on_packet_sent(pn, float(pn))
    p.on_packet_sent(8, 12.0)
    # Packet #5 (pn 4) arrived: the lost packets before and after it are separate periods.
    out = p.on_ack([(8, 8), (4, 4)], 0.0, 12.2)
    assert out["lost"] == [1, 2, 3, 5, 6, 7]
    assert not out["persistent_congestion"]


def test_no_persistent_congestion_for_a_short_span(testing: ModuleType) -> None:
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0)
    p.on_packet_sent(0, 0.0)
    p.on_ack([(0, 0)], 0.0, 2 / 3)
    for pn in range(1, 5):
        p.on_packet_sent(pn, float(pn))  # lost span 1..3: 2 s < 6 s
    out = p.on_ack([(4, 4)], 0.0, 4.5)
    assert out["lost"] == [1, 2, 3]
    assert not out["persistent_congestion"]


def test_persistent_congestion_needs_packets_sent_after_the_first_rtt_sample(
    testing: ModuleType,
) -> None:
    p = testing.LossDetectorProbe(max_ack_delay_s=0.0)
    for pn in range(8):
        p.on_packet_sent(pn, float(pn))  # all sent before any RTT sample
    p.on_packet_sent(8, 12.0)
    out = p.on_ack([(8, 8)], 0.0, 12.1)
    assert out["lost"] == list(range(8))
    assert not out["persistent_congestion"]


def test_late_ack_of_a_lost_packet_is_reported(probe) -> None:
    for pn in range(5):
        probe.on_packet_sent(pn, 0.001 * pn)
    probe.on_ack([(3, 4)], 0.0, 0.1)  # 0 and 1 lost by packet threshold
    out = probe.on_ack([(3, 4), (0, 0)], 0.0, 0.11)
    assert out["late_acked"] == [0]
    assert out["newly_acked"] == []


def test_bytes_in_flight_accounting(probe) -> None:
    for pn in range(5):
        probe.on_packet_sent(pn, 0.0, bytes=1000)
    assert probe.bytes_in_flight == 5000
    probe.on_ack([(4, 4)], 0.0, 0.1)  # acks 4, loses 0 and 1
    assert probe.bytes_in_flight == 2000
    assert probe.largest_acked == 4


def test_probe_rejects_bad_input(testing: ModuleType) -> None:
    p = testing.LossDetectorProbe()
    with pytest.raises(ValueError, match="packet number"):
        p.on_packet_sent(3, 0.0)
    with pytest.raises(ValueError, match="now_s"):
        p.on_ack([(0, 0)], 0.0, -1.0)
    with pytest.raises(ValueError, match="smallest > largest"):
        p.on_ack([(2, 1)], 0.0, 1.0)
    with pytest.raises(ValueError, match="time_threshold"):
        testing.LossDetectorProbe(time_threshold=0.5)
