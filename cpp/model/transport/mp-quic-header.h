// SPDX-License-Identifier: GPL-2.0-only
//
// Compact wire headers of the multipath QUIC-like transport: a DATA packet header carrying
// one stream frame, and an ACK packet header carrying one path's ACK frame.

#ifndef MP_QUIC_HEADER_H
#define MP_QUIC_HEADER_H

#include "mp-sent-packet.h"

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/// Packet type, the first byte of every transport packet.
enum class MpQuicPacketType : uint8_t
{
    DATA = 0,
    ACK = 1,
    ACK_ECN = 2, //!< an ACK frame with ECN counts (RFC 9000 section 19.3.2)
};

/**
 * @ingroup mp-transport
 * Header of a DATA packet (server -> client): 17 bytes,
 *
 *   type (1) = 0 | path (1) | flags (1) | packet number (4) | stream offset (8) | length (2)
 *
 * The payload that follows is `length` bytes of stream data (a zero-filled ns-3 payload, so it
 * costs no copying). flags bit 0: FIN (the frame ends the stream); bit 1: PING (no stream
 * data; the packet only elicits an ACK). Packet numbers are 32-bit on the wire, which is more
 * than any run sends on one path.
 */
class MpQuicDataHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 17;
    static constexpr uint8_t kFlagFin = 1;
    static constexpr uint8_t kFlagPing = 2;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t path{0};
    uint8_t flags{0};
    uint64_t pn{0};
    uint64_t offset{0};
    uint16_t length{0};
    bool valid{true}; //!< false after Deserialize() read a wrong type byte
};

/**
 * @ingroup mp-transport
 * Header of an ACK packet (client -> server), carrying one path's ACK frame:
 *
 *   type (1) = 1 | path (1) | range count n (1) | ack delay, microseconds (4)
 *   | max data (8) | largest acknowledged (4) | first range length (4)
 *   | (gap (4), range length (4)) x (n - 1)
 *
 * 23 + 8 (n - 1) bytes. The ACK_ECN variant (type 2, RFC 9000 section 19.3.2's type 0x03)
 * appends the path's ECN counts: ECT(0) (4) | ECT(1) (4) | CE (4), 12 more bytes; the
 * receiver sends it only when the connection's ECN is on and one of its counts is non-zero. As in
 * RFC 9000 section 19.3, ranges go from the largest packet number down: the first range is [largest
 * - first_len, largest]; each further range starts gap + 2 below the smallest number of the
 * previous one. max data is the connection-level flow-control limit (RFC 9000 MAX_DATA): the sender
 * may send stream bytes below it.
 */
class MpQuicAckHeader : public Header
{
  public:
    static constexpr uint32_t kMaxRanges = 32;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Bytes the ACK_ECN variant adds (three 32-bit counts).
    static constexpr uint32_t kEcnCountsSize = 12;

    uint8_t path{0};
    uint8_t nRanges{0};
    uint32_t ackDelayUs{0};
    uint64_t maxData{0};
    /// Ranges, largest first, disjoint and descending.
    std::array<MpAckRange, kMaxRanges> ranges{};
    bool hasEcn{false}; //!< an ACK_ECN frame: the counts below are on the wire
    uint64_t ect0{0};   //!< packets of the path received with ECT(0), cumulative
    uint64_t ect1{0};   //!< ... with ECT(1)
    uint64_t ce{0};     //!< ... with CE
    bool valid{true};   //!< false after Deserialize() read a malformed frame
};

} // namespace ns3

#endif // MP_QUIC_HEADER_H
