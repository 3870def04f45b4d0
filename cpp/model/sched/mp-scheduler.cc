// SPDX-License-Identifier: GPL-2.0-only

#include "mp-scheduler.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpScheduler);

TypeId
MpScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpScheduler").SetParent<Object>().SetGroupName("Leogym");
    return tid;
}

MpScheduler::MpScheduler()
{
    m_cand.reserve(8);
}

MpScheduler::~MpScheduler() = default;

void
MpScheduler::Init(MpConnectionView&)
{
}

void
MpScheduler::OnPacketSent(MpConnectionView&, uint32_t, const MpSentPacket&)
{
}

void
MpScheduler::OnAck(MpConnectionView&, uint32_t, const MpAckEvent&)
{
}

void
MpScheduler::OnPathEvent(MpConnectionView&, uint32_t, const MpPathEvent&)
{
}

void
MpScheduler::OnFlowControlBlocked(MpConnectionView&)
{
}

bool
MpScheduler::IsExternal() const
{
    return false;
}

void
MpScheduler::SetWeights(const std::vector<double>&)
{
    throw std::invalid_argument("set_weights needs scheduler='external' (this is '" + GetName() +
                                "')");
}

void
MpScheduler::SetPathChoice(int32_t)
{
    throw std::invalid_argument("set_path_choice needs scheduler='external' (this is '" +
                                GetName() + "')");
}

void
MpScheduler::Candidates(const MpConnectionView& conn, std::vector<uint32_t>& out)
{
    out.clear();
    uint32_t n = conn.GetNPaths();
    // Pass 0: active, not in timeout; 1: standby, not in timeout; 2: active in timeout;
    // 3: standby in timeout (timeout: PTO, RTO or RTO recovery, MpPathInfo::InTimeout).
    for (int pass = 0; pass < 4 && out.empty(); ++pass)
    {
        MpPathState want = (pass % 2 == 0) ? MpPathState::ACTIVE : MpPathState::STANDBY;
        bool wantPto = pass >= 2;
        for (uint32_t i = 0; i < n; ++i)
        {
            const MpPathInfo& p = conn.GetPath(i);
            if (p.state == want && p.InTimeout() == wantPto)
            {
                out.push_back(i);
            }
        }
    }
}

int32_t
MpScheduler::MinRttAvailable(const MpConnectionView& conn,
                             const std::vector<uint32_t>& cand,
                             uint32_t bytes,
                             uint32_t avoidMask)
{
    int32_t best = -1;
    int32_t bestAvoided = -1;
    Time bestRtt;
    Time bestAvoidedRtt;
    for (uint32_t i : cand)
    {
        const MpPathInfo& p = conn.GetPath(i);
        if (!p.IsAvailable(bytes))
        {
            continue;
        }
        Time rtt = p.Srtt();
        if (i < 32 && (avoidMask & (1u << i)))
        {
            if (bestAvoided < 0 || rtt < bestAvoidedRtt)
            {
                bestAvoided = static_cast<int32_t>(i);
                bestAvoidedRtt = rtt;
            }
            continue;
        }
        if (best < 0 || rtt < bestRtt)
        {
            best = static_cast<int32_t>(i);
            bestRtt = rtt;
        }
    }
    return best >= 0 ? best : bestAvoided;
}

int32_t
MpScheduler::MinRttAny(const MpConnectionView& conn, const std::vector<uint32_t>& cand)
{
    int32_t best = -1;
    Time bestRtt;
    for (uint32_t i : cand)
    {
        Time rtt = conn.GetPath(i).Srtt();
        if (best < 0 || rtt < bestRtt)
        {
            best = static_cast<int32_t>(i);
            bestRtt = rtt;
        }
    }
    return best;
}

} // namespace ns3
