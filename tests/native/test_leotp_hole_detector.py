"""Algorithm 1 of LEOTP (sequence-hole retransmission and void packet headers; section
III.B; cpp/doc/leotp.md, "Loss detection"), with N = 1 and packet i covering [i, i + 1).

The sequences and their outcomes are the paper's Fig. 8b and the algorithm's text: a hole is
announced (VPH) by the node that first sees it, before the packet that reveals it, and is
requested upstream once more than N later packets skipped it (strictly: the revealing packet
does not count).
"""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture()
def det(testing: ModuleType):
    return testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1)


def feed(det, packets):
    return [det.on_packet(s, s + 1 if e is None else e) for s, e in packets]


def test_fig8b_midnode_announces_then_requests_on_the_second_later_packet(det) -> None:
    r1, r3, r4, r5 = feed(det, [(1, None), (3, None), (4, None), (5, None)])
    assert r1["vph"] is None and r1["requests"] == []
    assert r3["vph"] == (2, 3) and r3["requests"] == []  # VPH [2, 3) before packet 3
    assert r4["vph"] is None and r4["requests"] == []  # count 1, not > N
    assert r5["requests"] == [(2, 3)]  # count 2 > N: Interest [2, 3)
    assert det.holes == []  # SHR does not track the request


def test_fig8b_downstream_node_sees_no_gap(det) -> None:
    # Packet 1, the VPH [2, 3) (a header: it is fed like Data), 3, 4, 5.
    out = feed(det, [(1, None), (2, 3), (3, None), (4, None), (5, None)])
    assert all(r["vph"] is None and r["requests"] == [] for r in out)


def test_reordering_is_announced_but_not_requested(det) -> None:
    out = feed(det, [(1, None), (3, None), (2, None), (4, None), (5, None)])
    assert out[1]["vph"] == (2, 3)
    assert all(r["requests"] == [] for r in out)
    assert det.holes == []


def test_late_retransmission_changes_nothing(det) -> None:
    feed(det, [(1, None), (3, None), (4, None), (5, None)])
    late = det.on_packet(2, 3)
    assert late["vph"] is None and late["requests"] == []
    assert det.last_byte == 6


def test_burst_loss_is_one_hole_requested_in_chunks(det, testing: ModuleType) -> None:
    r1, r5, r6, r7 = feed(det, [(1, None), (5, None), (6, None), (7, None)])
    assert r5["vph"] == (2, 5)
    assert r6["requests"] == []
    assert r7["requests"] == [(2, 5)]
    # Requests (and VPHs) go out per chunk: 3 chunks of 1 byte here.
    assert testing.LeotpHoleDetectorProbe.split_chunks(2, 5, 1) == [(2, 3), (3, 4), (4, 5)]
    # With 1451-byte chunks, a hole is cut at chunk boundaries.
    assert testing.LeotpHoleDetectorProbe.split_chunks(1000, 4000, 1451) == [
        (1000, 1451),
        (1451, 2902),
        (2902, 4000),
    ]


def test_partial_fill_splits_the_hole_and_keeps_its_count(det) -> None:
    feed(det, [(1, None), (6, None), (7, None)])  # hole [2, 6), count 1 after packet 7
    assert det.holes == [(2, 6, 1)]
    assert det.on_packet(3, 4)["requests"] == []  # a late packet inside the hole
    assert det.holes == [(2, 3, 1), (4, 6, 1)]
    # The next later packet takes both pieces over N.
    assert det.on_packet(8, 9)["requests"] == [(2, 3), (4, 6)]


def test_fresh_node_opens_no_hole(det) -> None:
    r = det.on_packet(1000, 1001)
    assert r["vph"] is None and r["requests"] == []
    assert det.last_byte == 1001
    assert det.holes == []


def test_jump_over_100_chunks_resynchronises(testing: ModuleType) -> None:
    det = testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1451)
    det.on_packet(0, 1451)
    jump = 1451 + 100 * 1451 + 1  # more than 100 MSS beyond lastByte
    r = det.on_packet(jump, jump + 1451)
    assert r["resync"] and r["vph"] is None
    assert det.holes == []
    assert det.last_byte == jump + 1451
    # exactly 100 MSS is still a loss
    det2 = testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1451)
    det2.on_packet(0, 1451)
    r = det2.on_packet(1451 + 100 * 1451, 1451 + 101 * 1451)
    assert not r["resync"] and r["vph"] == (1451, 1451 + 100 * 1451)


def test_open_hole_is_requested_at_expiry(testing: ModuleType) -> None:
    det = testing.LeotpHoleDetectorProbe(threshold=1, chunk_bytes=1, expiry_s=0.2)
    det.on_packet(1, 2, now_s=1.0)
    det.on_packet(3, 4, now_s=1.01)  # hole [2, 3) opened at 1.01, then the flow pauses
    assert det.next_expiry_s() == pytest.approx(1.21)
    assert det.expire(1.2) == []
    assert det.expire(1.21) == [(2, 3)]
    assert det.holes == []
