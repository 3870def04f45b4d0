// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-header.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpHeader);

TypeId
LeotpHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeotpHeader")
                            .SetParent<Header>()
                            .SetGroupName("Leogym")
                            .AddConstructor<LeotpHeader>();
    return tid;
}

TypeId
LeotpHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
LeotpHeader::GetSerializedSize() const
{
    return type == LeotpType::DATA_BL ? kSizeWithBacklog : kSize;
}

void
LeotpHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(static_cast<uint8_t>(type));
    i.WriteHtonU32(flowId);
    i.WriteHtonU32(rangeStart);
    i.WriteHtonU32(rangeEnd);
    i.WriteHtonU32(timestamp);
    i.WriteHtonU16(rateOrLength);
    if (type == LeotpType::DATA_BL)
    {
        i.WriteHtonU16(static_cast<uint16_t>(srcBacklog));
    }
}

uint32_t
LeotpHeader::Deserialize(Buffer::Iterator i)
{
    const uint8_t t = i.ReadU8();
    valid = t >= static_cast<uint8_t>(LeotpType::INTEREST) &&
            t <= static_cast<uint8_t>(LeotpType::DATA_BL);
    type = valid ? static_cast<LeotpType>(t) : LeotpType::INTEREST;
    flowId = i.ReadNtohU32();
    rangeStart = i.ReadNtohU32();
    rangeEnd = i.ReadNtohU32();
    timestamp = i.ReadNtohU32();
    rateOrLength = i.ReadNtohU16();
    srcBacklog = 0;
    if (type == LeotpType::DATA_BL)
    {
        srcBacklog = static_cast<int16_t>(i.ReadNtohU16());
    }
    return GetSerializedSize();
}

void
LeotpHeader::Print(std::ostream& os) const
{
    os << (IsInterest() ? "INTEREST" : (IsVph() ? "VPH" : "DATA")) << " flow=" << flowId << " ["
       << rangeStart << ", " << rangeEnd << ") ts=" << timestamp
       << (IsInterest() ? " rate=" : " len=") << rateOrLength;
    if (type == LeotpType::DATA_BL)
    {
        os << " backlog=" << srcBacklog;
    }
}

LeotpHeader
LeotpHeader::Interest(uint32_t flow,
                      uint32_t start,
                      uint32_t end,
                      uint32_t timestampUs,
                      uint16_t rateField)
{
    LeotpHeader h;
    h.type = LeotpType::INTEREST;
    h.flowId = flow;
    h.rangeStart = start;
    h.rangeEnd = end;
    h.timestamp = timestampUs;
    h.rateOrLength = rateField;
    return h;
}

LeotpHeader
LeotpHeader::Data(uint32_t flow,
                  uint32_t start,
                  uint32_t end,
                  uint32_t timestampUs,
                  bool withBacklog,
                  int16_t backlog)
{
    LeotpHeader h;
    h.type = withBacklog ? LeotpType::DATA_BL : LeotpType::DATA;
    h.flowId = flow;
    h.rangeStart = start;
    h.rangeEnd = end;
    h.timestamp = timestampUs;
    h.rateOrLength = static_cast<uint16_t>(end - start);
    h.srcBacklog = withBacklog ? backlog : 0;
    return h;
}

LeotpHeader
LeotpHeader::Vph(uint32_t flow, uint32_t start, uint32_t end, uint32_t timestampUs)
{
    LeotpHeader h = Data(flow, start, end, timestampUs, false);
    h.rateOrLength = 0;
    return h;
}

bool
LeotpHeader::IsInterest() const
{
    return type == LeotpType::INTEREST;
}

bool
LeotpHeader::IsData() const
{
    return type == LeotpType::DATA || type == LeotpType::DATA_BL;
}

bool
LeotpHeader::IsVph() const
{
    return IsData() && rateOrLength == 0;
}

uint32_t
LeotpHeader::TimestampUs(double seconds)
{
    const auto us = static_cast<uint64_t>(std::llround(seconds * 1e6));
    return static_cast<uint32_t>(us & 0xffffffffu);
}

double
LeotpHeader::ElapsedS(uint32_t nowUs, uint32_t stampUs)
{
    return static_cast<double>(static_cast<uint32_t>(nowUs - stampUs)) * 1e-6;
}

uint16_t
LeotpHeader::RateField(double bps)
{
    if (!(bps > 0))
    {
        return 0;
    }
    const double units = std::round(bps / kRateUnitBps);
    if (units < 1.0)
    {
        return 1;
    }
    return units > 65535.0 ? 65535 : static_cast<uint16_t>(units);
}

double
LeotpHeader::FieldRate(uint16_t field)
{
    return static_cast<double>(field) * kRateUnitBps;
}

} // namespace ns3
