// SPDX-License-Identifier: GPL-2.0-only

#include "leo-delay-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeoDelayTag);

TypeId
LeoDelayTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeoDelayTag")
                            .SetParent<Tag>()
                            .SetGroupName("Leo")
                            .AddConstructor<LeoDelayTag>();
    return tid;
}

TypeId
LeoDelayTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
LeoDelayTag::GetSerializedSize() const
{
    return 2 * sizeof(int64_t);
}

void
LeoDelayTag::Serialize(TagBuffer buf) const
{
    buf.WriteU64(static_cast<uint64_t>(sentTicks));
    buf.WriteU64(static_cast<uint64_t>(queueTicks));
}

void
LeoDelayTag::Deserialize(TagBuffer buf)
{
    sentTicks = static_cast<int64_t>(buf.ReadU64());
    queueTicks = static_cast<int64_t>(buf.ReadU64());
}

void
LeoDelayTag::Print(std::ostream& os) const
{
    os << "sent=" << sentTicks << " queue=" << queueTicks << " (Time steps)";
}

} // namespace ns3
