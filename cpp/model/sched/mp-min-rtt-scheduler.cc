// SPDX-License-Identifier: GPL-2.0-only

#include "mp-min-rtt-scheduler.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpMinRttScheduler);

TypeId
MpMinRttScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpMinRttScheduler")
                            .SetParent<MpScheduler>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpMinRttScheduler>();
    return tid;
}

std::string
MpMinRttScheduler::GetName() const
{
    return "minrtt";
}

int32_t
MpMinRttScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    Candidates(conn, m_cand);
    return MinRttAvailable(conn, m_cand, req.bytes, req.retransmission ? req.pathMask : 0);
}

} // namespace ns3
