// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpTraceTag: measurement metadata of a LEOTP Data packet (not on the wire).

#ifndef LEOTP_TRACE_TAG_H
#define LEOTP_TRACE_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leotp
 * A packet tag the Producer puts on every Data packet, for the measurements of
 * cpp/doc/leotp.md ("Measurements"): when the Producer first sent these bytes, and whether
 * this copy is a retransmission (the Producer sending a chunk again, or a Midnode serving it
 * from its cache). Midnodes keep it on what they forward and put it (from their cache) on what
 * they serve. The Consumer reads it: the one-way delay of a chunk from its first transmission,
 * and the recovery time of retransmitted data (the paper's Fig. 10).
 */
class LeotpTraceTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buf) const override;
    void Deserialize(TagBuffer buf) override;
    void Print(std::ostream& os) const override;

    int64_t firstSentTicks{0}; //!< the Producer's first transmission (Time steps)
    uint8_t retransmitted{0};  //!< 1: a copy sent again (by the Producer or from a cache)
};

} // namespace ns3

#endif // LEOTP_TRACE_TAG_H
