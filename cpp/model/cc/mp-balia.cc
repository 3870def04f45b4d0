// SPDX-License-Identifier: GPL-2.0-only

#include "mp-balia.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpBalia);

TypeId
MpBalia::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpBalia")
                            .SetParent<MpNewReno>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpBalia>();
    return tid;
}

std::string
MpBalia::GetName() const
{
    return "balia";
}

void
MpBalia::Rates(const MpCcContext& ctx, double& sum, double& maxX, double& self) const
{
    uint32_t n = ctx.conn->GetNPaths();
    double mss = static_cast<double>(m_mss);
    sum = 0;
    maxX = 0;
    self = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        if (i != ctx.path && (p.state == MpPathState::DEACTIVATED || !p.HasRttSample()))
        {
            continue;
        }
        double w = (i == ctx.path ? m_cwndD : static_cast<double>(p.cwnd)) / mss;
        double tau = std::max(p.Srtt().GetSeconds(), 1e-6);
        double x = w / tau;
        sum += x;
        maxX = std::max(maxX, x);
        if (i == ctx.path)
        {
            self = x;
        }
    }
}

double
MpBalia::CongestionAvoidanceIncrease(const MpCcContext& ctx, const MpAckEvent&, uint64_t bytes)
{
    double sum;
    double maxX;
    double x;
    Rates(ctx, sum, maxX, x);
    if (x <= 0 || sum <= 0)
    {
        return static_cast<double>(m_mss) * static_cast<double>(bytes) / m_cwndD;
    }
    double tau = std::max(ctx.Path().Srtt().GetSeconds(), 1e-6);
    double alpha = maxX / x;
    double perPacket = (x / tau) / (sum * sum) * (1.0 + alpha) / 2.0 * (4.0 + alpha) / 5.0;
    return perPacket * static_cast<double>(bytes);
}

double
MpBalia::ReducedWindow(const MpCcContext& ctx)
{
    double sum;
    double maxX;
    double x;
    Rates(ctx, sum, maxX, x);
    double alpha = x > 0 ? maxX / x : 1.0;
    return m_cwndD - (m_cwndD / 2.0) * std::min(alpha, 1.5);
}

} // namespace ns3
