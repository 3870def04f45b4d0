// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-trace-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpTraceTag);

TypeId
LeotpTraceTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeotpTraceTag")
                            .SetParent<Tag>()
                            .SetGroupName("Leogym")
                            .AddConstructor<LeotpTraceTag>();
    return tid;
}

TypeId
LeotpTraceTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
LeotpTraceTag::GetSerializedSize() const
{
    return 9;
}

void
LeotpTraceTag::Serialize(TagBuffer buf) const
{
    buf.WriteU64(static_cast<uint64_t>(firstSentTicks));
    buf.WriteU8(retransmitted);
}

void
LeotpTraceTag::Deserialize(TagBuffer buf)
{
    firstSentTicks = static_cast<int64_t>(buf.ReadU64());
    retransmitted = buf.ReadU8();
}

void
LeotpTraceTag::Print(std::ostream& os) const
{
    os << "firstSent=" << firstSentTicks << " retransmitted=" << +retransmitted;
}

} // namespace ns3
