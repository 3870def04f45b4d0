"""``run_reference_flow(..., tcp_attributes=...)``: ns-3 TCP attribute defaults for one run.

Expected values come from ns-3 3.44's documented defaults (TcpSocket InitialCwnd 10 segments,
TcpSocketBase MinRto 1 s), RFC 6298 (the RTO doubles on every expiry, section 5.5) and the
arithmetic of the first round trip: the sender connects from the server, so its first data
leave one RTT after the SYN, and nothing but the initial window arrives before the first ACK
can have come back.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from leogym.simulation.native_config import synthetic_path

SEGMENT = 1448


@pytest.mark.parametrize("iw", [10, 3])
def test_initial_cwnd_sets_the_first_flight(testing: ModuleType, iw: int) -> None:
    # RTT 0.6 s: SYN at 0, SYN-ACK back at 0.6, the first flight arrives from 0.9 s on; the
    # next segments leave on the first ACK (>= 1.2 s) and arrive >= 1.5 s.
    path = synthetic_path(3.0, rate_bps=10e6, delay_s=0.3, queue_packets=1000)
    attrs = {} if iw == 10 else {"ns3::TcpSocket::InitialCwnd": iw}  # 10 = ns-3's default
    r = testing.run_reference_flow(
        "tcp_bulk", [path], 1.45, segment_bytes=SEGMENT, tcp_attributes=attrs
    )
    assert r["rx_bytes"] == iw * SEGMENT


def test_min_rto_sets_the_timeout_ladder_of_an_outage(testing: ModuleType) -> None:
    # A 1.2 s outage on a 100 ms path; the timer runs from the last ACK before it (~3.0 s).
    # MinRto 1 s (ns-3's default): RTO = 1 s, doubling (RFC 6298 5.5): expiries at ~4.0 (in
    # the outage) and ~6.0 s, where the retransmission gets through. MinRto 0.2 s: RTO =
    # max(0.2, SRTT + 4 RTTVAR) ~ 0.2 s: expiries at ~3.2, ~3.6 (in) and ~4.4 s. One loss
    # episode either way.
    path = synthetic_path(9.0, rate_bps=10e6, delay_s=0.05, queue_packets=84, outages=[(3.0, 4.2)])
    slow = testing.run_reference_flow("tcp_bulk", [path], 8.0)
    fast = testing.run_reference_flow(
        "tcp_bulk", [path], 8.0, tcp_attributes={"ns3::TcpSocketBase::MinRto": 0.2}
    )
    assert slow["rto_expiries"] == 2
    assert fast["rto_expiries"] == 3
    assert slow["loss_episodes"] == fast["loss_episodes"] == 1
    assert fast["rx_bytes"] > slow["rx_bytes"]  # it resumes ~1.6 s sooner


def test_attributes_do_not_outlive_their_run(testing: ModuleType) -> None:
    path = synthetic_path(
        5.0, rate_bps=20e6, delay_s=0.05, loss=1e-3, loss_up=0.0, queue_packets=166
    )
    before = testing.run_reference_flow("tcp_bulk", [path], 4.0, seed=3)
    changed = testing.run_reference_flow(
        "tcp_bulk",
        [path],
        4.0,
        seed=3,
        tcp_attributes={
            "ns3::TcpSocket::InitialCwnd": 2,
            "ns3::TcpSocket::DelAckCount": 1,
            "ns3::TcpSocketBase::MinRto": 0.2,
            "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery",
        },
    )
    after = testing.run_reference_flow("tcp_bulk", [path], 4.0, seed=3)
    assert changed["rx_bytes"] != before["rx_bytes"]
    for key in ("rx_bytes", "events", "retransmissions", "recovery_episodes"):
        assert after[key] == before[key], key


def test_cubic_attributes_reach_the_congestion_control(testing: ModuleType) -> None:
    # TcpCubic's multiplicative decrease: a smaller Beta leaves less of the window per loss.
    path = synthetic_path(
        21.0, rate_bps=20e6, delay_s=0.05, loss=1e-3, loss_up=0.0, queue_packets=166
    )
    kw: dict[str, Any] = {"tcp_variant": "ns3::TcpCubic", "segment_bytes": SEGMENT}
    default = testing.run_reference_flow("tcp_bulk", [path], 20.0, **kw)
    harsh = testing.run_reference_flow(
        "tcp_bulk", [path], 20.0, tcp_attributes={"ns3::TcpCubic::Beta": 0.5}, **kw
    )
    assert harsh["goodput_bps"] < 0.9 * default["goodput_bps"]


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"ns3::TcpSocketBase::InitialCwnd": 4}, "defined on ns3::TcpSocket"),
        ({"ns3::TcpNope::X": 1}, "no TypeId"),
        ({"ns3::Node::Id": 1}, "not a TCP TypeId"),
        ({"MinRto": 1.0}, "TypeId name"),
        ({"ns3::TcpSocketBase::Nope": 1}, "no attribute 'Nope'"),
        ({"ns3::TcpSocketBase::MinRto": -1.0}, "seconds"),
        ({"ns3::TcpSocketBase::MinRto": "1s"}, "seconds"),
        ({"ns3::TcpCubic::HyStart": 1}, "bool"),
        ({"ns3::TcpSocket::DelAckCount": 1.5}, "int"),
        ({"ns3::TcpSocket::DelAckCount": 0}, ">= 1"),
        ({"ns3::TcpSocketBase::MaxWindowSize": 70000}, "out of range"),
        ({"ns3::TcpCubic::Beta": float("nan")}, "finite"),
        ({"ns3::TcpCubic::HyStartDetect": "SOMETIMES"}, "PACKET_TRAIN, DELAY, BOTH"),
        ({"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpCubic"}, "TcpRecoveryOps"),
        ({"ns3::TcpL4Protocol::RecoveryType": "ns3::Nope"}, "TcpRecoveryOps"),
        ({"ns3::TcpL4Protocol::SocketType": "ns3::TcpCubic"}, "tcp_variant"),
        ({"ns3::TcpSocket::SegmentSize": 1000}, "segment_bytes"),
        ({"ns3::TcpSocketBase::CongestionOps": 0}, "PointerValue"),
        ({"ns3::TcpSocket::InitialCwnd": [4]}, "bool, int, float or str"),
    ],
)
def test_bad_attributes_are_value_errors_naming_the_key(
    testing: ModuleType, attrs: dict[str, Any], message: str
) -> None:
    key = next(iter(attrs))
    with pytest.raises(ValueError, match=message) as err:
        testing.run_reference_flow("tcp_bulk", [synthetic_path(2.0)], 1.0, tcp_attributes=attrs)
    assert f"tcp_attributes['{key}']" in str(err.value)


@pytest.mark.parametrize("bad", ["ns3::TcpSocketBase::MinRto", [("a", 1)], {1: 2}])
def test_tcp_attributes_must_be_a_dict_with_string_keys(testing: ModuleType, bad: Any) -> None:
    with pytest.raises(ValueError, match="tcp_attributes"):
        testing.run_reference_flow("tcp_bulk", [synthetic_path(2.0)], 1.0, tcp_attributes=bad)


def test_a_refused_attribute_leaves_the_process_usable(testing: ModuleType) -> None:
    path = synthetic_path(3.0, rate_bps=20e6, delay_s=0.02, queue_packets=100)
    ok = testing.run_reference_flow("tcp_bulk", [path], 2.0)
    with pytest.raises(ValueError):
        testing.run_reference_flow(
            "tcp_bulk",
            [path],
            2.0,
            tcp_attributes={"ns3::TcpSocket::InitialCwnd": 2, "ns3::TcpCubic::Beta": "x"},
        )
    again = testing.run_reference_flow("tcp_bulk", [path], 2.0)
    assert again["rx_bytes"] == ok["rx_bytes"]
