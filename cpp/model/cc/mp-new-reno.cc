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
                          MakeBooleanChecker())
            .AddAttribute("HyStart",
                          "HyStart++ (RFC 9406) in the initial slow start: a delay increase "
                          "leads to Conservative Slow Start, then congestion avoidance. Off by "
                          "default: RFC 9002's NewReno has no HyStart, so every existing figure "
                          "stands. Plain NewReno only; LIA, OLIA and BALIA ignore it.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpNewReno::m_hyStartOn),
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
    // The coupled controllers derive from NewReno and keep RFC 6356's uncoupled slow start.
    m_hyStartAllowed = GetInstanceTypeId() == MpNewReno::GetTypeId();
    m_hyStart.Reset();
}

bool
MpNewReno::InRecovery(Time sentTime) const
{
    return m_recovery.Covers(sentTime);
}

const MpHyStart*
MpNewReno::GetHyStart() const
{
    return m_hyStartOn && m_hyStartAllowed ? &m_hyStart : nullptr;
}

bool
MpNewReno::HyStartRunning() const
{
    return m_hyStartOn && m_hyStartAllowed && m_hyStart.IsActive() &&
           m_ssthresh == std::numeric_limits<uint64_t>::max();
}

void
MpNewReno::OnPacketSent(const MpCcContext&, const MpSentPacket& p)
{
    if (HyStartRunning())
    {
        m_hyStart.OnPacketSent(p.pn);
    }
}

bool
MpNewReno::HyStartSlowStart(const MpCcContext& ctx, const MpAckEvent& ev, uint64_t bytes)
{
    uint64_t largest = ev.nAcked > 0 ? ev.acked[ev.nAcked - 1].pn : 0;
    auto out = m_hyStart.OnAck(largest,
                               ev.rttSampled,
                               ev.latestRtt,
                               bytes,
                               m_mss,
                               ctx.Path().pacingRateBps > 0);
    if (out.enterAvoidance)
    {
        m_ssthresh = m_cwnd; // RFC 9406 section 4.2: after CSS_ROUNDS, ssthresh = cwnd
        return false;
    }
    m_cwndD += out.increase;
    return true;
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
        if (InSlowStart() && HyStartRunning() &&
            HyStartSlowStart(ctx, ev, std::min<uint64_t>(eligible, m_mss)))
        {
            CommitRealWindow(m_cwndD);
            return;
        }
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
    if (InSlowStart() && HyStartRunning() && HyStartSlowStart(ctx, ev, eligible))
    {
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
    // nLost == 0: an ECN CE increase (RFC 9002 section 7.1), a congestion event all the same.
    if (InRecovery(ev.largestLostSentTime))
    {
        return;
    }
    m_recovery.Begin(ev.now);
    m_hyStart.OnCongestionEvent(); // RFC 9406 section 4.3: the initial slow start only
    double reduced = ReducedWindow(ctx);
    m_ssthresh = static_cast<uint64_t>(std::max(reduced, 0.0));
    m_cwndD = std::max(reduced, static_cast<double>(MinimumWindow(m_mss)));
    CommitRealWindow(m_cwndD);
    OnCongestionEvent(ctx);
}

void
MpNewReno::SetWindow(uint64_t bytes)
{
    m_cwndD = static_cast<double>(bytes);
    m_cwnd = bytes;
}

void
MpNewReno::OnPersistentCongestion(const MpCcContext&)
{
    m_cwndD = static_cast<double>(MinimumWindow(m_mss));
    m_recovery.Reset();
    m_hyStart.OnCongestionEvent();
    CommitRealWindow(m_cwndD);
}

} // namespace ns3
