// SPDX-License-Identifier: GPL-2.0-only

#include "mp-new-reno.h"

#include "ns3/boolean.h"
#include "ns3/double.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpNewReno);

TypeId
MpNewReno::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpNewReno")
            .SetParent<MpCongestionOps>()
            .SetGroupName("Leogym")
            .AddConstructor<MpNewReno>()
            .AddAttribute("LossReductionFactor",
                          "kLossReductionFactor: ssthresh = cwnd * factor on a congestion event.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpNewReno::m_lossReduction),
                          MakeDoubleChecker<double>(0.05, 0.95))
            .AddAttribute("ByteCounting",
                          "Grow by bytes acknowledged (RFC 9002 / RFC 3465); false: per ACK "
                          "frame as RFC 5681 eq. 3.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpNewReno::m_byteCounting),
                          MakeBooleanChecker());
    return tid;
}

MpNewReno::MpNewReno()
    : m_lossReduction(0.5)
{
}

std::string
MpNewReno::GetName() const
{
    return "newreno";
}

void
MpNewReno::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_cwndD = static_cast<double>(m_cwnd);
    m_recovery.Reset();
}

bool
MpNewReno::InRecovery(Time sentTime) const
{
    return m_recovery.Covers(sentTime);
}

double
MpNewReno::CongestionAvoidanceIncrease(const MpCcContext&, const MpAckEvent&, uint64_t bytes)
{
    return static_cast<double>(m_mss) * static_cast<double>(bytes) / m_cwndD;
}

double
MpNewReno::ReducedWindow(const MpCcContext&)
{
    return m_cwndD * m_lossReduction;
}

void
MpNewReno::OnCongestionEvent(const MpCcContext&)
{
}

void
MpNewReno::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    if (ctx.Path().appLimited)
    {
        return; // RFC 9002 7.8: do not grow an under-used window
    }
    uint64_t eligible = m_recovery.EligibleAckedBytes(ev);
    if (eligible == 0)
    {
        return;
    }
    if (!m_byteCounting)
    {
        // RFC 5681: one increment per ACK frame.
        if (InSlowStart())
        {
            m_cwndD += std::min<double>(static_cast<double>(eligible), m_mss);
        }
        else
        {
            m_cwndD += CongestionAvoidanceIncrease(ctx, ev, m_mss);
        }
        CommitRealWindow(m_cwndD);
        return;
    }
    if (InSlowStart())
    {
        double room = static_cast<double>(m_ssthresh) - m_cwndD;
        double ss = std::min<double>(static_cast<double>(eligible), std::max(room, 0.0));
        if (m_ssthresh == std::numeric_limits<uint64_t>::max())
        {
            ss = static_cast<double>(eligible);
        }
        m_cwndD += ss;
        eligible -= static_cast<uint64_t>(ss);
        if (eligible == 0 || m_cwndD < static_cast<double>(m_ssthresh))
        {
            CommitRealWindow(m_cwndD);
            return;
        }
    }
    m_cwndD += CongestionAvoidanceIncrease(ctx, ev, eligible);
    CommitRealWindow(m_cwndD);
}

void
MpNewReno::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    if (ev.nLost == 0 || InRecovery(ev.largestLostSentTime))
    {
        return;
    }
    m_recovery.Begin(ev.now);
    double reduced = ReducedWindow(ctx);
    m_ssthresh = static_cast<uint64_t>(std::max(reduced, 0.0));
    m_cwndD = std::max(reduced, static_cast<double>(MinimumWindow(m_mss)));
    CommitRealWindow(m_cwndD);
    OnCongestionEvent(ctx);
}

void
MpNewReno::OnPersistentCongestion(const MpCcContext&)
{
    m_cwndD = static_cast<double>(MinimumWindow(m_mss));
    m_recovery.Reset();
    CommitRealWindow(m_cwndD);
}

} // namespace ns3
