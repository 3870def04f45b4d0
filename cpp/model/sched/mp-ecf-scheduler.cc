// SPDX-License-Identifier: GPL-2.0-only

#include "mp-ecf-scheduler.h"

#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpEcfScheduler);

TypeId
MpEcfScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpEcfScheduler")
                            .SetParent<MpScheduler>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpEcfScheduler>()
                            .AddAttribute("Beta",
                                          "Hysteresis beta of the waiting test.",
                                          DoubleValue(0.25),
                                          MakeDoubleAccessor(&MpEcfScheduler::m_beta),
                                          MakeDoubleChecker<double>(0.0, 10.0));
    return tid;
}

MpEcfScheduler::MpEcfScheduler()
    : m_beta(0.25)
{
}

std::string
MpEcfScheduler::GetName() const
{
    return "ecf";
}

int32_t
MpEcfScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    Candidates(conn, m_cand);
    int32_t f = MinRttAny(conn, m_cand);
    if (f < 0)
    {
        return -1;
    }
    const MpPathInfo& pf = conn.GetPath(static_cast<uint32_t>(f));
    if (pf.IsAvailable(req.bytes))
    {
        return f;
    }
    int32_t s = MinRttAvailable(conn, m_cand, req.bytes);
    if (s < 0 || s == f)
    {
        return s;
    }
    const MpPathInfo& ps = conn.GetPath(static_cast<uint32_t>(s));
    double k = static_cast<double>(conn.GetPendingBytes());
    double cwndF = std::max<double>(static_cast<double>(pf.cwnd), 1.0);
    double cwndS = std::max<double>(static_cast<double>(ps.cwnd), 1.0);
    double rttF = pf.Srtt().GetSeconds();
    double rttS = ps.Srtt().GetSeconds();
    double delta = std::max(pf.rtt->GetRttVar().GetSeconds(), ps.rtt->GetRttVar().GetSeconds());
    double n = 1.0 + std::max(k, cwndF) / cwndF;
    if (n * rttF < (1.0 + (m_waiting ? m_beta : 0.0)) * (rttS + delta))
    {
        if (std::max(k, cwndS) / cwndS * rttS >= 2.0 * rttF + delta)
        {
            m_waiting = true;
            return -1; // the next ACK on x_f re-invokes the scheduler
        }
        return s;
    }
    m_waiting = false;
    return s;
}

} // namespace ns3
