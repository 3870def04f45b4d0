// SPDX-License-Identifier: GPL-2.0-only

#include "mp-olia.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpOlia);

TypeId
MpOlia::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpOlia")
                            .SetParent<MpNewReno>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpOlia>();
    return tid;
}

std::string
MpOlia::GetName() const
{
    return "olia";
}

double
MpOlia::GetL() const
{
    return std::max(m_l1, m_l2);
}

void
MpOlia::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    m_l2 += static_cast<double>(ev.bytesAcked);
    MpNewReno::OnAck(ctx, ev);
}

void
MpOlia::OnCongestionEvent(const MpCcContext&)
{
    m_l1 = m_l2;
    m_l2 = 0;
}

double
MpOlia::ComputeAlpha(const MpCcContext& ctx) const
{
    uint32_t n = ctx.conn->GetNPaths();
    constexpr double kEps = 1e-12;
    // Collect the considered paths' windows (packets), RTTs and l / tau^2.
    double bestQ = -1;
    double maxW = -1;
    uint32_t considered = 0;

    struct Entry
    {
        uint32_t idx;
        double w;
        double q;
    };

    std::vector<Entry> entries;
    entries.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        if (i != ctx.path && (p.state == MpPathState::DEACTIVATED || !p.HasRttSample()))
        {
            continue;
        }
        double w = (i == ctx.path ? m_cwndD : static_cast<double>(p.cwnd)) / m_mss;
        double tau = std::max(p.Srtt().GetSeconds(), 1e-6);
        double l = GetL();
        if (i != ctx.path)
        {
            auto* other = dynamic_cast<MpOlia*>(ctx.conn->GetPathCc(i));
            l = other ? other->GetL() : 0.0;
        }
        double q = l / (tau * tau);
        entries.push_back({i, w, q});
        bestQ = std::max(bestQ, q);
        maxW = std::max(maxW, w);
        ++considered;
    }
    if (considered <= 1)
    {
        return 0.0;
    }
    uint32_t nB_M = 0;
    uint32_t nM = 0;
    bool selfInBM = false;
    bool selfInM = false;
    for (const auto& e : entries)
    {
        bool inB = e.q >= bestQ - kEps * std::max(1.0, bestQ);
        bool inM = e.w >= maxW - kEps * std::max(1.0, maxW);
        if (inM)
        {
            ++nM;
            selfInM |= e.idx == ctx.path;
        }
        if (inB && !inM)
        {
            ++nB_M;
            selfInBM |= e.idx == ctx.path;
        }
    }
    if (nB_M == 0)
    {
        return 0.0;
    }
    double nn = static_cast<double>(considered);
    if (selfInBM)
    {
        return 1.0 / (nn * nB_M);
    }
    if (selfInM)
    {
        return -1.0 / (nn * nM);
    }
    return 0.0;
}

double
MpOlia::CongestionAvoidanceIncrease(const MpCcContext& ctx, const MpAckEvent&, uint64_t bytes)
{
    uint32_t n = ctx.conn->GetNPaths();
    double mss = static_cast<double>(m_mss);
    double sum = 0;
    double wSelf = m_cwndD / mss;
    double tauSelf = std::max(ctx.Path().Srtt().GetSeconds(), 1e-6);
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        if (i != ctx.path && (p.state == MpPathState::DEACTIVATED || !p.HasRttSample()))
        {
            continue;
        }
        double w = (i == ctx.path ? m_cwndD : static_cast<double>(p.cwnd)) / mss;
        double tau = std::max(p.Srtt().GetSeconds(), 1e-6);
        sum += w / tau;
    }
    double perPacket = (wSelf / (tauSelf * tauSelf)) / (sum * sum) + ComputeAlpha(ctx) / wSelf;
    return perPacket * static_cast<double>(bytes); // (bytes / mss) packets * mss bytes
}

} // namespace ns3
