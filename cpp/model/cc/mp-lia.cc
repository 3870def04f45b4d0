// SPDX-License-Identifier: GPL-2.0-only

#include "mp-lia.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpLia);

TypeId
MpLia::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpLia").SetParent<MpNewReno>().SetGroupName("Leogym").AddConstructor<MpLia>();
    return tid;
}

std::string
MpLia::GetName() const
{
    return "lia";
}

double
MpLia::ComputeAlpha(const MpCcContext& ctx) const
{
    double total = 0;
    double maxTerm = 0;
    double sum = 0;
    uint32_t n = ctx.conn->GetNPaths();
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        if (p.state == MpPathState::DEACTIVATED && i != ctx.path)
        {
            continue;
        }
        if (!p.HasRttSample())
        {
            continue;
        }
        double w = i == ctx.path ? m_cwndD : static_cast<double>(p.cwnd);
        double rtt = std::max(p.Srtt().GetSeconds(), 1e-6);
        total += w;
        maxTerm = std::max(maxTerm, w / (rtt * rtt));
        sum += w / rtt;
    }
    if (sum <= 0)
    {
        return 1.0;
    }
    return total * maxTerm / (sum * sum);
}

double
MpLia::CongestionAvoidanceIncrease(const MpCcContext& ctx, const MpAckEvent&, uint64_t bytes)
{
    double total = 0;
    uint32_t n = ctx.conn->GetNPaths();
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        if (i == ctx.path)
        {
            total += m_cwndD;
        }
        else if (p.state != MpPathState::DEACTIVATED && p.HasRttSample())
        {
            total += static_cast<double>(p.cwnd);
        }
    }
    double mss = static_cast<double>(m_mss);
    double b = static_cast<double>(bytes);
    double coupled = ComputeAlpha(ctx) * b * mss / total;
    double uncoupled = b * mss / m_cwndD;
    return std::min(coupled, uncoupled);
}

} // namespace ns3
