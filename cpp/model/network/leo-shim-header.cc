// SPDX-License-Identifier: GPL-2.0-only

#include "leo-shim-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeoShimHeader);

TypeId
LeoShimHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeoShimHeader")
                            .SetParent<Header>()
                            .SetGroupName("Leo")
                            .AddConstructor<LeoShimHeader>();
    return tid;
}

TypeId
LeoShimHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
LeoShimHeader::GetSerializedSize() const
{
    return kSize;
}

void
LeoShimHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(static_cast<uint8_t>((kVersion << 4) | (ecn & 0x3)));
    i.WriteU8(ttl);
    i.WriteHtonU16(length);
    i.WriteHtonU32(source.Get());
    i.WriteHtonU32(destination.Get());
    i.WriteHtonU16(sourcePort);
    i.WriteHtonU16(destinationPort);
    i.WriteHtonU16(flow);
    i.WriteU8(0, kSize - 18);
}

uint32_t
LeoShimHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    const uint8_t b0 = i.ReadU8();
    valid = IsShim(b0);
    ecn = b0 & 0x3;
    ttl = i.ReadU8();
    length = i.ReadNtohU16();
    source = Ipv4Address(i.ReadNtohU32());
    destination = Ipv4Address(i.ReadNtohU32());
    sourcePort = i.ReadNtohU16();
    destinationPort = i.ReadNtohU16();
    flow = i.ReadNtohU16();
    return kSize;
}

void
LeoShimHeader::Print(std::ostream& os) const
{
    os << "shim " << source << ":" << sourcePort << " > " << destination << ":" << destinationPort
       << " flow " << flow << " ttl " << unsigned(ttl) << " ecn " << unsigned(ecn) << " length "
       << length;
}

bool
LeoShimHeader::IsShim(uint8_t firstByte)
{
    return (firstByte >> 4) == kVersion;
}

Ipv4Address
LeoShimHeader::DestinationOf(const uint8_t* b)
{
    return Ipv4Address((uint32_t(b[8]) << 24) | (uint32_t(b[9]) << 16) | (uint32_t(b[10]) << 8) |
                       uint32_t(b[11]));
}

} // namespace ns3
