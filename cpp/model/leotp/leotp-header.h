// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpHeader: the Interest and Data header of LEOTP (L. Jiang, Y. Zhang, J. Yin, B. Liu,
// X. Zhang, "LEOTP: An Information-centric Transport Layer Protocol for LEO Satellite
// Networks", ICDCS 2023; section IV.B, Table I).

#ifndef LEOTP_HEADER_H
#define LEOTP_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/// Packet type, the first byte of every LEOTP packet (paper Table I, "type").
enum class LeotpType : uint8_t
{
    INTEREST = 1, //!< TYPE_INT: a request for a byte range (19 bytes, no payload)
    DATA = 2,     //!< TYPE_DATA: bytes of a range, or a void packet header (19 bytes)
    DATA_BL = 3,  //!< TYPE_DATA with the srcBacklog extension (21 bytes); see below
};

/**
 * @ingroup leotp
 * The LEOTP header of paper Table I, big-endian:
 *
 *   type (1) | FlowID (4) | rangeStart (4) | rangeEnd (4) | timestamp (4) | sendRate/length (2)
 *
 * 19 bytes. The paper's text says 15 bytes, but its Table I's fields sum to 19, the size the
 * authors' code uses; we follow the table (cpp/doc/leotp.md, "Header").
 *
 *  - An Interest asks for the bytes [rangeStart, rangeEnd) of flow FlowID; its last field is
 *    sendRate, the rate the next node upstream (the Responder) may send at on this hop, in
 *    units of 10 kbit/s (0: no change). rangeStart == rangeEnd == 0 is an empty Interest that
 *    only carries the rate.
 *  - A Data packet carries [rangeStart, rangeEnd); its last field is length = rangeEnd -
 *    rangeStart, the payload bytes that follow. A void packet header (VPH) is a Data header
 *    with length 0 and no payload; its range is the hole it announces.
 *  - timestamp: microseconds modulo 2^32 (it wraps after 71.6 minutes; differences are taken
 *    modulo 2^32). On an Interest it is the send time at the previous node; on Data the
 *    previous node writes t_send - OWD of the latest Interest it received on this hop, so that
 *    now - timestamp at the receiver is the hop's RTT without the holding time (section III.C).
 *  - srcBacklog (extension, type DATA_BL only, 2 more bytes, signed): the Producer's
 *    (BL_tar - BL) / packet, rounded, in packets; the Consumer paces its Interests with it
 *    (cpp/doc/leotp.md, "Interest pacing"). Midnodes pass it on unchanged; Data served from a
 *    cache carries 0 ("no report"). Table I has no such field; the authors' code carries it.
 *
 * Byte offsets are 32-bit on the wire, as in Table I: a flow carries at most 2^32 - 1 bytes.
 */
class LeotpHeader : public Header
{
  public:
    /// Size of an Interest, a VPH and a Data header without srcBacklog (Table I).
    static constexpr uint32_t kSize = 19;
    /// Size of a Data header with the srcBacklog extension.
    static constexpr uint32_t kSizeWithBacklog = 21;
    /// sendRate unit (bit/s).
    static constexpr double kRateUnitBps = 1e4;
    /**
     * A Data timestamp of 0 means "no stamp" [REC]: the Responder has no Interest OWD of the
     * hop the packet goes down (cpp/doc/leotp.md, "Hop-by-hop congestion control", computes the
     * sample only for a valid stamp, `d.ts_valid`), and the Requester takes no hop-RTT sample from
     * it. A valid stamp that would read 0 is written as 1 (1 us off, once in 71.6 min).
     */
    static constexpr uint32_t kNoTimestamp = 0;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// An Interest for [start, end) carrying @p rateField (10 kbit/s units).
    static LeotpHeader Interest(uint32_t flow,
                                uint32_t start,
                                uint32_t end,
                                uint32_t timestampUs,
                                uint16_t rateField);
    /// A Data header for [start, end) (length = end - start); @p withBacklog adds srcBacklog.
    static LeotpHeader Data(uint32_t flow,
                            uint32_t start,
                            uint32_t end,
                            uint32_t timestampUs,
                            bool withBacklog,
                            int16_t backlog = 0);
    /// A void packet header announcing the hole [start, end).
    static LeotpHeader Vph(uint32_t flow, uint32_t start, uint32_t end, uint32_t timestampUs);

    bool IsInterest() const;
    bool IsData() const;
    /// A Data header with length 0 (a void packet header).
    bool IsVph() const;

    /// Microseconds modulo 2^32 of a simulation time (s).
    static uint32_t TimestampUs(double seconds);
    /// now - stamp in seconds, modulo 2^32 microseconds.
    static double ElapsedS(uint32_t nowUs, uint32_t stampUs);
    /// A rate (bit/s) as the sendRate field: rounded to 10 kbit/s, at least 1 unit, at most
    /// 65535 units (655.35 Mbit/s); 0 only for a non-positive rate.
    static uint16_t RateField(double bps);
    /// The sendRate field as bit/s.
    static double FieldRate(uint16_t field);

    LeotpType type{LeotpType::INTEREST};
    uint32_t flowId{0};
    uint32_t rangeStart{0};
    uint32_t rangeEnd{0};
    uint32_t timestamp{0};
    uint16_t rateOrLength{0}; //!< Interest: sendRate (10 kbit/s units); Data: length
    int16_t srcBacklog{0};    //!< DATA_BL only
    bool valid{true};         //!< false after Deserialize() read an unknown type byte
};

} // namespace ns3

#endif // LEOTP_HEADER_H
