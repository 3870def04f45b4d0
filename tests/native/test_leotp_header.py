"""LEOTP's header (paper Table I) and its timestamp rule (section III.C); cpp/doc/leotp.md,
"Validation".

Reference values are arithmetic on Table I: type (1) + FlowID (4) + rangeStart (4) + rangeEnd
(4) + timestamp (4) + sendRate/length (2) = 19 bytes; the srcBacklog extension adds 2. On the
wire UDP adds 8 and IPv4 20 bytes, so an Interest or a void header is 47 bytes and a full Data
packet 1500 bytes with MSS = 1500 - 47 = 1453 (1451 with srcBacklog).
"""

from __future__ import annotations

from types import ModuleType

import pytest


def test_interest_and_void_header_are_19_bytes(testing: ModuleType) -> None:
    interest = testing.leotp_header("interest", flow=7, start=0, end=1453, send_rate_bps=1e7)
    assert interest["header_bytes"] == 19
    assert interest["packet_bytes"] == 19
    assert interest["wire_bytes"] == 47
    vph = testing.leotp_header("vph", flow=7, start=2906, end=4359)
    assert vph["header_bytes"] == 19
    assert vph["packet_bytes"] == 19  # no payload
    assert vph["wire_bytes"] == 47
    assert vph["is_vph"] and vph["is_data"] and not vph["is_interest"]
    assert vph["rate_or_length"] == 0  # length 0: the range is the hole it announces
    assert (vph["start"], vph["end"]) == (2906, 4359)


def test_data_is_header_plus_length(testing: ModuleType) -> None:
    data = testing.leotp_header("data", flow=3, start=1000, end=1600)
    assert data["header_bytes"] == 19
    assert data["rate_or_length"] == 600  # length = rangeEnd - rangeStart
    assert data["packet_bytes"] == 19 + 600
    with_backlog = testing.leotp_header("data_bl", flow=3, start=1000, end=1600, backlog=-4)
    assert with_backlog["header_bytes"] == 21
    assert with_backlog["packet_bytes"] == 21 + 600
    assert with_backlog["backlog"] == -4


@pytest.mark.parametrize(("kind", "mss"), [("data", 1453), ("data_bl", 1451)])
def test_full_packet_is_1500_bytes_of_ip(testing: ModuleType, kind: str, mss: int) -> None:
    assert testing.leotp_header(kind, start=0, end=mss)["wire_bytes"] == 1500


def test_fields_are_big_endian_in_table_order(testing: ModuleType) -> None:
    h = testing.leotp_header(
        "interest",
        flow=0x01020304,
        start=0x0A0B0C0D,
        end=0x11121314,
        timestamp_us=0x21222324,
        send_rate_bps=2.5e6,
    )
    b = h["bytes"]
    assert b[0] == 1  # TYPE_INT
    assert b[1:5] == bytes([1, 2, 3, 4])
    assert b[5:9] == bytes([0x0A, 0x0B, 0x0C, 0x0D])
    assert b[9:13] == bytes([0x11, 0x12, 0x13, 0x14])
    assert b[13:17] == bytes([0x21, 0x22, 0x23, 0x24])
    assert b[17:19] == (250).to_bytes(2, "big")  # 2.5 Mbit/s in units of 10 kbit/s
    assert h["send_rate_bps"] == 2.5e6
    assert (h["flow"], h["start"], h["end"], h["timestamp_us"]) == (
        0x01020304,
        0x0A0B0C0D,
        0x11121314,
        0x21222324,
    )


def test_send_rate_field_is_10_kbit_units(testing: ModuleType) -> None:
    assert testing.leotp_rate_field(10e6) == 1000
    assert testing.leotp_rate_field(123_456.0) == 12  # rounded to 10 kbit/s
    assert testing.leotp_rate_field(1.0) == 1  # a positive rate never reads as "no change"
    assert testing.leotp_rate_field(0.0) == 0
    assert testing.leotp_rate_field(1e9) == 65535  # 655.35 Mbit/s, the field's largest


def test_hop_rtt_sample_cancels_offset_and_holding_time(testing: ModuleType) -> None:
    # Spec 4.2 item 6: Requester clock 37 ms ahead, Interest OWD 4 ms, Responder holds the
    # Data 50 ms, Data OWD 6 ms: the sample is 4 + 6 = 10 ms.
    s = testing.leotp_hop_rtt_sample(
        t0_s=12.345, clock_offset_s=0.037, interest_owd_s=0.004, hold_s=0.050, data_owd_s=0.006
    )
    assert s == pytest.approx(0.010, abs=1e-6)
    # The offset may also be negative, and the 32-bit microsecond clock may wrap in between
    # (2**32 us = 4294.967296 s).
    s = testing.leotp_hop_rtt_sample(
        t0_s=4294.9, clock_offset_s=-0.2, interest_owd_s=0.004, hold_s=0.300, data_owd_s=0.006
    )
    assert s == pytest.approx(0.010, abs=1e-6)
