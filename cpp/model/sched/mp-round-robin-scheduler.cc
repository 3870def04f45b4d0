// SPDX-License-Identifier: GPL-2.0-only

#include "mp-round-robin-scheduler.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpRoundRobinScheduler);

TypeId
MpRoundRobinScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpRoundRobinScheduler")
                            .SetParent<MpScheduler>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpRoundRobinScheduler>();
    return tid;
}

std::string
MpRoundRobinScheduler::GetName() const
{
    return "roundrobin";
}

int32_t
MpRoundRobinScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    Candidates(conn, m_cand);
    if (m_cand.empty())
    {
        return -1;
    }
    // First candidate after m_last (cyclically) with room.
    std::size_t n = m_cand.size();
    std::size_t start = 0;
    while (start < n && static_cast<int32_t>(m_cand[start]) <= m_last)
    {
        ++start;
    }
    for (std::size_t k = 0; k < n; ++k)
    {
        uint32_t i = m_cand[(start + k) % n];
        if (conn.GetPath(i).IsAvailable(req.bytes))
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

void
MpRoundRobinScheduler::OnPacketSent(MpConnectionView&, uint32_t path, const MpSentPacket& p)
{
    if (!p.probe)
    {
        m_last = static_cast<int32_t>(path);
    }
}

} // namespace ns3
