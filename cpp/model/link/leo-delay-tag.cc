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
    return 2 * sizeof(double);
}

void
LeoDelayTag::Serialize(TagBuffer buf) const
{
    buf.WriteDouble(sentS);
    buf.WriteDouble(queueS);
}

void
LeoDelayTag::Deserialize(TagBuffer buf)
{
    sentS = buf.ReadDouble();
    queueS = buf.ReadDouble();
}

void
LeoDelayTag::Print(std::ostream& os) const
{
    os << "sent=" << sentS << "s queue=" << queueS << "s";
}

} // namespace ns3
