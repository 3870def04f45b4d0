// SPDX-License-Identifier: GPL-2.0-only

#include "mp-quic-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpQuicDataHeader);
NS_OBJECT_ENSURE_REGISTERED(MpQuicAckHeader);

TypeId
MpQuicDataHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpQuicDataHeader")
                            .SetParent<Header>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpQuicDataHeader>();
    return tid;
}

TypeId
MpQuicDataHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MpQuicDataHeader::GetSerializedSize() const
{
    return kSize;
}

void
MpQuicDataHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(static_cast<uint8_t>(MpQuicPacketType::DATA));
    i.WriteU8(path);
    i.WriteU8(flags);
    i.WriteHtonU32(static_cast<uint32_t>(pn));
    i.WriteHtonU64(offset);
    i.WriteHtonU16(length);
}

uint32_t
MpQuicDataHeader::Deserialize(Buffer::Iterator i)
{
    valid = i.ReadU8() == static_cast<uint8_t>(MpQuicPacketType::DATA);
    path = i.ReadU8();
    flags = i.ReadU8();
    pn = i.ReadNtohU32();
    offset = i.ReadNtohU64();
    length = i.ReadNtohU16();
    return kSize;
}

void
MpQuicDataHeader::Print(std::ostream& os) const
{
    os << "DATA path=" << +path << " pn=" << pn << " off=" << offset << " len=" << length
       << " flags=" << +flags;
}

TypeId
MpQuicAckHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpQuicAckHeader")
                            .SetParent<Header>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpQuicAckHeader>();
    return tid;
}

TypeId
MpQuicAckHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MpQuicAckHeader::GetSerializedSize() const
{
    uint32_t n = nRanges == 0 ? 1 : nRanges;
    return 23 + 8 * (n - 1) + (hasEcn ? kEcnCountsSize : 0);
}

void
MpQuicAckHeader::Serialize(Buffer::Iterator i) const
{
    uint8_t n = nRanges == 0 ? 1 : nRanges;
    i.WriteU8(static_cast<uint8_t>(hasEcn ? MpQuicPacketType::ACK_ECN : MpQuicPacketType::ACK));
    i.WriteU8(path);
    i.WriteU8(n);
    i.WriteHtonU32(ackDelayUs);
    i.WriteHtonU64(maxData);
    if (nRanges == 0)
    {
        i.WriteHtonU32(0);
        i.WriteHtonU32(0);
    }
    else
    {
        i.WriteHtonU32(static_cast<uint32_t>(ranges[0].largest));
        i.WriteHtonU32(static_cast<uint32_t>(ranges[0].largest - ranges[0].smallest));
        for (uint8_t k = 1; k < n; ++k)
        {
            uint64_t gap = ranges[k - 1].smallest - ranges[k].largest - 2;
            i.WriteHtonU32(static_cast<uint32_t>(gap));
            i.WriteHtonU32(static_cast<uint32_t>(ranges[k].largest - ranges[k].smallest));
        }
    }
    if (hasEcn)
    {
        i.WriteHtonU32(static_cast<uint32_t>(ect0));
        i.WriteHtonU32(static_cast<uint32_t>(ect1));
        i.WriteHtonU32(static_cast<uint32_t>(ce));
    }
}

uint32_t
MpQuicAckHeader::Deserialize(Buffer::Iterator i)
{
    const uint8_t type = i.ReadU8();
    hasEcn = type == static_cast<uint8_t>(MpQuicPacketType::ACK_ECN);
    valid = hasEcn || type == static_cast<uint8_t>(MpQuicPacketType::ACK);
    ect0 = ect1 = ce = 0;
    path = i.ReadU8();
    uint8_t n = i.ReadU8();
    ackDelayUs = i.ReadNtohU32();
    maxData = i.ReadNtohU64();
    if (n == 0 || n > kMaxRanges)
    {
        valid = false;
        nRanges = 0;
        hasEcn = false;
        return 23;
    }
    nRanges = n;
    uint64_t largest = i.ReadNtohU32();
    uint64_t len = i.ReadNtohU32();
    if (len > largest)
    {
        valid = false;
    }
    ranges[0].largest = largest;
    ranges[0].smallest = largest - (len > largest ? largest : len);
    for (uint8_t k = 1; k < n; ++k)
    {
        uint64_t gap = i.ReadNtohU32();
        uint64_t rlen = i.ReadNtohU32();
        uint64_t prevSmall = ranges[k - 1].smallest;
        if (prevSmall < gap + 2 || prevSmall - gap - 2 < rlen)
        {
            valid = false;
            nRanges = k;
            // consume the rest to keep the reported size right
            for (uint8_t j = k + 1; j < n; ++j)
            {
                i.ReadNtohU32();
                i.ReadNtohU32();
            }
            hasEcn = false; // the counts are not read: the frame is dropped
            return 23 + 8 * (n - 1);
        }
        ranges[k].largest = prevSmall - gap - 2;
        ranges[k].smallest = ranges[k].largest - rlen;
    }
    if (hasEcn)
    {
        ect0 = i.ReadNtohU32();
        ect1 = i.ReadNtohU32();
        ce = i.ReadNtohU32();
        return 23 + 8 * (n - 1) + kEcnCountsSize;
    }
    return 23 + 8 * (n - 1);
}

void
MpQuicAckHeader::Print(std::ostream& os) const
{
    os << (hasEcn ? "ACK_ECN" : "ACK") << " path=" << +path << " delay_us=" << ackDelayUs
       << " max_data=" << maxData;
    if (hasEcn)
    {
        os << " ect0=" << ect0 << " ect1=" << ect1 << " ce=" << ce;
    }
    for (uint8_t k = 0; k < nRanges; ++k)
    {
        os << " [" << ranges[k].smallest << "," << ranges[k].largest << "]";
    }
}

} // namespace ns3
